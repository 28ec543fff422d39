"""The recurrent encoder-decoder and its attention: additive and dot-product attention (gradcheck,
masks, PyTorch parity of the dot product), the model's shapes and options, and learning to
reverse held-out sequences."""
import numpy as np
import pytest

from dagrad import autograd as ag
from dagrad import nn
from dagrad import optim
from dagrad.nn.attention_rnn import AdditiveAttention, DotProductAttention
from dagrad.nn.datasets.sequences import reverse_task
from dagrad.nn.models.seq2seq_rnn import Seq2SeqRNN
from tests.helpers import torch_or_skip

BOS = 10


def _x(*shape, seed=0):
    return np.random.default_rng(seed).standard_normal(shape)


# --------------------------------------------------------------------------------- attention
def test_additive_attention_gradcheck_with_a_padding_mask():
    ag.manual_seed(0)
    attention = AdditiveAttention(3, 4, 5).double()
    q, k, v = (ag.tensor(_x(*s, seed=i), requires_grad=True)
               for i, s in enumerate([(2, 2, 3), (2, 4, 4), (2, 4, 2)]))
    mask = np.array([[False, False, False, True], [False, True, False, False]])
    assert ag.gradcheck(lambda *_: list(attention(q, k, v, key_padding_mask=mask)),
                        [q, k, v, *attention.parameters()])


def test_additive_attention_follows_the_formula_and_masks():
    ag.manual_seed(0)
    attention = AdditiveAttention(3, 4, 5).double()
    q, k, v = _x(2, 2, 3), _x(2, 4, 4, seed=1), _x(2, 4, 2, seed=2)
    mask = np.array([[False, False, True, True], [False, False, False, False]])
    out, weights = attention(ag.tensor(q), ag.tensor(k), ag.tensor(v), key_padding_mask=mask)
    wq, wk, wv = (m.weight.numpy() for m in (attention.W_q, attention.W_k, attention.w_v))
    e = np.tanh((q @ wq.T)[:, :, None, :] + (k @ wk.T)[:, None, :, :]) @ wv[0]
    e = np.where(mask[:, None, :], -np.inf, e)
    alpha = np.exp(e - e.max(-1, keepdims=True))
    alpha /= alpha.sum(-1, keepdims=True)
    np.testing.assert_allclose(weights.numpy(), alpha, rtol=1e-12)
    np.testing.assert_allclose(out.numpy(), alpha @ v, rtol=1e-12)
    assert weights.numpy()[0, :, 2:].max() == 0


def test_dot_product_attention_matches_pytorch_and_gradchecks():
    torch = torch_or_skip()
    q, k, v = _x(2, 3, 4), _x(2, 5, 4, seed=1), _x(2, 5, 6, seed=2)
    mask = np.zeros((2, 5), dtype=bool)
    mask[1, 3:] = True
    tensors = [ag.tensor(a, requires_grad=True) for a in (q, k, v)]
    out, weights = DotProductAttention()(*tensors, key_padding_mask=mask)
    tq, tk, tv = (torch.tensor(a, requires_grad=True) for a in (q, k, v))
    expected = torch.nn.functional.scaled_dot_product_attention(
        tq, tk, tv, attn_mask=torch.tensor(~mask)[:, None, :])
    np.testing.assert_allclose(out.numpy(), expected.detach().numpy(), rtol=1e-10)
    g = _x(2, 3, 6, seed=3)
    (out * ag.tensor(g)).sum().backward()
    (expected * torch.tensor(g)).sum().backward()
    for ours, theirs in zip(tensors, (tq, tk, tv)):
        np.testing.assert_allclose(ours.grad.numpy(), theirs.grad.numpy(), rtol=1e-9, atol=1e-12)
    np.testing.assert_allclose(weights.numpy().sum(-1), 1.0)
    assert ag.gradcheck(lambda *t: list(DotProductAttention()(*t, key_padding_mask=mask)),
                        [ag.tensor(a, requires_grad=True) for a in (q, k, v)])


def test_attention_errors_name_the_shapes():
    with pytest.raises(ValueError, match="same size"):
        DotProductAttention()(ag.zeros(1, 2, 3), ag.zeros(1, 4, 5), ag.zeros(1, 4, 5))
    with pytest.raises(ValueError, match=r"AdditiveAttention: expected query \(N, L, Dq\)"):
        AdditiveAttention(3, 3, 4)(ag.zeros(2, 3), ag.zeros(1, 4, 3), ag.zeros(1, 4, 3))
    with pytest.raises(ValueError, match="attention='additive'"):
        Seq2SeqRNN(5, 5, hidden_size=8, attention="dot", bidirectional=True)
    with pytest.raises(ValueError, match="attention must be"):
        Seq2SeqRNN(5, 5, attention="bilinear")


# ------------------------------------------------------------------------------------ model
@pytest.mark.parametrize("cell,attention,bidirectional,layers", [
    ("gru", "additive", False, 1), ("lstm", "dot", False, 2), ("rnn", None, False, 1),
    ("lstm", "additive", True, 2), ("gru", None, True, 1)])
def test_model_shapes_and_gradients(cell, attention, bidirectional, layers):
    ag.manual_seed(0)
    model = Seq2SeqRNN(7, 9, embedding_dim=6, hidden_size=8, num_layers=layers, cell=cell,
                       attention=attention, bidirectional=bidirectional, dropout=0.1)
    src = np.random.default_rng(0).integers(0, 7, (3, 5))
    tgt = np.random.default_rng(1).integers(0, 9, (3, 4))
    logits, weights = model(src, tgt, return_attention=True)
    assert logits.shape == (3, 4, 9) and logits.dtype == np.float32
    if attention is None:
        assert weights is None
    else:
        assert weights.shape == (3, 4, 5)
        np.testing.assert_allclose(weights.numpy().sum(-1), 1.0, rtol=1e-5)
    logits.sum().backward()
    assert all(p.grad is not None for p in model.parameters())
    tokens, alphas = model.greedy_decode(src, 6, start_symbol=BOS % 9, return_attention=True)
    assert tokens.shape == (3, 6) and tokens.dtype == np.int64
    assert (tokens.numpy()[:, 0] == BOS % 9).all()
    assert alphas is None if attention is None else alphas.shape == (3, 5, 5)
    assert model.training


def test_model_gradcheck_small_float64():
    ag.manual_seed(0)
    model = Seq2SeqRNN(5, 6, embedding_dim=3, hidden_size=3, cell="lstm",
                       attention="additive", bidirectional=True).double()
    src = np.array([[1, 2, 3], [4, 0, 2]])
    tgt = np.array([[5, 1], [5, 3]])
    assert ag.gradcheck(lambda *_: model(src, tgt), list(model.parameters()))


def test_source_padding_is_never_attended():
    ag.manual_seed(0)
    model = Seq2SeqRNN(6, 6, embedding_dim=4, hidden_size=8, pad_idx=0)
    src = np.array([[3, 4, 5, 0, 0], [1, 2, 3, 4, 5]])
    tgt = np.array([[1, 2, 3], [1, 2, 3]])
    _, weights = model(src, tgt, return_attention=True)
    assert weights.numpy()[0, :, 3:].max() == 0 and weights.numpy()[1].min() > 0
    _, alphas = model.greedy_decode(src, 4, start_symbol=1, return_attention=True)
    assert alphas[0, :, 3:].max() == 0


def test_teacher_forcing_below_one_feeds_back_predictions():
    ag.manual_seed(0)
    model = Seq2SeqRNN(6, 6, embedding_dim=4, hidden_size=8)
    src = np.array([[1, 2, 3]])
    tgt = np.array([[0, 5, 5, 5]])
    forced = model(src, tgt).numpy()
    free = model(src, tgt, teacher_forcing=0.0).numpy()
    np.testing.assert_allclose(free[:, 0], forced[:, 0])        # step 0 always reads tgt[:, 0]
    greedy = model.greedy_decode(src, 5, start_symbol=0).numpy()
    np.testing.assert_allclose(free, model(src, greedy[:, :-1]).numpy(), rtol=1e-5)


# --------------------------------------------------------------------------------- learning
def _with_bos(y):
    return np.concatenate([np.full((len(y), 1), BOS), y], axis=1)


@pytest.mark.slow
@pytest.mark.parametrize("attention", ["additive", "dot"])
def test_learns_to_reverse_held_out_sequences(attention):
    ag.manual_seed(0)
    model = Seq2SeqRNN(10, 11, embedding_dim=16, hidden_size=64, attention=attention)
    steps = 400
    optimizer = optim.Adam(model.parameters(), lr=5e-3)
    schedule = optim.lr_scheduler.CosineAnnealingLR(optimizer, steps)
    rng = np.random.default_rng(0)
    seen = set()
    for _ in range(steps):
        x, y = reverse_task(64, length=8, vocab_size=10, seed=int(rng.integers(1 << 30)))
        seen.update(map(bytes, x.astype(np.uint8)))
        y = _with_bos(y)
        logits = model(x, y[:, :-1])
        loss = nn.functional.cross_entropy(logits.reshape(-1, 11), y[:, 1:].reshape(-1))
        optimizer.zero_grad()
        loss.backward()
        nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        optimizer.step()
        schedule.step()
    x, y = reverse_task(500, length=8, vocab_size=10, seed=123_456)
    held_out = np.array([bytes(row.astype(np.uint8)) not in seen for row in x])
    x, y = x[held_out], y[held_out]
    tokens, alphas = model.greedy_decode(x, 9, start_symbol=BOS, return_attention=True)
    accuracy = np.mean((tokens.numpy()[:, 1:] == y).all(axis=1))
    assert len(x) > 450 and accuracy >= 0.95, accuracy
    # the attention learnt the reversal: output t looks at input 7 - t, or at 8 - t, whose
    # encoder state (left to right) still holds x_{7-t}: an anti-diagonal band
    mean = alphas.mean(axis=0)
    t = np.arange(8)
    band = mean[t, 7 - t] + np.where(t > 0, mean[t, np.minimum(8 - t, 7)], 0.0)
    assert band.mean() > 0.6, mean                # uniform attention would give 0.25
