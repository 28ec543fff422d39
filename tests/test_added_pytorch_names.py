"""Operators and names PyTorch programs use that dagrad lacked, each compared with PyTorch
(their gradients are rows of tests/autograd/op_table.py): ``//`` and ``%`` with Python's signs,
unbind, unsqueeze_/t_, normalize, cosine_similarity, 1-D pooling, samplers, bare ``@no_grad``."""
import numpy as np
import pytest

from dagrad import torch as dt
from tests.helpers import torch_or_skip

INTS = [7, -7, 6, -1, 0]
DIVISORS = [2, 2, -4, 3, -3]


@pytest.mark.parametrize("op", ["//", "%"])
@pytest.mark.parametrize("kind", ["int", "float", "int-by-float", "reflected"])
def test_floor_division_and_remainder_follow_pythons_signs_as_pytorch(op, kind):
    torch = torch_or_skip()
    fn = {"//": lambda a, b: a // b, "%": lambda a, b: a % b}[op]
    for lib in (torch, dt):
        a = lib.tensor(INTS if kind != "float" else [x + 0.5 for x in INTS])
        b = lib.tensor(DIVISORS if kind == "int" else [d * 1.5 for d in DIVISORS])
        result = fn(7.5, b) if kind == "reflected" else fn(a, b)
        if lib is torch:
            expected = result
        else:
            assert str(result.dtype) == str(expected.dtype).replace("torch.", "")
            np.testing.assert_array_equal(result.numpy(), expected.numpy())


def test_integer_division_by_zero_raises_and_float_division_gives_inf_and_nan():
    torch = torch_or_skip()
    for lib in (torch, dt):
        for op in (lambda a, b: a // b, lambda a, b: a % b):
            with pytest.raises(RuntimeError, match="ZeroDivisionError"):
                op(lib.tensor([1, 2]), lib.tensor([1, 0]))
    with np.errstate(divide="ignore", invalid="ignore"):
        assert (dt.tensor([1.0]) // 0).tolist() == (torch.tensor([1.0]) // 0).tolist() == [
            float("inf")]
        assert np.isnan((dt.tensor([1.0]) % 0).item())


def test_in_place_floor_division_and_remainder():
    torch = torch_or_skip()
    outs = []
    for lib in (torch, dt):
        w = lib.tensor([7.0, -8.0])
        w //= 3
        w %= 1.5
        outs.append(w.tolist())
    assert outs[0] == outs[1]


def test_unbind_gives_the_slices_along_dim():
    torch = torch_or_skip()
    values = np.arange(24.0).reshape(2, 3, 4)
    for dim in (0, 1, -1):
        ours, theirs = dt.tensor(values).unbind(dim), torch.tensor(values).unbind(dim)
        assert isinstance(ours, tuple) and len(ours) == len(theirs)
        for a, b in zip(ours, theirs):
            np.testing.assert_array_equal(a.numpy(), b.numpy())
        assert [t.tolist() for t in dt.unbind(dt.tensor(values), dim)] == [
            t.tolist() for t in torch.unbind(torch.tensor(values), dim)]


def test_in_place_shape_changes_keep_the_tensor_and_raise_where_pytorch_raises():
    torch = torch_or_skip()
    for lib in (torch, dt):
        y = lib.ones(2, 3) * 1
        assert y.t_() is y and tuple(y.shape) == (3, 2)
        assert y.unsqueeze_(0) is y and tuple(y.shape) == (1, 3, 2)
        assert tuple(y.squeeze_(0).shape) == (3, 2)
        with pytest.raises(RuntimeError, match="a leaf Variable that requires grad"):
            lib.ones(2, requires_grad=True).unsqueeze_(0)
        with pytest.raises(RuntimeError, match=r"t_\(\) expects a tensor with <= 2 dimensions"):
            lib.ones(2, 3, 4).t_()


def test_normalize_and_cosine_similarity_match_pytorch_at_the_edges():
    torch = torch_or_skip()
    values = np.array([[3.0, 4.0], [0.0, 0.0], [1e-13, 0.0]])
    for kwargs in ({}, {"p": 1.0}, {"dim": 0}):
        ours = dt.nn.functional.normalize(dt.tensor(values), **kwargs)
        theirs = torch.nn.functional.normalize(torch.tensor(values), **kwargs)
        np.testing.assert_allclose(ours.numpy(), theirs.numpy(), rtol=1e-12)
    other = np.array([[1.0, 0.0], [1.0, 1.0], [0.0, 2.0]])
    ours = dt.nn.functional.cosine_similarity(dt.tensor(values), dt.tensor(other))
    theirs = torch.nn.functional.cosine_similarity(torch.tensor(values), torch.tensor(other))
    np.testing.assert_allclose(ours.numpy(), theirs.numpy(), rtol=1e-12)


@pytest.mark.parametrize("name,args", [("max_pool1d", (3, 2, 1, 1, True)),
                                       ("avg_pool1d", (2, 1, 1, False, False)),
                                       ("avg_pool1d", (3,))])
def test_one_dimensional_pooling_matches_pytorch(name, args):
    torch = torch_or_skip()
    x = np.random.default_rng(0).standard_normal((2, 3, 9))
    ours = getattr(dt.nn.functional, name)(dt.tensor(x), *args)
    theirs = getattr(torch.nn.functional, name)(torch.tensor(x), *args)
    np.testing.assert_allclose(ours.numpy(), theirs.numpy(), rtol=1e-12)
    values, idx = dt.nn.functional.max_pool1d(dt.tensor(x[0]), 2, return_indices=True)
    t_values, t_idx = torch.nn.functional.max_pool1d(torch.tensor(x[0]), 2, return_indices=True)
    np.testing.assert_array_equal(idx.numpy(), t_idx.numpy())


def test_data_loaders_with_samplers_visit_what_pytorchs_visit():
    torch = torch_or_skip()
    batches = []
    for lib in (torch, dt):
        data = lib.utils.data
        dataset = data.TensorDataset(lib.arange(10.0))
        loaders = [data.DataLoader(dataset, batch_size=3, sampler=[9, 1, 4, 4, 0]),
                   data.DataLoader(dataset, batch_size=2, drop_last=True,
                                   sampler=data.SequentialSampler(dataset)),
                   data.DataLoader(dataset, batch_sampler=data.BatchSampler(
                       data.SequentialSampler(range(7)), 3, drop_last=False))]
        batches.append([[b[0].tolist() for b in loader] for loader in loaders]
                       + [[len(loader) for loader in loaders]])
        shuffled = data.DataLoader(dataset, batch_size=4,
                                   sampler=data.SubsetRandomSampler([2, 5, 7]))
        assert sorted(x for b in shuffled for x in b[0].tolist()) == [2.0, 5.0, 7.0]
        with pytest.raises(ValueError, match="sampler option is mutually exclusive with shuffle"):
            data.DataLoader(dataset, shuffle=True, sampler=[1])
        with pytest.raises(ValueError, match="batch_sampler option is mutually exclusive"):
            data.DataLoader(dataset, batch_size=2, batch_sampler=[[1]])
    assert batches[0] == batches[1]


def test_no_grad_decorates_without_parentheses():
    torch = torch_or_skip()
    for lib in (torch, dt):
        @lib.no_grad
        def double(x):
            return x * 2

        @lib.enable_grad
        def triple(x):
            return x * 3

        x = lib.ones(2, requires_grad=True)
        assert not double(x).requires_grad and double.__name__ == "double"
        with lib.no_grad():
            assert triple(x).requires_grad
