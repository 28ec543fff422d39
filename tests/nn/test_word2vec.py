"""word2vec: vocabulary, subsampling and context windows; the negative-sampling loss against its
formula and float64 gradcheck of every variant; words of the same kind end up nearer each other
than random words (a synthetic corpus with known kinds, and the bundled text); the
nearest-neighbour and analogy helpers on vectors with known answers."""
import numpy as np
import pytest

from dagrad import autograd as ag
from dagrad import nn
from dagrad import optim
from dagrad.nn.datasets import Vocab, tokenize
from dagrad.nn.models import Word2Vec
from dagrad.nn.models.word2vec import context_windows, keep_probabilities
from tests.helpers import one_blas_thread  # noqa: F401

pytestmark = pytest.mark.usefixtures("one_blas_thread")

KINDS = {"animal": "cat dog horse cow sheep goat".split(),
         "colour": "red green blue yellow black white".split(),
         "number": "one two three four five six".split(),
         "food": "bread cheese apple soup rice meat".split()}
TEMPLATES = ["the {colour} {animal} eats {number} {food}", "a {animal} likes {food} and {food}",
             "{number} {colour} {animal} and {number} {animal}",
             "i saw the {colour} {animal} near the {colour} house", "we cook {food} with {food}",
             "{number} plus {number} is {number}"]


def _synthetic_text(sentences=2000, seed=0):
    """Sentences from templates whose slots take any word of one kind: words of a kind share
    their contexts and nothing else."""
    rng = np.random.default_rng(seed)
    out = []
    for t in rng.choice(TEMPLATES, sentences):
        while "{" in t:
            i, j = t.index("{"), t.index("}")
            words = KINDS[t[i + 1:j]]
            t = t[:i] + words[rng.integers(len(words))] + t[j + 1:]
        out.append(t)
    return ". ".join(out)


def _train(model, ids, epochs, lr=3e-3, batch_size=256, window=2, subsample=None, seed=0):
    opt = optim.Adam(model.parameters(), lr=lr)
    losses = []
    for epoch in range(epochs):
        for inputs, targets in model.batches(ids, batch_size, window, subsample, seed + epoch):
            loss = model.loss(inputs, targets)
            opt.zero_grad()
            loss.backward()
            opt.step()
            losses.append(loss.item())
    return losses


# --------------------------------------------------------------------------- data
def test_tokenize_and_vocab():
    tokens = tokenize("The cat's hat. The CAT, the hat; a dog!")
    assert tokens == ["the", "cat's", "hat", "the", "cat", "the", "hat", "a", "dog"]
    vocab = Vocab(tokens, min_count=2)
    assert vocab.itos == ["the", "hat"] and list(vocab.counts) == [3, 2]
    np.testing.assert_array_equal(vocab.encode(tokens), [0, 1, 0, 0, 1])
    assert vocab.decode([1, 0]) == ["hat", "the"] and "dog" not in vocab
    with pytest.raises(KeyError, match="min_count"):
        vocab["dog"]


def test_subsampling_keeps_rare_words_and_drops_frequent_ones():
    keep = keep_probabilities(np.array([10_000, 100, 1]), t=1e-3)
    f = 10_000 / 10_101
    assert keep[0] == pytest.approx(np.sqrt(1e-3 / f) + 1e-3 / f)
    assert keep[0] < 0.05 and keep[2] == 1.0


def test_context_windows_stay_within_the_drawn_radius():
    ids = np.arange(100, 130)
    rng = np.random.default_rng(0)
    contexts, centres = context_windows(ids, 3, rng)
    assert contexts.shape == (30, 6)
    np.testing.assert_array_equal(centres, ids)
    offsets = np.array([-3, -2, -1, 1, 2, 3])
    present = contexts >= 0
    np.testing.assert_array_equal(contexts[present], (ids[:, None] + offsets)[present])
    radius = np.where(present, np.abs(offsets), 0).max(1)
    inner = (np.arange(30) >= 3) & (np.arange(30) < 27)           # away from the ends
    assert np.all(present[inner] == (np.abs(offsets) <= radius[inner, None]))
    assert set(radius[inner]) == {1, 2, 3}
    ones, _ = context_windows(ids, 1, rng)                          # window 1: the neighbours
    np.testing.assert_array_equal(ones[1:-1], np.stack([ids[:-2], ids[2:]], 1))


def test_skipgram_and_cbow_batches_cover_every_pair():
    vocab = Vocab(tokenize(_synthetic_text(50)))
    ids = vocab.encode(tokenize(_synthetic_text(50)))
    sg = Word2Vec(vocab, 8)
    pairs = [b for b in sg.batches(ids, 64, window=2, subsample=None, seed=0)]
    inputs = np.concatenate([p[0] for p in pairs])
    contexts, centres = context_windows(ids, 2, np.random.default_rng(0))
    assert len(inputs) == (contexts >= 0).sum()
    assert all(len(p[0]) <= 64 for p in pairs)
    cbow = Word2Vec(vocab, 8, mode="cbow")
    rows = [b for b in cbow.batches(ids, 64, window=2, subsample=None, seed=0)]
    assert rows[0][0].shape[1] == 4 and sum(len(r[1]) for r in rows) == len(ids)


# --------------------------------------------------------------------------- losses
def test_negative_sampling_loss_is_its_formula():
    ag.manual_seed(0)
    m = Word2Vec(20, 4, negative=3).double()
    rng = np.random.default_rng(0)
    for p in m.parameters():
        p.numpy()[...] = rng.standard_normal(p.shape)
    centres, contexts = np.array([1, 5, 7]), np.array([2, 2, 9])
    noise = np.array([[3, 4, 5], [0, 0, 1], [19, 2, 8]])
    v, u = m.in_embed.weight.numpy(), m.out_embed.weight.numpy()

    def log_sigmoid(x):
        return -np.logaddexp(0, -x)
    expected = -np.mean(log_sigmoid((u[contexts] * v[centres]).sum(1))
                        + log_sigmoid(-np.einsum("bkd,bd->bk", u[noise], v[centres])).sum(1))
    assert m.loss(centres, contexts, noise=noise).item() == pytest.approx(expected)
    cbow = Word2Vec(20, 4, mode="cbow", negative=3).double()
    cbow.load_state_dict(m.state_dict())
    windows = np.array([[1, -1, 5, 6], [-1, -1, 7, -1], [2, 3, 4, 5]])
    mean = np.stack([v[[1, 5, 6]].mean(0), v[7], v[[2, 3, 4, 5]].mean(0)])
    np.testing.assert_allclose(cbow(windows).numpy(), mean)


def test_hierarchical_output_is_the_log_likelihood_of_the_target():
    ag.manual_seed(0)
    counts = np.arange(20, 0, -1)
    m = Word2Vec(20, 4, output="hierarchical", counts=counts).double()
    for p in m.parameters():
        p.numpy()[...] = np.random.default_rng(1).standard_normal(p.shape)
    centres, contexts = np.array([0, 3]), np.array([19, 4])
    log_p = m.hsoftmax.log_prob(m(centres)).numpy()
    assert m.loss(centres, contexts).item() == pytest.approx(-log_p[[0, 1], contexts].mean())
    assert m.hsoftmax.depths()[0] < m.hsoftmax.depths()[19]   # frequent words: short paths


@pytest.mark.parametrize("mode", ["skipgram", "cbow"])
@pytest.mark.parametrize("output", ["negative", "hierarchical"])
def test_gradcheck(mode, output):
    ag.manual_seed(0)
    m = Word2Vec(9, 3, mode=mode, output=output, negative=2).double()
    for p in m.parameters():
        p.numpy()[...] = np.random.default_rng(2).standard_normal(p.shape)
    inputs = np.array([1, 4, 4]) if mode == "skipgram" else np.array([[1, 2, -1, 3],
                                                                      [0, -1, -1, 8],
                                                                      [4, 4, 5, 6]])
    targets, noise = np.array([0, 8, 2]), np.array([[3, 3], [1, 7], [5, 0]])
    assert ag.gradcheck(lambda *ps: m.loss(inputs, targets, noise=noise), list(m.parameters()))


# ------------------------------------------------------------------- what it learns
@pytest.mark.parametrize("mode, output", [("skipgram", "negative"), ("cbow", "negative"),
                                          ("skipgram", "hierarchical")])
def test_words_of_a_kind_are_nearer_than_random_words_on_a_synthetic_corpus(mode, output):
    tokens = tokenize(_synthetic_text())
    vocab = Vocab(tokens)
    ag.manual_seed(0)
    m = Word2Vec(vocab, 16, mode=mode, output=output)
    losses = _train(m, vocab.encode(tokens), epochs=3, lr=1e-2)
    assert np.mean(losses[-20:]) < np.mean(losses[:20])
    sim = m.group_similarity(KINDS.values())
    assert sim["gap"] > 0.5                       # measured 0.98-1.0 (shuffled: -0.02)
    for word in ("cat", "red", "one", "bread"):
        kind = next(ws for ws in KINDS.values() if word in ws)
        assert {w for w, _ in m.most_similar(word, 3)} <= set(kind)


def test_shuffled_text_has_no_gap():
    """The control: the same words in random order carry no context, and no kinds emerge."""
    tokens = tokenize(_synthetic_text())
    np.random.default_rng(0).shuffle(tokens)
    vocab = Vocab(tokens)
    ag.manual_seed(0)
    m = Word2Vec(vocab, 16)
    _train(m, vocab.encode(tokens), epochs=3, lr=1e-2)
    assert abs(m.group_similarity(KINDS.values())["gap"]) < 0.15


# The kinds of word in the bundled text (Alice, chapters I-II: about 4,300 words), each word
# occurring at least 3 times. In so little text, word2vec learns mostly syntax.
ALICE_KINDS = {
    "pronoun": "she i it you he they we".split(),
    "determiner": "the a her this my your their its an his our".split(),
    "preposition": "of in on at with into by through after under from upon".split(),
    "modal": "could would must shall might should can will".split(),
    "past tense": ("was had said thought went began cried found looked came got fell felt "
                   "took ran tried").split()}


@pytest.mark.slow
@pytest.mark.parametrize("mode, epochs, shuffle", [("skipgram", 20, False), ("cbow", 40, False),
                                                   ("skipgram", 20, True)])
def test_words_of_a_kind_are_nearer_than_random_words_in_the_bundled_text(mode, epochs, shuffle):
    tokens = tokenize(nn.datasets.load_text("alice"))
    if shuffle:                                     # the control: no context left
        np.random.default_rng(0).shuffle(tokens)
    vocab = Vocab(tokens, min_count=3)
    ag.manual_seed(0)
    m = Word2Vec(vocab, 32, mode=mode)
    _train(m, vocab.encode(tokens), epochs=epochs, lr=3e-3)
    centred = m.group_similarity(ALICE_KINDS.values())
    raw = m.group_similarity(ALICE_KINDS.values(), center=False)
    if shuffle:
        assert abs(centred["gap"]) < 0.1 and abs(raw["gap"]) < 0.1    # measured -0.01, -0.02
    else:
        assert centred["gap"] > 0.2          # measured 0.34 (skip-gram), 0.43-0.48 (CBOW)
        assert raw["gap"] > 0.05             # measured 0.11-0.14: every cosine is inflated


# ------------------------------------------------------------------------- helpers
def _model_with_vectors(words, vectors):
    vocab = Vocab(words)                         # ids in the vocabulary's own order
    m = Word2Vec(vocab, vectors.shape[1])
    rows = np.empty_like(vectors)
    rows[[vocab[w] for w in words]] = vectors
    with ag.no_grad():
        m.in_embed.weight.copy_(rows.astype(np.float32))
    return m


def test_most_similar_and_analogy_on_vectors_with_known_answers():
    # axes: royalty, gender (+1 female), fruit
    words = ["king", "queen", "man", "woman", "apple", "prince", "princess"]
    vectors = np.array([[1, -1, 0], [1, 1, 0], [0, -1, 0], [0, 1, 0], [0, 0, 1],
                        [0.5, -1, 0.5], [0.5, 1, 0.5]], np.float64)
    m = _model_with_vectors(words, vectors)
    nearest = m.most_similar("king", 2)
    assert [w for w, _ in nearest] == ["prince", "man"]
    unit = vectors / np.linalg.norm(vectors, axis=1, keepdims=True)
    assert nearest[0][1] == pytest.approx(unit[0] @ unit[5], rel=1e-6)
    assert m.similarity("queen", "woman") == pytest.approx(unit[1] @ unit[3], rel=1e-6)
    assert m.analogy("man", "king", "woman")[0][0] == "queen"       # excludes man, king, woman
    assert m.analogy("man", "woman", "king")[0][0] == "queen"
    by_vector = m.most_similar(np.array([0.0, 0.0, 2.0]), 1)
    assert by_vector[0][0] == "apple" and by_vector[0][1] == pytest.approx(1.0)
    ids_only = Word2Vec(7, 3)
    with pytest.raises(TypeError, match="Vocab"):
        ids_only.most_similar("king")
    assert len(ids_only.most_similar(0, 3)) == 3


def test_centering_removes_the_common_direction():
    rng = np.random.default_rng(0)
    vectors = rng.standard_normal((50, 8)) + 5.0                 # every word shares (5, ..., 5)
    m = _model_with_vectors([f"w{i}" for i in range(50)], vectors)
    groups = [["w0", "w1"], ["w2", "w3"]]
    assert m.group_similarity(groups, center=False)["random"] > 0.9
    assert abs(m.group_similarity(groups, center=True)["random"]) < 0.05
    v = m.vectors(center=True, normalize=False)
    np.testing.assert_allclose(v.mean(0), 0, atol=1e-5)


def test_errors():
    with pytest.raises(ValueError, match="mode"):
        Word2Vec(10, 4, mode="glove")
    with pytest.raises(ValueError, match="output"):
        Word2Vec(10, 4, output="softmax")
    with pytest.raises(ValueError, match="counts"):
        Word2Vec(10, 4, counts=np.ones(3))
    with pytest.raises(ValueError, match="at least 2 words"):
        Word2Vec(Vocab(["a", "b"]), 4).group_similarity([["a"]])
