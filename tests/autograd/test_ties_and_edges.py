"""Ties and edge cases (values and gradients) follow PyTorch: the points random inputs of the
operation table never hit (equal elements, zeros, NaN, 0-d tensors, bounds reached)."""
import numpy as np
import pytest

from dagrad import autograd as ag
from tests.helpers import torch_or_skip, torch_parity


def _F(m):
    return m.nn.functional if m.__name__ == "torch" else m


# name -> (fn(m, *xs), input arrays chosen to hit the tie or the edge)
CASES = {
    "max_all_ties": (lambda m, a: a.max(), [[1.0, 3.0, 3.0, 3.0]]),
    "min_all_ties": (lambda m, a: a.min(), [[[1.0, 1.0], [2.0, 1.0]]]),
    "max_all_nan": (lambda m, a: a.max(), [[1.0, np.nan, 3.0]]),
    "max_dim_ties": (lambda m, a: a.max(dim=1).values, [[[1.0, 3.0, 3.0], [2.0, 2.0, 2.0]]]),
    "min_dim_ties": (lambda m, a: a.min(dim=0).values, [[[1.0, 3.0], [1.0, 2.0]]]),
    "max_dim_0d_keepdim": (lambda m, a: a.max(dim=0, keepdim=True).values, [3.0]),
    "amax_ties": (lambda m, a: a.amax(dim=1), [[[1.0, 3.0, 3.0], [2.0, 2.0, 2.0]]]),
    "amin_ties": (lambda m, a: a.amin(dim=0), [[[1.0, 3.0], [1.0, 2.0]]]),
    "maximum_ties": (lambda m, a, b: m.maximum(a, b), [[1.0, 2.0, 0.0], [1.0, 1.0, 0.0]]),
    "minimum_ties": (lambda m, a, b: m.minimum(a, b), [[1.0, 2.0], [1.0, 3.0]]),
    "clamp_at_bounds": (lambda m, a: m.clamp(a, -0.5, 0.5), [[-0.5, 0.5, 0.7, -0.9, 0.0]]),
    "clamp_tensor_tie": (lambda m, a, b: m.clamp(a, min=b), [[1.0, 2.0, 0.0], [1.0, 3.0, -1.0]]),
    "clamp_tensor_both_ties": (lambda m, a, lo, hi: m.clamp(a, lo, hi),
                               [[1.0, 2.0, 5.0, 0.0], [1.0, 3.0, 0.0, 2.0],
                                [2.0, 2.0, 5.0, 1.0]]),
    "relu_at_zero": (lambda m, a: m.relu(a), [[0.0, -0.0, 1.0]]),
    "abs_at_zero": (lambda m, a: m.abs(a), [[0.0, -2.0]]),
    "leaky_relu_at_zero": (lambda m, a: _F(m).leaky_relu(a, 0.1), [[0.0]]),
    "elu_at_zero": (lambda m, a: _F(m).elu(a, 1.5), [[0.0]]),
    "softplus_at_threshold": (lambda m, a: _F(m).softplus(a, beta=2.0, threshold=2.0),
                              [[1.0, 1.5]]),
    "sqrt_at_zero": (lambda m, a: m.sqrt(a), [[0.0, 4.0]]),
    "pow_exponent_zero": (lambda m, a: a ** 0, [[0.0, 1.5]]),
    "pow_zero_base": (lambda m, a, b: a ** b, [[0.0, 0.0, 0.0], [0.0, 2.0, -1.0]]),
    "std_of_constant": (lambda m, a: a.std(dim=1), [[[3.0, 3.0], [1.0, 2.0]]]),
    "norm_at_zero": (lambda m, a: a.norm(), [[0.0, 0.0]]),
    "prod_with_zeros": (lambda m, a: a.prod(dim=1), [[[0.0, 2.0, 0.0], [0.0, 2.0, 3.0]]]),
    "where_tie_free_scalar": (lambda m, a: m.where(a > 0, a, 0.0), [[1.0, -2.0, 0.0]]),
    "index_repeated_pairs": (lambda m, a: a[[0, 0, 1], [1, 1, 2]],
                             [np.arange(6.0).reshape(2, 3)]),
    "softmax_0d": (lambda m, a: a.softmax(dim=-1), [2.0]),
    "logsumexp_0d": (lambda m, a: a.logsumexp(dim=0), [2.0]),
    "sigmoid_saturated": (lambda m, a: m.sigmoid(a), [[-800.0, 800.0]]),
}


@pytest.mark.filterwarnings("ignore::RuntimeWarning")
@pytest.mark.parametrize("name", sorted(CASES))
def test_matches_pytorch_at_ties_and_edges(name):
    torch = torch_or_skip()
    fn, arrays = CASES[name]
    torch_parity(lambda *x: fn(ag, *x), lambda *t: fn(torch, *t),
                 [np.asarray(a, dtype=np.float64) for a in arrays])


@pytest.mark.parametrize("op", ["max", "min"])
@pytest.mark.parametrize("dim,keepdim", [(0, False), (1, True), (-1, False), (-2, True)])
def test_max_min_with_dim_return_values_and_indices_as_pytorch(op, dim, keepdim):
    torch = torch_or_skip()
    data = np.array([[[1.0, 7.0, 7.0], [2.0, 2.0, -1.0]],
                     [[0.0, 5.0, 3.0], [4.0, 4.0, 4.0]]])      # ties along every dimension
    x = ag.tensor(data, requires_grad=True)
    t = torch.tensor(data, requires_grad=True)
    ours, theirs = getattr(x, op)(dim=dim, keepdim=keepdim), getattr(t, op)(dim=dim,
                                                                         keepdim=keepdim)
    values, indices = ours                                   # unpacks like torch.return_types
    assert values is ours.values and indices is ours.indices
    np.testing.assert_array_equal(values.numpy(), theirs.values.detach().numpy())
    np.testing.assert_array_equal(indices.numpy(), theirs.indices.numpy())
    assert indices.dtype == np.int64 and not indices.requires_grad
    w = np.arange(1.0, values.numpy().size + 1).reshape(values.shape)
    (values * ag.tensor(w)).sum().backward()
    (theirs.values * torch.tensor(w)).sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), t.grad.numpy())   # gradient to that index only
    arg = getattr(x, "arg" + op)(dim=dim, keepdim=keepdim)
    np.testing.assert_array_equal(arg.numpy(), indices.numpy())


def test_max_min_of_0d_tensor_with_dim():
    x = ag.tensor(np.float64(2.5), requires_grad=True)
    for keepdim in (False, True):
        values, indices = x.max(dim=0, keepdim=keepdim)
        assert values.shape == () and indices.shape == () and indices.item() == 0
    values, _ = x.min(dim=-1)
    values.backward()
    assert x.grad.item() == 1.0


def test_argmax_argmin_pick_the_first_of_ties():
    x = ag.tensor([[3.0, 1.0, 3.0], [0.0, 0.0, -1.0]])
    assert x.argmax().item() == 0 and x.argmin().item() == 5
    assert x.argmax(dim=1).tolist() == [0, 0] and x.argmin(dim=0).tolist() == [1, 1, 1]
    assert x.argmax(dim=1, keepdim=True).shape == (2, 1)
