"""Diagonals: ``x.diagonal()`` (a view, as in PyTorch), its adjoint ``diagonal_scatter`` (x with
its diagonal replaced), ``diag_embed`` and ``fill_diagonal_``'s values.

The diagonal ``offset`` of dimensions ``dim1``, ``dim2`` of x holds the elements

    y[..., i] = x[..., i, ..., i + offset, ...]      offset >= 0 (on or above the main one)
    y[..., i] = x[..., i - offset, ..., i, ...]      offset < 0 (below it)

with ``dim1`` and ``dim2`` removed and the diagonal appended as the last dimension (length
min(n₁, n₂ - offset) for offset >= 0). Reading it is a strided view of x's memory (step
stride₁ + stride₂); its adjoint writes the gradient onto the same strided view of zeros.
"""
import numpy as np

from ..args import normalize_dim
from ..dtypes import promote_inputs
from ..function import Function
from ..tensor import make_tensor
from ..views import mark_view
from .piecewise import where


def diagonal_array(x, offset, dim1, dim2):
    """The diagonal of the ndarray ``x`` as a view sharing its memory, writeable when x is
    (NumPy's ``diagonal`` hands it out read-only; the strides are the same)."""
    out = np.diagonal(x, offset, dim1, dim2)
    if x.flags.writeable:
        out.flags.writeable = True
    return out


def _scatter_array(x, v, offset, dim1, dim2):
    """A copy of ``x`` with its diagonal set to ``v``."""
    out = np.array(x, copy=True)
    diagonal_array(out, offset, dim1, dim2)[...] = v
    return out


class Diagonal(Function):
    """y = diagonal ``offset`` of x's dimensions ``dim1``, ``dim2`` (shape: x's other
    dimensions, then the diagonal's length), a view of x;
    dL/dx = zeros of x's shape with dL/dy on that diagonal (``diagonal_scatter``)."""

    returns_view = True

    def forward(ctx, x, offset, dim1, dim2):
        ctx.in_shape, ctx.where = x.shape, dict(offset=offset, dim1=dim1, dim2=dim2)
        return diagonal_array(x, offset, dim1, dim2)

    rules = {"x": "δ_x = δ_out, written on the same diagonal of zeros"}

    def backward(ctx, grad):
        zeros = np.zeros(ctx.in_shape, dtype=grad.dtype)
        return ctx.xp.diagonal_scatter(zeros, grad, **ctx.where)

    def write_back(ctx, base, view):
        return DiagonalScatter.apply(base, view, **ctx.where)


class DiagonalScatter(Function):
    """y = x with its diagonal (``offset``, ``dim1``, ``dim2``) replaced by v (v has the
    diagonal's shape);   dL/dx = dL/dy with zeros on the diagonal,
    dL/dv = the diagonal of dL/dy"""

    dtype_rule = promote_inputs

    def forward(ctx, x, v, offset, dim1, dim2):
        ctx.where = dict(offset=offset, dim1=dim1, dim2=dim2)
        return _scatter_array(x, v, offset, dim1, dim2)

    rules = {
        "x": "δ_x = δ_out, 0 on the replaced diagonal",
        "v": "δ_v = δ_out, read on the diagonal"}

    def backward(ctx, grad):
        need_x, need_v = ctx.needs_input_grad
        grad_x = ctx.xp.diagonal_scatter(grad, 0.0, **ctx.where) if need_x else None
        return grad_x, ctx.xp.diagonal(grad, **ctx.where) if need_v else None


def numpy_diagonal(grad, offset, dim1, dim2):
    """``xp.diagonal`` on ndarrays (a read-only view: the engine copies before adding)."""
    return np.diagonal(grad, offset, dim1, dim2)


def numpy_diagonal_scatter(x, v, offset, dim1, dim2):
    """``xp.diagonal_scatter`` on ndarrays."""
    return _scatter_array(x, v, offset, dim1, dim2)


def _dims(x, dim1, dim2, ndim, op):
    d1, d2 = normalize_dim(dim1, ndim, op), normalize_dim(dim2, ndim, op)
    if d1 == d2:
        raise RuntimeError(f"{op}: diagonal dimensions cannot be identical {dim1}, {dim2} "
                           f"(a tensor of shape {tuple(x.shape)}); give two different "
                           f"dimensions, e.g. dim1=-2, dim2=-1 for the matrices of a batch")
    return d1, d2


def diagonal(x, offset=0, dim1=0, dim2=1):
    """The diagonal ``offset`` of dimensions ``dim1``, ``dim2`` (PyTorch's ``diagonal``): a view
    of x, of shape x's other dimensions + (length of the diagonal,). ``offset`` > 0 is above
    the main diagonal, < 0 below. Writing into it writes into x: ``y.diagonal().mul_(2)``."""
    d1, d2 = _dims(x, dim1, dim2, x.ndim, "diagonal")
    where = dict(offset=int(offset), dim1=d1, dim2=d2)
    return mark_view(Diagonal.apply(x, **where), x, Diagonal, **where)


def diagonal_scatter(x, src, offset=0, dim1=0, dim2=1):
    """x with its diagonal (as ``diagonal(x, offset, dim1, dim2)`` reads it) replaced by
    ``src``, a new tensor (PyTorch's ``diagonal_scatter``). src has the diagonal's shape."""
    d1, d2 = _dims(x, dim1, dim2, x.ndim, "diagonal_scatter")
    expected = np.diagonal(np.empty(x.shape, dtype=bool), int(offset), d1, d2).shape
    if tuple(src.shape) != expected:
        raise RuntimeError(f"diagonal_scatter: src must have the shape of the diagonal, "
                           f"{list(expected)}, got {list(src.shape)} (input shape "
                           f"{tuple(x.shape)}, offset={offset}, dim1={dim1}, dim2={dim2})")
    return DiagonalScatter.apply(x, src, offset=int(offset), dim1=d1, dim2=d2)


def diag_embed(x, offset=0, dim1=-2, dim2=-1):
    """A tensor whose diagonals (``offset``, dimensions ``dim1``, ``dim2``) hold x's last
    dimension, zeros elsewhere (PyTorch's ``diag_embed``): x of shape (..., n) gives shape with
    two dimensions of size n + |offset| at dim1 and dim2 (counted in the output's x.ndim + 1
    dimensions). dL/dx = the same diagonal of dL/dy."""
    d1, d2 = _dims(x, dim1, dim2, x.ndim + 1, "diag_embed")
    size = x.shape[-1] + abs(int(offset))
    shape = list(x.shape[:-1])
    for d in sorted((d1, d2)):
        shape.insert(d, size)
    zeros = make_tensor(np.zeros(shape, dtype=x.dtype), None)
    return DiagonalScatter.apply(zeros, x, offset=int(offset), dim1=d1, dim2=d2)


def filled_diagonal(x, fill_value, wrap=False):
    """x with its main diagonal (x[i, i, ..., i]) set to ``fill_value``: the new values of
    ``fill_diagonal_``. All dimensions must be equal when x has more than 2; a tall matrix
    with ``wrap=True`` starts again N + 1 rows below (as NumPy's and PyTorch's ``wrap``)."""
    if x.ndim < 2 or (x.ndim > 2 and len(set(x.shape)) > 1):
        raise RuntimeError(f"fill_diagonal_: needs at least 2 dimensions, all of equal length "
                           f"when there are more than 2 (PyTorch's rule), got shape "
                           f"{tuple(x.shape)}")
    on_diagonal = np.zeros(x.shape, dtype=bool)
    np.fill_diagonal(on_diagonal, True, wrap=wrap)
    return where(on_diagonal, fill_value, x)
