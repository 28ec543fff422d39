"""Python numbers that do not fit a dtype behave as in PyTorch: a Python int beyond uint64
raises OverflowError wherever it is used, a fill value outside its dtype raises RuntimeError
(``full``, ``fill_``, ``tensor(..., dtype=)``, ``clamp``, ``where``), and integer arithmetic
wraps a number to the tensor's dtype. Every error names the operation and the value, never a
raw NumPy message."""
import numpy as np
import pytest

from dagrad import torch as dt
from tests.helpers import torch_or_skip

BIG = 2 ** 70


CASES = {
    "full": lambda t: t.full((2,), BIG),
    "full-negative": lambda t: t.full((2,), -BIG),
    "full-float32": lambda t: t.full((2,), BIG, dtype=t.float32),
    "full-2**63": lambda t: t.full((2,), 2 ** 63),
    "full-int64-max": lambda t: t.full((2,), 2 ** 63 - 1),
    "full-int32": lambda t: t.full((2,), 2 ** 40, dtype=t.int32),
    "full-uint8-300": lambda t: t.full((2,), 300, dtype=t.uint8),
    "full-uint8-minus-one": lambda t: t.full((2,), -1, dtype=t.uint8),
    "full-uint8-minus-256": lambda t: t.full((2,), -256, dtype=t.uint8),
    "full-float32-1e39": lambda t: t.full((2,), 1e39, dtype=t.float32),
    "full-int64-from-2.5": lambda t: t.full((2,), 2.5, dtype=t.int64),
    "full_like-int32": lambda t: t.full_like(t.zeros(2, dtype=t.int32), 2 ** 40),
    "fill_-float": lambda t: t.ones(2).fill_(BIG),
    "fill_-int64": lambda t: t.zeros(2, dtype=t.int64).fill_(BIG),
    "fill_-int64-2**63": lambda t: t.zeros(2, dtype=t.int64).fill_(2 ** 63),
    "fill_-uint8-300": lambda t: t.zeros(2, dtype=t.uint8).fill_(300),
    "add-int64": lambda t: t.zeros(2, dtype=t.int64) + BIG,
    "add-float": lambda t: t.zeros(2) + BIG,
    "add-float-2**63": lambda t: t.zeros(2) + 2 ** 63,
    "add-int64-2**63-wraps": lambda t: t.zeros(2, dtype=t.int64) + 2 ** 63,
    "add_-int64": lambda t: t.zeros(2, dtype=t.int64).add_(BIG),
    "add-int32-wraps": lambda t: t.zeros(2, dtype=t.int32) + 2 ** 40,
    "mul-int32-wraps": lambda t: t.ones(2, dtype=t.int32) * (2 ** 40 + 3),
    "add-uint8-wraps": lambda t: t.ones(2, dtype=t.uint8) + 300,
    "add-uint8-minus-one": lambda t: t.ones(2, dtype=t.uint8) + (-1),
    "less-int32-wraps": lambda t: t.ones(2, dtype=t.int32) < 2 ** 40,
    "tensor": lambda t: t.tensor([BIG]),
    "tensor-2**63": lambda t: t.tensor([2 ** 63]),
    "tensor-with-a-float": lambda t: t.tensor([[1.5, BIG], [True, 2]]),
    "tensor-float32": lambda t: t.tensor([BIG], dtype=t.float32),
    "tensor-int32": lambda t: t.tensor([2 ** 40], dtype=t.int32),
    "tensor-uint8-300": lambda t: t.tensor([300], dtype=t.uint8),
    "tensor-uint8-minus-one": lambda t: t.tensor([[-1, 2]], dtype=t.uint8),
    "tensor-int64-from-1e30": lambda t: t.tensor([1e30], dtype=t.int64),
    "masked_fill": lambda t: t.zeros(2, dtype=t.int64).masked_fill(t.tensor([True, False]), BIG),
    "masked_fill-int32": lambda t: t.zeros(2, dtype=t.int32).masked_fill(t.tensor([True, False]),
                                                                         2 ** 40),
    "clamp": lambda t: t.zeros(2, dtype=t.int64).clamp(max=BIG),
    "clamp-int32": lambda t: t.zeros(2, dtype=t.int32).clamp(max=2 ** 40),
    "where": lambda t: t.where(t.tensor([True, False]), t.zeros(2, dtype=t.int64), BIG),
    "where-int32": lambda t: t.where(t.tensor([True, False]), t.zeros(2, dtype=t.int32), 2 ** 40),
    "arange": lambda t: t.arange(BIG, BIG + 2),
}

def _outcome(lib, case):
    try:
        out = CASES[case](lib)
    except Exception as e:         # noqa: BLE001 - the error is what is compared
        return e
    return np.asarray(out.numpy()), str(out.dtype).replace("torch.", "")


@pytest.mark.parametrize("case", list(CASES))
def test_numbers_beyond_a_dtype_follow_pytorch(case):
    torch = torch_or_skip()
    theirs, ours = _outcome(torch, case), _outcome(dt, case)
    if isinstance(theirs, Exception):
        assert isinstance(ours, type(theirs)), (case, theirs, ours)
        assert "numpy" not in type(ours).__module__ and str(ours).split(":")[0] in (
            case.split("-")[0], "Add", "Mul", "IndexPut", "tensor"), ours
        return
    assert not isinstance(ours, Exception), (case, theirs, ours)
    np.testing.assert_array_equal(ours[0], theirs[0])
    assert ours[1] == theirs[1]


def test_the_errors_name_the_operation_the_value_and_the_dtype():
    with pytest.raises(OverflowError, match=r"full: the Python integer 1180591620717411303424 "
                                            r"is too big to convert.*float\("):
        dt.full((2,), BIG)
    with pytest.raises(RuntimeError, match=r"full: value 1099511627776 cannot be converted to "
                                           r"type int32 without overflow.*int64"):
        dt.full((2,), 2 ** 40, dtype=dt.int32)
    with pytest.raises(OverflowError, match="Add: the Python integer 1180591620717411303424"):
        dt.zeros(2, dtype=dt.int64) + BIG
    with pytest.raises(RuntimeError, match="tensor: value 300 cannot be converted to type "
                                           "uint8 without overflow"):
        dt.tensor([300], dtype=dt.uint8)
