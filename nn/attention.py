"""Multi-head attention, and how to get its attention weights out of a model for plotting.

Every ``MultiheadAttention`` can keep the probabilities of its last call: set its
``store_attn_weights = True`` (or use ``keep_attention_weights(model)`` for all of a model's
attention layers) and read ``last_attn_weights``, a detached (N, H, L, S) tensor, per head and
before dropout (the weights ``forward`` returns are, as PyTorch's, after dropout). This works
also inside Transformer layers, which call attention with ``need_weights=False``::

    with nn.keep_attention_weights(model) as maps:
        model(src, tgt)
    maps["decoder.layers.0.multihead_attn"]      # (N, H, L, S) ndarray
"""
from contextlib import contextmanager

import numpy as np

from dagrad import autograd as ag
from dagrad.autograd.default_dtype import float_dtype

from . import init
from .functional.attention import add_masks, additive_mask, attention, causal_mask
from .linear import NonDynamicallyQuantizableLinear
from .module import Module
from .parameter import Parameter


class MultiheadAttention(Module):
    """Multi-head attention, with PyTorch's signature and parameter layout.

    For each head h = 1..H (head size D = E/H)::

        Q_h = X_q W_q,hᵀ + b_q,h    K_h = X_k W_k,hᵀ + b_k,h    V_h = X_v W_v,hᵀ + b_v,h
        head_h = dropout(softmax(Q_h K_hᵀ / √D + M)) V_h      (dropout in training only)
        output = concat(head_1, …, head_H) W_oᵀ + b_o

    Parameters (as ``torch.nn.MultiheadAttention``): ``in_proj_weight`` (3E, E) stacking W_q,
    W_k, W_v when key and value have E features (else ``q_proj_weight`` (E, E),
    ``k_proj_weight`` (E, kdim), ``v_proj_weight`` (E, vdim)), ``in_proj_bias`` (3E,),
    ``out_proj`` a Linear(E, E); with ``add_bias_kv``, ``bias_k`` and ``bias_v`` (1, 1, E) are
    appended to the keys and values as one extra position; ``add_zero_attn`` appends a position
    of zeros after the projection. A PyTorch state_dict loads directly.

    Shapes: query (L, N, E), key (S, N, kdim), value (S, N, vdim) -> output (L, N, E), or
    (N, L, E) … with ``batch_first=True``, or unbatched (L, E) …; weights (N, L, S) averaged
    over heads, or (N, H, L, S) with ``average_attn_weights=False``.
    """

    store_attn_weights = False    # set True to keep the last call's weights in last_attn_weights
    last_attn_weights = None

    def __init__(self, embed_dim, num_heads, dropout=0.0, bias=True, add_bias_kv=False,
                 add_zero_attn=False, kdim=None, vdim=None, batch_first=False, dtype=None):
        super().__init__()
        if embed_dim <= 0 or num_heads <= 0 or embed_dim % num_heads:
            raise ValueError(f"MultiheadAttention: embed_dim ({embed_dim}) must be a positive "
                             f"multiple of num_heads ({num_heads})")
        self.embed_dim, self.num_heads = embed_dim, num_heads
        self.kdim = embed_dim if kdim is None else kdim
        self.vdim = embed_dim if vdim is None else vdim
        self._qkv_same_embed_dim = self.kdim == embed_dim and self.vdim == embed_dim
        self.head_dim = embed_dim // num_heads
        self.dropout, self.batch_first, self.add_zero_attn = dropout, batch_first, add_zero_attn
        dtype = float_dtype(dtype)
        if self._qkv_same_embed_dim:
            self.in_proj_weight = Parameter(np.empty((3 * embed_dim, embed_dim), dtype))
            for name in ("q_proj_weight", "k_proj_weight", "v_proj_weight"):
                self.register_parameter(name, None)
        else:
            self.q_proj_weight = Parameter(np.empty((embed_dim, embed_dim), dtype))
            self.k_proj_weight = Parameter(np.empty((embed_dim, self.kdim), dtype))
            self.v_proj_weight = Parameter(np.empty((embed_dim, self.vdim), dtype))
            self.register_parameter("in_proj_weight", None)
        if bias:
            self.in_proj_bias = Parameter(np.empty(3 * embed_dim, dtype))
        else:
            self.register_parameter("in_proj_bias", None)
        self.out_proj = NonDynamicallyQuantizableLinear(embed_dim, embed_dim, bias=bias,
                                                        dtype=dtype)
        if add_bias_kv:
            self.bias_k = Parameter(np.empty((1, 1, embed_dim), dtype))
            self.bias_v = Parameter(np.empty((1, 1, embed_dim), dtype))
        else:
            self.register_parameter("bias_k", None)
            self.register_parameter("bias_v", None)
        self._reset_parameters()

    def _reset_parameters(self):
        """PyTorch's initialisation: Xavier-uniform projections, zero biases, Xavier-normal
        bias_k / bias_v; out_proj.weight keeps Linear's default."""
        if self._qkv_same_embed_dim:
            init.xavier_uniform_(self.in_proj_weight)
        else:
            for w in (self.q_proj_weight, self.k_proj_weight, self.v_proj_weight):
                init.xavier_uniform_(w)
        if self.in_proj_bias is not None:
            init.zeros_(self.in_proj_bias)
            init.zeros_(self.out_proj.bias)
        if self.bias_k is not None:
            init.xavier_normal_(self.bias_k)
            init.xavier_normal_(self.bias_v)

    def _project(self, query, key, value, shared):
        """Q, K, V = X W_qᵀ + b_q, ...: one matrix product for self-attention
        (``shared == "qkv"``: query is key is value) and one for key and value together when
        ``shared == "kv"``, as PyTorch; three otherwise."""
        e = self.embed_dim
        w, b = self.in_proj_weight, self.in_proj_bias
        if w is None:
            wq, wk, wv = self.q_proj_weight, self.k_proj_weight, self.v_proj_weight
        else:
            wq, wk, wv = w[:e], w[e:2 * e], w[2 * e:]
        bq, bk, bv = (None,) * 3 if b is None else (b[:e], b[e:2 * e], b[2 * e:])
        if w is not None and shared == "qkv":
            qkv = ag.linear(query, w, b)
            return qkv[..., :e], qkv[..., e:2 * e], qkv[..., 2 * e:]
        q = ag.linear(query, wq, bq)
        if w is not None and shared == "kv":
            kv = ag.linear(key, w[e:], None if b is None else b[e:])
            return q, kv[..., :e], kv[..., e:]
        return q, ag.linear(key, wk, bk), ag.linear(value, wv, bv)

    def forward(self, query, key, value, key_padding_mask=None, need_weights=True,
                attn_mask=None, average_attn_weights=True, is_causal=False):
        """Returns (output, weights); weights is None when ``need_weights=False``.

        ``key_padding_mask`` (N, S): True (or -inf) at keys to ignore, e.g. padding.
        ``attn_mask`` (L, S) or (N·H, L, S): True (or -inf) where query i may **not** attend to
        key j; floats are added to the scores. ``is_causal=True`` without ``attn_mask`` applies
        the causal mask (with ``attn_mask`` it is a hint that the mask is causal, as PyTorch).
        Queries that may attend to no key get zero weights. In training mode with
        ``dropout > 0`` the weights returned are those applied to the values, after dropout
        (as PyTorch): rows then no longer sum to 1.
        """
        batched = query.ndim == 3
        if query.ndim not in (2, 3) or key.ndim != query.ndim or value.ndim != query.ndim:
            raise ValueError(f"MultiheadAttention: query, key and value must all be 3-D "
                             f"(batched) or 2-D (unbatched), got shapes {tuple(query.shape)}, "
                             f"{tuple(key.shape)}, {tuple(value.shape)}")
        shared = "qkv" if query is key and key is value else "kv" if key is value else None
        if not batched:           # one sequence: treat it as a batch of one
            query, key, value = (t.unsqueeze(0 if self.batch_first else 1)
                                 for t in (query, key, value))
            if key_padding_mask is not None:
                key_padding_mask = key_padding_mask.reshape((1, -1))
        seq_axis, batch_axis = (1, 0) if self.batch_first else (0, 1)
        n, l, s = query.shape[batch_axis], query.shape[seq_axis], key.shape[seq_axis]
        self._check_shapes(query, key, value, n, s)
        q, k, v = self._project(query, key, value, shared)
        dtype = q.dtype
        mask = self._attn_mask(attn_mask, is_causal, n, l, s, dtype)
        pad = additive_mask(key_padding_mask, dtype, true_blocks=True, what="key_padding_mask")
        if pad is not None:
            if tuple(pad.shape) != (n, s):
                raise ValueError(f"MultiheadAttention: key_padding_mask must have shape "
                                 f"(N, S) = ({n}, {s}), got {tuple(pad.shape)}")
            pad = pad.reshape((n, 1, 1, s))
        if self.bias_k is not None:        # one more key/value position, never masked
            k = ag.cat([k, self._along_batch(self.bias_k, n)], dim=seq_axis)
            v = ag.cat([v, self._along_batch(self.bias_v, n)], dim=seq_axis)
            mask, pad = _pad_last(mask), _pad_last(pad)
        q, k, v = (self._split_heads(t, n) for t in (q, k, v))
        if self.add_zero_attn:             # one more position of zeros
            zeros = np.zeros(k.shape[:2] + (1, self.head_dim), dtype)
            k, v = ag.cat([k, zeros], dim=2), ag.cat([v, zeros], dim=2)
            mask, pad = _pad_last(mask), _pad_last(pad)
        out, probs, applied = attention(q, k, v, add_masks(mask, pad),
                                        self.dropout if self.training else 0.0)
        if self.store_attn_weights:
            self.last_attn_weights = probs.detach() if batched else probs.detach()[0]
        out = self.out_proj(self._merge_heads(out, n, l))
        if not batched:
            out = out.squeeze(0 if self.batch_first else 1)
        if not need_weights:
            return out, None
        weights = applied.mean(dim=1) if average_attn_weights else applied
        return out, weights if batched else weights[0]

    def _check_shapes(self, query, key, value, n, s):
        seq_axis, batch_axis = (1, 0) if self.batch_first else (0, 1)
        dims = (self.embed_dim, self.kdim, self.vdim)
        for name, t, d in zip(("query", "key", "value"), (query, key, value), dims):
            if t.shape[-1] != d or t.shape[batch_axis] != n:
                raise ValueError(f"MultiheadAttention: {name} of shape {tuple(t.shape)} needs "
                                 f"batch size {n} in dimension {batch_axis} and {d} features "
                                 f"(layout {'(N, L, E)' if self.batch_first else '(L, N, E)'})")
        if value.shape[seq_axis] != s:
            raise ValueError(f"MultiheadAttention: key {tuple(key.shape)} and value "
                             f"{tuple(value.shape)} must have the same sequence length")

    def _attn_mask(self, attn_mask, is_causal, n, l, s, dtype):
        """attn_mask as an additive array of shape (1, 1, L, S) or (N, H, L, S)."""
        if attn_mask is None:
            return causal_mask(l, s, dtype)[None, None] if is_causal else None
        mask = additive_mask(attn_mask, dtype, true_blocks=True)
        h = self.num_heads
        if mask.ndim == 2 and tuple(mask.shape) == (l, s):
            return mask.reshape((1, 1, l, s))
        if mask.ndim == 3 and tuple(mask.shape) == (n * h, l, s):
            return mask.reshape((n, h, l, s))
        raise ValueError(f"MultiheadAttention: attn_mask must have shape (L, S) = ({l}, {s}) or "
                         f"(N·num_heads, L, S) = ({n * h}, {l}, {s}), got "
                         f"{tuple(mask.shape)}")

    def _along_batch(self, bias, n):
        """bias (1, 1, E) repeated over the batch in this layer's layout: (1, N, E) / (N, 1, E)."""
        return bias.expand(n, 1, self.embed_dim) if self.batch_first else \
            bias.expand(1, n, self.embed_dim)

    def _split_heads(self, t, n):
        """(L, N, E) or (N, L, E) -> (N, H, L, D), a view."""
        h, d = self.num_heads, self.head_dim
        if self.batch_first:
            return t.reshape(n, -1, h, d).transpose(1, 2)
        return t.reshape(-1, n, h, d).permute(1, 2, 0, 3)

    def _merge_heads(self, t, n, l):
        """(N, H, L, D) -> (L, N, E) or (N, L, E)."""
        e = self.embed_dim
        if self.batch_first:
            return t.transpose(1, 2).reshape(n, l, e)
        return t.permute(2, 0, 1, 3).reshape(l, n, e)

    def extra_repr(self):
        extra = "" if self._qkv_same_embed_dim else f", kdim={self.kdim}, vdim={self.vdim}"
        return (f"embed_dim={self.embed_dim}, num_heads={self.num_heads}, "
                f"dropout={self.dropout}, batch_first={self.batch_first}{extra}")


def _pad_last(mask):
    """An additive mask with one more key position (a 0 column: never blocked)."""
    if mask is None:
        return None
    return ag.pad(mask, (0, 1)) if isinstance(mask, ag.Tensor) else \
        np.pad(mask, [(0, 0)] * (mask.ndim - 1) + [(0, 1)])


def attention_weights(model):
    """{module path: last_attn_weights} for every MultiheadAttention in ``model`` that kept
    its weights (see ``keep_attention_weights``); values are (N, H, L, S) ndarrays."""
    return {name: m.last_attn_weights._data for name, m in model.named_modules()
            if isinstance(m, MultiheadAttention) and m.last_attn_weights is not None}


@contextmanager
def keep_attention_weights(model):
    """Inside the block every MultiheadAttention of ``model`` keeps its last weights; on exit
    the dict yielded is filled with ``attention_weights(model)`` and the flags are restored."""
    layers = [m for m in model.modules() if isinstance(m, MultiheadAttention)]
    before = [m.__dict__.get("store_attn_weights") for m in layers]
    maps = {}
    for m in layers:
        m.store_attn_weights = True
        m.last_attn_weights = None
    try:
        yield maps
    finally:
        maps.update(attention_weights(model))
        for m, b in zip(layers, before):
            if b is None:
                del m.store_attn_weights
            else:
                m.store_attn_weights = b
