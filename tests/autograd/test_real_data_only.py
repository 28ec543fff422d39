"""Tensors hold real numbers: complex, object and string data are refused where they enter
(creation, or the first operation mixing a complex constant in) with a message saying why and
what to do, instead of object tensors or a gradient that silently drops the imaginary part."""
import numpy as np
import pytest

from dagrad import autograd as ag


@pytest.mark.parametrize("data,message", [
    (np.array([1, "a"], dtype=object), "not all numbers of one kind"),
    ([None, 1.0], "not all numbers of one kind"),
    ([1 + 2j], "dtype complex128: dagrad tensors hold real numbers"),
    (np.ones(2, np.complex64), "dtype complex64"),
    (["a", "b"], "strings are not numbers"),
])
def test_non_real_data_is_refused_at_creation(data, message):
    with pytest.raises(TypeError, match=message):
        ag.tensor(data)


@pytest.mark.parametrize("data", [2 ** 70, [1, 2 ** 70], [[1], [-2 ** 64]]])
def test_an_integer_beyond_int64_is_a_value_error_as_in_pytorch(data):
    with pytest.raises(ValueError, match=r"the integer -?\d+ does not fit in int64"):
        ag.tensor(data)


def test_a_complex_dtype_argument_is_refused():
    with pytest.raises(TypeError, match="complex64"):
        ag.tensor([1.0, 2.0], dtype=np.complex64)


@pytest.mark.parametrize("constant", [2j, np.complex64(1j), np.array([1j, 2.0])])
def test_mixing_a_complex_constant_refuses_at_the_first_operation(constant):
    x = ag.ones(2, requires_grad=True)
    with pytest.raises(TypeError, match=r"(Mul|Add): its result would have dtype complex"):
        (constant * x).sum().backward()
    with pytest.raises(TypeError, match="real and imaginary parts"):
        x + constant
    assert x.grad is None


def test_real_data_of_every_kind_is_still_accepted():
    for data, dtype in (([True], np.bool_), ([1], np.int64), ([1.5], np.float32),
                        (np.ones(1, np.uint8), np.uint8), (np.ones(1, np.float16), np.float16)):
        assert ag.tensor(data).dtype == dtype
