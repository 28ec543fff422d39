"""The fused operations nn builds on (autograd/ops/nn_ops.py): gradcheck of the operation
itself, and of its gradient (the differentiable backward used by create_graph=True)."""
import numpy as np
import pytest

from dagrad import autograd as ag
from dagrad.autograd.ops.nn_ops import cross_entropy, normalize
from tests.helpers import leaves, random_inputs

NORMALIZE = [  # (x shape, axes, weight shape or None, bias shape or None)
    ((3, 5), (1,), (5,), (5,)),
    ((2, 3, 4), (1, 2), (3, 4), None),
    ((4, 3, 2), (0, 2), (1, 3, 1), (1, 3, 1)),
    ((5, 2), (0,), None, None),
]


def _normalize_inputs(x_shape, w_shape, b_shape, seed=0):
    shapes = [x_shape] + [s for s in (w_shape, b_shape) if s is not None]
    xs = iter(leaves(random_inputs(shapes, seed=seed)))
    x = next(xs)
    w = next(xs) if w_shape is not None else None
    b = next(xs) if b_shape is not None else None
    return x, w, b


@pytest.mark.parametrize("x_shape,axes,w_shape,b_shape", NORMALIZE)
def test_normalize_gradcheck(x_shape, axes, w_shape, b_shape):
    x, w, b = _normalize_inputs(x_shape, w_shape, b_shape)
    inputs = [t for t in (x, w, b) if t is not None]
    assert ag.gradcheck(lambda *_: normalize(x, axes, w, b), inputs)


@pytest.mark.parametrize("x_shape,axes,w_shape,b_shape", NORMALIZE)
def test_normalize_second_order_gradcheck(x_shape, axes, w_shape, b_shape):
    x, w, b = _normalize_inputs(x_shape, w_shape, b_shape)
    inputs = [t for t in (x, w, b) if t is not None]
    probe = ag.tensor(np.random.default_rng(5).standard_normal(x_shape))

    def gradient(*_):
        y = normalize(x, axes, w, b)
        return ag.grad((y * probe).sum() + (y * y * y).sum(), inputs, create_graph=True)

    assert ag.gradcheck(gradient, inputs)


def test_normalize_output_has_zero_mean_unit_variance():
    x = ag.tensor(np.random.default_rng(0).normal(3, 5, (4, 100)))
    y = normalize(x, (1,)).numpy()
    np.testing.assert_allclose(y.mean(1), 0, atol=1e-12)
    np.testing.assert_allclose(y.var(1), 1, rtol=1e-4)


CE = [  # (n, c, targets, weight, ignore_index, smoothing, reduction)
    (4, 3, [2, 0, 1, 2], None, -100, 0.0, "mean"),
    (4, 3, [2, -100, 1, 0], [0.5, 2.0, 1.5], -100, 0.0, "sum"),
    (4, 3, [2, 0, 1, 1], None, 1, 0.25, "none"),
    (5, 4, [3, 0, 1, 2, 3], [1.0, 2.0, 0.5, 1.5], 0, 0.1, "mean"),
]


@pytest.mark.parametrize("n,c,t,w,ignore,eps,reduction", CE)
def test_cross_entropy_gradcheck(n, c, t, w, ignore, eps, reduction):
    x, = leaves(random_inputs([(n, c)]))
    t = np.array(t)
    w = None if w is None else np.array(w)
    assert ag.gradcheck(lambda x: cross_entropy(x, t, w, ignore, eps, reduction), [x])


@pytest.mark.parametrize("n,c,t,w,ignore,eps,reduction", CE)
def test_cross_entropy_second_order_gradcheck(n, c, t, w, ignore, eps, reduction):
    x, = leaves(random_inputs([(n, c)]))
    t = np.array(t)
    w = None if w is None else np.array(w)

    def gradient(x):
        loss = cross_entropy(x, t, w, ignore, eps, reduction).sum()
        g, = ag.grad(loss, [x], create_graph=True)
        return g

    assert ag.gradcheck(gradient, [x])


def test_cross_entropy_fast_and_differentiable_backward_agree():
    x, = leaves(random_inputs([(6, 5)]))
    t = np.array([0, 4, 2, 2, 1, 3])
    fast, = ag.grad(cross_entropy(x, t), [x])
    slow, = ag.grad(cross_entropy(x, t), [x], create_graph=True)
    np.testing.assert_allclose(fast.numpy(), slow.numpy(), rtol=1e-12)
