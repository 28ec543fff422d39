"""``out=``: PyTorch's way of writing a function's result into a tensor the caller owns
(``torch.add(x, y, out=result)``), for the functions the ``dagrad.torch`` namespace wraps with
``accepts_out``.

As in PyTorch: the result's values are written into ``out`` (a tuple of tensors for a function
that returns several, e.g. ``max(x, dim)``), which is returned; an ``out`` of another shape is
resized (with PyTorch's warning unless it was empty); a floating result cannot go into an
integer ``out`` (RuntimeError); and such a call records no gradient, so it refuses inputs that
require one while grad mode is on.
"""
import functools
import warnings

import numpy as np

from .dtypes import category
from .grad_mode import no_grad
from .tensor import Tensor


def accepts_out(function):
    """``function`` with PyTorch's keyword ``out=`` added."""
    @functools.wraps(function)
    def with_out(*args, out=None, **kwargs):
        result = function(*args, **kwargs)
        if out is None:
            return result
        name = getattr(function, "__name__", "function")
        if isinstance(out, (tuple, list)):
            for target, value in zip(out, result, strict=True):
                write_out(value, target, name)
            return type(result)(*out) if hasattr(result, "_fields") else tuple(out)
        return write_out(result, out, name)
    return with_out


def write_out(result, out, name):
    """Write the tensor ``result`` of ``name`` into ``out`` (resized if needed); return ``out``."""
    if not isinstance(out, Tensor):
        raise TypeError(f"{name}(): argument 'out' must be Tensor, not {type(out).__name__}")
    if result.requires_grad or out.requires_grad:
        raise RuntimeError(f"{name}(): functions with out=... arguments don't support automatic "
                           f"differentiation, but one of the arguments requires grad.")
    if category(result.dtype) > category(out.dtype):
        raise RuntimeError(f"result type {_kind(result.dtype)} can't be cast to the desired "
                           f"output type {_kind(out.dtype)}")
    if out.shape != result.shape:
        if out.numel():
            warnings.warn(f"An output with one or more elements was resized since it had shape "
                          f"{list(out.shape)}, which does not match the required output shape "
                          f"{list(result.shape)}. This behavior is deprecated, and in a future "
                          f"PyTorch release outputs will not be resized unless they have zero "
                          f"elements. You can explicitly reuse an out tensor t by resizing it, "
                          f"inplace, to zero elements with t.resize_(0).", UserWarning,
                          stacklevel=3)
        out.data = np.zeros(result.shape, out.dtype)
    with no_grad():
        out.copy_(result)
    return out


def _kind(dtype):
    """PyTorch's scalar-type name in casting errors: Float, Double, Long, Int, Bool, ..."""
    return {"float32": "Float", "float64": "Double", "float16": "Half", "int64": "Long",
            "int32": "Int", "int16": "Short", "int8": "Char", "uint8": "Byte",
            "bool": "Bool"}.get(np.dtype(dtype).name, np.dtype(dtype).name)
