"""dagrad's result dtypes are PyTorch's: a property test over random operand pairs, and the
cases where NumPy's promotion (which dagrad used to inherit) gives another answer."""
import operator

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from dagrad import autograd as ag
from dagrad.autograd.dtypes import result_type

torch = pytest.importorskip("torch")

DTYPES = ["bool", "int64", "float32", "float64"]
VALUES = {"bool": True, "int64": 3, "float32": 1.5, "float64": 2.5}
OPS = {"+": operator.add, "-": operator.sub, "*": operator.mul, "/": operator.truediv,
       "**": operator.pow, "==": operator.eq, "!=": operator.ne, "<": operator.lt,
       "<=": operator.le, ">": operator.gt, ">=": operator.ge}
NUMPY_SCALARS = {"bool": np.bool_, "int64": np.int64, "float32": np.float32,
                 "float64": np.float64}
PYTHON_SCALARS = {"bool": bool, "int64": int, "float64": float}

# An operand: (kind, dtype name); kinds: a tensor with dimensions, a 0-d tensor, a Python
# number, a NumPy number.
tensors = st.tuples(st.sampled_from(["tensor", "0-d"]), st.sampled_from(DTYPES))
scalars = st.one_of(st.tuples(st.just("python"), st.sampled_from(sorted(PYTHON_SCALARS))),
                    st.tuples(st.just("numpy"), st.sampled_from(DTYPES)))


def build(operand, library):
    """The operand as a dagrad or torch object (scalars are the same object for both)."""
    kind, dtype = operand
    value = VALUES[dtype]
    if kind == "python":
        return PYTHON_SCALARS[dtype](value)
    if kind == "numpy":
        return NUMPY_SCALARS[dtype](value)
    data = [value, value] if kind == "tensor" else value
    if library == "torch":
        return torch.tensor(data, dtype=getattr(torch, dtype))
    return ag.tensor(data, dtype=np.dtype(dtype))


def run(op, a, b):
    try:
        return op(a, b), None
    except (TypeError, RuntimeError, ValueError) as e:
        return None, e


@settings(max_examples=400, deadline=None)
@given(st.sampled_from(sorted(OPS)),
       st.one_of(st.tuples(tensors, tensors), st.tuples(tensors, scalars),
                 st.tuples(scalars, tensors)))
def test_result_dtype_matches_pytorch(name, operands):
    left, right = operands
    op = OPS[name]
    expected, torch_error = run(op, build(left, "torch"), build(right, "torch"))
    got, error = run(op, build(left, "dagrad"), build(right, "dagrad"))
    if torch_error is not None:          # e.g. bool - bool: both refuse
        assert error is not None, f"{left} {name} {right}: PyTorch raises ({torch_error}), " \
                                  f"dagrad gives {got!r}"
        return
    assert error is None, f"{left} {name} {right}: dagrad raises {error!r}"
    assert str(got.dtype) == str(expected.dtype).removeprefix("torch."), (left, name, right)
    np.testing.assert_allclose(got.numpy(), expected.numpy(), rtol=1e-6)


# ----------------------------------------------------------------- the cases of the issue
def test_numpy_and_0d_float64_do_not_raise_a_float32_tensor():
    x = ag.ones(2)
    assert (x * np.float64(2)).dtype == np.float32
    assert (np.float64(2) * x).dtype == np.float32
    assert (x + ag.tensor(2.0, dtype=ag.float64)).dtype == np.float32
    assert (x ** np.int64(2)).dtype == np.float32
    assert (x * ag.ones(2, dtype=ag.float64)).dtype == np.float64   # two dimensioned tensors


def test_integer_with_float_gives_the_default_float_dtype():
    assert (ag.tensor([1, 2]) * ag.ones(2)).dtype == np.float32
    assert (ag.tensor([1, 2]) * 0.5).dtype == np.float32
    assert (ag.tensor([1, 2]) * np.float64(0.5)).dtype == np.float32
    assert (ag.tensor([1, 2]) + ag.tensor(0.5, dtype=ag.float64)).dtype == np.float64


def test_true_division_of_integers_is_float32():
    q = ag.tensor([1]) / ag.tensor([2])
    assert q.dtype == np.float32 and q.tolist() == [0.5]
    assert (ag.tensor([True]) / ag.tensor([True])).dtype == np.float32
    assert (ag.tensor([3]) / 2).tolist() == [1.5]


def test_comparison_happens_in_the_promoted_dtype():
    # PyTorch compares a float32 tensor with 0.1 rounded to float32: equal
    assert (ag.tensor([0.1]) == np.float64(0.1)).tolist() == [True]
    assert (ag.tensor([0.1]) == 0.1).tolist() == [True]
    assert (ag.tensor([1, 2]) < 1.5).tolist() == [True, False]


def test_where_clamp_maximum_and_cat_promote_as_pytorch():
    i, f = ag.tensor([1, 2]), ag.ones(2)
    assert ag.where(i > 1, i, 0.5).dtype == np.float32
    assert ag.where(i > 1, 1.0, 0.0).dtype == np.float32
    assert i.clamp(0.5, 1.5).dtype == np.float32 and i.clamp(0.5, 1.5).tolist() == [1.0, 1.5]
    assert i.clamp(0, 1).dtype == np.int64
    assert f.clamp(np.float64(0.0), np.float64(0.5)).dtype == np.float32
    assert ag.maximum(i, f).dtype == np.float32
    assert ag.cat([i, f]).dtype == np.float32


def test_result_type_follows_the_categories():
    assert result_type(ag.ones(2, dtype=np.int32), 2) == np.int32
    assert result_type(ag.ones(2, dtype=np.int32), ag.ones((), dtype=np.int64)) == np.int32
    assert result_type(ag.ones(2, dtype=np.int32), ag.ones((), dtype=np.float64)) == np.float64
    # a NumPy array operand, even 0-d, meets the rest with NumPy's promotion (PyTorch gives
    # tensor * ndarray to NumPy)
    assert result_type(ag.ones(2, dtype=np.int32), np.ones((), np.int64)) == np.int64
    assert result_type(ag.ones(2), np.ones((), np.float64)) == np.float64
    assert result_type(ag.ones(2), np.ones(2, np.int64)) == np.float64
    assert result_type(ag.ones(2), np.ones(2, np.bool_)) == np.float32
    assert result_type(ag.ones(2, dtype=np.bool_), 2) == np.int64
    assert result_type(ag.ones(2, dtype=np.bool_), 2.0) == np.float32
    assert result_type(ag.ones(2, dtype=np.float16), np.float64(1)) == np.float16
    assert result_type(ag.ones((), dtype=np.int64), 2.5) == np.float32


def test_gradient_flows_back_in_each_inputs_own_dtype():
    """A float32 tensor meeting a float64 one is cast through a recorded operation: its
    gradient comes back float32, and the cast is part of the graph for second order."""
    x = ag.tensor([1.5, 2.0], requires_grad=True)
    w = ag.tensor([2.0, 3.0], dtype=ag.float64, requires_grad=True)
    y = (x * x * w).sum()
    assert y.dtype == np.float64
    (gx,) = ag.grad(y, [x], create_graph=True)
    assert gx.dtype == np.float32
    np.testing.assert_allclose(gx.numpy(), [6.0, 12.0])
    gx.sum().backward()
    assert x.grad.dtype == np.float32 and w.grad.dtype == np.float64
    np.testing.assert_allclose(x.grad.numpy(), [4.0, 6.0])     # d/dx Σ 2xw = 2w
    np.testing.assert_allclose(w.grad.numpy(), [3.0, 4.0])     # d/dw Σ 2xw = 2x
