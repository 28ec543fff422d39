"""The dagrad models the interchange tests move to PyTorch, each with its PyTorch twin: the same
architecture built from ``torch.nn``, whose ``state_dict`` names and layouts must match."""
import numpy as np

from dagrad import autograd as ag
from dagrad import nn

VOCAB, BLOCK = 20, 8


def mlp(torch):
    return nn.models.MLP([64, 32, 10]), torch.nn.Sequential(
        torch.nn.Linear(64, 32), torch.nn.ReLU(), torch.nn.Linear(32, 10))


def lenet(torch):
    t = torch.nn
    return nn.models.LeNet(input_size=28), t.Sequential(
        t.Conv2d(1, 6, 5, padding=2), t.ReLU(), t.MaxPool2d(2), t.Conv2d(6, 16, 5), t.ReLU(),
        t.MaxPool2d(2), t.Flatten(), t.Linear(400, 120), t.ReLU(), t.Linear(120, 84), t.ReLU(),
        t.Linear(84, 10))


def lstm_lm(torch):
    class CharLM(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.embedding = torch.nn.Embedding(VOCAB, 8)
            self.rnn = torch.nn.LSTM(8, 16, batch_first=True)
            self.head = torch.nn.Linear(16, VOCAB)

        def forward(self, tokens):
            return self.head(self.rnn(self.embedding(tokens))[0])

    return nn.models.CharLM(VOCAB, 8, 16), CharLM()


def transformer_encoder(torch):
    layer = torch.nn.TransformerEncoderLayer(16, 4, 32, dropout=0.0, batch_first=True)
    return (nn.TransformerEncoder(nn.TransformerEncoderLayer(16, 4, 32, dropout=0.0,
                                                             batch_first=True), 2),
            torch.nn.TransformerEncoder(layer, 2, enable_nested_tensor=False))


def gpt(torch):
    class GPT(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.wte = torch.nn.Embedding(VOCAB, 16)
            self.wpe = torch.nn.Embedding(BLOCK, 16)
            layer = torch.nn.TransformerEncoderLayer(16, 2, 64, dropout=0.0, activation="gelu",
                                                     batch_first=True, norm_first=True)
            self.blocks = torch.nn.TransformerEncoder(layer, 2, enable_nested_tensor=False)
            self.ln_f = torch.nn.LayerNorm(16)
            self.lm_head = torch.nn.Linear(16, VOCAB, bias=False)
            self.lm_head.weight = self.wte.weight

        def forward(self, idx):
            t = idx.shape[-1]
            x = self.wte(idx) + self.wpe.weight[:t]
            mask = torch.nn.Transformer.generate_square_subsequent_mask(t)
            return self.lm_head(self.ln_f(self.blocks(x, mask=mask, is_causal=True)))

    return nn.models.GPT(VOCAB, BLOCK, n_layer=2, n_head=2, n_embd=16), GPT()


TWINS = {"mlp": mlp, "lenet": lenet, "lstm_lm": lstm_lm,
         "transformer_encoder": transformer_encoder, "gpt": gpt}


def example_input(name, batch=3, seed=0):
    """An input batch for model ``name`` (float features, images or token ids)."""
    rng = np.random.default_rng(seed)
    if name in ("lstm_lm", "gpt"):
        return ag.tensor(rng.integers(0, VOCAB, size=(batch, 7)))
    shape = {"mlp": (batch, 64), "lenet": (batch, 1, 28, 28),
             "transformer_encoder": (batch, 5, 16)}[name]
    return ag.tensor(rng.standard_normal(shape).astype(np.float32))


def dagrad_output(model, name, x):
    """The model's main output as an ndarray, without recording a graph."""
    with ag.no_grad():
        out = model(x)
    return (out[0] if name == "lstm_lm" else out).numpy()
