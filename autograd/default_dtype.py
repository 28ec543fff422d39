"""The default floating-point dtype: what Python floats become, and what creation functions
(``zeros``, ``randn``, ``arange(0.5, ...)``), type promotion (``int_tensor * 0.5``) and every
layer's parameters use when no dtype is named. PyTorch's ``set_default_dtype`` /
``get_default_dtype``: float32 unless a program asks for float64 (gradchecks, scientific work)
or float16."""
import numpy as np

_FLOATING = tuple(np.dtype(d) for d in (np.float32, np.float64, np.float16))


class _Default:
    """The one place the default lives (read as ``DEFAULT.dtype`` on fast paths)."""
    dtype = np.dtype(np.float32)


DEFAULT = _Default()


def get_default_dtype():
    """The default floating-point dtype (float32 unless ``set_default_dtype`` changed it)."""
    return DEFAULT.dtype


def set_default_dtype(d):
    """Make ``d`` (float32, float64 or float16) the default floating-point dtype, as
    ``torch.set_default_dtype``: Python floats, float creation functions and new layers use
    it from now on; tensors that exist keep theirs."""
    try:
        dtype = np.dtype(d)
    except TypeError as e:
        raise TypeError(f"set_default_dtype({d!r}): only floating-point types are supported "
                        f"as the default type (float32, float64, float16); {e}") from None
    if dtype not in _FLOATING:
        raise TypeError(f"set_default_dtype({dtype}): only floating-point types are supported "
                        f"as the default type (float32, float64, float16)")
    DEFAULT.dtype = dtype


def float_dtype(dtype=None):
    """``dtype`` as a NumPy dtype, or the default floating-point dtype when it is None: how a
    creation function or a layer reads its ``dtype=`` argument."""
    return DEFAULT.dtype if dtype is None else np.dtype(dtype)
