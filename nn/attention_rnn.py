"""Attention for recurrent encoder-decoders: the decoder's state is the query, the encoder's
outputs are the keys and values. ``AdditiveAttention`` (Bahdanau) lives in
``nn.additive_attention``; this file adds the dot-product score (Luong) with the same interface,
and picks one by name."""
import math

from .additive_attention import AdditiveAttention, score_mask
from .functional.attention import attention
from .module import Module


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
