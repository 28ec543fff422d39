"""Numbers that used to differ from PyTorch's and arguments PyTorch rejects that used to be
accepted, each compared with PyTorch itself: gradients at saturated probabilities, the dtypes of
sums, of NumPy values and of collated batches, arange's values and bounds, reductions over
``dim=()``, softmax without ``dim``, and custom Functions returning the wrong gradients."""
import numpy as np
import pytest

from dagrad import autograd as ag
from dagrad import nn
from dagrad import torch as dt
from tests.helpers import torch_or_skip


def _same_dtype(ours, theirs):
    assert str(ours.dtype) == str(theirs.dtype).replace("torch.", ""), (ours.dtype, theirs.dtype)


def test_bce_gradient_at_exactly_zero_and_one_is_pytorchs():
    torch = torch_or_skip()
    p, y = [0.0, 1.0, 1.0, 0.0, 0.3], [1.0, 0.0, 1.0, 0.0, 1.0]
    x, t = ag.tensor(p, requires_grad=True), torch.tensor(p, requires_grad=True)
    nn.functional.binary_cross_entropy(x, ag.tensor(y)).backward()
    torch.nn.functional.binary_cross_entropy(t, torch.tensor(y)).backward()
    np.testing.assert_allclose(x.grad.numpy(), t.grad.numpy(), rtol=1e-6)
    assert x.grad.numpy()[0] == pytest.approx(-2e11)      # a wrong saturated prediction moves


def test_bce_gradient_for_the_target_is_pytorchs():
    torch = torch_or_skip()
    p, y = [0.2, 0.7], [0.4, 0.9]
    x, t = ag.tensor(p), torch.tensor(p)
    yy, ty = ag.tensor(y, requires_grad=True), torch.tensor(y, requires_grad=True)
    nn.functional.binary_cross_entropy(x, yy, reduction="sum").backward()
    torch.nn.functional.binary_cross_entropy(t, ty, reduction="sum").backward()
    np.testing.assert_allclose(yy.grad.numpy(), ty.grad.numpy(), rtol=1e-6)


@pytest.mark.parametrize("dtype", ["uint8", "int8", "int16", "int32", "bool"])
def test_integer_sums_and_products_are_int64(dtype):
    torch = torch_or_skip()
    values = np.array([[200, 100], [3, 1]]).astype(dtype)
    x, t = ag.tensor(values), torch.tensor(values)
    for ours, theirs in ((x.sum(), t.sum()), (x.sum(1), t.sum(1)), (x.prod(), t.prod())):
        _same_dtype(ours, theirs)
        np.testing.assert_array_equal(ours.numpy(), theirs.numpy())


def test_sum_with_dtype_converts_first():
    torch = torch_or_skip()
    x, t = ag.tensor([1.5, 2.25]), torch.tensor([1.5, 2.25])
    _same_dtype(x.sum(dtype=ag.float64), t.sum(dtype=torch.float64))
    u = ag.tensor(np.array([200, 100], np.uint8))
    assert u.sum(dtype=ag.float32).item() == 300.0


@pytest.mark.parametrize("data", [[np.float64(1.5)], [[1.0, np.float64(2.0)]], [np.float32(1.5), 2.0],
                                  [np.array([1.5])], [np.int32(1), 2.0], [1.5, 2.5]],
                         ids=["f64", "nested", "f32", "array", "int32-float", "python"])
def test_tensor_of_numpy_values_keeps_their_dtype(data):
    torch = torch_or_skip()
    _same_dtype(ag.tensor(data), torch.tensor(np.array(data) if isinstance(data[0], np.ndarray)
                                              else data))


@pytest.mark.parametrize("left,right", [("float32", np.array(2.5)), ("int64", np.array(2.5)),
                                        ("int32", np.array(2)), ("float32", np.array(2)),
                                        ("float64", np.array(2.5, np.float32)),
                                        ("float32", np.float64(2.5)),
                                        ("float32", np.array([2, 3])),
                                        ("int32", np.array([2, 3], np.int8)),
                                        ("float32", np.array([True, False]))])
def test_a_numpy_array_operand_promotes_as_in_pytorch(left, right):
    """PyTorch gives ``tensor * ndarray`` to NumPy: NumPy's promotion, 0-d arrays included."""
    torch = torch_or_skip()
    ours = ag.ones(2, dtype=np.dtype(left)) * right
    theirs = torch.ones(2, dtype=getattr(torch, left)) * right
    _same_dtype(ours, theirs)


@pytest.mark.parametrize("batch", [[ag.tensor([1]), ag.tensor([2.5])], [1.5, 2.0], [1, 2.5, 3],
                                   [np.float32(1), np.float32(2)]],
                         ids=["tensors", "floats", "int-first", "np-float32"])
def test_default_collate_gives_pytorchs_dtype(batch):
    torch = torch_or_skip()
    from torch.utils.data import default_collate
    theirs = default_collate([torch.tensor(b.numpy()) if isinstance(b, ag.Tensor) else b
                              for b in batch])
    ours = nn.data.default_collate(batch)
    _same_dtype(ours, theirs)
    np.testing.assert_array_equal(ours.numpy(), theirs.numpy())


def test_a_loader_of_nones_raises_as_in_pytorch():
    torch = torch_or_skip()
    with pytest.raises(TypeError, match="batch must contain tensors"):
        list(torch.utils.data.DataLoader([None, None], batch_size=2))
    with pytest.raises(TypeError, match="batch must contain tensors, numpy arrays, numbers"):
        list(nn.data.DataLoader([None, None], batch_size=2))


def test_a_python_number_in_a_safetensors_state_is_refused(tmp_path):
    torch_or_skip()
    from safetensors.torch import save_file
    import torch
    with pytest.raises(ValueError, match="Key `n` is invalid"):
        save_file({"w": torch.ones(2), "n": 3}, str(tmp_path / "t.safetensors"))
    with pytest.raises(ValueError, match="torch.save: key 'n' is invalid.*as .pt or .npz"):
        dt.save({"w": dt.ones(2), "n": 3}, tmp_path / "d.safetensors")
    assert not (tmp_path / "d.safetensors").exists()


@pytest.mark.parametrize("args", [(-8.0, 8.0, 0.1), (0, 1, 0.01), (-5, 5, 0.001), (0.5, 100, 0.37),
                                  (1.0, -3.0, -0.3), (10,), (2, 11, 3), (0.0, 3)])
@pytest.mark.parametrize("dtype", [None, "float64"])
def test_arange_values_are_pytorchs_to_the_last_bit(args, dtype):
    torch = torch_or_skip()
    ours = ag.arange(*args, dtype=dtype and np.dtype(dtype))
    theirs = torch.arange(*args, dtype=dtype and getattr(torch, dtype))
    _same_dtype(ours, theirs)
    np.testing.assert_array_equal(ours.numpy(), theirs.numpy())


def test_arange_element_80_has_pytorchs_sign():
    """The course's ReLU-derivative plot samples arange(-8, 8, 0.1): its point at 0 must fall
    on PyTorch's side."""
    assert ag.arange(-8.0, 8.0, 0.1)[80].item() == pytest.approx(4.4e-16, rel=0.01)


@pytest.mark.parametrize("args", [(5, 0), (0, 5, -1), (1.0, -2.0, 0.5)])
def test_arange_with_bounds_against_the_step_raises_as_in_pytorch(args):
    torch = torch_or_skip()
    with pytest.raises(RuntimeError, match="upper bound and lower bound inconsistent"):
        torch.arange(*args)
    with pytest.raises(RuntimeError, match="upper bound and lower bound inconsistent"):
        ag.arange(*args)


@pytest.mark.parametrize("name", ["sum", "mean", "amax", "amin", "var", "std", "norm"])
def test_reducing_over_an_empty_dim_tuple_reduces_everything(name):
    torch = torch_or_skip()
    values = np.arange(6.0).reshape(2, 3)
    ours = getattr(ag.tensor(values), name)(dim=())
    theirs = getattr(torch.tensor(values), name)(dim=())
    assert ours.shape == tuple(theirs.shape) == ()
    np.testing.assert_allclose(ours.numpy(), theirs.numpy())


def test_softmax_without_dim_raises_as_in_pytorch():
    torch = torch_or_skip()
    with pytest.raises(TypeError, match="missing 1 required positional argument.*dim"):
        torch.ones(2, 3).softmax()
    for call in (lambda: ag.ones(2, 3).softmax(), lambda: ag.ones(2, 3).log_softmax(),
                 lambda: ag.softmax(ag.ones(2, 3))):
        with pytest.raises(TypeError, match="missing 1 required positional argument.*dim"):
            call()
    np.testing.assert_allclose(ag.ones(2, 3).softmax(axis=1).numpy(), np.full((2, 3), 1 / 3),
                               rtol=1e-6)


def _custom(module, grads):
    class Double(module.autograd.Function):
        @staticmethod
        def forward(ctx, x, k):
            return x * k

        @staticmethod
        def backward(ctx, g):
            return grads(g)
    return Double


@pytest.mark.parametrize("grads,message", [
    (lambda g: (g, g, g), "incorrect number of gradients \\(expected 2, got 3\\)"),
    (lambda g: g, "incorrect number of gradients \\(expected 2, got 1\\)"),
    (lambda g: (g, g), "gradient different than None at position 2"),
], ids=["too-many", "too-few", "non-tensor-input"])
def test_a_custom_function_with_the_wrong_gradients_raises_as_in_pytorch(grads, message):
    torch = torch_or_skip()
    for module, x in ((torch, torch.ones(2, requires_grad=True)),
                      (dt, dt.ones(2, requires_grad=True))):
        with pytest.raises(RuntimeError, match=message):
            _custom(module, grads).apply(x, 3).sum().backward()


def test_a_custom_function_may_return_extra_trailing_nones():
    torch = torch_or_skip()
    for module, x in ((torch, torch.ones(2, requires_grad=True)),
                      (dt, dt.ones(2, requires_grad=True))):
        _custom(module, lambda g: (g * 3, None, None)).apply(x, 3).sum().backward()
        assert x.grad.tolist() == [3.0, 3.0]
