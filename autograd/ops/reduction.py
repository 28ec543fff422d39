"""Reductions along dimensions, and softmax / log-softmax.

A reduction's backward spreads the output gradient back over the reduced axes: the gradient is
first given back the reduced axes (size 1), then broadcast to the input's shape.
"""
import builtins
import functools
from collections import namedtuple

import numpy as np

from ..args import reduction
from ..dtypes import floating, require_floating, to_float
from ..function import Function
from ..sums import sum_keep
from ..tensor import make_tensor, raw_data, Tensor
from .cast import cast
from .piecewise import Where, maximum, minimum
from .shape import Transpose

MaxResult = namedtuple("MaxResult", ["values", "indices"])


def _keepdims_shape(shape, axes):
    """``shape`` with the reduced ``axes`` (None: all) set to 1."""
    if axes is None:
        return (1,) * len(shape)
    return tuple(1 if i in axes else n for i, n in enumerate(shape))


def _expand_grad(ctx, grad):
    """Give the output gradient back the reduced axes and broadcast it to the input shape."""
    return ctx.xp.broadcast_to(grad.reshape(ctx.kshape), ctx.in_shape)


class Sum(Function):
    """y = Σᵢ xᵢ over ``axis``;   dy/dxᵢ = 1 (the gradient is copied to every summed element)"""

    def forward(ctx, x, axis=None, keepdims=False):
        ctx.in_shape, ctx.kshape = x.shape, _keepdims_shape(x.shape, axis)
        return x.sum(axis=axis, keepdims=keepdims)

    rules = {"x": "δ_x = δ_out, copied to every element that was summed"}

    def backward(ctx, grad):
        return _expand_grad(ctx, grad)


class Mean(Function):
    """y = (1/n) Σᵢ xᵢ over ``axis``;   dy/dxᵢ = 1/n"""

    def forward(ctx, x, axis=None, keepdims=False):
        ctx.in_shape, ctx.kshape = x.shape, _keepdims_shape(x.shape, axis)
        out = x.mean(axis=axis, keepdims=keepdims)
        ctx.n = x.size // out.size if out.size else 1
        return out

    rules = {"x": "δ_x = δ_out / n, copied to every element of the n averaged"}

    def backward(ctx, grad):
        return _expand_grad(ctx, grad / ctx.n)


class Amax(Function):
    """y = max over ``axis``;   dy/dxᵢ = 1/k for the k elements equal to the max, else 0
    (ties share the gradient evenly, as PyTorch's amax and max() without dim).

    ``nan_wins``: a NaN result's gradient is shared by the NaN elements (PyTorch's max()/min()
    without dim); otherwise it is NaN, as PyTorch's amax/amin."""

    def forward(ctx, x, axis=None, keepdims=False, lowest=False, nan_wins=False):
        out = (np.min if lowest else np.max)(x, axis=axis, keepdims=True)
        ctx.save(x, extreme=out)
        ctx.axis, ctx.nan_wins = axis, nan_wins
        ctx.in_shape, ctx.kshape = x.shape, out.shape
        return out if keepdims else _drop_axes(out, axis)

    rules = {"x": "δ_x = δ_out · [x = out], shared evenly when several elements equal out"}

    def backward(ctx, grad):
        x, extreme = raw_data(ctx.saved[0]), ctx.extreme
        winners = x == extreme
        if ctx.nan_wins and np.isnan(extreme).any():
            winners |= np.isnan(x) & np.isnan(extreme)
        share = (winners / winners.sum(axis=ctx.axis, keepdims=True)).astype(extreme.dtype)
        return _expand_grad(ctx, grad) * share


def _drop_axes(out_keep, axis):
    """Remove the size-1 reduced axes kept by ``keepdims=True``."""
    return out_keep.reshape(()) if axis is None else np.squeeze(out_keep, axis=axis)


class PickAlong(Function):
    """y = x[..., idx, ...] along ``axis`` (max/min with a dim);
    dy/dx = 1 at the picked index, 0 elsewhere (PyTorch: the gradient goes to that index)."""

    def forward(ctx, x, indices, axis, keepdims=False):
        idx = np.expand_dims(indices, axis)
        ctx.save(picked=np.arange(x.shape[axis]).reshape(
            [-1 if i == axis else 1 for i in range(x.ndim)]) == idx)
        ctx.in_shape, ctx.kshape = x.shape, idx.shape
        out = np.take_along_axis(x, idx, axis)
        return out if keepdims else out.squeeze(axis)

    rules = {"x": "δ_x = δ_out, at the index max or min picked (0 elsewhere)"}

    def backward(ctx, grad):
        return _expand_grad(ctx, grad) * ctx.picked


class Prod(Function):
    """y = Πᵢ xᵢ over ``axis``;   dy/dxᵢ = Π_{j≠i} xⱼ (computed without dividing, so zeros work
    on both paths: ``xp.prod_others``)"""

    def forward(ctx, x, axis=None, keepdims=False):
        ctx.save(x)
        ctx.axis = axis
        ctx.in_shape, ctx.kshape = x.shape, _keepdims_shape(x.shape, None if axis is None
                                                            else (axis,))
        return x.prod(axis=axis, keepdims=keepdims)

    rules = {"x": "δ_x = δ_out · out / x, computed as the product of the other x's (x = 0 works)"}

    def backward(ctx, grad):
        x, = ctx.saved
        return _expand_grad(ctx, grad) * ctx.xp.prod_others(x, ctx.axis)


def prod_others(x, axis):
    """pᵢ = Π_{j≠i} xⱼ as recorded operations (``ctx.xp.prod_others`` under
    ``create_graph=True``): row i of an n×n matrix holds x with xᵢ replaced by 1, and each
    row's product is pᵢ. O(n²) memory, so only the differentiable path uses it; it stays exact
    where x has zeros (at any order)."""
    moved = x.reshape(-1) if axis is None else Transpose.apply(x, axes=_to_last(x.ndim, axis))
    n = moved.shape[-1]
    rows = Where.apply(np.eye(n, dtype=bool), 1.0, moved.reshape(moved.shape[:-1] + (1, n)))
    others = Prod.apply(rows, axis=rows.ndim - 1)
    if axis is None:
        return others.reshape(x.shape)
    return Transpose.apply(others, axes=tuple(np.argsort(_to_last(x.ndim, axis))))


def _to_last(ndim, axis):
    """The permutation moving ``axis`` to the end."""
    return tuple(a for a in range(ndim) if a != axis) + (axis,)


class SafeSqrt(Function):
    """y = √v, the last step of std and of the 2-norm;   dy/dv = 1/(2y), taken as 0 where
    y = 0 (PyTorch's convention: std or norm of a constant input has gradient 0, not NaN)."""

    def forward(ctx, v):
        y = np.sqrt(v)
        ctx.save(output=y)
        return y

    rules = {"v": "δ_v = δ_out / (2 · out), taken as 0 where out = 0"}

    def backward(ctx, grad):
        y, = ctx.saved
        zero = raw_data(y) == 0
        if not zero.any():
            return grad / (2 * y)
        return ctx.xp.where(zero, 0.0, grad / (2 * ctx.xp.where(zero, 1.0, y)))


def _max_or_minus_inf(x, axis):
    """The max along ``axis`` (kept), -inf where there is nothing to take it of: softmax over
    an empty axis is empty and logsumexp of nothing is log 0 = -inf, as in PyTorch."""
    return x.max(axis=axis, keepdims=True, initial=-np.inf)


class LogSumExp(Function):
    """y = log Σᵢ exp(xᵢ) (computed as m + log Σ exp(xᵢ - m), m = max);
    dy/dxᵢ = exp(xᵢ - y) = softmax(x)ᵢ"""

    dtype_rule = to_float

    def forward(ctx, x, axis=None, keepdims=False):
        m = _max_or_minus_inf(x, axis)
        m = np.where(np.isfinite(m), m, 0)
        with np.errstate(divide="ignore"):          # log 0 = -inf: nothing, or only -inf
            out = np.log(np.exp(x - m).sum(axis=axis, keepdims=True)) + m
        ctx.in_shape, ctx.kshape = x.shape, out.shape
        out = out if keepdims else _drop_axes(out, axis)
        ctx.save(x, output=out)
        return out

    rules = {"x": "δ_x = δ_out · exp(x − out)"}

    def backward(ctx, grad):
        x, out = ctx.saved
        return _expand_grad(ctx, grad) * ctx.xp.exp(x - out.reshape(ctx.kshape))


class Softmax(Function):
    """yᵢ = exp(xᵢ) / Σⱼ exp(xⱼ) along ``axis``;   dL/dx = y ⊙ (g - Σⱼ gⱼ yⱼ)"""

    dtype_rule = floating

    def forward(ctx, x, axis=-1):
        e = np.exp(x - _max_or_minus_inf(x, axis))
        y = e / sum_keep(e, axis)
        ctx.axis = axis
        ctx.save(output=y)
        return y

    rules = {"x": "δ_x = out · (δ_out − Σ(δ_out · out)), Σ along the softmax's axis"}

    def backward(ctx, grad):
        y, = ctx.saved
        return y * (grad - sum_keep(grad * y, ctx.axis))


class LogSoftmax(Function):
    """yᵢ = xᵢ - log Σⱼ exp(xⱼ) along ``axis``;   dL/dx = g - softmax(x) Σⱼ gⱼ"""

    dtype_rule = floating

    def forward(ctx, x, axis=-1):
        shifted = x - _max_or_minus_inf(x, axis)
        y = shifted - np.log(sum_keep(np.exp(shifted), axis))
        ctx.axis = axis
        ctx.save(output=y)
        return y

    rules = {"x": "δ_x = δ_out − exp(out) · Σ(δ_out), Σ along the softmax's axis"}

    def backward(ctx, grad):
        y, = ctx.saved
        return grad - ctx.xp.exp(y) * sum_keep(grad, ctx.axis)


# ----------------------------------------------------------------------- public functions
# Each takes PyTorch's dim/keepdim and NumPy's axis/keepdims (see args.reduction), and receives
# dim already normalised: None or a tuple of non-negative axes ("many"), or None or one int.
@reduction()
def sum(x, dim=None, keepdim=False, *, dtype=None):
    """Sum over ``dim`` (an int, a tuple, or None or () for all dimensions). Booleans and
    integers sum to int64, as in PyTorch (NumPy would give uint64 for unsigned ones);
    ``dtype`` converts the input first (``x.sum(dtype=ag.float64)`` adds in float64)."""
    return Sum.apply(_accumulating(x, dtype), axis=dim, keepdims=bool(keepdim))


def _accumulating(x, dtype):
    """``x`` in the dtype a sum or product accumulates in: ``dtype`` if given, else int64 for
    booleans and integers, else its own."""
    if dtype is None:
        if x._data.dtype.kind not in "biu" or x._data.dtype == np.int64:
            return x
        dtype = np.int64
    return cast(x, dtype)


@reduction()
def mean(x, dim=None, keepdim=False):
    """Arithmetic mean over ``dim``."""
    require_floating("mean", x)
    return Mean.apply(x, axis=dim, keepdims=bool(keepdim))


@reduction()
def var(x, dim=None, keepdim=False, *, correction=1, unbiased=None):
    """Variance Σ(x - x̄)² / (n - correction); ``correction=1`` (Bessel) is PyTorch's default."""
    require_floating("var", x)
    if unbiased is not None:
        correction = 1 if unbiased else 0
    n = x.numel() if dim is None else int(np.prod([x.shape[a] for a in dim]))
    centred = x - mean(x, dim, keepdim=True)
    return sum(centred * centred, dim, keepdim) / builtins.max(n - correction, 0)


@reduction()
def std(x, dim=None, keepdim=False, *, correction=1, unbiased=None):
    """Standard deviation: √var (gradient 0 where it is 0, as PyTorch)."""
    return SafeSqrt.apply(var(x, dim, keepdim, correction=correction, unbiased=unbiased))


@reduction(dims="one")
def prod(x, dim=None, keepdim=False, *, dtype=None):
    """Product over one dimension, or over all elements when ``dim`` is None (booleans and
    integers multiply in int64, as ``sum``)."""
    return Prod.apply(_accumulating(x, dtype), axis=dim, keepdims=keepdim)


def _require_elements(op, x, dims, error=RuntimeError):
    """PyTorch's errors for a max/min/argmax over nothing: ``dims`` (None: all) must hold at
    least one element."""
    if dims is None:
        if x.numel() == 0:
            raise error(f"{op}(): Expected reduction dim to be specified for input.numel() == 0 "
                        f"(a tensor of shape {x.shape} has no elements, so it has no "
                        f"{op}). Specify the reduction dim with the 'dim' argument.")
        return
    for d in dims:
        if x.ndim and x.shape[d] == 0:
            raise IndexError(f"{op}(): Expected reduction dim {d} to have non-zero size (a "
                             f"tensor of shape {x.shape}); reduce along a non-empty "
                             f"dimension")


def _extreme(x, dim=None, keepdim=False, *, lowest):
    """max or min (``lowest``): over everything (``dim`` None), or ``(values, indices)``."""
    _require_elements("min" if lowest else "max", x, None if dim is None else (dim,))
    if dim is None:
        return Amax.apply(x, axis=None, keepdims=False, lowest=lowest, nan_wins=True)
    keepdim = keepdim and x.ndim > 0          # a 0-d tensor stays 0-d, as in PyTorch
    data = x._data if x.ndim else x._data.reshape(1)
    indices = (np.argmin if lowest else np.argmax)(data, axis=dim)
    values = PickAlong.apply(x if x.ndim else x.reshape(1), indices, axis=dim,
                             keepdims=keepdim)
    if keepdim:
        indices = np.expand_dims(indices, dim)
    return MaxResult(values, make_tensor(np.asarray(indices, dtype=np.int64), None))


_max_along = reduction("one", name="max")(functools.partial(_extreme, lowest=False))
_min_along = reduction("one", name="min")(functools.partial(_extreme, lowest=True))


def max(x, *args, **kwargs):
    """max(x, dim=None, keepdim=False): the largest element; with ``dim``, ``(values,
    indices)`` along it; with a tensor in place of ``dim``, the elementwise maximum of the two
    (``torch.max(a, b)``), as PyTorch."""
    if args and isinstance(args[0], Tensor):
        return maximum(x, args[0])
    return _max_along(x, *args, **kwargs)


def min(x, *args, **kwargs):
    """min(x, dim=None, keepdim=False): the smallest element; with ``dim``, ``(values,
    indices)`` along it; with a tensor in place of ``dim``, the elementwise minimum of the two
    (``torch.min(a, b)``)."""
    if args and isinstance(args[0], Tensor):
        return minimum(x, args[0])
    return _min_along(x, *args, **kwargs)


@reduction()
def amax(x, dim=None, keepdim=False):
    """Maximum over ``dim`` (int or tuple); ties share the gradient evenly."""
    _require_elements("amax", x, dim)
    return Amax.apply(x, axis=dim, keepdims=keepdim)


@reduction()
def amin(x, dim=None, keepdim=False):
    """Minimum over ``dim`` (int or tuple); ties share the gradient evenly."""
    _require_elements("amin", x, dim)
    return Amax.apply(x, axis=dim, keepdims=keepdim, lowest=True)


@reduction(dims="one")
def argmax(x, dim=None, keepdim=False):
    """Index of the largest element (of the flattened tensor when ``dim`` is None)."""
    _require_elements("argmax", x, None if dim is None else (dim,), IndexError)
    return _arg(np.argmax, x, dim, keepdim)


@reduction(dims="one")
def argmin(x, dim=None, keepdim=False):
    """Index of the smallest element (of the flattened tensor when ``dim`` is None)."""
    _require_elements("argmin", x, None if dim is None else (dim,), IndexError)
    return _arg(np.argmin, x, dim, keepdim)


def _arg(fn, x, dim, keepdim):
    data = x._data
    if dim is None:
        out = fn(data)
        out = np.reshape(out, (1,) * data.ndim) if keepdim else out
    else:
        out = fn(data, axis=dim, keepdims=keepdim)
    return make_tensor(np.asarray(out, dtype=np.int64), None)


@reduction()
def logsumexp(x, dim=None, keepdim=False):
    """log Σ exp(x) over ``dim``, computed stably."""
    return LogSumExp.apply(x, axis=dim, keepdims=bool(keepdim))


@reduction(dims="one")
def softmax(x, dim, dtype=None):
    """softmax along ``dim`` (required, as in PyTorch): exp(x) / Σ exp(x), computed stably;
    ``dtype`` converts the input first."""
    return Softmax.apply(_converted(x, dtype), axis=dim)


@reduction(dims="one")
def log_softmax(x, dim, dtype=None):
    """log(softmax(x)) along ``dim`` (required), computed stably as x - logsumexp(x)."""
    return LogSoftmax.apply(_converted(x, dtype), axis=dim)


def _converted(x, dtype):
    if dtype is None or x._data.dtype == np.dtype(dtype):
        return x
    return cast(x, dtype)


@reduction()
def norm(x, p=2, dim=None, keepdim=False):
    """Vector p-norm (Σ|x|ᵖ)^(1/p) over ``dim`` (all elements by default)."""
    require_floating("norm", x)
    if p == 2:
        return SafeSqrt.apply(sum(x * x, dim, keepdim))
    if p == 1:
        return sum(x.abs(), dim, keepdim)
    if p == float("inf"):
        return amax(x.abs(), dim, keepdim)
    return sum(x.abs() ** p, dim, keepdim) ** (1.0 / p)
