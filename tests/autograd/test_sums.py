"""The BLAS forms of whole-axis sums agree with NumPy's sums for every layout and dtype."""
import numpy as np
import pytest

from dagrad import autograd as ag
from dagrad.autograd.sums import mean_last, sum_keep, sum_last, sum_leading

RNG = np.random.default_rng(0)


def layouts(shape, dtype):
    """C order, Fortran order, a strided view and a transposed view of the same shape."""
    a = RNG.standard_normal(shape).astype(dtype)
    wide = RNG.standard_normal(shape[:-1] + (2 * shape[-1],)).astype(dtype)
    return {"C": a, "F": np.asfortranarray(a), "strided": wide[..., ::2],
            "transposed": np.ascontiguousarray(np.swapaxes(a, -1, -2)).swapaxes(-1, -2)}


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("shape", [(7, 5), (3, 4, 6), (2, 3, 1, 5), (1, 9)])
def test_sums_match_numpy_in_every_layout(shape, dtype):
    rtol = 1e-5 if dtype == np.float32 else 1e-12
    for name, a in layouts(shape, dtype).items():
        for lead in range(a.ndim + 1):
            got = sum_leading(a, lead)
            want = a.sum(axis=tuple(range(lead))) if lead else a
            assert got.shape == want.shape and got.dtype == dtype, (name, lead)
            np.testing.assert_allclose(got, want, rtol=rtol, atol=rtol, err_msg=name)
        np.testing.assert_allclose(sum_last(a), a.sum(axis=-1, keepdims=True), rtol=rtol,
                                   atol=rtol, err_msg=name)
        np.testing.assert_allclose(mean_last(a), a.mean(axis=-1, keepdims=True), rtol=rtol,
                                   atol=rtol, err_msg=name)
        for axis in range(-a.ndim, a.ndim):
            np.testing.assert_allclose(sum_keep(a, axis), a.sum(axis=axis, keepdims=True),
                                       rtol=rtol, atol=rtol, err_msg=f"{name} axis {axis}")


def test_other_dtypes_empty_arrays_and_tensors_use_their_own_sum():
    ints = np.arange(12).reshape(3, 4)
    np.testing.assert_array_equal(sum_leading(ints, 1), [12, 15, 18, 21])
    assert sum_last(ints).dtype == ints.dtype
    assert sum_leading(np.zeros((0, 3), np.float32), 1).tolist() == [0, 0, 0]
    t = ag.tensor(RNG.standard_normal((4, 3)), requires_grad=True)
    total = sum_leading(t, 1)
    assert isinstance(total, ag.Tensor) and total.requires_grad
    np.testing.assert_allclose(sum_last(t).numpy(), t.numpy().sum(axis=-1, keepdims=True))


def test_nan_and_inf_propagate_as_in_numpy():
    a = np.ones((4, 3), np.float32)
    a[1, 2], a[2, 0] = np.nan, np.inf
    np.testing.assert_array_equal(sum_leading(a, 1), a.sum(axis=0))
    np.testing.assert_array_equal(sum_last(a), a.sum(axis=-1, keepdims=True))
