"""The encoder-decoder Transformer for sequence-to-sequence tasks (translation, reversal, …):
token embeddings scaled by √d_model, sinusoidal positions, ``nn.Transformer``, and a linear
layer to the target vocabulary. Trained with teacher forcing, decoded greedily."""
import numpy as np

from dagrad import autograd as ag
from dagrad.autograd import as_array

from .. import init
from ..functional.attention import causal_mask
from ..linear import Linear
from ..module import Module
from ..positional import PositionalEncoding, TokenEmbedding
from ..transformer import Transformer


class Seq2SeqTransformer(Module):
    """logits = generator(Decoder(emb(tgt), Encoder(emb(src)))), with
    emb(x) = PE(√d_model · E[x]).

    Args follow PyTorch's translation tutorial (``num_encoder_layers, num_decoder_layers,
    emb_size, nhead, src_vocab_size, tgt_vocab_size, dim_feedforward, dropout``), plus
    ``pad_idx`` (padding positions of src and tgt are masked automatically), ``max_len`` of the
    position table, ``norm_first`` and ``batch_first`` (default True: tokens (N, T)).

    Children: ``transformer`` (``nn.Transformer``), ``src_tok_emb``, ``tgt_tok_emb``
    (``TokenEmbedding``), ``positional_encoding``, ``generator`` (Linear(emb_size,
    tgt_vocab_size)).

    Teacher forcing: for a target sequence y = (bos, y₁, …, y_T), feed tgt = y[:, :-1] and
    train the logits against y[:, 1:] (``nn.objectives.next_token_pairs``); the causal mask
    keeps position t from seeing y_{t+1}, … . ``greedy_decode`` generates one token at a time.
    """

    def __init__(self, num_encoder_layers, num_decoder_layers, emb_size, nhead, src_vocab_size,
                 tgt_vocab_size, dim_feedforward=512, dropout=0.1, pad_idx=None, max_len=5000,
                 norm_first=False, batch_first=True, activation="relu"):
        super().__init__()
        self.transformer = Transformer(emb_size, nhead, num_encoder_layers, num_decoder_layers,
                                       dim_feedforward, dropout, activation=activation,
                                       batch_first=batch_first, norm_first=norm_first)
        self.generator = Linear(emb_size, tgt_vocab_size)
        self.src_tok_emb = TokenEmbedding(src_vocab_size, emb_size, padding_idx=pad_idx)
        self.tgt_tok_emb = TokenEmbedding(tgt_vocab_size, emb_size, padding_idx=pad_idx)
        self.positional_encoding = PositionalEncoding(emb_size, dropout, max_len, batch_first)
        self.pad_idx, self.batch_first = pad_idx, batch_first
        for p in self.parameters():          # as the tutorial: Xavier-uniform for every matrix,
            if p.ndim > 1:                   # embeddings included, so √d_model · E[x] has
                init.xavier_uniform_(p)      # entries of the size of the position encoding
        if pad_idx is not None:
            with ag.no_grad():
                for emb in (self.src_tok_emb, self.tgt_tok_emb):
                    emb.embedding.weight[pad_idx] = 0

    def _padding(self, tokens, given):
        """key_padding_mask (N, T): the one given, or tokens == pad_idx (if pad_idx is set)."""
        if given is not None or self.pad_idx is None:
            return given
        mask = as_array(tokens) == self.pad_idx
        return (mask if self.batch_first else mask.T) if mask.any() else None

    def _length(self, tokens):
        return as_array(tokens).shape[1 if self.batch_first else 0]

    def encode(self, src, src_mask=None, src_padding_mask=None):
        """memory = Encoder(PE(√d · E[src])); src (N, S) -> (N, S, emb_size) (batch first)."""
        return self.transformer.encoder(self.positional_encoding(self.src_tok_emb(src)),
                                        mask=src_mask,
                                        src_key_padding_mask=self._padding(src,
                                                                           src_padding_mask))

    def decode(self, tgt, memory, tgt_mask=None, tgt_padding_mask=None,
               memory_key_padding_mask=None):
        """Decoder states (N, T, emb_size) for target tokens (N, T); ``tgt_mask`` defaults to
        the causal mask."""
        if tgt_mask is None:
            tgt_mask = causal_mask(self._length(tgt), dtype=memory.dtype)
        return self.transformer.decoder(self.positional_encoding(self.tgt_tok_emb(tgt)), memory,
                                        tgt_mask=tgt_mask,
                                        tgt_key_padding_mask=self._padding(tgt,
                                                                           tgt_padding_mask),
                                        memory_key_padding_mask=memory_key_padding_mask)

    def forward(self, src, tgt, src_mask=None, tgt_mask=None, src_padding_mask=None,
                tgt_padding_mask=None, memory_key_padding_mask=None):
        """Logits (N, T, tgt_vocab_size) for source tokens (N, S) and decoder inputs (N, T)
        (teacher forcing). Masks default to causal for tgt and to padding from ``pad_idx``."""
        src_padding_mask = self._padding(src, src_padding_mask)
        memory = self.encode(src, src_mask, src_padding_mask)
        if memory_key_padding_mask is None:
            memory_key_padding_mask = src_padding_mask
        return self.generator(self.decode(tgt, memory, tgt_mask, tgt_padding_mask,
                                          memory_key_padding_mask))

    def greedy_decode(self, src, max_len, start_symbol, end_symbol=None):
        """Generate target tokens one at a time, each the most likely next token given the
        source and the tokens so far. Returns int64 (N, ≤ max_len) starting with
        ``start_symbol``; once a sequence emits ``end_symbol`` the rest of it repeats that
        symbol, and decoding stops when every sequence has ended. Runs in evaluation mode
        without recording a graph, and restores the previous mode."""
        src = as_array(src)
        one = src.ndim == 1
        src = src[None] if one else (src if self.batch_first else src.T)   # (N, S)

        def layout(a):                    # (N, T) -> the model's layout
            return a if self.batch_first else a.T
        was_training = self.training
        self.eval()
        try:
            with ag.no_grad():
                padding = self._padding(layout(src), None)
                memory = self.encode(layout(src), src_padding_mask=padding)
                ys = np.full((src.shape[0], 1), start_symbol, dtype=np.int64)
                done = np.zeros(src.shape[0], dtype=bool)
                for _ in range(max_len - 1):
                    out = self.decode(layout(ys), memory, memory_key_padding_mask=padding)
                    last = out[:, -1] if self.batch_first else out[-1]
                    nxt = self.generator(last)._data.argmax(axis=-1)
                    if end_symbol is not None:
                        nxt = np.where(done, end_symbol, nxt)
                        done |= nxt == end_symbol
                    ys = np.concatenate([ys, nxt[:, None]], axis=1)
                    if end_symbol is not None and done.all():
                        break
        finally:
            self.train(was_training)
        return ag.tensor(ys[0] if one else layout(ys))
