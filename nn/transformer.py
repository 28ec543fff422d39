"""The Transformer of "Attention is all you need": encoder and decoder layers, their stacks,
and the full encoder-decoder, with PyTorch's signatures, defaults and parameter names (a
PyTorch state_dict loads directly).

Each sub-layer is wrapped in a residual connection and a layer norm, either after the sum
(post-norm, the original paper and PyTorch's default) or before the sub-layer (pre-norm,
``norm_first=True``, easier to train deep)::

    post-norm:  x = LayerNorm(x + Sublayer(x))
    pre-norm:   x = x + Sublayer(LayerNorm(x))

Masks follow ``MultiheadAttention``: ``*_mask`` (L, S) or (N·H, L, S) with True (or -inf) where
attention is *not* allowed; ``*_key_padding_mask`` (N, S) with True at padding positions.
"""
import copy

import numpy as np

from . import functional as F
from . import init
from .attention import MultiheadAttention
from .containers import ModuleList
from .dropout import Dropout
from .functional.attention import causal_mask
from .linear import Linear
from .module import Module
from .normalization import LayerNorm

_ACTIVATIONS = {"relu": F.relu, "gelu": F.gelu}


def generate_square_subsequent_mask(sz, dtype=None):
    """The (sz, sz) causal mask: 0 on and below the diagonal, -inf above it, so position i
    attends only to positions j ≤ i. Returns a Tensor of ``dtype`` (the default dtype when
    None), as PyTorch."""
    from dagrad.autograd import Tensor
    return Tensor(causal_mask(sz, sz, dtype))


def _activation(activation):
    if isinstance(activation, str):
        if activation not in _ACTIVATIONS:
            raise ValueError(f"activation should be 'relu' or 'gelu' (or a callable), not "
                             f"{activation!r}")
        return _ACTIVATIONS[activation]
    if not callable(activation):
        raise TypeError(f"activation must be 'relu', 'gelu' or a callable, got "
                        f"{type(activation).__name__}")
    return activation


class _Sublayers:
    """The sub-layers shared by encoder and decoder layers: self-attention and the
    position-wise feed-forward network FFN(x) = W₂ dropout(act(W₁ x + b₁)) + b₂."""

    def _sa_block(self, x, attn_mask, key_padding_mask, is_causal):
        x = self.self_attn(x, x, x, attn_mask=attn_mask, key_padding_mask=key_padding_mask,
                           need_weights=False, is_causal=is_causal)[0]
        return self.dropout1(x)

    def _feed_forward(self, x, out_dropout):
        return out_dropout(self.linear2(self.dropout(self.activation(self.linear1(x)))))

    def _build(self, d_model, nhead, dim_feedforward, dropout, activation, layer_norm_eps,
               batch_first, norm_first, bias, dtype, cross_attention):
        """The children, in PyTorch's order: self_attn, [multihead_attn], linear1, dropout,
        linear2, norm1, norm2, [norm3], dropout1, dropout2, [dropout3]."""
        def attention():
            return MultiheadAttention(d_model, nhead, dropout=dropout, bias=bias,
                                      batch_first=batch_first, dtype=dtype)
        self.self_attn = attention()
        if cross_attention:
            self.multihead_attn = attention()
        self.linear1 = Linear(d_model, dim_feedforward, bias=bias, dtype=dtype)
        self.dropout = Dropout(dropout)
        self.linear2 = Linear(dim_feedforward, d_model, bias=bias, dtype=dtype)
        self.norm_first = norm_first
        count = 3 if cross_attention else 2
        for i in range(1, count + 1):
            setattr(self, f"norm{i}", LayerNorm(d_model, eps=layer_norm_eps, bias=bias,
                                                dtype=dtype))
        for i in range(1, count + 1):
            setattr(self, f"dropout{i}", Dropout(dropout))
        self.activation = _activation(activation)


class TransformerEncoderLayer(_Sublayers, Module):
    """Self-attention then a feed-forward network, each with a residual connection and layer
    norm (post-norm by default, pre-norm with ``norm_first=True``)::

        x = norm1(x + SA(x)),  x = norm2(x + FFN(x))          (post-norm)
        x = x + SA(norm1(x)),  x = x + FFN(norm2(x))          (pre-norm)

    src: (S, N, d_model), or (N, S, d_model) with ``batch_first``, or (S, d_model) -> same.
    Children as PyTorch: ``self_attn``, ``linear1``, ``dropout``, ``linear2``, ``norm1``,
    ``norm2``, ``dropout1``, ``dropout2``.
    """

    def __init__(self, d_model, nhead, dim_feedforward=2048, dropout=0.1, activation="relu",
                 layer_norm_eps=1e-5, batch_first=False, norm_first=False, bias=True,
                 dtype=None):
        super().__init__()
        self._build(d_model, nhead, dim_feedforward, dropout, activation, layer_norm_eps,
                    batch_first, norm_first, bias, dtype, cross_attention=False)

    def forward(self, src, src_mask=None, src_key_padding_mask=None, is_causal=False):
        x = src
        if self.norm_first:
            x = x + self._sa_block(self.norm1(x), src_mask, src_key_padding_mask, is_causal)
            return x + self._ff_block(self.norm2(x))
        x = self.norm1(x + self._sa_block(x, src_mask, src_key_padding_mask, is_causal))
        return self.norm2(x + self._ff_block(x))

    def _ff_block(self, x):
        return self._feed_forward(x, self.dropout2)


class TransformerDecoderLayer(_Sublayers, Module):
    """Masked self-attention, cross-attention to the encoder's output (``memory``), then a
    feed-forward network; each with a residual connection and layer norm::

        x = norm1(x + SA(x)),  x = norm2(x + CA(x, memory)),  x = norm3(x + FFN(x))  (post-norm)

    (pre-norm with ``norm_first=True``: x = x + SA(norm1(x)), ...). tgt (T, N, d_model) and
    memory (S, N, d_model), or batch first -> (T, N, d_model). Children as PyTorch:
    ``self_attn``, ``multihead_attn``, ``linear1``, ``dropout``, ``linear2``, ``norm1..3``,
    ``dropout1..3``.
    """

    def __init__(self, d_model, nhead, dim_feedforward=2048, dropout=0.1, activation="relu",
                 layer_norm_eps=1e-5, batch_first=False, norm_first=False, bias=True,
                 dtype=None):
        super().__init__()
        self._build(d_model, nhead, dim_feedforward, dropout, activation, layer_norm_eps,
                    batch_first, norm_first, bias, dtype, cross_attention=True)

    def forward(self, tgt, memory, tgt_mask=None, memory_mask=None, tgt_key_padding_mask=None,
                memory_key_padding_mask=None, tgt_is_causal=False, memory_is_causal=False):
        x = tgt
        if self.norm_first:
            x = x + self._sa_block(self.norm1(x), tgt_mask, tgt_key_padding_mask, tgt_is_causal)
            x = x + self._mha_block(self.norm2(x), memory, memory_mask,
                                    memory_key_padding_mask, memory_is_causal)
            return x + self._ff_block(self.norm3(x))
        x = self.norm1(x + self._sa_block(x, tgt_mask, tgt_key_padding_mask, tgt_is_causal))
        x = self.norm2(x + self._mha_block(x, memory, memory_mask, memory_key_padding_mask,
                                           memory_is_causal))
        return self.norm3(x + self._ff_block(x))

    def _mha_block(self, x, mem, attn_mask, key_padding_mask, is_causal):
        x = self.multihead_attn(x, mem, mem, attn_mask=attn_mask,
                                key_padding_mask=key_padding_mask, need_weights=False,
                                is_causal=is_causal)[0]
        return self.dropout2(x)

    def _ff_block(self, x):
        return self._feed_forward(x, self.dropout3)


def _clones(layer, n):
    return ModuleList([copy.deepcopy(layer) for _ in range(n)])


class TransformerEncoder(Module):
    """``num_layers`` copies of ``encoder_layer`` (independent weights, children
    ``layers.0`` …), applied in turn, then the optional final ``norm``."""

    def __init__(self, encoder_layer, num_layers, norm=None, enable_nested_tensor=True,
                 mask_check=True):
        super().__init__()
        self.layers = _clones(encoder_layer, num_layers)
        self.num_layers = num_layers
        self.norm = norm

    def forward(self, src, mask=None, src_key_padding_mask=None, is_causal=None):
        x = src
        for layer in self.layers:
            x = layer(x, src_mask=mask, src_key_padding_mask=src_key_padding_mask,
                      is_causal=bool(is_causal))
        return x if self.norm is None else self.norm(x)


class TransformerDecoder(Module):
    """``num_layers`` copies of ``decoder_layer``, each attending to the same ``memory``, then
    the optional final ``norm``."""

    def __init__(self, decoder_layer, num_layers, norm=None):
        super().__init__()
        self.layers = _clones(decoder_layer, num_layers)
        self.num_layers = num_layers
        self.norm = norm

    def forward(self, tgt, memory, tgt_mask=None, memory_mask=None, tgt_key_padding_mask=None,
                memory_key_padding_mask=None, tgt_is_causal=None, memory_is_causal=False):
        x = tgt
        for layer in self.layers:
            x = layer(x, memory, tgt_mask=tgt_mask, memory_mask=memory_mask,
                      tgt_key_padding_mask=tgt_key_padding_mask,
                      memory_key_padding_mask=memory_key_padding_mask,
                      tgt_is_causal=bool(tgt_is_causal), memory_is_causal=memory_is_causal)
        return x if self.norm is None else self.norm(x)


class Transformer(Module):
    """The encoder-decoder Transformer: memory = Encoder(src), output = Decoder(tgt, memory),
    with a final LayerNorm after each stack (as PyTorch). Weight matrices are initialised
    Xavier-uniform.

    src (S, N, d_model), tgt (T, N, d_model) (batch first with ``batch_first=True``) ->
    (T, N, d_model). Use ``generate_square_subsequent_mask(T)`` as ``tgt_mask`` so position t of
    the target sees only positions ≤ t (teacher forcing).
    """

    def __init__(self, d_model=512, nhead=8, num_encoder_layers=6, num_decoder_layers=6,
                 dim_feedforward=2048, dropout=0.1, activation="relu", custom_encoder=None,
                 custom_decoder=None, layer_norm_eps=1e-5, batch_first=False, norm_first=False,
                 bias=True, dtype=None):
        super().__init__()
        layer_args = dict(dim_feedforward=dim_feedforward, dropout=dropout,
                          activation=activation, layer_norm_eps=layer_norm_eps,
                          batch_first=batch_first, norm_first=norm_first, bias=bias, dtype=dtype)
        if custom_encoder is not None:
            self.encoder = custom_encoder
        else:
            self.encoder = TransformerEncoder(
                TransformerEncoderLayer(d_model, nhead, **layer_args), num_encoder_layers,
                LayerNorm(d_model, eps=layer_norm_eps, bias=bias, dtype=dtype))
        if custom_decoder is not None:
            self.decoder = custom_decoder
        else:
            self.decoder = TransformerDecoder(
                TransformerDecoderLayer(d_model, nhead, **layer_args), num_decoder_layers,
                LayerNorm(d_model, eps=layer_norm_eps, bias=bias, dtype=dtype))
        self.d_model, self.nhead, self.batch_first = d_model, nhead, batch_first
        self._reset_parameters()

    def _reset_parameters(self):
        for p in self.parameters():
            if p.ndim > 1:
                init.xavier_uniform_(p)

    def forward(self, src, tgt, src_mask=None, tgt_mask=None, memory_mask=None,
                src_key_padding_mask=None, tgt_key_padding_mask=None,
                memory_key_padding_mask=None, src_is_causal=None, tgt_is_causal=None,
                memory_is_causal=False):
        batch_axis = 0 if self.batch_first else 1
        if src.ndim == 3 and src.shape[batch_axis] != tgt.shape[batch_axis]:
            raise ValueError(f"Transformer: src {tuple(src.shape)} and tgt {tuple(tgt.shape)} "
                             f"must have the same batch size (dimension {batch_axis})")
        if src.shape[-1] != self.d_model or tgt.shape[-1] != self.d_model:
            raise ValueError(f"Transformer: the feature size of src {tuple(src.shape)} and tgt "
                             f"{tuple(tgt.shape)} must equal d_model={self.d_model}")
        memory = self.encoder(src, mask=src_mask, src_key_padding_mask=src_key_padding_mask,
                              is_causal=src_is_causal)
        return self.decoder(tgt, memory, tgt_mask=tgt_mask, memory_mask=memory_mask,
                            tgt_key_padding_mask=tgt_key_padding_mask,
                            memory_key_padding_mask=memory_key_padding_mask,
                            tgt_is_causal=tgt_is_causal, memory_is_causal=memory_is_causal)

    generate_square_subsequent_mask = staticmethod(generate_square_subsequent_mask)
