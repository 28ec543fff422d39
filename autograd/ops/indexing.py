"""Indexing: ``x[index]`` and the operations built on it (gather, index_select, masked_fill).

The adjoint of reading ``x[index]`` is writing: the gradient of x is zero except at the read
positions, where the output gradient is *added* (an element read twice gets both gradients).
"""
import numpy as np

from ..args import normalize_dim
from ..function import Function, SliceGrad
from ..tensor import Tensor
from ..xp import NUMPY, _is_basic
from .elementwise import Where


class GetItem(Function):
    """y = x[index];   dL/dx = zeros with dL/dy added at ``index``

    On the fast path a basic index (no index arrays) returns that gradient as a ``SliceGrad``,
    which the engine adds in place, so reading a tensor slice by slice stays linear in its size.
    """

    def forward(ctx, x, index):
        _keep_index(ctx, index)
        ctx.in_shape = x.shape
        return x[index]

    def backward(ctx, grad):
        if not ctx.differentiable and _is_basic(ctx.index):
            return SliceGrad(grad, ctx.index, ctx.in_shape)
        return ctx.xp.unindex(grad, ctx.index, ctx.in_shape)


def _keep_index(ctx, index):
    """``ctx.index`` for backward: a basic index (ints, slices) is a plain attribute, one with
    index arrays is saved (checked for in-place writes and freed after backward)."""
    if _is_basic(index):
        ctx.index = index
    else:
        ctx.save(index=index)


class Unindex(Function):
    """y = zeros(shape) with x added at ``index`` (the backward of GetItem);   dL/dx = dL/dy[index]"""

    def forward(ctx, x, index, shape):
        _keep_index(ctx, index)
        out = np.zeros(shape, dtype=x.dtype)
        if _is_basic(index):
            out[index] = x
        else:
            np.add.at(out, index, x)
        return out

    def backward(ctx, grad):
        return grad[ctx.index]


def _as_index(i, op):
    """Tensors and lists used as indices become integer or boolean ndarrays."""
    if isinstance(i, Tensor):
        i = i._data
    if isinstance(i, list):
        i = np.asarray(i)
    if isinstance(i, np.ndarray) and not (np.issubdtype(i.dtype, np.integer)
                                          or i.dtype == np.bool_):
        raise IndexError(f"{op}: tensors used as indices must be integer or boolean, "
                         f"got {i.dtype}")
    return i


def getitem(x, index):
    """``x[index]`` with ints, slices, None, Ellipsis, integer arrays and boolean masks."""
    if isinstance(index, tuple):
        index = tuple(_as_index(i, "indexing") for i in index)
    else:
        index = _as_index(index, "indexing")
    try:
        return GetItem.apply(x, index=index)
    except IndexError as e:
        raise IndexError(f"indexing a tensor of shape {x.shape}: {e}") from None


def _check_in_range(index, size, dim, op):
    """PyTorch's gather and index_select indices are 0 <= i < size: a negative index would
    otherwise wrap around to the end, silently picking another element."""
    if index.size and (index.min() < 0 or index.max() >= size):
        bad = index.min() if index.min() < 0 else index.max()
        raise RuntimeError(f"{op}: index {bad} is out of bounds for dimension {dim} with size "
                           f"{size}")


def index_select(x, dim, index):
    """The entries ``index`` (1-D integers) along ``dim``."""
    d = normalize_dim(dim, x.ndim, "index_select")
    index = np.asarray(_as_index(index, "index_select"))
    _check_in_range(index, x.shape[d], d, "index_select")
    return getitem(x, (slice(None),) * d + (index,))


def gather(x, dim, index):
    """out[i][j][k] = x[i][index[i][j][k]][k] for dim = 1 (PyTorch's gather)."""
    index = _as_index(index, "gather")
    d = normalize_dim(dim, x.ndim, "gather")
    if index.ndim != x.ndim:
        raise ValueError(f"gather: index has {index.ndim} dimensions but input of shape "
                         f"{x.shape} has {x.ndim}")
    _check_in_range(index, x.shape[d], d, "gather")
    grid = list(np.ogrid[tuple(slice(n) for n in index.shape)])
    grid[d] = index
    return getitem(x, tuple(grid))


def masked_fill(x, mask, value):
    """``value`` where ``mask`` is True, ``x`` elsewhere (mask broadcasts to x)."""
    mask = mask._data if isinstance(mask, Tensor) else np.asarray(mask)
    if mask.dtype != np.bool_:
        raise TypeError(f"masked_fill: mask must be boolean, got {mask.dtype}")
    out = Where.apply(mask, value, x)
    if out.shape != x.shape:
        raise ValueError(f"masked_fill: mask of shape {mask.shape} does not broadcast to the "
                         f"input's shape {x.shape}")
    return out
