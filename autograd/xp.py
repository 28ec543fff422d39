"""The two array namespaces a backward formula can run on (see ``Function``).

``NUMPY`` computes on ndarrays and records nothing: the fast path. ``tensor_namespace()`` has the
same functions as recorded operations on Tensors, used when ``create_graph=True`` so the gradient
computation is itself differentiable. Operators (``+ - * / ** @``) and the methods ``sum``,
``reshape`` and indexing work the same on both and need no entry here.
"""
from types import SimpleNamespace

import numpy as np


def _numpy_unindex(grad, index, shape):
    """Adjoint of ``x[index]``: zeros of ``shape`` with ``grad`` added at ``index``
    (repeated indices accumulate)."""
    out = np.zeros(shape, dtype=grad.dtype)
    if _is_basic(index):
        out[index] = grad
    else:
        np.add.at(out, index, grad)
    return out


def _is_basic(index):
    """True when ``index`` uses only ints, slices, None and Ellipsis (no index arrays)."""
    items = index if isinstance(index, tuple) else (index,)
    return all(i is None or i is Ellipsis or isinstance(i, (int, np.integer, slice))
               for i in items)


def _numpy_prod_others(x, axis):
    """pᵢ = Π_{j≠i} xⱼ along ``axis`` (None: all elements), shape of x, without dividing:
    the product of everything before i times everything after it (two cumulative products)."""
    flat = x.reshape(-1) if axis is None else x
    axis = 0 if axis is None else axis
    ones = np.ones_like(np.take(flat, [0], axis=axis))
    before = np.cumprod(np.concatenate([ones, flat], axis=axis), axis=axis)
    after = np.flip(np.cumprod(np.concatenate([ones, np.flip(flat, axis)], axis=axis),
                               axis=axis), axis)
    n = flat.shape[axis]
    others = (np.take(before, np.arange(n), axis=axis)
              * np.take(after, np.arange(1, n + 1), axis=axis))
    return others.reshape(x.shape)


def _tensor_prod_others(x, axis):
    """pᵢ = Π_{j≠i} xⱼ as recorded operations: row i of an n×n matrix holds x with xᵢ
    replaced by 1, and each row's product is pᵢ. O(n²) memory, so only the differentiable
    path uses it; it stays exact where x has zeros (at any order)."""
    from .ops.piecewise import Where
    from .ops.reduction import Prod
    from .ops.shape import Transpose
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


def sigmoid_array(x):
    """σ(x) = 1/(1 + e^(-x)) on an ndarray: the one sigmoid formula, used by the ``Sigmoid``
    operation and the fused recurrent gates alike, so a gate rounds like an ``nn.Sigmoid``.

    Computed as written, in one buffer (negate, exp, add 1, reciprocal): it keeps full relative
    precision for large negative x (σ(-20) = 2.06e-9 in float32, where ½(1 + tanh(x/2)) gives
    0), and where e^(-x) overflows (x < -88 in float32) 1/(1 + inf) = 0, PyTorch's value.
    15 µs on a (32, 512) float32 block, against 220 µs for the form with e^(-|x|) and a
    ``where`` it replaces (an LSTM step computes three of these)."""
    out = np.negative(x, out=np.empty_like(x))     # (an array even when x is 0-d)
    with np.errstate(over="ignore"):
        np.exp(out, out=out)
    out += 1
    return np.reciprocal(out, out=out)


def _numpy_erf(x):
    from .ops.activation import erf_array
    return erf_array(x)


def _numpy_unfold(x, win):
    from .ops.conv import unfold_copy
    return unfold_copy(x, win)


def _numpy_diagonal(grad, offset, dim1, dim2):
    from .ops.diagonal import numpy_diagonal
    return numpy_diagonal(grad, offset, dim1, dim2)


def _numpy_diagonal_scatter(x, v, offset, dim1, dim2):
    from .ops.diagonal import numpy_diagonal_scatter
    return numpy_diagonal_scatter(x, v, offset, dim1, dim2)


def _numpy_fold(cols, win):
    from .ops.conv import fold_array
    return fold_array(cols, win)


NUMPY = SimpleNamespace(
    exp=np.exp, log=np.log, sin=np.sin, cos=np.cos, tanh=np.tanh, sign=np.sign,
    sigmoid=sigmoid_array, erf=_numpy_erf, where=np.where, broadcast_to=np.broadcast_to,
    transpose=np.transpose, flip=np.flip, unindex=_numpy_unindex, astype=np.astype,
    unfold=_numpy_unfold, fold=_numpy_fold, concatenate=np.concatenate,
    prod_others=_numpy_prod_others, diagonal=_numpy_diagonal,
    diagonal_scatter=_numpy_diagonal_scatter,
)

_TENSOR = None


def tensor_namespace():
    """The namespace of recorded operations (built on first use: it needs the ops)."""
    global _TENSOR
    if _TENSOR is None:
        from .ops import activation, cast, conv, diagonal, elementary, indexing, piecewise
        from .ops import shape as shape_ops      # "shape" is an argument name below
        from .tensor import Tensor

        def sign(x):
            return Tensor._make(np.sign(x._data), None)   # piecewise constant: no gradient

        _TENSOR = SimpleNamespace(
            exp=elementary.Exp.apply, log=elementary.Log.apply, sin=elementary.Sin.apply,
            cos=elementary.Cos.apply, tanh=activation.Tanh.apply,
            sigmoid=activation.Sigmoid.apply, erf=activation.Erf.apply, sign=sign,
            where=lambda cond, a, b: piecewise.Where.apply(cond, a, b),
            broadcast_to=lambda x, shape: shape_ops.BroadcastTo.apply(x, shape=tuple(shape)),
            transpose=lambda x, axes: shape_ops.Transpose.apply(x, axes=tuple(axes)),
            flip=lambda x, axis: shape_ops.Flip.apply(x, axes=axis),
            unindex=lambda grad, index, shape: indexing.Unindex.apply(grad, index=index,
                                                                      shape=shape),
            astype=lambda x, dtype: cast.cast(x, dtype),
            unfold=lambda x, win: conv.Unfold.apply(x, win=win),
            fold=lambda cols, win: conv.Fold.apply(cols, win=win),
            concatenate=lambda xs, axis: shape_ops.Cat.apply(*xs, axis=axis),
            prod_others=_tensor_prod_others,
            diagonal=lambda x, **where: diagonal.Diagonal.apply(x, **where),
            diagonal_scatter=lambda x, v, **where: diagonal.DiagonalScatter.apply(x, v, **where),
        )
    return _TENSOR
