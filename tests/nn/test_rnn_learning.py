"""Recurrent networks learn: the vanishing gradient of a vanilla RNN against an LSTM's, long-term
memory (the first token after 40 distractors), and a character language model on the bundled
text. Small sizes, fixed seeds, Adam, a few hundred steps each."""
import numpy as np
import pytest

from dagrad import autograd as ag
from dagrad import nn
from dagrad import optim
from dagrad.nn.datasets.sequences import first_token_task
from dagrad.nn.datasets.text import load_text, text_windows
from dagrad.viz import sequence_gradient_norms
from dagrad.nn.models.char_lm import CharLM
from dagrad.nn.rnn import init_forget_bias_


# ------------------------------------------------------------------------- gradient flow
def test_gradient_reaching_the_first_of_50_steps_is_much_larger_for_lstm_than_rnn():
    ratios = []
    for seed in range(5):
        x = np.random.default_rng(seed).standard_normal((50, 8, 8))
        norms = {}
        for cls in (nn.RNN, nn.LSTM):
            ag.manual_seed(seed)                      # default initialisation
            norms[cls] = sequence_gradient_norms(cls(8, 32).double(), x)
        ratios.append(norms[nn.LSTM][0] / norms[nn.RNN][0])
    assert min(ratios) > 10, ratios
    assert np.exp(np.mean(np.log(ratios))) > 100, ratios


def test_sequence_gradient_norms_decay_towards_the_start_for_a_vanilla_rnn():
    ag.manual_seed(0)
    layer = nn.RNN(4, 16, batch_first=True).double()
    x = np.random.default_rng(0).standard_normal((3, 30, 4))
    norms = sequence_gradient_norms(layer, x, time_dim=1)
    assert norms.shape == (30,)
    assert norms[0] < 1e-4 * norms[-1]
    assert np.all(np.diff(np.log(norms[:25])) > 0)       # geometric growth towards the end
    assert all(p.grad is None for p in layer.parameters())
    full = sequence_gradient_norms(layer, x, loss=lambda out: (out ** 2).sum(), time_dim=1)
    assert full[0] > norms[0]                            # every step's output now counts
    with pytest.raises(TypeError, match="floating point"):
        sequence_gradient_norms(layer, np.zeros((3, 30, 4), dtype=np.int64))


# --------------------------------------------------------------------- long-term memory
class _Classifier(nn.Module):
    """Tokens -> embedding -> recurrent layer -> class scores from the last step."""

    def __init__(self, layer_cls, vocab=8, classes=4, hidden=16):
        super().__init__()
        self.embedding = nn.Embedding(vocab, 8)
        self.rnn = layer_cls(8, hidden, batch_first=True)
        self.out = nn.Linear(hidden, classes)

    def forward(self, tokens):
        output, _ = self.rnn(self.embedding(tokens))
        return self.out(output[:, -1])


def _train_first_token(layer_cls, seed, steps=450):
    ag.manual_seed(seed)
    model = _Classifier(layer_cls)
    init_forget_bias_(model, 3.0)       # an LSTM's memory starts near σ(3) ≈ 0.95 per step
    optimizer = optim.Adam(model.parameters(), lr=1e-2)
    rng = np.random.default_rng(seed)
    for _ in range(steps):
        x, y = first_token_task(64, distractors=40, seed=int(rng.integers(1 << 30)))
        loss = nn.functional.cross_entropy(model(x), y)
        optimizer.zero_grad()
        loss.backward()
        nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        optimizer.step()
    x, y = first_token_task(500, distractors=40, seed=10_000 + seed)
    with ag.no_grad():
        return float(np.mean(model(x).numpy().argmax(axis=-1) == y))


@pytest.mark.slow
def test_lstm_remembers_the_first_token_across_40_distractors_and_rnn_does_not():
    lstm = _train_first_token(nn.LSTM, seed=0)
    rnn = _train_first_token(nn.RNN, seed=0)
    assert lstm >= 0.95, lstm
    assert rnn < 0.35, rnn                         # chance: 1/4


# ------------------------------------------------------------------- character language model
@pytest.mark.slow
@pytest.mark.parametrize("cell", ["lstm", "gru"])
def test_char_lm_learns_the_bundled_text_and_generates(cell):
    text = load_text()
    tokenizer = nn.datasets.CharTokenizer(text)
    ids = tokenizer.encode(text)
    split = int(0.9 * len(ids))
    train, held_out = text_windows(ids[:split], 48, stride=8), text_windows(ids[split:], 48)
    counts = np.bincount(ids[:split], minlength=len(tokenizer))
    p = counts[counts > 0] / split
    unigram = -(p * np.log(p)).sum()                  # nats per character, ≈ 3.05

    ag.manual_seed(0)
    model = CharLM(len(tokenizer), embedding_dim=24, hidden_size=64, cell=cell)
    optimizer = optim.Adam(model.parameters(), lr=1e-2)
    rng = np.random.default_rng(0)

    def loss_of(windows):
        logits, _ = model(windows[:, :-1])
        return nn.functional.cross_entropy(logits.reshape(-1, len(tokenizer)),
                                           windows[:, 1:].reshape(-1))
    for _ in range(200):
        loss = loss_of(train[rng.integers(0, len(train), 32)])
        optimizer.zero_grad()
        loss.backward()
        nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        optimizer.step()
    with ag.no_grad():
        held = loss_of(held_out).item()
    assert held < unigram - 0.9, (held, unigram)       # it has learnt more than letter counts

    prefix = tokenizer.encode("Alice ")
    ag.manual_seed(1)
    sample = model.generate(prefix, 80, temperature=0.8, top_k=5)
    assert sample.shape == (86,) and sample.dtype == np.int64
    assert tokenizer.decode(sample).startswith("Alice ")
    greedy = [model.generate(prefix, 30, temperature=0).numpy() for _ in range(2)]
    np.testing.assert_array_equal(greedy[0], greedy[1])    # temperature 0: deterministic
    assert model.training                                  # generate restored the mode
    batch = model.generate(np.stack([prefix, prefix]), 5, top_k=1)
    np.testing.assert_array_equal(batch.numpy()[0], batch.numpy()[1])   # top-1 is greedy
    np.testing.assert_array_equal(batch.numpy()[0], greedy[0][:11])
