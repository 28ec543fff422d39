"""Elementwise operations. Binary ones broadcast; the engine sums their gradients back to each
input's shape, so every backward is the plain formula.

Each class docstring states the forward formula and its local derivative.
"""
import math

import numpy as np

from ..dtypes import (floating, promote, promote_inputs, promote_inputs_to_float, scalar_array,
                      promote_power, promote_subtraction, to_float)
from ..function import Function
from ..tensor import Tensor, as_array, raw_data
from ..xp import sigmoid_array


class Add(Function):
    """z = a + b;   dz/da = 1,   dz/db = 1"""

    dtype_rule = promote_inputs

    def forward(ctx, a, b):
        return a + b

    def backward(ctx, grad):
        return grad, grad


class Sub(Function):
    """z = a - b;   dz/da = 1,   dz/db = -1"""

    dtype_rule = promote_subtraction

    def forward(ctx, a, b):
        return a - b

    def backward(ctx, grad):
        return grad, (-grad if ctx.needs_input_grad[1] else None)


class Mul(Function):
    """z = a * b;   dz/da = b,   dz/db = a"""

    dtype_rule = promote_inputs
    saves_read_by = ((1,), (0,))             # y * 2.0: only 2.0 is read

    def forward(ctx, a, b):
        ctx.save(a, b)
        return a * b

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

    def backward(ctx, grad):
        a, b = ctx.saved
        ga = grad / b
        return ga, (-ga * a / b if ctx.needs_input_grad[1] else None)


class FloorDivide(Function):
    """z = ⌊a / b⌋, rounded toward -∞ (Python's ``//``: 7 // -2 = -4);   dz/da = dz/db = 0.

    A step function, so its derivative is 0 wherever it exists; dagrad gives that 0 (as for
    ``floor``), where PyTorch's backward raises that it is not implemented."""

    dtype_rule = promote_inputs

    def forward(ctx, a, b):
        _check_division("floor_divide (//)", a, b)
        return np.floor_divide(a, b)

    def backward(ctx, grad):
        need_a, need_b = ctx.needs_input_grad
        return (grad * 0 if need_a else None), (grad * 0 if need_b else None)


class Remainder(Function):
    """z = a - b ⌊a / b⌋, with the sign of b (Python's ``%``: -7 % 3 = 2);
    dz/da = 1,   dz/db = -⌊a / b⌋ (PyTorch's gradients)"""

    dtype_rule = promote_inputs

    def forward(ctx, a, b):
        _check_division("remainder (%)", a, b)
        ctx.save(a, b)
        return np.remainder(a, b)

    def backward(ctx, grad):
        a, b = ctx.saved
        if not ctx.needs_input_grad[1]:
            return grad, None
        with np.errstate(divide="ignore", invalid="ignore"):
            quotient = np.floor_divide(raw_data(a), raw_data(b))
        return grad, -grad * quotient


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


class Neg(Function):
    """z = -a;   dz/da = -1"""

    def forward(ctx, a):
        return -a

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


class Exp(Function):
    """y = exp(x);   dy/dx = exp(x) = y"""

    dtype_rule = to_float

    def forward(ctx, x):
        y = np.exp(x)
        ctx.save(output=y)
        return y

    def backward(ctx, grad):
        y, = ctx.saved
        return grad * y


class Log(Function):
    """y = log(x);   dy/dx = 1/x"""

    dtype_rule = to_float

    def forward(ctx, x):
        ctx.save(x)
        return np.log(x)

    def backward(ctx, grad):
        x, = ctx.saved
        return grad / x


class Log1p(Function):
    """y = log(1 + x), accurate for small x;   dy/dx = 1/(1 + x)"""

    dtype_rule = to_float

    def forward(ctx, x):
        ctx.save(x)
        return np.log1p(x)

    def backward(ctx, grad):
        x, = ctx.saved
        return grad / (x + 1)


class Sqrt(Function):
    """y = √x;   dy/dx = 1/(2√x) = 1/(2y)"""

    dtype_rule = to_float

    def forward(ctx, x):
        y = np.sqrt(x)
        ctx.save(output=y)
        return y

    def backward(ctx, grad):
        y, = ctx.saved
        return grad / (2 * y)


class Abs(Function):
    """y = |x|;   dy/dx = sign(x)   (0 at x = 0, as PyTorch)"""

    def forward(ctx, x):
        ctx.save(x)
        return np.abs(x)

    def backward(ctx, grad):
        x, = ctx.saved
        return grad * ctx.xp.sign(x)


class Sin(Function):
    """y = sin x;   dy/dx = cos x"""

    dtype_rule = to_float

    def forward(ctx, x):
        ctx.save(x)
        return np.sin(x)

    def backward(ctx, grad):
        x, = ctx.saved
        return grad * ctx.xp.cos(x)


class Cos(Function):
    """y = cos x;   dy/dx = -sin x"""

    dtype_rule = to_float

    def forward(ctx, x):
        ctx.save(x)
        return np.cos(x)

    def backward(ctx, grad):
        x, = ctx.saved
        return -grad * ctx.xp.sin(x)


class Tanh(Function):
    """y = tanh x;   dy/dx = 1 - y²

    (the 1 is a cached 0-d array of y's dtype: NumPy converts a Python number on every use,
    0.35 µs, a third of this formula's time on a small tensor)"""

    dtype_rule = to_float

    def forward(ctx, x):
        y = np.tanh(x)
        ctx.save(output=y)
        return y

    def backward(ctx, grad):
        y, = ctx.saved
        return grad * (scalar_array(1.0, y.dtype) - y * y)


class Sigmoid(Function):
    """y = σ(x) = 1/(1 + e^(-x));   dy/dx = y (1 - y)   (σ'(0) = 0.25; the 1 as in ``Tanh``)"""

    dtype_rule = to_float

    def forward(ctx, x):
        y = sigmoid_array(x)
        ctx.save(output=y)
        return y

    def backward(ctx, grad):
        y, = ctx.saved
        return grad * y * (scalar_array(1.0, y.dtype) - y)


class Relu(Function):
    """y = max(x, 0);   dy/dx = 1 if x > 0 else 0"""

    def forward(ctx, x):
        y = np.maximum(x, 0)
        ctx.save(output=y)
        return y

    def backward(ctx, grad):
        y, = ctx.saved
        return grad * (y > 0)


class LeakyRelu(Function):
    """y = x if x > 0 else s·x;   dy/dx = 1 if x > 0 else s"""

    dtype_rule = floating

    def forward(ctx, x, negative_slope=0.01):
        ctx.save(x)
        ctx.slope = negative_slope
        return np.where(x > 0, x, x * negative_slope)

    def backward(ctx, grad):
        x, = ctx.saved
        return ctx.xp.where(x > 0, grad, grad * ctx.slope)


class Elu(Function):
    """y = x if x > 0 else α(eˣ - 1);   dy/dx = 1 if x > 0 else αeˣ = y + α"""

    dtype_rule = floating

    def forward(ctx, x, alpha=1.0):
        ctx.save(x)
        ctx.alpha = alpha
        return np.where(x > 0, x, alpha * np.expm1(np.minimum(x, 0)))

    def backward(ctx, grad):
        x, = ctx.saved
        xp = ctx.xp
        return grad * xp.where(x > 0, 1.0, ctx.alpha * xp.exp(xp.where(x > 0, 0.0, x)))


class Softplus(Function):
    """y = (1/β) log(1 + e^(βx)), and y = x where βx > threshold;   dy/dx = σ(βx)"""

    dtype_rule = floating

    def forward(ctx, x, beta=1.0, threshold=20.0):
        ctx.save(x)
        ctx.beta, ctx.threshold = beta, threshold
        bx = beta * x
        return np.where(bx > threshold, x, np.logaddexp(0, bx) / beta).astype(x.dtype, copy=False)

    def backward(ctx, grad):
        x, = ctx.saved
        bx = ctx.beta * x
        return grad * ctx.xp.where(bx > ctx.threshold, 1.0, ctx.xp.sigmoid(bx))


class Erf(Function):
    """y = erf(x) = 2/√π ∫₀ˣ e^(-t²) dt;   dy/dx = 2/√π e^(-x²)"""

    dtype_rule = to_float

    def forward(ctx, x):
        ctx.save(x)
        return erf_array(x)

    def backward(ctx, grad):
        x, = ctx.saved
        return grad * (2 / math.sqrt(math.pi)) * ctx.xp.exp(-x * x)


class Gelu(Function):
    """y = x Φ(x), Φ the standard normal CDF = (1 + erf(x/√2))/2;   dy/dx = Φ(x) + x φ(x).

    ``approximate="tanh"``: y = x/2 (1 + tanh(√(2/π)(x + 0.044715 x³))), as PyTorch.
    """

    dtype_rule = floating

    def forward(ctx, x, approximate="none"):
        ctx.save(x)
        ctx.approximate = approximate
        if approximate == "tanh":
            return 0.5 * x * (1 + np.tanh(_GELU_K * (x + 0.044715 * x ** 3)))
        return (0.5 * x * (1 + erf_array(x * _SQRT_HALF))).astype(x.dtype, copy=False)

    def backward(ctx, grad):
        x, = ctx.saved
        xp = ctx.xp
        if ctx.approximate == "tanh":
            inner = _GELU_K * (x + 0.044715 * x ** 3)
            t = xp.tanh(inner)
            d_inner = _GELU_K * (1 + 3 * 0.044715 * x * x)
            return grad * (0.5 * (1 + t) + 0.5 * x * (1 - t * t) * d_inner)
        cdf = 0.5 * (1 + xp.erf(x * _SQRT_HALF))
        pdf = xp.exp(-0.5 * x * x) * (1 / math.sqrt(2 * math.pi))
        return grad * (cdf + x * pdf)


_SQRT_HALF = math.sqrt(0.5)
_GELU_K = math.sqrt(2 / math.pi)
_erf_scalar = None


def erf_array(x):
    """The error function elementwise: SciPy's when installed, else ``math.erf`` per element."""
    global _erf_scalar
    if _erf_scalar is None:
        try:
            from scipy.special import erf as scipy_erf
            _erf_scalar = scipy_erf
        except ImportError:  # pragma: no cover - scipy comes with the test extras
            _erf_scalar = np.frompyfunc(math.erf, 1, 1)
    return np.asarray(_erf_scalar(x), dtype=np.result_type(x, np.float32))


class Maximum(Function):
    """z = max(a, b);   the gradient goes to the larger input, split in half on ties (PyTorch)."""

    dtype_rule = promote_inputs

    def forward(ctx, a, b):
        ctx.save(a, b)
        return np.maximum(a, b)

    def backward(ctx, grad):
        a, b = ctx.saved
        return _split_tie(ctx, grad, a, b, a > b)


class Minimum(Function):
    """z = min(a, b);   the gradient goes to the smaller input, split in half on ties (PyTorch)."""

    dtype_rule = promote_inputs

    def forward(ctx, a, b):
        ctx.save(a, b)
        return np.minimum(a, b)

    def backward(ctx, grad):
        a, b = ctx.saved
        return _split_tie(ctx, grad, a, b, a < b)


def _split_tie(ctx, grad, a, b, a_wins):
    """Maximum/minimum backward: the winner's share of the gradient is 1, 0.5 on a tie."""
    grad_a = grad * a_wins + (grad * 0.5) * (a == b)
    return grad_a, (grad - grad_a if ctx.needs_input_grad[1] else None)


class Where(Function):
    """z = a where cond else b;   dz/da = cond,   dz/db = not cond   (cond gets no gradient)"""

    def forward(ctx, cond, a, b):
        ctx.save(cond=cond)
        return np.where(cond, a, b)

    def backward(ctx, grad):
        xp, cond = ctx.xp, ctx.cond
        _, need_a, need_b = ctx.needs_input_grad
        return (None, xp.where(cond, grad, 0) if need_a else None,
                xp.where(cond, 0, grad) if need_b else None)


class Clamp(Function):
    """y = min(max(x, lo), hi);   dy/dx = 1 where lo <= x <= hi, else 0 (as PyTorch)"""

    def forward(ctx, x, lo=None, hi=None):
        ctx.save(x)
        ctx.lo, ctx.hi = lo, hi
        return np.clip(x, lo, hi)

    def backward(ctx, grad):
        x = raw_data(ctx.saved[0])
        inside = np.ones(x.shape, dtype=bool)
        if ctx.lo is not None:
            inside &= x >= ctx.lo
        if ctx.hi is not None:
            inside &= x <= ctx.hi
        return grad * inside


class Cast(Function):
    """y = x converted to another dtype;   dy/dx = 1 (the gradient is cast back)"""

    def forward(ctx, x, dtype):
        ctx.in_dtype = x.dtype
        return x.astype(dtype)

    def backward(ctx, grad):
        return ctx.xp.astype(grad, ctx.in_dtype)


class Clone(Function):
    """y = a copy of x;   dy/dx = 1"""

    def forward(ctx, x):
        return x.copy()

    def backward(ctx, grad):
        return grad


def cast(x, dtype):
    """``x`` converted to ``dtype``; differentiable between floating-point dtypes."""
    dtype = np.dtype(dtype)
    if x.dtype == dtype:
        return x
    if x.requires_grad and not np.issubdtype(dtype, np.floating):
        return Tensor._make(x._data.astype(dtype), None)
    return Cast.apply(x, dtype=dtype)


class ClampTensor(Function):
    """y = min(max(x, lo), hi) with tensor bounds (all three broadcast; either bound may be
    None or a number). The gradient goes, as PyTorch's:
        dy/dx = 1 where lo <= x <= hi (ties go to x),
        dy/dlo = 1 where x < lo (and lo < hi),   dy/dhi = 1 where x > hi (or hi < lo)."""

    dtype_rule = promote_inputs

    def forward(ctx, x, lo, hi):
        out = x if lo is None else np.maximum(x, lo)
        out = out if hi is None else np.minimum(out, hi)
        inside = np.ones(out.shape, dtype=bool)
        below = above = None
        if lo is not None:
            inside &= x >= lo
            below = x < lo
        if hi is not None:
            inside &= x <= hi
            above = x > hi
        if lo is not None and hi is not None:
            below = below & np.less(lo, hi)
            above = above | np.less(hi, lo)
        ctx.save(inside=inside, below=below, above=above)
        return out

    def backward(ctx, grad):
        xp = ctx.xp
        masks = ctx.inside, ctx.below, ctx.above
        return tuple(xp.where(m, grad, 0.0) if need else None
                     for need, m in zip(ctx.needs_input_grad, masks))


def clamp(x, min=None, max=None):
    """Limit ``x`` to [min, max]; ``min``/``max`` may be numbers or Tensors."""
    if min is None and max is None:
        raise ValueError("clamp: give at least one of min and max")
    if isinstance(min, Tensor) or isinstance(max, Tensor):
        return ClampTensor.apply(x, min, max)
    x, min, max = promote(x, min, max, op="clamp", checked=True)  # int clamped to 0.5: float32
    return Clamp.apply(x, lo=min, hi=max)


# ----------------------------------------------------------------------- public functions
def exp(x):
    """eˣ elementwise."""
    return Exp.apply(x)


def log(x):
    """Natural logarithm elementwise."""
    return Log.apply(x)


def log1p(x):
    """log(1 + x) elementwise, without the rounding of 1 + x for small x."""
    return Log1p.apply(x)


def sqrt(x):
    """√x elementwise."""
    return Sqrt.apply(x)


def abs(x):
    """|x| elementwise."""
    return Abs.apply(x)


def sin(x):
    return Sin.apply(x)


def cos(x):
    return Cos.apply(x)


def tanh(x):
    """tanh x = (eˣ - e⁻ˣ)/(eˣ + e⁻ˣ)."""
    return Tanh.apply(x)


def sigmoid(x):
    """σ(x) = 1/(1 + e⁻ˣ)."""
    return Sigmoid.apply(x)


def relu(x):
    """max(x, 0)."""
    return Relu.apply(x)


def leaky_relu(x, negative_slope=0.01):
    """x for x > 0, negative_slope·x otherwise."""
    return LeakyRelu.apply(x, negative_slope=negative_slope)


def elu(x, alpha=1.0):
    """x for x > 0, α(eˣ - 1) otherwise."""
    return Elu.apply(x, alpha=alpha)


def gelu(x, approximate="none"):
    """x Φ(x) (Gaussian error linear unit); ``approximate="tanh"`` for the tanh form."""
    if approximate not in ("none", "tanh"):
        raise ValueError(f"gelu: approximate must be 'none' or 'tanh', got {approximate!r}")
    return Gelu.apply(x, approximate=approximate)


def softplus(x, beta=1.0, threshold=20.0):
    """(1/β) log(1 + e^(βx)), linear above ``threshold`` for stability (as PyTorch)."""
    return Softplus.apply(x, beta=beta, threshold=threshold)


def erf(x):
    """The error function."""
    return Erf.apply(x)


def maximum(a, b):
    """Elementwise maximum (broadcasting); ties share the gradient."""
    return Maximum.apply(a, b)


def minimum(a, b):
    """Elementwise minimum (broadcasting); ties share the gradient."""
    return Minimum.apply(a, b)


def where(condition, a, b):
    """``a`` where ``condition`` is True, else ``b`` (all three broadcast)."""
    cond = as_array(condition)
    if cond.dtype != np.bool_:
        raise TypeError(f"where: condition must be boolean, got {cond.dtype}")
    return Where.apply(cond, *promote(a, b, op="where", checked=True))


def pow(a, b):
    return Pow.apply(a, b)


def floor_divide(a, b):
    """⌊a / b⌋ elementwise, rounded toward -∞ (``a // b``); broadcasts."""
    return FloorDivide.apply(a, b)


def remainder(a, b):
    """a - b ⌊a / b⌋ elementwise, with the sign of b (``a % b``); broadcasts."""
    return Remainder.apply(a, b)
