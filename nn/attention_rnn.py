"""Attention for recurrent encoder-decoders (Bahdanau; Luong): the decoder's state is the
query, the encoder's outputs are the keys and values. Both modules of this file take the same
arguments and return ``(output, weights)``:

    AdditiveAttention      e_ij = w_vᵀ tanh(W_q q_i + W_k k_j)     (queries and keys of any size)
    DotProductAttention    e_ij = q_i · k_j / √d                    (no parameters)

then α_ij = softmax_j(e_ij + M_ij) and output_i = Σ_j α_ij v_j. ``make_attention`` picks one by
name. (Transformer attention, ``MultiheadAttention``, is in ``nn.attention``; the functional form
and the fused operation are ``nn.functional.attention`` and ``autograd.ops.attention_ops``.)
"""
import math

from dagrad import autograd as ag

from .dropout import Dropout
from .functional.attention import additive_mask, attention
from .linear import Linear
from .module import Module


class AdditiveAttention(Module):
    """Additive attention (Bahdanau, Cho & Bengio 2015), as in d2l::

        e_ij = w_vᵀ tanh(W_q q_i + W_k k_j),    α_ij = softmax_j(e_ij + M_ij),
        output_i = Σ_j α_ij v_j

    Queries and keys may have different sizes; the score works in a space of ``hidden_size``
    (W_q (hidden, query_size), W_k (hidden, key_size), w_v (1, hidden), no biases).

    Shapes: query (N, L, query_size), key (N, S, key_size), value (N, S, Dv) -> output
    (N, L, Dv) and the weights α (N, L, S) (before dropout), returned for plotting.
    ``key_padding_mask`` (N, S): True (or -inf) marks keys that may not be attended, e.g.
    padding; ``attn_mask`` (L, S) or (N, L, S) the same per query. ``dropout`` drops
    attention weights in training mode.
    """

    def __init__(self, query_size, key_size, hidden_size, dropout=0.0, dtype=None):
        super().__init__()
        self.W_q = Linear(query_size, hidden_size, bias=False, dtype=dtype)
        self.W_k = Linear(key_size, hidden_size, bias=False, dtype=dtype)
        self.w_v = Linear(hidden_size, 1, bias=False, dtype=dtype)
        self.dropout = Dropout(dropout)

    def forward(self, query, key, value, key_padding_mask=None, attn_mask=None):
        if query.ndim != 3 or key.ndim != 3 or value.ndim != 3 or key.shape[:2] != value.shape[:2]:
            raise ValueError(f"AdditiveAttention: expected query (N, L, Dq), key (N, S, Dk) and "
                             f"value (N, S, Dv), got {tuple(query.shape)}, {tuple(key.shape)} "
                             f"and {tuple(value.shape)}")
        # (N, L, 1, h) + (N, 1, S, h) -> (N, L, S, h) -> scores (N, L, S)
        features = (self.W_q(query).unsqueeze(2) + self.W_k(key).unsqueeze(1)).tanh()
        scores = self.w_v(features).squeeze(-1)
        mask = score_mask(key_padding_mask, attn_mask, scores.dtype)
        weights = ag.softmax(scores if mask is None else scores + mask, dim=-1)
        return self.dropout(weights) @ value, weights


class DotProductAttention(Module):
    """Scaled dot-product attention (Luong et al. 2015, "dot", scaled as in Vaswani et al.)::

        e_ij = q_i · k_j / √d,    α_ij = softmax_j(e_ij + M_ij),    output_i = Σ_j α_ij v_j

    No parameters: queries and keys need the same size d. Shapes and masks as
    ``AdditiveAttention``: query (N, L, d), key (N, S, d), value (N, S, Dv) -> output
    (N, L, Dv) and weights (N, L, S) (before dropout). The weights are one fused operation
    (``nn.functional.attention``).
    """

    def __init__(self, dropout=0.0):
        super().__init__()
        self.dropout = dropout

    def forward(self, query, key, value, key_padding_mask=None, attn_mask=None):
        if query.shape[-1] != key.shape[-1]:
            raise ValueError(f"DotProductAttention: queries and keys need the same size, got "
                             f"{tuple(query.shape)} and {tuple(key.shape)}; use "
                             f"AdditiveAttention for different sizes")
        mask = score_mask(key_padding_mask, attn_mask, query.dtype)
        out, probs, _ = attention(query, key, value, mask,
                                  self.dropout if self.training else 0.0,
                                  1.0 / math.sqrt(query.shape[-1]))
        return out, probs

    def extra_repr(self):
        return f"dropout={self.dropout}" if self.dropout else ""


def make_attention(kind, query_size, key_size, hidden_size, dropout=0.0):
    """"additive" -> AdditiveAttention(query_size, key_size, hidden_size), "dot" ->
    DotProductAttention (query_size must equal key_size)."""
    if kind == "additive":
        return AdditiveAttention(query_size, key_size, hidden_size, dropout)
    if kind == "dot":
        if query_size != key_size:
            raise ValueError(f"dot-product attention needs queries and keys of one size, got "
                             f"{query_size} and {key_size}; use attention='additive'")
        return DotProductAttention(dropout)
    raise ValueError(f"attention must be 'additive', 'dot' or None, got {kind!r}")


def score_mask(key_padding_mask, attn_mask, dtype):
    """One additive mask broadcastable to the scores (N, L, S), or None: ``key_padding_mask``
    (N, S) and ``attn_mask`` (L, S) or (N, L, S), each boolean (True = blocked) or additive
    (-inf = blocked)."""
    mask = None
    if key_padding_mask is not None:
        mask = additive_mask(key_padding_mask, dtype, true_blocks=True, what="key_padding_mask")
        mask = mask.unsqueeze(1) if isinstance(mask, ag.Tensor) else mask[:, None, :]
    if attn_mask is not None:
        extra = additive_mask(attn_mask, dtype, true_blocks=True)
        mask = extra if mask is None else mask + extra
    return mask
