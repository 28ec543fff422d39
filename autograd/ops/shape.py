"""Shape operations: they move elements around without changing them, so each backward just
moves the gradient back (reshape back, transpose back, slice out, sum the copies)."""
import math

import numpy as np

from ..args import normalize_dim, normalize_dims, shape_arg
from ..dtypes import promote_inputs
from ..function import Function
from ..tensor import Tensor
from ..views import mark_multi_output, mark_view
from .indexing import getitem


class Reshape(Function):
    """y = x viewed with a new shape;   dL/dx = dL/dy reshaped back"""

    returns_view = True

    def forward(ctx, x, shape):
        ctx.in_shape = x.shape
        return x.reshape(shape)

    rules = {"x": "δ_x = δ_out, reshaped to x's shape"}

    def backward(ctx, grad):
        return grad.reshape(ctx.in_shape)

    def write_back(ctx, base, view):
        return Reshape.apply(view, shape=ctx.in_shape)


class Transpose(Function):
    """y = x with its axes permuted;   dL/dx = dL/dy with the inverse permutation"""

    returns_view = True

    def forward(ctx, x, axes):
        ctx.axes = axes
        return np.transpose(x, axes)

    rules = {"x": "δ_x = δ_out, with the axes permuted back"}

    def backward(ctx, grad):
        return ctx.xp.transpose(grad, np.argsort(ctx.axes))

    def write_back(ctx, base, view):
        return Transpose.apply(view, axes=tuple(np.argsort(ctx.axes)))


class BroadcastTo(Function):
    """y = x broadcast to ``shape``;   dL/dx = dL/dy summed over the broadcast axes (by the
    engine, which sums every gradient down to its input's shape)"""

    def forward(ctx, x, shape):
        return np.broadcast_to(x, shape)

    rules = {"x": "δ_x = δ_out, summed over the axes x was broadcast along"}

    def backward(ctx, grad):
        return grad


class Cat(Function):
    """y = [x₁, x₂, ...] joined along ``axis``;   dL/dxₖ = the slice of dL/dy that xₖ filled"""

    dtype_rule = promote_inputs

    def forward(ctx, *xs, axis=0):
        ctx.axis = axis
        ctx.bounds = np.cumsum([0] + [x.shape[axis] for x in xs])
        return np.concatenate(xs, axis=axis)

    rules = {"xs": "δ_xs = δ_out, each x getting the slice it filled"}

    def backward(ctx, grad):
        lead = (slice(None),) * ctx.axis
        b = ctx.bounds
        return tuple(grad[lead + (slice(b[k], b[k + 1]),)] for k in range(len(b) - 1))


class Stack(Function):
    """y = [x₁, x₂, ...] stacked along a new ``axis``;   dL/dxₖ = dL/dy[..., k, ...]"""

    dtype_rule = promote_inputs

    def forward(ctx, *xs, axis=0):
        ctx.axis, ctx.n = axis, len(xs)
        return np.stack(xs, axis=axis)

    rules = {"xs": "δ_xs = δ_out, each x getting its slice along the new axis"}

    def backward(ctx, grad):
        lead = (slice(None),) * ctx.axis
        return tuple(grad[lead + (k,)] for k in range(ctx.n))


class Pad(Function):
    """y = x surrounded by ``value`` (``widths`` as in np.pad);   dL/dx = the inner part of dL/dy"""

    def forward(ctx, x, widths, value=0.0):
        ctx.inner = tuple(slice(lo, lo + n) for (lo, _), n in zip(widths, x.shape))
        return np.pad(x, widths, constant_values=value)

    rules = {"x": "δ_x = δ_out, without the padding"}

    def backward(ctx, grad):
        return grad[ctx.inner]


class Flip(Function):
    """y = x reversed along ``axes``, a copy (as PyTorch: its strides cannot be negative);
    dL/dx = dL/dy reversed back"""

    def forward(ctx, x, axes):
        ctx.axes = axes
        return np.flip(x, axes).copy()

    rules = {"x": "δ_x = δ_out, reversed back along the flipped axes"}

    def backward(ctx, grad):
        return ctx.xp.flip(grad, ctx.axes)


class Tile(Function):
    """y = x repeated ``reps`` times per dimension (``Tensor.repeat``);
    dL/dx = the sum of dL/dy over all the copies"""

    def forward(ctx, x, reps):
        ctx.in_shape, ctx.padded_shape = x.shape, (1,) * (len(reps) - x.ndim) + x.shape
        ctx.reps = reps
        return np.tile(x, reps)

    rules = {"x": "δ_x = δ_out, summed over all the copies"}

    def backward(ctx, grad):
        split = []
        for r, n in zip(ctx.reps, ctx.padded_shape):
            split += [r, n]
        summed = grad.reshape(tuple(split)).sum(axis=tuple(range(0, len(split), 2)))
        return summed.reshape(ctx.in_shape)


# ----------------------------------------------------------------------- public functions
def reshape(x, *shape):
    """The same elements in a new shape (one dimension may be -1)."""
    shape = shape_arg(shape, "reshape")
    if shape and min(shape) < 0:
        _check_inferred(shape)
    if shape == x._data.shape:
        return x
    try:
        return mark_view(Reshape.apply(x, shape=shape), x, Reshape, shape=shape)
    except ValueError:
        raise RuntimeError(f"reshape: shape '{list(shape)}' is invalid for input of size "
                           f"{x.numel()} (a tensor of shape {tuple(x.shape)}); the sizes must "
                           f"multiply to {x.numel()}, or give one of them as -1 to infer it"
                           ) from None


def _check_inferred(shape):
    """A shape with negative sizes is a reshape's only when it is one -1 (the inferred one)."""
    for i, size in enumerate(shape):
        if size < -1:
            raise RuntimeError(f"reshape: invalid shape dimension {size} at index {i} of shape "
                               f"{list(shape)}; sizes are >= 0, and one may be -1 (inferred)")
    if shape.count(-1) > 1:
        raise RuntimeError(f"reshape: only one dimension can be inferred (-1), got shape "
                           f"{list(shape)}")


def view(x, *shape):
    """``reshape`` that never copies (PyTorch's ``view``): a view whose layout cannot take the
    new shape without copying (``x.t().view(6)``) raises PyTorch's error.

    Only views are checked, and only when the memory they view is laid out as PyTorch lays out
    a new tensor (row-major): then the view's layout is the one PyTorch's view has."""
    out = reshape(x, *shape)
    base = x._base
    if (out is not x and base is not None and base._data.flags.c_contiguous and x.numel()
            and not np.may_share_memory(out._data, x._data)):
        raise RuntimeError(
            f"view size is not compatible with input tensor's size and stride (at least one "
            f"dimension spans across two contiguous subspaces): a tensor of shape "
            f"{tuple(x.shape)} "
            f"that is a transposed, expanded or strided view cannot be viewed as "
            f"{list(out.shape)} without copying. Use .reshape(...) instead (it copies when it "
            f"must), or .contiguous().view(...)")
    return out


def flatten(x, start_dim=0, end_dim=-1):
    """Merge dimensions ``start_dim..end_dim`` into one."""
    if x.ndim == 0:
        return reshape(x, 1)
    s = normalize_dim(start_dim, x.ndim, "flatten")
    e = normalize_dim(end_dim, x.ndim, "flatten")
    if s > e:
        raise RuntimeError(f"flatten() has invalid args: start_dim cannot come after end_dim "
                           f"(start_dim={start_dim}, end_dim={end_dim} for shape {tuple(x.shape)})")
    dims = x._data.shape
    shape = dims[:s] + (math.prod(dims[s:e + 1]),) + dims[e + 1:]
    return reshape(x, shape)


def unflatten(x, dim, sizes):
    """Split dimension ``dim`` into ``sizes``."""
    d = normalize_dim(dim, x.ndim, "unflatten")
    return reshape(x, x.shape[:d] + tuple(sizes) + x.shape[d + 1:])


def transpose(x, dim0, dim1):
    """Swap two dimensions."""
    axes = list(range(x.ndim))
    a, b = normalize_dim(dim0, x.ndim, "transpose"), normalize_dim(dim1, x.ndim, "transpose")
    if x.ndim < 2:
        return x
    axes[a], axes[b] = axes[b], axes[a]
    return mark_view(Transpose.apply(x, axes=tuple(axes)), x, Transpose, axes=tuple(axes))


def permute(x, *dims):
    """Reorder the dimensions: output dimension i is input dimension ``dims[i]``."""
    dims = shape_arg(dims, "permute")
    axes = normalize_dims(dims, x.ndim, "permute")
    if sorted(axes) != list(range(x.ndim)):
        raise ValueError(f"permute: dims {dims} are not a permutation of the {x.ndim} "
                         f"dimensions of a tensor of shape {tuple(x.shape)}")
    return mark_view(Transpose.apply(x, axes=axes), x, Transpose, axes=axes)


def unsqueeze(x, dim):
    """Insert a dimension of size 1 at ``dim``."""
    d = normalize_dim(dim, x.ndim + 1, "unsqueeze")
    return reshape(x, x.shape[:d] + (1,) + x.shape[d:])


def squeeze(x, dim=None):
    """Remove dimensions of size 1 (only ``dim``, when given and of size 1)."""
    if dim is None:
        shape = tuple(n for n in x.shape if n != 1)
    else:
        axes = normalize_dims(dim, x.ndim, "squeeze")
        shape = tuple(n for i, n in enumerate(x.shape) if not (i in axes and n == 1))
    return reshape(x, shape)


def unbind(x, dim=0):
    """The slices of ``x`` along ``dim``, as a tuple of tensors without that dimension:
    unbind(x, 0) = (x[0], x[1], ...); each slice's gradient goes back to its place."""
    d = normalize_dim(dim, x.ndim, "unbind")
    if x.ndim == 0:
        raise IndexError("unbind: dimension specified as 0 but tensor has no dimensions; a "
                         "0-d tensor has nothing to unbind")
    lead = (slice(None),) * d
    views = tuple(getitem(x, lead + (i,)) for i in range(x.shape[d]))
    mark_multi_output(views, "unbind")      # PyTorch cannot regenerate them after a change
    return views


def broadcast_to(x, shape):
    """``x`` broadcast to ``shape`` (NumPy's rules)."""
    shape = tuple(shape)
    if x.shape == shape:
        return x
    try:
        return mark_view(BroadcastTo.apply(x, shape=shape), x, BroadcastTo, shape=shape)
    except ValueError:
        raise ValueError(f"broadcast_to: cannot broadcast shape "
                         f"{tuple(x.shape)} to {shape}") from None


def expand(x, *sizes):
    """Broadcast to ``sizes``; -1 keeps a dimension's size (PyTorch's ``expand``)."""
    sizes = shape_arg(sizes, "expand")
    lead = len(sizes) - x.ndim
    if lead < 0:
        raise ValueError(f"expand: {len(sizes)} sizes given for a {x.ndim}-d tensor "
                         f"of shape {tuple(x.shape)}")
    shape = tuple(x.shape[i - lead] if s == -1 else s for i, s in enumerate(sizes))
    return broadcast_to(x, shape)


def _tensors(xs, op):
    xs = list(xs)
    if not xs:
        raise ValueError(f"{op}: expected a non-empty sequence of tensors")
    return [x if isinstance(x, Tensor) else Tensor(x) for x in xs]


def cat(tensors, dim=0):
    """Join tensors along an existing dimension (all other sizes must match)."""
    xs = _tensors(tensors, "cat")
    for k, x in enumerate(xs):
        if x.ndim == 0:
            raise RuntimeError(f"cat: zero-dimensional tensor (at position {k}) cannot be "
                               f"concatenated, as in PyTorch: it has no dimension to join along. "
                               f"Use stack to make a new dimension of scalars, or give it one "
                               f"with x.reshape(1) (shapes: {[tuple(x.shape) for x in xs]})")
    d = normalize_dim(dim, xs[0].ndim, "cat")
    rest = {x.shape[:d] + x.shape[d + 1:] for x in xs}
    if len(rest) > 1 or len({x.ndim for x in xs}) > 1:
        raise ValueError(f"cat: shapes {[tuple(x.shape) for x in xs]} differ outside dimension "
                         f"{dim}")
    return Cat.apply(*xs, axis=d)


def stack(tensors, dim=0):
    """Join same-shaped tensors along a new dimension."""
    xs = _tensors(tensors, "stack")
    if len({x.shape for x in xs}) > 1:
        raise ValueError(f"stack: all tensors must have the same shape, got "
                         f"{[x.shape for x in xs]}")
    return Stack.apply(*xs, axis=normalize_dim(dim, xs[0].ndim + 1, "stack"))


def split(x, split_size_or_sections, dim=0):
    """Split into pieces of ``split_size`` (the last may be smaller) or of the given sizes."""
    d = normalize_dim(dim, x.ndim, "split")
    n = x.shape[d]
    if isinstance(split_size_or_sections, int):
        size = split_size_or_sections
        if size < 0:
            raise RuntimeError(f"split expects split_size be non-negative, but got "
                               f"split_size={size}")
        if size == 0 and n:
            raise RuntimeError(f"split_size can only be 0 if dimension size is 0, but got "
                               f"dimension size of {n} (shape {tuple(x.shape)}, dim {dim})")
        sizes = [min(size, n - s) for s in range(0, n, size)] if n else [0]
    else:
        sizes = list(split_size_or_sections)
        if any(size < 0 for size in sizes):
            raise RuntimeError(f"split_with_sizes expects split_sizes have only non-negative "
                               f"entries, but got split_sizes={sizes}")
        if sum(sizes) != n:
            raise ValueError(f"split: sizes {sizes} do not add up to {n}, the size of "
                             f"dimension {dim} of shape {tuple(x.shape)}")
    lead = (slice(None),) * d
    starts = np.cumsum([0] + sizes)
    return tuple(x[lead + (slice(int(starts[k]), int(starts[k + 1])),)]
                 for k in range(len(sizes)))


def chunk(x, chunks, dim=0):
    """Split into ``chunks`` pieces of (nearly) equal size, as PyTorch."""
    n = x.shape[normalize_dim(dim, x.ndim, "chunk")]
    if chunks <= 0:
        raise RuntimeError(f"chunk expects `chunks` to be greater than 0, got: {chunks}")
    return split(x, max(-(-n // chunks), 1), dim)


def pad(x, pad, mode="constant", value=0.0):
    """Pad with ``value``; ``pad`` is PyTorch's (left, right, top, bottom, ...) starting from the
    last dimension."""
    if mode != "constant":
        raise ValueError(f"pad: mode {mode!r} is not supported, only 'constant'")
    if len(pad) % 2 or len(pad) // 2 > x.ndim:
        raise ValueError(f"pad: needs an even number of values, at most 2 per dimension "
                         f"({2 * x.ndim} for shape {tuple(x.shape)}), got {len(pad)}")
    widths = [(0, 0)] * x.ndim
    for k in range(len(pad) // 2):
        widths[x.ndim - 1 - k] = (pad[2 * k], pad[2 * k + 1])
    if any(lo < 0 or hi < 0 for lo, hi in widths):
        raise ValueError("pad: negative padding is not supported")
    return Pad.apply(x, widths=tuple(widths), value=value)


def flip(x, dims):
    """Reverse the order of elements along ``dims``."""
    return Flip.apply(x, axes=normalize_dims(dims, x.ndim, "flip"))


def repeat(x, *sizes):
    """Tile the tensor: ``sizes[i]`` copies along dimension i (PyTorch's ``repeat``)."""
    sizes = shape_arg(sizes, "repeat")
    if len(sizes) < x.ndim:
        raise ValueError(f"repeat: needs at least {x.ndim} sizes for shape {tuple(x.shape)}, "
                         f"got {sizes}")
    return Tile.apply(x, reps=sizes)
