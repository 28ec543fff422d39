"""Functions that create tensors: ``tensor``, ``zeros``, ``randn``, ... (PyTorch's names)."""
import numpy as np

from .args import shape_arg
from .random import generator
from .tensor import DEFAULT_DTYPE, Tensor


def tensor(data, dtype=None, requires_grad=False):
    """A new leaf tensor holding a copy of ``data`` (number, nested list, ndarray or Tensor).

    Python floats give float32, Python ints int64, bools bool; ndarrays keep their dtype.
    """
    if isinstance(data, Tensor):
        data = data._data
    if isinstance(data, np.ndarray):
        data = data.copy()
    return Tensor(data, requires_grad=requires_grad, dtype=dtype)


def _float_dtype(dtype):
    return np.dtype(DEFAULT_DTYPE if dtype is None else dtype)


def _new(array, requires_grad):
    return Tensor(array, requires_grad=requires_grad)


def zeros(*size, dtype=None, requires_grad=False):
    """A tensor of zeros of shape ``size``."""
    return _new(np.zeros(shape_arg(size, "zeros"), _float_dtype(dtype)), requires_grad)


def ones(*size, dtype=None, requires_grad=False):
    """A tensor of ones of shape ``size``."""
    return _new(np.ones(shape_arg(size, "ones"), _float_dtype(dtype)), requires_grad)


def empty(*size, dtype=None, requires_grad=False):
    """An uninitialised tensor of shape ``size`` (zeros here: NumPy's empty is not faster enough
    to justify garbage values)."""
    return zeros(*size, dtype=dtype, requires_grad=requires_grad)


def full(size, fill_value, dtype=None, requires_grad=False):
    """A tensor of shape ``size`` filled with ``fill_value``."""
    if dtype is None:
        dtype = np.asarray(fill_value).dtype
        dtype = DEFAULT_DTYPE if dtype == np.float64 else dtype
    return _new(np.full(shape_arg((size,), "full"), fill_value, np.dtype(dtype)), requires_grad)


def zeros_like(x, dtype=None, requires_grad=False):
    return _new(np.zeros(x.shape, dtype or x.dtype), requires_grad)


def ones_like(x, dtype=None, requires_grad=False):
    return _new(np.ones(x.shape, dtype or x.dtype), requires_grad)


def full_like(x, fill_value, dtype=None, requires_grad=False):
    return _new(np.full(x.shape, fill_value, dtype or x.dtype), requires_grad)


def eye(n, m=None, dtype=None, requires_grad=False):
    """The n x m identity matrix."""
    return _new(np.eye(n, m, dtype=_float_dtype(dtype)), requires_grad)


def arange(start, end=None, step=1, dtype=None, requires_grad=False):
    """Evenly spaced values in [start, end): ints give int64, floats float32 (as PyTorch)."""
    if end is None:
        start, end = 0, start
    values = np.arange(start, end, step)
    if dtype is None:
        dtype = np.int64 if np.issubdtype(values.dtype, np.integer) else DEFAULT_DTYPE
    return _new(values.astype(dtype), requires_grad)


def linspace(start, end, steps, dtype=None, requires_grad=False):
    """``steps`` evenly spaced values from ``start`` to ``end`` inclusive."""
    return _new(np.linspace(start, end, steps, dtype=_float_dtype(dtype)), requires_grad)


def rand(*size, dtype=None, requires_grad=False):
    """Uniform random numbers in [0, 1) from the global generator (see ``manual_seed``)."""
    shape = shape_arg(size, "rand")
    return _new(generator().random(shape, dtype=_float_dtype(dtype)), requires_grad)


def randn(*size, dtype=None, requires_grad=False):
    """Standard normal random numbers from the global generator (see ``manual_seed``)."""
    shape = shape_arg(size, "randn")
    return _new(generator().standard_normal(shape, dtype=_float_dtype(dtype)), requires_grad)


def randint(low, high=None, size=(), dtype=None):
    """Random integers in [low, high) (or [0, low) when ``high`` is omitted), int64."""
    if high is None:
        low, high = 0, low
    return _new(generator().integers(low, high, size=tuple(size),
                                     dtype=np.dtype(dtype or np.int64)), False)


def randperm(n):
    """A random permutation of 0..n-1 (int64)."""
    return _new(generator().permutation(n).astype(np.int64), False)
