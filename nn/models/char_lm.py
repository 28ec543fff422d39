"""A character-level recurrent language model (Karpathy's char-rnn; d2l chapter 9)."""
import numpy as np

from dagrad import autograd as ag
from dagrad.autograd import as_array

from ..dropout import Dropout
from ..embedding import Embedding
from ..linear import Linear
from ..module import Module
from ..rnn import GRU, LSTM, RNN
from .gpt import _sample

_LAYERS = {"lstm": LSTM, "gru": GRU, "rnn": RNN}


class CharLM(Module):
    """p(x_{t+1} | x_1..x_t) = softmax(W_o h_t + b_o), h_t = RNN(E[x_t], h_{t-1}).

    ``cell``: "lstm" (default), "gru" or "rnn"; ``num_layers`` stacked with ``dropout``
    between them and before the output layer. Children: ``embedding`` (vocab_size,
    embedding_dim), ``rnn`` (batch first), ``head`` Linear(hidden_size, vocab_size).

    forward(tokens (N, T) int, state=None) -> (logits (N, T, vocab_size), final state), so a
    long text can be fed in chunks carrying the state (truncated backpropagation through time:
    detach the state between chunks). ``generate`` samples a continuation.
    """

    def __init__(self, vocab_size, embedding_dim=32, hidden_size=128, num_layers=1,
                 cell="lstm", dropout=0.0):
        super().__init__()
        if cell not in _LAYERS:
            raise ValueError(f"CharLM: cell must be one of {sorted(_LAYERS)}, got {cell!r}")
        self.vocab_size, self.cell = vocab_size, cell
        self.embedding = Embedding(vocab_size, embedding_dim)
        self.rnn = _LAYERS[cell](embedding_dim, hidden_size, num_layers, batch_first=True,
                                 dropout=dropout)
        self.dropout = Dropout(dropout)
        self.head = Linear(hidden_size, vocab_size)

    def forward(self, tokens, state=None):
        output, state = self.rnn(self.embedding(tokens), state)
        return self.head(self.dropout(output)), state

    @staticmethod
    def detach_state(state):
        """The state without its history (for truncated BPTT between chunks)."""
        if isinstance(state, tuple):
            return tuple(s.detach() for s in state)
        return None if state is None else state.detach()

    def generate(self, prefix, max_new_tokens, temperature=1.0, top_k=None):
        """Extend ``prefix`` (token ids (T,) or (N, T), T ≥ 1) by ``max_new_tokens`` sampled
        tokens; returns int64 (T + max_new_tokens,) or (N, T + max_new_tokens).

        The prefix is read once; then each new token is fed with the carried state, so every
        step costs one recurrent step. The next token is drawn from softmax(logits /
        ``temperature``) (0: always the most likely; below 1: more conservative), restricted to
        the ``top_k`` most likely tokens if given, with autograd's generator
        (``ag.manual_seed``). Runs in evaluation mode without recording a graph, and restores
        the previous mode.
        """
        idx = as_array(prefix, dtype=np.int64)
        one = idx.ndim == 1
        idx = idx[None] if one else idx
        if idx.shape[1] < 1:
            raise ValueError("CharLM.generate: the prefix needs at least one token")
        rng = ag.generator()
        was_training = self.training
        self.eval()
        pieces = [idx]
        try:
            with ag.no_grad():
                logits, state = self(idx)
                for _ in range(max_new_tokens):
                    nxt = _sample(logits._data[:, -1].astype(np.float64), temperature, top_k,
                                  rng)
                    pieces.append(nxt)
                    logits, state = self(nxt, state)
        finally:
            self.train(was_training)
        out = np.concatenate(pieces, axis=1)
        return ag.tensor(out[0] if one else out)
