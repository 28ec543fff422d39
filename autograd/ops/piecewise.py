"""Piecewise operations: |x|, maximum, minimum, where, clamp. Their derivatives are 1 or 0
(or a sign) piece by piece; each class docstring states them, and the public function sits
under its class."""
import numpy as np

from ..dtypes import promote, promote_inputs
from ..function import Function
from ..convert import as_array
from ..tensor import Tensor, raw_data


class Abs(Function):
    """y = |x|;   dy/dx = sign(x)   (0 at x = 0, as PyTorch)"""

    def forward(ctx, x):
        ctx.save(x)
        return np.abs(x)

    rules = {"x": "δ_x = δ_out · sign(x)"}

    def backward(ctx, grad):
        x, = ctx.saved
        return grad * ctx.xp.sign(x)


def abs(x):
    """|x| elementwise."""
    return Abs.apply(x)


class Maximum(Function):
    """z = max(a, b);   the gradient goes to the larger input, split in half on ties (PyTorch)."""

    dtype_rule = promote_inputs

    def forward(ctx, a, b):
        ctx.save(a, b)
        return np.maximum(a, b)

    rules = {
        "a": "δ_a = δ_out · ([a > b] + 0.5 · [a = b])",
        "b": "δ_b = δ_out · ([b > a] + 0.5 · [a = b])"}

    def backward(ctx, grad):
        a, b = ctx.saved
        return _split_tie(ctx, grad, a, b, a > b)


def maximum(a, b):
    """Elementwise maximum (broadcasting); ties share the gradient."""
    return Maximum.apply(a, b)


class Minimum(Function):
    """z = min(a, b);   the gradient goes to the smaller input, split in half on ties (PyTorch)."""

    dtype_rule = promote_inputs

    def forward(ctx, a, b):
        ctx.save(a, b)
        return np.minimum(a, b)

    rules = {
        "a": "δ_a = δ_out · ([a < b] + 0.5 · [a = b])",
        "b": "δ_b = δ_out · ([b < a] + 0.5 · [a = b])"}

    def backward(ctx, grad):
        a, b = ctx.saved
        return _split_tie(ctx, grad, a, b, a < b)


def minimum(a, b):
    """Elementwise minimum (broadcasting); ties share the gradient."""
    return Minimum.apply(a, b)


def _split_tie(ctx, grad, a, b, a_wins):
    """Maximum/minimum backward: the winner's share of the gradient is 1, 0.5 on a tie."""
    grad_a = grad * a_wins + (grad * 0.5) * (a == b)
    return grad_a, (grad - grad_a if ctx.needs_input_grad[1] else None)


class Where(Function):
    """z = a where cond else b;   dz/da = cond,   dz/db = not cond   (cond gets no gradient)"""

    def forward(ctx, cond, a, b):
        ctx.save(cond=cond)
        return np.where(cond, a, b)

    rules = {"a": "δ_a = δ_out · [cond]", "b": "δ_b = δ_out · [not cond]"}

    def backward(ctx, grad):
        xp, cond = ctx.xp, ctx.cond
        _, need_a, need_b = ctx.needs_input_grad
        return (None, xp.where(cond, grad, 0) if need_a else None,
                xp.where(cond, 0, grad) if need_b else None)


def where(condition, a, b):
    """``a`` where ``condition`` is True, else ``b`` (all three broadcast)."""
    cond = as_array(condition)
    if cond.dtype != np.bool_:
        raise TypeError(f"where: condition must be boolean, got {cond.dtype}")
    return Where.apply(cond, *promote(a, b, op="where", checked=True))


class Clamp(Function):
    """y = min(max(x, lo), hi);   dy/dx = 1 where lo <= x <= hi, else 0 (as PyTorch)"""

    def forward(ctx, x, lo=None, hi=None):
        ctx.save(x)
        ctx.lo, ctx.hi = lo, hi
        return np.clip(x, lo, hi)

    rules = {"x": "δ_x = δ_out · [lo ≤ x ≤ hi], a missing bound never clips"}

    def backward(ctx, grad):
        x = raw_data(ctx.saved[0])
        inside = np.ones(x.shape, dtype=bool)
        if ctx.lo is not None:
            inside &= x >= ctx.lo
        if ctx.hi is not None:
            inside &= x <= ctx.hi
        return grad * inside


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

    rules = {
        "x": "δ_x = δ_out · [lo ≤ x ≤ hi], a missing bound never clips",
        "lo": "δ_lo = δ_out · [x < lo and lo < hi]",
        "hi": "δ_hi = δ_out · [x > hi or hi < lo]"}

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
