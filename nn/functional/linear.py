"""Fully connected layer, embedding lookup and one-hot encoding (stateless forms)."""
import numpy as np

from dagrad import autograd as ag
from dagrad.autograd import as_array


def linear(input, weight, bias=None):
    """y = x Wᵀ + b;  x (..., in), W (out, in), b (out,) -> y (..., out). One fused operation."""
    return ag.linear(input, weight, bias)


def embedding(input, weight, padding_idx=None):
    """Row lookup: y[..., :] = W[i, :] for every index i in ``input`` (any shape of ints);
    W (num_embeddings, dim) -> y (*input.shape, dim). dL/dW adds each row's gradient to the
    rows that were looked up. Rows at ``padding_idx`` get no gradient."""
    idx = as_array(input)
    if not np.issubdtype(idx.dtype, np.integer):
        raise TypeError(f"embedding: indices must be integers, got {idx.dtype}; use .long()")
    n = weight.shape[0]
    if idx.size and (idx.min() < 0 or idx.max() >= n):
        bad = idx.min() if idx.min() < 0 else idx.max()
        raise IndexError(f"embedding: index {int(bad)} is out of range for {n} embeddings "
                         f"(indices must be in [0, {n - 1}])")
    out = weight[idx]
    if padding_idx is None:
        return out
    padding_idx = padding_idx % n
    pad = (idx == padding_idx)[..., None]
    return ag.where(pad, weight._data[idx], out) if pad.any() else out


def one_hot(tensor, num_classes=-1):
    """int64 tensor of shape (*tensor.shape, num_classes) with a 1 at each index."""
    idx = as_array(tensor)
    if not np.issubdtype(idx.dtype, np.integer):
        raise TypeError(f"one_hot: indices must be integers, got {idx.dtype}")
    if num_classes < 0:
        num_classes = int(idx.max()) + 1 if idx.size else 0
    if idx.size and (idx.min() < 0 or idx.max() >= num_classes):
        raise IndexError(f"one_hot: indices must be in [0, {num_classes - 1}]")
    return ag.Tensor(np.eye(num_classes, dtype=np.int64)[idx])
