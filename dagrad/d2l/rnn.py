"""Recurrent networks (the book's chapters 9 and 10): The Time Machine as characters, the
book's ``Vocab``, the RNN and its language model from scratch and concise, and the GRU."""
import collections
import os
import re

from dagrad import torch
from dagrad.torch import nn
from dagrad.torch.nn import functional as F

from .base import DataModule, Module
from .files import DATA_HUB, missing, present, read_data
from .linear import Classifier


class Vocab:
    """Tokens <-> indices, as the book numbers them: ``idx_to_token`` is the sorted set of
    "<unk>", ``reserved_tokens`` and the tokens seen at least ``min_freq`` times; an unknown
    token maps to ``unk``. ``vocab[token]`` and ``vocab[[tokens]]`` look up, ``to_tokens``
    goes back; ``token_freqs`` lists (token, count) by decreasing count. ``tokens`` may be a
    list of lists (it is flattened)."""

    def __init__(self, tokens=(), min_freq=0, reserved_tokens=()):
        tokens = list(tokens)
        if tokens and isinstance(tokens[0], list):
            tokens = [token for line in tokens for token in line]
        counter = collections.Counter(tokens)
        self.token_freqs = sorted(counter.items(), key=lambda x: x[1], reverse=True)
        self.idx_to_token = sorted(set(["<unk>"] + list(reserved_tokens) + [
            token for token, freq in self.token_freqs if freq >= min_freq]))
        self.token_to_idx = {token: idx for idx, token in enumerate(self.idx_to_token)}

    def __len__(self):
        return len(self.idx_to_token)

    def __getitem__(self, tokens):
        if not isinstance(tokens, (list, tuple)):
            return self.token_to_idx.get(tokens, self.unk)
        return [self.__getitem__(token) for token in tokens]

    def to_tokens(self, indices):
        if hasattr(indices, "__len__") and len(indices) > 1:
            return [self.idx_to_token[int(index)] for index in indices]
        return self.idx_to_token[indices]

    @property
    def unk(self):
        return self.token_to_idx["<unk>"]


def tokenize(lines, token="word"):
    """Split each line into words (``token="word"``) or characters (``"char"``)."""
    if token not in ("word", "char"):
        raise ValueError(f"tokenize: token must be 'word' or 'char', got {token!r}")
    return [line.split() if token == "word" else list(line) for line in lines]


class TimeMachine(DataModule):
    """H. G. Wells's *The Time Machine* as lower-case letters and spaces, read from
    ``root/timemachine.txt``: ``X``, ``Y`` are windows of ``num_steps`` characters and the same
    shifted by one (the next-character targets), the first ``num_train`` windows for
    training and the next ``num_val`` for validation."""

    def _download(self):
        path = os.path.join(self.root, "timemachine.txt")
        if not present(path):
            raise missing("TimeMachine", path, DATA_HUB["time_machine"][0],
                          "pass root=<the folder holding timemachine.txt>")
        return read_data("TimeMachine", path)

    def _preprocess(self, text):
        return re.sub("[^A-Za-z]+", " ", text).lower()

    def _tokenize(self, text):
        return list(text)

    def build(self, raw_text, vocab=None):
        """(corpus as indices, vocab) of ``raw_text``."""
        tokens = self._tokenize(self._preprocess(raw_text))
        if vocab is None:
            vocab = Vocab(tokens)
        corpus = [vocab[token] for token in tokens]
        return corpus, vocab

    def __init__(self, batch_size, num_steps, num_train=10000, num_val=5000, root="../data"):
        super().__init__(root=root)
        self.save_hyperparameters(ignore=["root"])
        corpus, self.vocab = self.build(self._download())
        array = torch.tensor([corpus[i:i + num_steps + 1]
                              for i in range(len(corpus) - num_steps)])
        self.X, self.Y = array[:, :-1], array[:, 1:]

    def get_dataloader(self, train):
        idx = slice(0, self.num_train) if train else slice(
            self.num_train, self.num_train + self.num_val)
        return self.get_tensorloader([self.X, self.Y], train, idx)


class RNNScratch(Module):
    """H_t = tanh(X_t W_xh + H_{t-1} W_hh + b_h), weights ~ N(0, σ²). Inputs
    (num_steps, batch, num_inputs); returns (the list of H_t, the last H)."""

    def __init__(self, num_inputs, num_hiddens, sigma=0.01):
        super().__init__()
        self.save_hyperparameters()
        self.W_xh = nn.Parameter(torch.randn(num_inputs, num_hiddens) * sigma)
        self.W_hh = nn.Parameter(torch.randn(num_hiddens, num_hiddens) * sigma)
        self.b_h = nn.Parameter(torch.zeros(num_hiddens))

    def forward(self, inputs, state=None):
        if state is None:
            state = torch.zeros((inputs.shape[1], self.num_hiddens), device=inputs.device)
        else:
            state, = state
        outputs = []
        for X in inputs:
            state = torch.tanh(torch.matmul(X, self.W_xh) + torch.matmul(state, self.W_hh)
                               + self.b_h)
            outputs.append(state)
        return outputs, state


class RNNLMScratch(Classifier):
    """A character language model: one-hot inputs, the recurrent ``rnn``, and the output
    layer O_t = H_t W_hq + b_q; it plots the perplexity exp(loss)."""

    def __init__(self, rnn, vocab_size, lr=0.01):
        super().__init__()
        self.save_hyperparameters()
        self.init_params()

    def init_params(self):
        self.W_hq = nn.Parameter(torch.randn(self.rnn.num_hiddens, self.vocab_size)
                                 * self.rnn.sigma)
        self.b_q = nn.Parameter(torch.zeros(self.vocab_size))

    def training_step(self, batch):
        l = self.loss(self(*batch[:-1]), batch[-1])  # noqa: E741
        self.plot("ppl", torch.exp(l), train=True)
        return l

    def validation_step(self, batch):
        l = self.loss(self(*batch[:-1]), batch[-1])  # noqa: E741
        self.plot("ppl", torch.exp(l), train=False)

    def one_hot(self, X):
        """(batch, num_steps) indices -> (num_steps, batch, vocab_size) float32 one-hots."""
        return F.one_hot(X.T, self.vocab_size).type(torch.float32)

    def output_layer(self, rnn_outputs):
        outputs = [torch.matmul(H, self.W_hq) + self.b_q for H in rnn_outputs]
        return torch.stack(outputs, 1)

    def forward(self, X, state=None):
        embs = self.one_hot(X)
        rnn_outputs, _ = self.rnn(embs, state)
        return self.output_layer(rnn_outputs)

    def predict(self, prefix, num_preds, vocab, device=None):
        """``prefix`` followed by ``num_preds`` greedily predicted characters."""
        state, outputs = None, [vocab[prefix[0]]]
        for i in range(len(prefix) + num_preds - 1):
            X = torch.tensor([[outputs[-1]]], device=device)
            embs = self.one_hot(X)
            rnn_outputs, state = self.rnn(embs, state)
            if i < len(prefix) - 1:
                outputs.append(vocab[prefix[i + 1]])
            else:
                Y = self.output_layer(rnn_outputs)
                outputs.append(int(Y.argmax(axis=2).reshape(1)))
        return "".join([vocab.idx_to_token[i] for i in outputs])


class RNN(Module):
    """``nn.RNN(num_inputs, num_hiddens)`` in the book's model interface."""

    def __init__(self, num_inputs, num_hiddens):
        super().__init__()
        self.save_hyperparameters()
        self.rnn = nn.RNN(num_inputs, num_hiddens)

    def forward(self, inputs, H=None):
        return self.rnn(inputs, H)


class RNNLM(RNNLMScratch):
    """The language model with a lazy linear output layer over the concise ``rnn``."""

    def init_params(self):
        self.linear = nn.LazyLinear(self.vocab_size)

    def output_layer(self, hiddens):
        return self.linear(hiddens).swapaxes(0, 1)


class GRU(RNN):
    """``nn.GRU(num_inputs, num_hiddens, num_layers, dropout=dropout)``."""

    def __init__(self, num_inputs, num_hiddens, num_layers, dropout=0):
        Module.__init__(self)
        self.save_hyperparameters()
        self.rnn = nn.GRU(num_inputs, num_hiddens, num_layers, dropout=dropout)
