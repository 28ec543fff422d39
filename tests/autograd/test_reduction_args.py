"""Reductions take PyTorch's dim/keepdim and NumPy's axis/keepdims, through one decorator."""
import numpy as np
import pytest

from dagrad import autograd as ag

X = np.arange(12.0).reshape(3, 4) ** 1.5


def t():
    return ag.tensor(X)


def test_numpy_spellings_work_for_every_reduction():
    np.testing.assert_allclose(t().var(keepdims=True).numpy(), X.var(ddof=1, keepdims=True))
    values, indices = t().max(axis=0, keepdims=True)
    np.testing.assert_allclose(values.numpy(), X.max(axis=0, keepdims=True))
    assert indices.shape == (1, 4)
    np.testing.assert_allclose(t().amax(axis=0).numpy(), X.max(axis=0))
    np.testing.assert_allclose(t().norm(axis=0).numpy(), np.linalg.norm(X, axis=0))
    np.testing.assert_allclose(t().std(axis=1, keepdims=True).numpy(),
                               X.std(axis=1, ddof=1, keepdims=True))
    np.testing.assert_allclose(t().prod(axis=-1).numpy(), X.prod(axis=-1))
    np.testing.assert_allclose(t().logsumexp(axis=0, keepdims=True).numpy(),
                               np.log(np.exp(X).sum(axis=0, keepdims=True)), rtol=1e-12)
    assert t().argmin(axis=1, keepdims=True).tolist() == [[0], [0], [0]]
    np.testing.assert_allclose(ag.softmax(t(), axis=0).numpy().sum(axis=0), 1.0)


def test_dims_are_normalised_once():
    np.testing.assert_allclose(t().sum((-1, 0)).numpy(), X.sum())
    np.testing.assert_allclose(ag.mean(t(), dim=[1]).numpy(), X.mean(axis=1))
    np.testing.assert_allclose(t().norm(1, -1).numpy(), np.abs(X).sum(axis=-1))
    with pytest.raises(IndexError, match=r"sum: dimension out of range .* got 2"):
        t().sum(2)
    with pytest.raises(ValueError, match="amax: dimension repeated"):
        t().amax((0, -2))


@pytest.mark.parametrize("call", [lambda x: x.softmax(dim=0, axis=1),
                                  lambda x: x.sum(0, axis=1),
                                  lambda x: ag.var(x, dim=0, axis=0),
                                  lambda x: x.max(1, axis=1)])
def test_dim_and_axis_together_are_refused(call):
    with pytest.raises(TypeError, match="give `dim` or its alias `axis`, not both"):
        call(t())


def test_keepdim_and_keepdims_together_are_refused():
    with pytest.raises(TypeError, match="mean: give `keepdim` or its alias `keepdims`"):
        t().mean(0, True, keepdims=True)
    with pytest.raises(TypeError, match="softmax.*unexpected keyword argument 'keepdims'"):
        t().softmax(0, keepdims=True)


def test_max_with_a_tensor_is_the_elementwise_maximum():
    np.testing.assert_allclose(t().max(ag.full((4,), 10.0)).numpy(), np.maximum(X, 10.0))
