"""Property tests: binary operations reduce their gradients to each input's own shape, for any
pair of broadcastable shapes, and agree with PyTorch (values and gradients, float64)."""
import numpy as np
import pytest
from hypothesis import given, settings, strategies as st
from hypothesis.extra.numpy import mutually_broadcastable_shapes

from dagrad import autograd as ag
from tests.helpers import torch_or_skip, torch_parity

# name -> (fn(m, a, b) for m in {autograd, torch}, input domain)
BINARY = {
    "add": (lambda m, a, b: a + b, "normal"),
    "sub": (lambda m, a, b: a - b, "normal"),
    "mul": (lambda m, a, b: a * b, "normal"),
    "div": (lambda m, a, b: a / (b * b + 1), "normal"),
    "pow": (lambda m, a, b: a ** b, "positive"),
    "maximum": (lambda m, a, b: m.maximum(a, b), "normal"),
    "minimum": (lambda m, a, b: m.minimum(a, b), "normal"),
    "where": (lambda m, a, b: m.where(a > 0, a, b), "normal"),
    "clamp_min": (lambda m, a, b: m.clamp(a, min=b), "normal"),
}


def _draw(rng, shape, domain):
    if domain == "positive":
        return rng.uniform(0.5, 2.0, size=shape)
    return rng.standard_normal(size=shape)


@pytest.mark.parametrize("name", sorted(BINARY))
@settings(max_examples=25, deadline=None)
@given(shapes=mutually_broadcastable_shapes(num_shapes=2, max_dims=3, max_side=3),
       seed=st.integers(0, 2 ** 16))
def test_broadcast_gradients(name, shapes, seed):
    fn, domain = BINARY[name]
    rng = np.random.default_rng(seed)
    sa, sb = shapes.input_shapes
    if name == "clamp_min" and np.broadcast_shapes(sa, sb) != sa:
        sa = shapes.result_shape          # PyTorch's clamp keeps the shape of its input
    arrays = [_draw(rng, sa, domain), _draw(rng, sb, domain)]
    a, b = (ag.tensor(x, requires_grad=True) for x in arrays)
    assert ag.gradcheck(lambda x, y: fn(ag, x, y), [a, b])
    out = fn(ag, a, b)
    assert out.shape == np.broadcast_shapes(sa, sb)
    out.sum().backward()
    assert a.grad.shape == a.shape and b.grad.shape == b.shape
    torch = torch_or_skip()
    torch_parity(lambda x, y: fn(ag, x, y), lambda x, y: fn(torch, x, y), arrays, seed=seed)


@settings(max_examples=30, deadline=None)
@given(batch=mutually_broadcastable_shapes(num_shapes=2, max_dims=3, max_side=3),
       n=st.integers(1, 3), k=st.integers(1, 3), m=st.integers(1, 3),
       seed=st.integers(0, 2 ** 16))
def test_batched_matmul_broadcasts_batch_dimensions(batch, n, k, m, seed):
    """(..., n, k) @ (..., k, m): the batch dimensions broadcast; each input's gradient is
    summed back over the batch dimensions it was broadcast along."""
    rng = np.random.default_rng(seed)
    ba, bb = batch.input_shapes
    arrays = [rng.standard_normal(ba + (n, k)), rng.standard_normal(bb + (k, m))]
    a, b = (ag.tensor(x, requires_grad=True) for x in arrays)
    out = a @ b
    assert out.shape == batch.result_shape + (n, m)
    assert ag.gradcheck(lambda x, y: x @ y, [a, b])
    torch_or_skip()
    torch_parity(lambda x, y: x @ y, lambda x, y: x @ y, arrays, seed=seed)
