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
"""
