"""Arithmetic: + - * / ** // % and negation. Binary operations broadcast; the engine sums
their gradients back to each input's shape, so every backward is the plain formula.

Each class docstring states the forward formula and its local derivative; the public function
sits under its class.
"""
import numpy as np

from ..dtypes import promote_inputs, promote_inputs_to_float, promote_power, promote_subtraction
from ..function import Function
from ..tensor import raw_data


class Add(Function):
    """z = a + b;   dz/da = 1,   dz/db = 1"""

    dtype_rule = promote_inputs

    def forward(ctx, a, b):
        return a + b

    rules = {"a": "δ_a = δ_out", "b": "δ_b = δ_out"}

    def backward(ctx, grad):
        return grad, grad


class Sub(Function):
    """z = a - b;   dz/da = 1,   dz/db = -1"""

    dtype_rule = promote_subtraction

    def forward(ctx, a, b):
        return a - b

    rules = {"a": "δ_a = δ_out", "b": "δ_b = −δ_out"}

    def backward(ctx, grad):
        return grad, (-grad if ctx.needs_input_grad[1] else None)


class Mul(Function):
    """z = a * b;   dz/da = b,   dz/db = a"""

    dtype_rule = promote_inputs
    saves_read_by = ((1,), (0,))             # y * 2.0: only 2.0 is read

    def forward(ctx, a, b):
        ctx.save(a, b)
        return a * b

    rules = {"a": "δ_a = δ_out · b", "b": "δ_b = δ_out · a"}

    def backward(ctx, grad):
        a, b = ctx.saved
        need_a, need_b = ctx.needs_input_grad
        return (grad * b if need_a else None), (grad * a if need_b else None)


class Div(Function):
    """z = a / b;   dz/da = 1/b,   dz/db = -a/b² = -z/b"""

    dtype_rule = promote_inputs_to_float
    saves_read_by = ((1,), (0, 1))           # y / 2.0: only 2.0 is read

    def forward(ctx, a, b):
        ctx.save(a, b)
        return a / b

    rules = {"a": "δ_a = δ_out / b", "b": "δ_b = −δ_out · a / b²"}

    def backward(ctx, grad):
        a, b = ctx.saved
        ga = grad / b
        return ga, (-ga * a / b if ctx.needs_input_grad[1] else None)


class Neg(Function):
    """y = -x;   dy/dx = -1"""

    def forward(ctx, x):
        return -x

    rules = {"x": "δ_x = −δ_out"}

    def backward(ctx, grad):
        return -grad


class Pow(Function):
    """z = a ** b;   dz/da = b a^(b-1),   dz/db = a^b log(a)   (b may be a constant).

    At the edges, as PyTorch: dz/da = 0 where b = 0 (not 0 · a⁻¹, NaN at a = 0), and
    dz/db = 0 where a = 0 and b >= 0 (not 0 · log 0); where a = 0 and b < 0 it is -inf.
    """

    dtype_rule = promote_power
    saves_read_by = ((0, 1), (0, 1, 2))      # y ** 2.0: y and 2.0 are read, not z

    def forward(ctx, a, b):
        out = a ** b
        if out.dtype == np.int8 and a.dtype == np.bool_:   # NumPy's bool ** bool number
            out = out.astype(np.bool_)
        ctx.save(a, b, output=out)
        return out

    rules = {"a": "δ_a = δ_out · b · a^(b − 1)", "b": "δ_b = δ_out · out · log(a)"}

    def backward(ctx, grad):
        a, b, out = ctx.saved
        xp = ctx.xp
        need_a, need_b = ctx.needs_input_grad
        ga = gb = None
        if need_a:
            zero = np.equal(raw_data(b), 0)
            if zero.any():
                ga = xp.where(zero, 0.0, grad * b * a ** xp.where(zero, 1.0, b - 1))
            else:
                ga = grad * b * a ** (b - 1)
        if need_b:
            no_log = np.logical_and(np.equal(raw_data(a), 0), np.greater_equal(raw_data(b), 0))
            safe_log = xp.log(xp.where(no_log, 1, a)) if no_log.any() else xp.log(a)
            gb = grad * out * safe_log
        return ga, gb


def pow(a, b):
    return Pow.apply(a, b)


class FloorDivide(Function):
    """z = ⌊a / b⌋, rounded toward -∞ (Python's ``//``: 7 // -2 = -4);   dz/da = dz/db = 0.

    A step function, so its derivative is 0 wherever it exists; dagrad gives that 0 (as for
    ``floor``), where PyTorch's backward raises that it is not implemented."""

    dtype_rule = promote_inputs

    def forward(ctx, a, b):
        _check_division("floor_divide (//)", a, b)
        return np.floor_divide(a, b)

    rules = {
        "a": "δ_a = 0 · δ_out, a step function's slope",
        "b": "δ_b = 0 · δ_out, a step function's slope"}

    def backward(ctx, grad):
        need_a, need_b = ctx.needs_input_grad
        return (grad * 0 if need_a else None), (grad * 0 if need_b else None)


def floor_divide(a, b):
    """⌊a / b⌋ elementwise, rounded toward -∞ (``a // b``); broadcasts."""
    return FloorDivide.apply(a, b)


class Remainder(Function):
    """z = a - b ⌊a / b⌋, with the sign of b (Python's ``%``: -7 % 3 = 2);
    dz/da = 1,   dz/db = -⌊a / b⌋ (PyTorch's gradients)"""

    dtype_rule = promote_inputs

    def forward(ctx, a, b):
        _check_division("remainder (%)", a, b)
        ctx.save(a, b)
        return np.remainder(a, b)

    rules = {"a": "δ_a = δ_out", "b": "δ_b = −δ_out · floor(a / b)"}

    def backward(ctx, grad):
        a, b = ctx.saved
        if not ctx.needs_input_grad[1]:
            return grad, None
        with np.errstate(divide="ignore", invalid="ignore"):
            quotient = np.floor_divide(raw_data(a), raw_data(b))
        return grad, -grad * quotient


def remainder(a, b):
    """a - b ⌊a / b⌋ elementwise, with the sign of b (``a % b``); broadcasts."""
    return Remainder.apply(a, b)


def _check_division(op, a, b):
    """PyTorch's refusals: no floor division of booleans, no integer division by zero (NumPy
    would give 0 with a warning)."""
    kind = np.result_type(a, b).kind
    if kind == "b":
        raise TypeError(f"{op}: not implemented for bool tensors (as in PyTorch); convert "
                        f"first, e.g. x.long() // y.long()")
    divisor = np.asarray(b)
    if kind in "iu" and not divisor.all():
        raise RuntimeError(f"{op}: ZeroDivisionError: integer division by zero (the divisor "
                           f"of shape {divisor.shape} holds a 0); divide floating-point tensors "
                           f"to get inf or nan instead, or replace the zeros first")
