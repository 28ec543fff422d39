"""A recurrent encoder-decoder (sequence to sequence) with attention, as in d2l chapter 10-11:
the encoder reads the source, the decoder generates the target one token at a time, and at
every step attention lets it look at all of the encoder's outputs."""
import numpy as np

from dagrad import autograd as ag
from dagrad.autograd import as_array

from ..attention_rnn import make_attention
from ..containers import ModuleList
from ..dropout import Dropout
from ..embedding import Embedding
from ..linear import Linear
from ..module import Module
from ..rnn import GRU, LSTM, RNN
from ..rnn_cells import GRUCell, LSTMCell, RNNCell

_CELLS = {"gru": (GRU, GRUCell), "lstm": (LSTM, LSTMCell), "rnn": (RNN, RNNCell)}


class Seq2SeqRNN(Module):
    """Encoder-decoder with attention (Bahdanau et al. 2015; Luong et al. 2015).

    Encoder: h^enc = RNN(E_src[x]) over the source, (N, S) -> (N, S, D·H) (D = 2 if
    ``bidirectional``). Decoder step t, from the previous token y_{t-1} and state s_{t-1}::

        c_t, α_t = attention(query = s_{t-1} (top layer), keys = values = h^enc)
        s_t = cell([E_tgt[y_{t-1}], c_t], s_{t-1})           (``num_layers`` stacked cells)
        logits_t = W_o [s_t, c_t] + b_o

    ``attention``: "additive" (Bahdanau, ``nn.AdditiveAttention``), "dot" (scaled dot
    product; needs D = 1) or None (no context: the classic encoder-decoder of Sutskever et al.,
    where the encoder's final state is all the decoder knows). ``cell``: "gru", "lstm" or "rnn".
    The decoder starts from the encoder's final states (both directions joined by a linear
    ``bridge`` when bidirectional). ``pad_idx`` masks source padding in attention.

    Teacher forcing: for targets y = (bos, y₁, …, y_T) call ``model(src, y[:, :-1])`` and train
    the logits (N, T, tgt_vocab_size) against y[:, 1:]; ``teacher_forcing < 1`` feeds the
    model's own previous prediction instead with probability 1 - teacher_forcing per step
    (scheduled sampling). ``greedy_decode`` generates; ``return_attention=True`` also returns
    the weights α (N, T, S) for plotting.
    """

    def __init__(self, src_vocab_size, tgt_vocab_size, embedding_dim=32, hidden_size=64,
                 num_layers=1, cell="gru", attention="additive", bidirectional=False,
                 dropout=0.0, pad_idx=None):
        super().__init__()
        if cell not in _CELLS:
            raise ValueError(f"Seq2SeqRNN: cell must be one of {sorted(_CELLS)}, got {cell!r}")
        layer_cls, cell_cls = _CELLS[cell]
        directions = 2 if bidirectional else 1
        enc_size = directions * hidden_size
        self.cell, self.attention_kind, self.pad_idx = cell, attention, pad_idx
        self.hidden_size, self.num_layers = hidden_size, num_layers
        self.bidirectional = bidirectional
        self.src_embedding = Embedding(src_vocab_size, embedding_dim, padding_idx=pad_idx)
        self.tgt_embedding = Embedding(tgt_vocab_size, embedding_dim, padding_idx=pad_idx)
        self.encoder = layer_cls(embedding_dim, hidden_size, num_layers, batch_first=True,
                                 dropout=dropout, bidirectional=bidirectional)
        if bidirectional:
            self.bridge = Linear(enc_size, hidden_size)
        context = 0
        if attention is not None:
            self.attention = make_attention(attention, hidden_size, enc_size, hidden_size)
            context = enc_size
        self.decoder = ModuleList(
            [cell_cls(embedding_dim + context if k == 0 else hidden_size, hidden_size)
             for k in range(num_layers)])
        self.dropout = Dropout(dropout)
        self.output = Linear(hidden_size + context, tgt_vocab_size)

    # ------------------------------------------------------------------------------ parts
    def _padding(self, src, given):
        if given is not None or self.pad_idx is None:
            return given
        mask = as_array(src) == self.pad_idx
        return mask if mask.any() else None

    def encode(self, src, src_padding_mask=None):
        """(encoder outputs (N, S, D·H), the decoder's initial state: one per layer)."""
        outputs, final = self.encoder(self.src_embedding(src))
        lstm = self.cell == "lstm"
        parts = final if lstm else (final,)
        states = []
        for layer in range(self.num_layers):
            per_part = []
            for k, s in enumerate(parts):          # h (and c for an LSTM)
                if self.bidirectional:
                    s = self.bridge(ag.cat([s[2 * layer], s[2 * layer + 1]], dim=-1))
                    s = s.tanh() if k == 0 else s
                else:
                    s = s[layer]
                per_part.append(s)
            states.append(tuple(per_part) if lstm else per_part[0])
        return outputs, states

    def decode_step(self, token, states, memory, padding=None):
        """One decoder step: token ids (N,), states (one per layer), encoder outputs memory
        (N, S, D·H) -> (logits (N, V), new states, attention weights (N, S) or None)."""
        x = self.tgt_embedding(token)
        top = states[-1][0] if self.cell == "lstm" else states[-1]
        weights = context = None
        if self.attention_kind is not None:
            context, weights = self.attention(top.unsqueeze(1), memory, memory,
                                              key_padding_mask=padding)
            context, weights = context.squeeze(1), weights.squeeze(1)
            x = ag.cat([x, context], dim=-1)
        new_states = []
        for k, (cell, state) in enumerate(zip(self.decoder, states)):
            state = cell(x if k == 0 else self.dropout(x), state)
            new_states.append(state)
            x = state[0] if self.cell == "lstm" else state
        features = x if context is None else ag.cat([x, context], dim=-1)
        return self.output(features), new_states, weights

    # ---------------------------------------------------------------------------- forward
    def forward(self, src, tgt, src_padding_mask=None, teacher_forcing=1.0,
                return_attention=False):
        """Logits (N, T, tgt_vocab_size) for source tokens (N, S) and decoder inputs tgt (N, T)
        (teacher forcing: tgt[:, t] is fed at step t, or with probability 1 - teacher_forcing
        the previous step's most likely token). With ``return_attention``: (logits, α (N, T, S))."""
        tgt = as_array(tgt)
        padding = self._padding(src, src_padding_mask)
        memory, states = self.encode(src, padding)
        rng = ag.generator()
        logits, alphas = [], []
        token = tgt[:, 0]
        for t in range(tgt.shape[1]):
            if t and (teacher_forcing >= 1.0 or rng.random() < teacher_forcing):
                token = tgt[:, t]
            out, states, weights = self.decode_step(token, states, memory, padding)
            logits.append(out)
            alphas.append(weights)
            token = out._data.argmax(axis=-1)         # used when not teacher forcing
        logits = ag.stack(logits, dim=1)
        if not return_attention:
            return logits
        return logits, None if alphas[0] is None else ag.stack(alphas, dim=1)

    def greedy_decode(self, src, max_len, start_symbol, end_symbol=None,
                      return_attention=False):
        """Generate target tokens one at a time, each the most likely given the source and the
        tokens so far. Returns int64 (N, ≤ max_len) starting with ``start_symbol``; once a
        sequence emits ``end_symbol`` the rest of it repeats that symbol, and decoding stops when
        every sequence has ended. With ``return_attention``: (tokens, α (N, T - 1, S) ndarray,
        the weights of each generated token; None without attention). Runs in evaluation mode
        without recording a graph and restores the previous mode; src may be 1-D (one
        sequence)."""
        src = as_array(src)
        one = src.ndim == 1
        src = src[None] if one else src
        was_training = self.training
        self.eval()
        try:
            with ag.no_grad():
                padding = self._padding(src, None)
                memory, states = self.encode(src, padding)
                ys = np.full((src.shape[0], 1), start_symbol, dtype=np.int64)
                done = np.zeros(src.shape[0], dtype=bool)
                alphas = []
                for _ in range(max_len - 1):
                    out, states, weights = self.decode_step(ys[:, -1], states, memory, padding)
                    nxt = out._data.argmax(axis=-1)
                    if end_symbol is not None:
                        nxt = np.where(done, end_symbol, nxt)
                        done |= nxt == end_symbol
                    ys = np.concatenate([ys, nxt[:, None]], axis=1)
                    alphas.append(None if weights is None else weights._data)
                    if end_symbol is not None and done.all():
                        break
        finally:
            self.train(was_training)
        tokens = ag.tensor(ys[0] if one else ys)
        if not return_attention:
            return tokens
        if not alphas or alphas[0] is None:
            return tokens, None
        weights = np.stack(alphas, axis=1)
        return tokens, weights[0] if one else weights
