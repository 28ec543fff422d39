"""Attention probabilities fused in one operation: P = softmax(s · Q Kᵀ + M).

The composition (matmul, scale, mask, softmax) makes four passes over the (…, L, S) score array
forward and four backward, and keeps three of them alive for backward; the fused form makes one
score array, turns it into P in place, and keeps only P. The value product P V stays an
ordinary matmul, so the probabilities remain a differentiable tensor that attention layers can
return.
"""
import numpy as np

from ..blas import product
from ..dtypes import floating
from ..function import Function
from ..sums import sum_last


def safe_softmax_(s):
    """softmax over the last axis of the float array ``s``, computed in place and returned.

    A row whose every entry is -inf (a query that may attend to nothing) becomes all zeros
    instead of NaN, as PyTorch's scaled_dot_product_attention does.
    """
    m = np.fmax.reduce(s, axis=-1, keepdims=True)     # ~1.5x faster than max on short rows
    blocked = m == -np.inf
    any_blocked = blocked.any()
    if any_blocked:
        m[blocked] = 0
    s -= m
    np.exp(s, out=s)
    total = sum_last(s)
    if any_blocked:
        total[blocked] = 1
    s /= total
    return s


class AttentionProbs(Function):
    """P = softmax(s · Q Kᵀ + M) along the last axis (the keys).

    Shapes: q (…, L, E), k (…, S, E), mask M broadcastable to (…, L, S) (additive: 0 keeps a
    score, -inf removes it; None for no mask), scale s a number -> P (…, L, S). Batch dimensions
    broadcast as in matmul. Rows whose scores are all -inf give P = 0.

    With G = dL/dP and the softmax Jacobian applied row by row::

        dZ = P ⊙ (G - Σⱼ Gⱼ Pⱼ)          (Z = s · Q Kᵀ + M, the scores)
        dL/dQ = s · dZ K,   dL/dK = s · dZᵀ Q,   dL/dM = dZ (summed down to M's shape)
    """

    dtype_rule = floating

    def forward(ctx, q, k, mask=None, scale=1.0):
        scores = product(q, np.swapaxes(k, -1, -2))
        scores *= scale
        if mask is not None:
            if np.broadcast_shapes(scores.shape, mask.shape) == scores.shape:
                scores += mask
            else:
                scores = scores + mask
        ctx.scale = scale
        p = safe_softmax_(scores.astype(q.dtype, copy=False))
        ctx.save(q, k, output=p)
        return p

    def backward(ctx, grad):
        q, k, p = ctx.saved
        need_q, need_k, need_mask = (ctx.needs_input_grad + (False,))[:3]   # mask optional
        dz = grad * p
        if ctx.create_graph:
            dz = dz - p * dz.sum(axis=-1, keepdims=True)
        else:                                 # the same, reusing dz's buffer
            dz -= p * sum_last(dz)
        gq = product(dz, k) * ctx.scale if need_q else None
        gk = product(dz.mT, q) * ctx.scale if need_k else None
        return gq, gk, (dz if need_mask else None)


def attention_probs(q, k, mask=None, scale=1.0):
    """softmax(scale · q kᵀ + mask) over the keys; q (…, L, E), k (…, S, E) -> (…, L, S).

    ``mask`` is additive (0 keeps, -inf removes), an array or a Tensor broadcastable to
    (…, L, S), or None. See ``AttentionProbs``.
    """
    if q.shape[-1] != k.shape[-1]:
        raise ValueError(f"attention_probs: queries of shape {tuple(q.shape)} and keys of shape "
                         f"{tuple(k.shape)} must have the same last dimension (the feature size "
                         f"E of the dot product)")
    return AttentionProbs.apply(q, k, mask, scale=float(scale))
