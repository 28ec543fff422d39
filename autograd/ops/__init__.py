"""The operations: each a ``Function`` with its forward and its local derivative side by side.

- ``arithmetic``: + - * / ** // % and negation (read this one first)
- ``elementary``: exp, log, log1p, sqrt, sin, cos
- ``activation``: tanh, sigmoid, relu, leaky_relu, elu, softplus, erf, gelu
- ``piecewise``: abs, maximum, minimum, where, clamp
- ``cast``: a cast to another dtype, and clone
- ``reduction``: sum/mean/var/max/prod, logsumexp, softmax, log-softmax
- ``shape``: reshape/transpose/permute/expand, cat/stack/split, pad/flip/repeat
- ``indexing``: ``__getitem__``, gather, index_select, masked_fill
- ``diagonal``: ``diagonal`` (a view), ``diagonal_scatter``, ``diag_embed``, ``fill_diagonal_``
- ``linalg``: matmul and the fused linear layer
- ``composed``: operations written as compositions of the others (sinh, tril, narrow, ...)
- ``conv``: convolution by im2col (``unfold``/``fold``), transposed convolution, the window
  geometry they share
- ``pool``: max pooling (average pooling and resampling are compositions, written with their
  PyTorch-level arguments in ``nn.functional.pooling``, as convolution's are in
  ``nn.functional.conv``)
- ``nn_ops``: fused layers (normalisation, log-softmax cross-entropy, ...)
- ``attention_ops``: the fused attention probabilities softmax(s·QKᵀ + M)
- ``recurrent/``: the recurrent cells (RNN, LSTM, GRU, MGU), each written once in its own
  file, and the one operation that runs a cell over a whole sequence (``Sequence``)

Importing the package installs into ``autograd/xp.py`` what backward formulas compute with and
lives here: the recorded operations of ``ctx.xp`` under ``create_graph=True``, and the NumPy
helpers they share with the fast path. (``xp.py`` is below the operations and imports none.)
"""
import numpy as np

from .. import xp
from ..tensor import make_tensor
from . import activation, cast, conv, diagonal, elementary, indexing, piecewise, reduction
from . import shape as shape_ops   # "shape" is an argument name below

xp.install(
    numpy=dict(erf=activation.erf_array, unfold=conv.unfold_copy, fold=conv.fold_array,
               diagonal=diagonal.numpy_diagonal,
               diagonal_scatter=diagonal.numpy_diagonal_scatter),
    tensor=dict(
        exp=elementary.Exp.apply, log=elementary.Log.apply, sin=elementary.Sin.apply,
        cos=elementary.Cos.apply, tanh=activation.Tanh.apply, sigmoid=activation.Sigmoid.apply,
        erf=activation.Erf.apply,
        sign=lambda x: make_tensor(np.sign(x._data), None),   # piecewise constant: no gradient
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
        prod_others=reduction.prod_others,
        diagonal=lambda x, **where: diagonal.Diagonal.apply(x, **where),
        diagonal_scatter=lambda x, v, **where: diagonal.DiagonalScatter.apply(x, v, **where),
    ))
