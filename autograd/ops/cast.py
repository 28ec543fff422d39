"""Conversions that keep the values: a cast to another dtype, and a copy."""
import numpy as np

from ..function import Function
from ..tensor import make_tensor


class Cast(Function):
    """y = x converted to another dtype;   dy/dx = 1 (the gradient is cast back)"""

    def forward(ctx, x, dtype):
        ctx.in_dtype = x.dtype
        return x.astype(dtype)

    rules = {"x": "δ_x = δ_out, converted back to x's dtype"}

    def backward(ctx, grad):
        return ctx.xp.astype(grad, ctx.in_dtype)


def cast(x, dtype):
    """``x`` converted to ``dtype``; differentiable between floating-point dtypes."""
    dtype = np.dtype(dtype)
    if x.dtype == dtype:
        return x
    if x.requires_grad and not np.issubdtype(dtype, np.floating):
        return make_tensor(x._data.astype(dtype), None)
    return Cast.apply(x, dtype=dtype)


class Clone(Function):
    """y = a copy of x;   dy/dx = 1"""

    def forward(ctx, x):
        return x.copy()

    rules = {"x": "δ_x = δ_out"}

    def backward(ctx, grad):
        return grad
