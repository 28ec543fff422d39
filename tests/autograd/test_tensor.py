"""Tensor creation, dtypes, conversions and the PyTorch-style API surface."""
import numpy as np
import pytest

from dagrad import autograd as ag


def test_default_dtypes_follow_pytorch():
    assert ag.tensor([1.0, 2.0]).dtype == np.float32
    assert ag.tensor([1, 2]).dtype == np.int64
    assert ag.tensor([True]).dtype == np.bool_
    assert ag.tensor(np.zeros(2)).dtype == np.float64       # ndarrays keep their dtype
    assert ag.zeros(2, 3).dtype == np.float32 and ag.zeros(2, 3).shape == (2, 3)
    assert ag.arange(5).dtype == np.int64 and ag.arange(0.0, 1.0, 0.5).dtype == np.float32
    assert ag.ones((2, 2), dtype=ag.float64).dtype == np.float64


def test_tensor_copies_its_input():
    a = np.ones(3)
    t = ag.tensor(a)
    a[0] = 5
    assert t.numpy()[0] == 1


def test_manual_seed_makes_random_numbers_repeatable():
    ag.manual_seed(3)
    a = ag.randn(4)
    ag.manual_seed(3)
    assert np.array_equal(a.numpy(), ag.randn(4).numpy())
    assert ag.randint(0, 10, (5,)).dtype == np.int64
    assert ag.rand(2, 3).numpy().min() >= 0


def test_max_with_dim_returns_values_and_indices():
    x = ag.tensor([[1.0, 5.0, 2.0], [7.0, 0.0, 7.0]])
    values, indices = x.max(dim=1)
    assert values.tolist() == [5.0, 7.0] and indices.tolist() == [1, 0]
    assert x.argmax().item() == 3 and x.argmin(dim=0).tolist() == [0, 1, 0]


def test_comparisons_give_boolean_tensors_without_grad():
    x = ag.tensor([1.0, 2.0], requires_grad=True)
    m = x > 1.5
    assert m.dtype == np.bool_ and not m.requires_grad and m.tolist() == [False, True]


def test_conversions_and_repr():
    x = ag.tensor([[1.0, 2.0]], requires_grad=True)
    assert x.shape == (1, 2) and x.size(1) == 2 and x.numel() == 2 and x.ndim == 2
    assert "requires_grad=True" in repr(x)
    assert "grad_fn=<MulBackward0>" in repr(x * 2)
    assert (x.sum()).item() == 3.0 and float(x.sum()) == 3.0
    assert x.detach().requires_grad is False
    assert x.double().dtype == np.float64 and x.long().dtype == np.int64


def test_cast_is_differentiable():
    x = ag.tensor([1.0, 2.0], requires_grad=True)
    y = (x.double() * 3).float().sum()
    y.backward()
    assert x.grad.dtype == np.float32 and x.grad.tolist() == [3.0, 3.0]


def test_split_chunk_and_iteration():
    x = ag.arange(10).float()
    assert [p.shape for p in x.split(4)] == [(4,), (4,), (2,)]
    assert [p.shape for p in x.chunk(3)] == [(4,), (4,), (2,)]
    assert [r.tolist() for r in ag.tensor([[1, 2], [3, 4]])] == [[1, 2], [3, 4]]


def test_numpy_arrays_combine_with_tensors_from_either_side():
    x = ag.tensor([1.0, 2.0], requires_grad=True)
    y = np.array([3.0, 4.0], dtype=np.float32) * x
    assert isinstance(y, ag.Tensor) and y.requires_grad
    y.sum().backward()
    assert x.grad.tolist() == [3.0, 4.0]


def test_python_float_constants_keep_their_value_and_sign():
    """A Python float operand becomes a cached read-only 0-d array (dtypes.scalar_array):
    the sign of zero, NaN and repeated use must not change any result."""
    x = ag.tensor([1.0, -2.0])
    assert np.signbit((x * -0.0).numpy()).tolist() == [True, False]
    assert np.signbit((x * 0.0).numpy()).tolist() == [False, True]
    assert np.isnan((x * float("nan")).numpy()).all()
    for _ in range(3):
        assert (x * 1.5).tolist() == [1.5, -3.0] and (2.5 - x).tolist() == [1.5, 4.5]
    w = ag.tensor([3.0], requires_grad=True)
    (w * 1.5 * 1.5).sum().backward()
    assert w.grad.tolist() == [2.25]
