"""A decoder-only Transformer language model in the style of GPT-2: token and learned position
embeddings, a stack of pre-norm Transformer blocks with causal self-attention and a GELU
feed-forward network, a final layer norm, and a linear head to the vocabulary (optionally
sharing the token embedding's weights)."""
import math

import numpy as np

from dagrad import autograd as ag
from dagrad.autograd import as_array

from .. import init
from ..dropout import Dropout
from ..embedding import Embedding
from ..functional.attention import causal_mask
from ..linear import Linear
from ..module import Module
from ..normalization import LayerNorm
from ..transformer import TransformerEncoder, TransformerEncoderLayer


class GPT(Module):
    """p(x_{t+1} | x_1..x_t) = softmax(logits_t), with

        h⁰ = dropout(W_te[x] + W_pe[0..T-1])
        hˡ = Block(hˡ⁻¹)       Block(h): h += CausalSelfAttention(LN(h)); h += MLP(LN(h))
        logits = LN_f(h^L) W_headᵀ                                (W_head = W_te when tied)

    Args: ``vocab_size``, ``block_size`` (the longest context), ``n_layer``, ``n_head``,
    ``n_embd`` (d_model; the MLP has 4·n_embd hidden units), ``dropout``, ``bias`` (in linear
    layers and norms), ``tie_weights`` (share the token embedding with the output head).

    Children: ``wte``, ``wpe`` (Embedding), ``drop``, ``blocks`` (a ``TransformerEncoder`` of
    ``TransformerEncoderLayer(norm_first=True, activation="gelu", batch_first=True)``; each
    block's causal self-attention is ``blocks.layers.<i>.self_attn``), ``ln_f``, ``lm_head``.
    Initialised as GPT-2: weights N(0, 0.02²), the projections into the residual stream
    N(0, (0.02/√(2·n_layer))²), biases 0.

    Input: token ids (N, T) with T ≤ block_size; output: logits (N, T, vocab_size). Train with
    ``nn.objectives.next_token_loss`` on ``next_token_pairs(batch)``.
    """

    def __init__(self, vocab_size, block_size, n_layer=4, n_head=4, n_embd=128, dropout=0.0,
                 bias=True, tie_weights=True):
        super().__init__()
        self.vocab_size, self.block_size = vocab_size, block_size
        self.wte = Embedding(vocab_size, n_embd)
        self.wpe = Embedding(block_size, n_embd)
        self.drop = Dropout(dropout)
        block = TransformerEncoderLayer(n_embd, n_head, 4 * n_embd, dropout, activation="gelu",
                                        batch_first=True, norm_first=True, bias=bias)
        self.blocks = TransformerEncoder(block, n_layer)
        self.ln_f = LayerNorm(n_embd, bias=bias)
        self.lm_head = Linear(n_embd, vocab_size, bias=False)
        self._init_weights(n_layer)
        if tie_weights:
            self.lm_head.weight = self.wte.weight

    def _init_weights(self, n_layer):
        residual = 0.02 / math.sqrt(2 * n_layer)
        for name, p in self.named_parameters():
            if p.ndim >= 2:
                std = residual if name.endswith(("out_proj.weight", "linear2.weight")) else 0.02
                init.normal_(p, 0.0, std)
            elif name.endswith("bias"):
                init.zeros_(p)

    def forward(self, idx):
        """Logits (N, T, vocab_size) for token ids idx (N, T)."""
        t = idx.shape[-1]
        if t > self.block_size:
            raise ValueError(f"GPT: sequence of length {t} is longer than block_size="
                             f"{self.block_size}; crop the context to the last "
                             f"{self.block_size} tokens")
        x = self.drop(self.wte(idx) + self.wpe.weight[:t])
        x = self.blocks(x, mask=causal_mask(t, dtype=x.dtype), is_causal=True)
        return self.lm_head(self.ln_f(x))

    def generate(self, idx, max_new_tokens, temperature=1.0, top_k=None):
        """Extend the sequences idx (N, T) by ``max_new_tokens`` sampled tokens; returns int64
        (N, T + max_new_tokens).

        Each step feeds the last ``block_size`` tokens, divides the last position's logits by
        ``temperature`` (0 picks the most likely token), keeps the ``top_k`` largest if given,
        and samples from their softmax with autograd's generator (``ag.manual_seed``). Runs in
        evaluation mode without recording a graph, and restores the previous mode.
        """
        idx = as_array(idx, dtype=np.int64)
        one = idx.ndim == 1
        idx = idx[None] if one else idx
        rng = ag.generator()
        was_training = self.training
        self.eval()
        try:
            with ag.no_grad():
                for _ in range(max_new_tokens):
                    logits = self(idx[:, -self.block_size:])._data[:, -1].astype(np.float64)
                    idx = np.concatenate([idx, _sample(logits, temperature, top_k, rng)],
                                         axis=1)
        finally:
            self.train(was_training)
        return ag.tensor(idx[0] if one else idx)


def _sample(logits, temperature, top_k, rng):
    """One token per row of logits (N, V), as an (N, 1) int64 array."""
    if temperature == 0:
        return logits.argmax(axis=-1)[:, None]
    logits = logits / temperature
    if top_k is not None:
        k = min(int(top_k), logits.shape[-1])
        kth = np.partition(logits, -k, axis=-1)[:, -k:].min(axis=-1, keepdims=True)
        logits = np.where(logits < kth, -np.inf, logits)
    p = np.exp(logits - logits.max(axis=-1, keepdims=True))
    cdf = np.cumsum(p / p.sum(axis=-1, keepdims=True), axis=-1)
    u = rng.random((len(logits), 1))
    return np.minimum((cdf < u).sum(axis=-1), logits.shape[-1] - 1)[:, None].astype(np.int64)
