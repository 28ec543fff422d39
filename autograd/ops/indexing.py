"""Indexing: ``x[index]``, the operations built on it (gather, index_select, masked_fill), and
its out-of-place write ``index_put`` (what ``x[index] = v`` records).

The adjoint of reading ``x[index]`` is writing: the gradient of x is zero except at the read
positions, where the output gradient is *added* (an element read twice gets both gradients).
"""
import re

import numpy as np

from ..args import normalize_dim
from ..convert import as_array
from ..dtypes import promote_inputs
from ..function import Function
from ..lazy_grads import SliceGrad
from ..scalars import checked_fill_value
from ..tensor import Tensor
from ..views import mark_view
from ..xp import is_basic
from .piecewise import Where


class GetItem(Function):
    """y = x[index];   dL/dx = zeros with dL/dy added at ``index``

    On the fast path a basic index (no index arrays) returns that gradient as a ``SliceGrad``,
    which the engine adds in place, so reading a tensor slice by slice stays linear in its size.
    A basic index gives a view sharing x's memory: an in-place change of it is recorded in x's
    history too, as ``x[index] = view`` (``write_back``, ``inplace.py``).
    """

    def forward(ctx, x, index):
        _keep_index(ctx, index)
        ctx.in_shape = x.shape
        ctx.returns_view = is_basic(index)      # index arrays copy
        out = x[index]
        if isinstance(out, np.generic):   # every dimension indexed by an int: a 0-d view of x
            out = x[(index if isinstance(index, tuple) else (index,)) + (Ellipsis,)]
        return out

    rules = {
        "x": "δ_x = δ_out, put back at the indexed places (0 elsewhere, repeated indices add up)"}

    def backward(ctx, grad):
        if not ctx.create_graph and is_basic(ctx.index):
            return SliceGrad(grad, ctx.index, ctx.in_shape)
        return ctx.xp.unindex(grad, ctx.index, ctx.in_shape)

    def write_back(ctx, base, view):
        return IndexPut.apply(base, view, index=ctx.index)


def _keep_index(ctx, index):
    """``ctx.index`` for backward: a basic index (ints, slices) is a plain attribute, one with
    index arrays is saved (checked for in-place writes and freed after backward)."""
    if is_basic(index):
        ctx.index = index
    else:
        ctx.save(index=index)


class Unindex(Function):
    """y = zeros(shape) with x added at ``index`` (the backward of GetItem);   dL/dx = dL/dy[index]"""

    def forward(ctx, x, index, shape):
        _keep_index(ctx, index)
        out = np.zeros(shape, dtype=x.dtype)
        if is_basic(index):
            out[index] = x
        else:
            np.add.at(out, index, x)
        return out

    rules = {"x": "δ_x = δ_out, read at the indexed places"}

    def backward(ctx, grad):
        return grad[ctx.index]


class IndexPut(Function):
    """y = x with y[index] = v (v broadcast to the shape of x[index]);
    dL/dx = dL/dy with zeros at ``index``,   dL/dv = dL/dy[index]"""

    dtype_rule = promote_inputs

    def forward(ctx, x, v, index):
        _keep_index(ctx, index)
        out = x.copy()
        try:
            out[index] = v
        except ValueError:          # v has leading axes of size 1 more than x[index] (PyTorch
            out[index] = _drop_leading_ones(v, np.ndim(x[index]))      # drops them)
        kept = np.ones(x.shape, dtype=bool)
        kept[index] = False
        ctx.save(kept=kept)
        ctx.v_shape = np.shape(v)
        return out

    rules = {
        "x": "δ_x = δ_out, 0 at the places written",
        "v": "δ_v = δ_out, read at the places written"}

    def backward(ctx, grad):
        need_x, need_v = ctx.needs_input_grad
        grad_v = None
        if need_v:
            grad_v = grad[ctx.index]
            if grad_v.ndim < len(ctx.v_shape):      # v had extra leading axes of size 1
                grad_v = grad_v.reshape(ctx.v_shape)
        return ctx.xp.where(ctx.kept, grad, 0) if need_x else None, grad_v


def _drop_leading_ones(v, ndim):
    """``v`` without leading axes of size 1 beyond ``ndim`` (``x[0] = ones((1, 1))``)."""
    v = np.asarray(v)
    while v.ndim > ndim and v.shape[0] == 1:
        v = v[0]
    return v


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


def _as_key(index, op):
    if isinstance(index, tuple):
        return tuple(_as_index(i, op) for i in index)
    return _as_index(index, op)


def getitem(x, index):
    """``x[index]`` with ints, slices, None, Ellipsis, integer arrays and boolean masks."""
    index = _as_key(index, "indexing")
    try:
        out = GetItem.apply(x, index=index)
        return mark_view(out, x, GetItem, index=index) if is_basic(index) else out
    except IndexError as e:
        raise IndexError(f"indexing a tensor of shape {tuple(x.shape)}: "
                         f"{_pytorch_words(e, x)}") from None


_NUMPY_INDEX_WORDS = [      # NumPy's message -> PyTorch's, for the same mistake
    (re.compile(r"out of bounds for axis (\d+)"), r"out of bounds for dimension \1"),
    (re.compile(r"too many indices for array: array is (\d+)-dimensional, but (\d+) were "
                r"indexed"), r"too many indices for tensor of dimension \1 (\2 were given)"),
    (re.compile(r"numpy\.newaxis \(`None`\) and integer or boolean arrays"),
     r"None and integer or boolean tensors"),
    (re.compile(r"boolean index did not match indexed array along axis (\d+); size of axis is "
                r"(\d+) but size of corresponding boolean axis is (\d+)"),
     r"the shape of the mask (\3 at dimension \1) does not match the shape of the indexed "
     r"tensor (\2 at dimension \1)"),
]


def _pytorch_words(error, x):
    """NumPy's IndexError message in PyTorch's words (dimension, tensor, mask)."""
    message = str(error)
    for pattern, words in _NUMPY_INDEX_WORDS:
        message = pattern.sub(words, message)
    return message


def index_put(x, index, value):
    """A copy of ``x`` with ``value`` written at ``index`` (``x[index] = value`` out of place);
    the gradient reaches both ``x`` (except at ``index``) and ``value``."""
    index = _as_key(index, "index assignment")
    try:
        return IndexPut.apply(x, value, index=index)
    except (IndexError, ValueError) as e:
        raise type(e)(f"index assignment to a tensor of shape {tuple(x.shape)}: {e}") from None


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
                         f"{tuple(x.shape)} has {x.ndim}")
    _check_in_range(index, x.shape[d], d, "gather")
    grid = list(np.ogrid[tuple(slice(n) for n in index.shape)])
    grid[d] = index
    return getitem(x, tuple(grid))


def masked_fill(x, mask, value):
    """``value`` where ``mask`` is True, ``x`` elsewhere (mask broadcasts to x)."""
    mask = as_array(mask)
    if mask.dtype != np.bool_:
        raise TypeError(f"masked_fill: mask must be boolean, got {mask.dtype}")
    out = Where.apply(mask, checked_fill_value(value, x.dtype, "masked_fill"), x)
    if out.shape != x.shape:
        raise ValueError(f"masked_fill: mask of shape "
                         f"{tuple(mask.shape)} does not broadcast to the "
                         f"input's shape {tuple(x.shape)}")
    return out
