"""Sequence objectives: next-token pairs and loss, BERT-style masking, the masked-language-model
loss (with a small encoder that learns to fill in masked tokens), unigram entropy."""
import math

import numpy as np
import pytest

from dagrad import autograd as ag
from dagrad import nn
import dagrad.nn.functional as F
from dagrad import optim
from dagrad.nn import objectives as O
from tests.helpers import torch_or_skip


def test_next_token_pairs_shift_by_one():
    x, y = O.next_token_pairs(np.array([[5, 6, 7, 8]]))
    np.testing.assert_array_equal(x, [[5, 6, 7]])
    np.testing.assert_array_equal(y, [[6, 7, 8]])
    with pytest.raises(ValueError, match="at least 2 tokens"):
        O.next_token_pairs(np.array([[1]]))


def test_sequence_cross_entropy_matches_pytorch_and_ignores_positions():
    torch = torch_or_skip()
    rng = np.random.default_rng(0)
    logits = rng.standard_normal((2, 5, 7))
    targets = rng.integers(0, 7, (2, 5))
    targets[0, 1] = -100
    ours = O.sequence_cross_entropy(ag.tensor(logits), targets, label_smoothing=0.1)
    theirs = torch.nn.functional.cross_entropy(torch.tensor(logits).permute(0, 2, 1),
                                               torch.tensor(targets), label_smoothing=0.1)
    np.testing.assert_allclose(ours.item(), theirs.item(), rtol=1e-10)
    per_position = O.next_token_loss(ag.tensor(logits), targets, reduction="none")
    assert per_position.shape == (2, 5) and per_position.numpy()[0, 1] == 0
    with pytest.raises(ValueError, match="targets of shape"):
        O.sequence_cross_entropy(ag.tensor(logits), targets[:, :4])


def test_mask_tokens_follows_the_80_10_10_rule_and_skips_specials():
    ag.manual_seed(0)
    tokens = np.random.default_rng(0).integers(2, 50, (200, 100))
    tokens[:, 0] = 1                                     # a special token (e.g. [CLS])
    inputs, labels = O.mask_tokens(tokens, mask_id=0, vocab_size=50, special_ids=[1])
    selected = labels != -100
    assert abs(selected.mean() - 0.15 * 99 / 100) < 0.01
    assert not selected[:, 0].any() and np.all(inputs[:, 0] == 1)
    np.testing.assert_array_equal(labels[selected], tokens[selected])
    np.testing.assert_array_equal(inputs[~selected], tokens[~selected])
    masked = (inputs == 0)[selected].mean()
    unchanged = (inputs == tokens)[selected].mean()
    assert abs(masked - 0.8) < 0.02 and abs(unchanged - 0.1 - 0.1 / 50) < 0.02


def test_unigram_entropy():
    assert O.unigram_entropy(np.array([0, 1, 0, 1])) == pytest.approx(math.log(2))
    assert O.unigram_entropy(np.array([3, 3, 3])) == 0.0


class _TinyEncoder(nn.Module):
    """Token + learned position embeddings, a Transformer encoder, a linear head."""

    def __init__(self, vocab, length, d=32):
        super().__init__()
        self.tokens = nn.TokenEmbedding(vocab, d)
        self.positions = nn.LearnedPositionalEmbedding(length, d, batch_first=True)
        layer = nn.TransformerEncoderLayer(d, 4, 64, dropout=0.0, batch_first=True)
        self.encoder = nn.TransformerEncoder(layer, 2)
        self.head = nn.Linear(d, vocab)
        nn.init.xavier_uniform_(self.tokens.embedding.weight)   # √d · E[x] of size ~1, so
                                                                 # positions N(0, 1) count

    def forward(self, x):
        return self.head(self.encoder(self.positions(self.tokens(x))))


@pytest.mark.slow
def test_masked_language_model_learns_to_fill_in_tokens():
    """Each sequence repeats a random 3-token word four times (tokens 1..10; 0 is [MASK]): a
    masked token is the one 3 positions before or after it, which attention learns to copy."""
    ag.manual_seed(0)
    rng = np.random.default_rng(0)
    vocab, length, mask_id = 11, 12, 0

    def batch(n):
        return np.tile(rng.integers(1, vocab, (n, 3)), length // 3)

    model = _TinyEncoder(vocab, length)
    optimizer = optim.Adam(model.parameters(), lr=2e-3)
    for _ in range(300):
        inputs, labels = O.mask_tokens(batch(64), mask_id, vocab, mask_prob=0.2,
                                       special_ids=[mask_id])
        loss = O.masked_lm_loss(model(inputs), labels)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
    inputs, labels = O.mask_tokens(batch(400), mask_id, vocab, mask_prob=0.2,
                                   mask_token_prob=1.0, random_token_prob=0.0)
    with ag.no_grad():
        logits = model.eval()(inputs)
    assert O.token_accuracy(logits, labels) > 0.9
    assert F.softmax(logits, dim=-1).shape == (400, length, vocab)
