"""Token and position embeddings for Transformers: the sinusoidal encoding of "Attention is all
you need", learned position embeddings, and token embeddings scaled by √d_model."""
import math

import numpy as np

from dagrad import autograd as ag
from dagrad.autograd.default_dtype import float_dtype

from .dropout import Dropout
from .embedding import Embedding
from .module import Module


def sinusoidal_encoding(max_len, d_model, dtype=None):
    """The (max_len, d_model) table P of sinusoidal position encodings::

        P[pos, 2i]   = sin(pos / 10000^(2i / d_model))
        P[pos, 2i+1] = cos(pos / 10000^(2i / d_model))

    Each pair of columns is a rotation at its own frequency, so P[pos + k] is a linear function
    of P[pos] for every offset k, and wavelengths run from 2π to 10000·2π.
    """
    pos = np.arange(max_len, dtype=np.float64)[:, None]
    freq = np.exp(np.arange(0, d_model, 2, dtype=np.float64) * (-math.log(10000.0) / d_model))
    table = np.zeros((max_len, d_model))
    table[:, 0::2] = np.sin(pos * freq)
    table[:, 1::2] = np.cos(pos * freq[: d_model // 2])
    return table.astype(float_dtype(dtype))


def _check_length(module, length):
    if length > module.max_len:
        raise ValueError(f"{type(module).__name__}: sequence of length {length} is longer than "
                         f"max_len={module.max_len}; build it with a larger max_len")


class PositionalEncoding(Module):
    """y = dropout(x + P[:L]) with P the sinusoidal table (see ``sinusoidal_encoding``).

    x: (L, N, d_model), or (N, L, d_model) with ``batch_first=True``. P is a constant buffer
    ``pe`` (max_len, d_model), not saved in the state dict (it is recomputed from max_len).
    """

    def __init__(self, d_model, dropout=0.1, max_len=5000, batch_first=False):
        super().__init__()
        self.d_model, self.max_len, self.batch_first = d_model, max_len, batch_first
        self.dropout = Dropout(dropout)
        self.register_buffer("pe", ag.Tensor(sinusoidal_encoding(max_len, d_model)),
                             persistent=False)

    def forward(self, x):
        length = x.shape[1 if self.batch_first else 0]
        _check_length(self, length)
        pe = self.pe._data[:length].astype(x.dtype, copy=False)
        return self.dropout(x + (pe if self.batch_first else pe[:, None]))

    def extra_repr(self):
        return f"d_model={self.d_model}, max_len={self.max_len}, batch_first={self.batch_first}"


class LearnedPositionalEmbedding(Module):
    """y = dropout(x + W[:L]) with W (max_len, d_model) learned (an ``Embedding`` of the
    positions 0..L-1, as in BERT and GPT). x: (L, N, d) or (N, L, d) with ``batch_first``."""

    def __init__(self, max_len, d_model, dropout=0.0, batch_first=False):
        super().__init__()
        self.max_len, self.d_model, self.batch_first = max_len, d_model, batch_first
        self.embedding = Embedding(max_len, d_model)
        self.dropout = Dropout(dropout)

    def forward(self, x):
        length = x.shape[1 if self.batch_first else 0]
        _check_length(self, length)
        pe = self.embedding.weight[:length]
        return self.dropout(x + (pe if self.batch_first else pe.unsqueeze(1)))

    def extra_repr(self):
        return f"max_len={self.max_len}, d_model={self.d_model}, batch_first={self.batch_first}"


class TokenEmbedding(Module):
    """y = √d_model · E[token]: token embeddings scaled so that they are not drowned by the
    position encoding added next (whose entries are of size 1). ``embedding`` is an
    ``Embedding(vocab_size, d_model)``; tokens of any shape -> (*tokens.shape, d_model)."""

    def __init__(self, vocab_size, d_model, padding_idx=None):
        super().__init__()
        self.embedding = Embedding(vocab_size, d_model, padding_idx=padding_idx)
        self.d_model = d_model

    def forward(self, tokens):
        return self.embedding(tokens) * math.sqrt(self.d_model)
