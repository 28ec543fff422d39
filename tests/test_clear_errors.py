"""Bad input gets one clear error naming the operation, the shapes or dtypes and the fix, of the
type PyTorch raises where PyTorch defines it, instead of a raw NumPy message, a
ZeroDivisionError or a silent answer. Each case runs beside torch when torch defines it."""
import numpy as np
import pytest

from dagrad import autograd as ag
from dagrad import nn
from tests.helpers import torch_or_skip

# name: (call on a namespace with torch's names (ag/nn or torch/torch.nn), exception type,
#        part of the message both share)
BESIDE_TORCH = {
    "add of mismatched shapes": (
        lambda t, m: t.ones(2, 3) + t.ones(4),
        (RuntimeError, ValueError),
        r"(?i)the size of tensor a \(3\) must match the size of tensor b \(4\) at "
        r"non-singleton dimension 1"),
    "chunk(0)": (lambda t, m: t.ones(4).chunk(0), RuntimeError,
                 "chunk expects `chunks` to be greater than 0, got: 0"),
    "arange with step 0": (lambda t, m: t.arange(0, 5, 0), RuntimeError, "step must be nonzero"),
    "split with a negative size": (
        lambda t, m: t.ones(4).split([5, -1]), RuntimeError,
        r"split_with_sizes expects split_sizes have only non-negative entries, but got "
        r"split_sizes=\[5, -1\]"),
    "randn(-1)": (lambda t, m: t.randn(-1), RuntimeError,
                  r"Trying to create tensor with negative dimension -1: \[-1\]"),
    "zeros(2, -3)": (lambda t, m: t.zeros(2, -3), RuntimeError, "(negative dimension|non-neg)"),
    "Linear(-1, 2)": (lambda t, m: m.Linear(-1, 2), RuntimeError,
                      "Trying to create tensor with negative dimension"),
    "linear of a 0-d input": (
        lambda t, m: m.functional.linear(t.ones(()), t.ones(2, 3)), RuntimeError,
        "both arguments to linear need to be at least 1D, but they are 0D and 2D"),
    "randint(5, 2)": (lambda t, m: t.randint(5, 2, (3,)), RuntimeError,
                      "random_ expects 'from' to be less than 'to', but got from=5 >= to=2"),
}


@pytest.mark.parametrize("case", list(BESIDE_TORCH))
def test_errors_beside_torch(case):
    torch = torch_or_skip()
    call, kind, message = BESIDE_TORCH[case]
    with pytest.raises(RuntimeError, match=message):
        call(torch, torch.nn)
    with pytest.raises(kind, match=message):
        call(ag, nn)


def test_index_select_refuses_indices_outside_the_dimension_instead_of_wrapping():
    torch = torch_or_skip()
    with pytest.raises((RuntimeError, IndexError)):
        torch.ones(2, 3).index_select(1, torch.tensor([-1]))
    for bad in (-1, 3):
        with pytest.raises(RuntimeError, match=f"index_select: index {bad} is out of bounds for "
                                               f"dimension 1 with size 3"):
            ag.ones(2, 3).index_select(1, ag.tensor([bad]))
    x = ag.arange(6.0).reshape(2, 3)
    assert x.index_select(1, ag.tensor([2, 0])).numpy().tolist() == [[2.0, 0.0], [5.0, 3.0]]


def test_cross_entropy_with_float_class_indices_names_the_dtype_and_the_fix():
    torch = torch_or_skip()
    with pytest.raises(RuntimeError, match="expected target dtype to be Long"):
        torch.nn.functional.cross_entropy(torch.ones(2, 3), torch.tensor([0.0, 1.0]))
    with pytest.raises(TypeError, match=r"cross_entropy: expected target dtype to be an integer "
                                        r"type \(class indices\), but got float32 of shape "
                                        r"\(2,\); use target.long\(\)"):
        nn.functional.cross_entropy(ag.ones(2, 3), ag.tensor([0.0, 1.0]))


def test_a_broadcasting_failure_names_the_operation_and_both_shapes():
    with pytest.raises(ValueError) as info:
        ag.ones(2, 3) * ag.ones(2, 4)
    text = str(info.value)
    assert text.startswith("Mul: the size of tensor a (3) must match the size of tensor b (4)")
    assert "(2, 3) float32, (2, 4) float32" in text and "could not be broadcast" not in text


def test_ragged_nested_lists_are_named_as_ragged():
    torch = torch_or_skip()
    with pytest.raises(ValueError, match="expected sequence of length 2"):
        torch.tensor([[1, 2], [3]])
    with pytest.raises(ValueError, match="tensor: the nested sequences are ragged"):
        ag.tensor([[1, 2], [3]])


def test_a_recurrent_layer_names_input_size_and_the_batch_first_layout():
    with pytest.raises(ValueError, match=r"GRU: expected input of shape \(L, N, 3\) \(\(N, L, 3\) "
                                         r"with batch_first=True\).*input_size=3; got \(2, 5, 4\)"):
        nn.GRU(3, 4, batch_first=True)(ag.ones(2, 5, 4))
