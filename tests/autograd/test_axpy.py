"""``blas.axpy``, y += a·x in one pass: the BLAS's ?axpy for large contiguous float arrays
(rounded once, as a fused multiply-add), NumPy's ``y += a * x`` for everything else; and SGD,
which updates every parameter with it."""
import numpy as np
import pytest

from dagrad import autograd as ag
from dagrad import optim
from dagrad.autograd import blas
from tests.helpers import torch_or_skip

LARGE = blas.AXPY_MIN * 2


def fused(a, x, y):
    """y + a·x rounded once to y's dtype (exact in float64 for float32 operands)."""
    exact = np.float64(x.dtype.type(a)) * x.astype(np.float64) + y.astype(np.float64)
    return exact.astype(y.dtype)


def uses_blas(dtype):
    """Does axpy reach a BLAS routine for ``dtype`` in this process?"""
    if blas.THREADS.current is None:
        blas.THREADS.find()
    return np.dtype(dtype) in blas.THREADS.axpy


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_axpy_adds_a_multiple_in_place(dtype):
    rng = np.random.default_rng(0)
    x, y = (rng.standard_normal(LARGE).astype(dtype) for _ in range(2))
    expected_two_roundings = y + dtype(-0.01) * x
    before = y.copy()
    out = blas.axpy(-0.01, x, y)
    assert out is y and y.dtype == dtype
    if uses_blas(dtype) and dtype == np.float32:
        np.testing.assert_array_equal(y, fused(-0.01, x, before))
    np.testing.assert_allclose(y, expected_two_roundings, rtol=1e-6 if dtype == np.float32
                               else 1e-15, atol=1e-7)


@pytest.mark.parametrize("case", ["small", "strided", "fortran", "other dtype", "read-only",
                                  "numpy float32 alpha", "2-D"])
def test_axpy_falls_back_to_numpy_with_the_same_result(case):
    rng = np.random.default_rng(1)
    x = rng.standard_normal((2, LARGE)).astype(np.float32)
    y = rng.standard_normal((2, LARGE)).astype(np.float32)
    alpha = -0.5
    if case == "small":
        x, y = x[0, :10].copy(), y[0, :10].copy()
    elif case == "strided":
        x, y = x[:, ::2], y[:, ::2]
    elif case == "fortran":
        x, y = np.asfortranarray(x), np.asfortranarray(y)
    elif case == "other dtype":
        x = x.astype(np.float64)
    elif case == "read-only":
        y.flags.writeable = False
        with pytest.raises(ValueError, match="read-only"):
            blas.axpy(alpha, x, y)
        return
    elif case == "numpy float32 alpha":
        alpha = np.float32(-0.5)
    expected = y + alpha * x
    blas.axpy(alpha, x, y)
    np.testing.assert_allclose(y, expected, rtol=1e-6, atol=1e-6)


def test_axpy_of_overlapping_memory_is_numpy_s():
    """Two views of one buffer that partly overlap: the BLAS would read values it has
    already written; NumPy buffers the overlap, so the result is as if computed at once."""
    buffer = np.arange(LARGE + 8, dtype=np.float32)
    x, y = buffer[:LARGE], buffer[8:]
    expected = y + 2 * x
    blas.axpy(2, x, y)
    np.testing.assert_array_equal(y, expected)


def test_axpy_of_one_array_with_itself_doubles_it():
    y = np.ones(LARGE, np.float32)
    blas.axpy(1, y, y)
    np.testing.assert_array_equal(y, 2)


def test_axpy_runs_on_the_allowed_threads():
    threadpoolctl = pytest.importorskip("threadpoolctl")
    if not uses_blas(np.float32):
        pytest.skip("no OpenBLAS axpy to call here")
    before = ag.get_num_threads()
    try:
        ag.set_num_threads(2)
        ag.ones(4, 4) @ ag.ones(4, 4)                 # a small product: one thread
        blas.axpy(1.0, np.ones(LARGE, np.float32), np.ones(LARGE, np.float32))
        threads = max(c.num_threads for c in threadpoolctl.ThreadpoolController()
                      .select(user_api="blas").lib_controllers)
        assert threads == 2
    finally:
        ag.set_num_threads(before)


@pytest.mark.parametrize("momentum, dampening, nesterov", [(0, 0, False), (0.9, 0.1, False),
                                                           (0.9, 0, True)])
def test_sgd_on_a_large_parameter_matches_torch(momentum, dampening, nesterov):
    """A parameter above AXPY_MIN values takes the BLAS path: three steps as torch.optim.SGD
    (whose update rounds once, as axpy does: plain SGD agrees to the last bit)."""
    torch = torch_or_skip()
    rng = np.random.default_rng(2)
    w0 = rng.standard_normal((64, LARGE // 64)).astype(np.float32)
    grads = [rng.standard_normal(w0.shape).astype(np.float32) for _ in range(3)]
    p = ag.tensor(w0.copy(), requires_grad=True)
    q = torch.nn.Parameter(torch.from_numpy(w0.copy()))
    ours = optim.SGD([p], lr=0.01, momentum=momentum, dampening=dampening, nesterov=nesterov)
    theirs = torch.optim.SGD([q], lr=0.01, momentum=momentum, dampening=dampening,
                             nesterov=nesterov)
    for g in grads:
        p.grad = ag.tensor(g.copy())
        q.grad = torch.from_numpy(g.copy())
        ours.step()
        theirs.step()
    if momentum == 0 and uses_blas(np.float32):
        np.testing.assert_array_equal(p.detach().numpy(), q.detach().numpy())
    np.testing.assert_allclose(p.detach().numpy(), q.detach().numpy(), rtol=1e-6, atol=1e-7)
    np.testing.assert_array_equal(p.grad.numpy(), grads[-1])     # the gradient is untouched
