"""Scaled dot-product attention (stateless form) and the masks it takes.

Masks come in two kinds, as in PyTorch:

- additive (floating point): added to the scores before the softmax; 0 keeps a score, -inf
  removes it, anything else biases it;
- boolean: converted to additive form. Which value means "blocked" depends on the caller, as in
  PyTorch: for ``scaled_dot_product_attention`` True means *may attend*, for
  ``MultiheadAttention``'s ``attn_mask`` and every ``key_padding_mask`` True means *blocked*.
"""
import math

import numpy as np

from dagrad.autograd import Tensor
from dagrad.autograd.ops.attention_ops import attention_probs
from dagrad.autograd.default_dtype import float_dtype

from .dropout import dropout


def causal_mask(query_len, key_len=None, dtype=None):
    """Additive causal mask (L, S): 0 where key j ≤ query i (the past and present), -inf where
    j > i (the future). Aligned at the top left, as PyTorch's ``is_causal``."""
    key_len = query_len if key_len is None else key_len
    mask = np.zeros((query_len, key_len), dtype=float_dtype(dtype))
    mask[np.triu_indices(query_len, 1, key_len)] = -np.inf
    return mask


def additive_mask(mask, dtype, true_blocks, what="attn_mask"):
    """``mask`` in additive form: an array (or a Tensor, kept when it requires a gradient) of
    ``dtype``. Boolean masks become 0 / -inf; ``true_blocks`` says which value blocks."""
    if mask is None:
        return None
    if isinstance(mask, Tensor):
        if mask.requires_grad:
            return mask if mask.dtype == dtype else mask.to(dtype)
        mask = mask._data
    mask = np.asarray(mask)
    if mask.dtype == np.bool_:
        blocked = mask if true_blocks else ~mask
        out = np.zeros(mask.shape, dtype=dtype)
        out[blocked] = -np.inf
        return out
    if not np.issubdtype(mask.dtype, np.floating):
        raise TypeError(f"{what}: expected a boolean or floating-point mask, got {mask.dtype}; "
                        f"use a bool mask (True = {'blocked' if true_blocks else 'attend'}) or "
                        f"an additive float mask (0 = attend, -inf = blocked)")
    return mask.astype(dtype, copy=False)


def add_masks(a, b):
    """The sum of two additive masks, either of which may be None."""
    if a is None:
        return b
    if b is None:
        return a
    return a + b


def attention(query, key, value, mask=None, dropout_p=0.0, scale=None):
    """Attention with an additive ``mask``; returns (output, probabilities, weights).

        P = softmax(s · Q Kᵀ + M),   A = dropout(P),   output = A V,   s = 1/√E by default

    query (…, L, E), key (…, S, E), value (…, S, Ev), mask broadcastable to (…, L, S)
    -> output (…, L, Ev), P (…, L, S) and the weights applied A (…, L, S) (P itself when
    ``dropout_p`` is 0). P is one fused operation (``autograd.ops.attention_ops``); A V is a
    batched matmul.
    """
    if scale is None:
        scale = 1.0 / math.sqrt(query.shape[-1])
    if key.shape[-2] != value.shape[-2]:
        raise ValueError(f"attention: key of shape {tuple(key.shape)} and value of shape "
                         f"{tuple(value.shape)} must have the same length S (dimension -2)")
    p = attention_probs(query, key, mask, scale)
    weights = dropout(p, dropout_p, True) if dropout_p > 0 else p
    return weights @ value, p, weights


def scaled_dot_product_attention(query, key, value, attn_mask=None, dropout_p=0.0,
                                 is_causal=False, scale=None):
    """softmax(Q Kᵀ / √E + M) V, the attention of "Attention is all you need".

    Shapes: query (…, L, E), key (…, S, E), value (…, S, Ev) -> (…, L, Ev); the leading
    dimensions (batch, heads) broadcast. ``attn_mask`` broadcastable to (…, L, S): boolean with
    True where a query **may attend** to a key, or additive floats (added to the scores).
    ``is_causal=True`` lets query i attend only to keys j ≤ i (no ``attn_mask`` then).
    ``dropout_p`` drops attention weights (always: pass 0 in evaluation). ``scale`` replaces
    1/√E. A query that may attend to no key gets an output of zeros.
    """
    if is_causal and attn_mask is not None:
        raise ValueError("scaled_dot_product_attention: pass either attn_mask or "
                         "is_causal=True, not both (fold the causal mask into attn_mask)")
    dtype = query.dtype
    mask = additive_mask(attn_mask, dtype, true_blocks=False)
    if is_causal:
        mask = causal_mask(query.shape[-2], key.shape[-2], dtype)
    return attention(query, key, value, mask, dropout_p, scale)[0]
