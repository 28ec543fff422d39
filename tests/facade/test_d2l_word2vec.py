"""The word2vec data of dagrad.d2l on small files in the book's layouts: the Penn Treebank's
skip-gram examples with negative sampling (each step's rule checked: windows, subsampling
rate, noise distribution, padding), the book's skip-gram section giving PyTorch's numbers,
and pretrained vectors read from a GloVe/fastText text file."""
import collections
import math
import random
import zipfile

import numpy as np
import pytest

from dagrad import d2l, torch
from tests.facade.book_data import write_ptb
from tests.facade.book_programs import compare


def test_load_data_ptb_gives_the_books_batches(tmp_path):
    write_ptb(tmp_path)
    random.seed(0)
    data_iter, vocab = d2l.load_data_ptb(32, 3, 5, root=str(tmp_path))
    assert vocab.idx_to_token[0] == "<unk>" and "traveller" in vocab.idx_to_token
    centers, contexts_negatives, masks, labels = next(iter(data_iter))
    assert centers.shape == (32, 1) and contexts_negatives.shape == masks.shape == labels.shape
    assert (centers > 0).all()                              # "<unk>" is dropped first
    for row, mask, label in zip(contexts_negatives.tolist(), masks.tolist(), labels.tolist()):
        n_context, n_real = sum(label), sum(mask)
        assert 1 <= n_context <= 6 and n_real == 6 * n_context     # 5 noise words each
        assert mask == [1] * n_real + [0] * (len(mask) - n_real)
        assert label == [1] * n_context + [0] * (len(label) - n_context)
        context, noise = row[:n_context], row[n_context:n_real]
        assert not set(context) & set(noise) and 0 not in noise
        assert row[n_real:] == [0] * (len(row) - n_real)


def test_get_centers_and_contexts_takes_windows_within_each_sentence():
    random.seed(0)
    corpus = [list(range(7)), [7], list(range(10, 13))]
    centers, contexts = d2l.get_centers_and_contexts(corpus, 2)
    assert centers == list(range(7)) + list(range(10, 13))     # [7] is too short
    for center, context in zip(centers, contexts):
        line = corpus[0] if center < 7 else corpus[2]
        i = line.index(center)
        width = max(abs(line.index(w) - i) for w in context)
        assert 1 <= width <= 2 and center not in context
        assert context == [w for w in line if 0 < abs(line.index(w) - i) <= width]


def test_subsample_keeps_a_word_with_probability_sqrt_t_over_its_frequency():
    sentences = [["a"] * 100 + ["b"] * 10 + ["zz"]] * 100       # 11000 known words
    vocab = d2l.Vocab([["a", "b"]])
    random.seed(0)
    kept, counter = d2l.subsample(sentences, vocab)
    assert counter == collections.Counter({"a": 10000, "b": 1000})
    found = collections.Counter(w for line in kept for w in line)
    for word, count in counter.items():
        rate = math.sqrt(1e-4 / count * 11000)                  # a: 0.0105, b: 0.0332
        assert found[word] / count == pytest.approx(rate, rel=0.25)
    assert "zz" not in found


def test_negatives_follow_the_count_to_the_three_quarters_and_avoid_the_context():
    random.seed(0)
    generator = d2l.RandomGenerator([1, 8, 27])
    draws = collections.Counter(generator.draw() for _ in range(30000))
    np.testing.assert_allclose([draws[i] / 30000 for i in (1, 2, 3)], [1 / 36, 8 / 36, 27 / 36],
                               atol=0.01)
    vocab = d2l.Vocab([["a", "b", "c"]])
    counter = collections.Counter({"a": 1, "b": 16, "c": 81})   # weights 1, 8, 27
    negatives = d2l.get_negatives([[2], [1, 3]], vocab, counter, 4)
    assert len(negatives[0]) == 4 and len(negatives[1]) == 8
    assert 2 not in negatives[0] and set(negatives[1]) == {2}


def test_batchify_pads_and_masks():
    batch = d2l.batchify([(1, [2, 2], [3, 3, 3, 3]), (1, [2, 2, 2], [3, 3])])
    centers, contexts_negatives, masks, labels = (t.tolist() for t in batch)
    assert centers == [[1], [1]]
    assert contexts_negatives == [[2, 2, 3, 3, 3, 3], [2, 2, 2, 3, 3, 0]]
    assert masks == [[1] * 6, [1] * 5 + [0]]
    assert labels == [[1, 1, 0, 0, 0, 0], [1, 1, 1, 0, 0, 0]]


def test_a_missing_ptb_file_names_the_path(tmp_path):
    with pytest.raises(FileNotFoundError) as error:
        d2l.load_data_ptb(4, 2, 2, root=str(tmp_path))
    assert str(tmp_path / "ptb" / "ptb.train.txt") in str(error.value)
    assert "ptb.zip" in str(error.value) and "downloads nothing" in str(error.value)


SKIP_GRAM = """
# §15.4: skip-gram with negative sampling on the Penn Treebank
import random
random.seed(0)
data_iter, vocab = d2l.load_data_ptb(64, 3, 5)

def skip_gram(center, contexts_and_negatives, embed_v, embed_u):
    v = embed_v(center)
    u = embed_u(contexts_and_negatives)
    return torch.bmm(v, u.permute(0, 2, 1))

class SigmoidBCELoss(nn.Module):
    def forward(self, inputs, target, mask=None):
        out = nn.functional.binary_cross_entropy_with_logits(
            inputs, target, weight=mask, reduction="none")
        return out.mean(dim=1)

loss = SigmoidBCELoss()
net = nn.Sequential(nn.Embedding(len(vocab), 16), nn.Embedding(len(vocab), 16))
share(net)
optimizer = torch.optim.Adam(net.parameters(), lr=0.01)
losses = []
for epoch in range(2):
    metric = d2l.Accumulator(2)
    for batch in data_iter:
        optimizer.zero_grad()
        center, context_negative, mask, label = batch
        pred = skip_gram(center, context_negative, net[0], net[1])
        l = (loss(pred.reshape(label.shape).float(), label.float(), mask)
             / mask.sum(axis=1) * mask.shape[1])
        l.sum().backward()
        optimizer.step()
        metric.add(l.sum(), l.numel())
    losses.append(metric[0] / metric[1])
W = net[0].weight.data
x = W[vocab['time']]
cos = torch.mv(W, x) / torch.sqrt(torch.sum(W * W, dim=1) * torch.sum(x * x) + 1e-9)
result = {"losses": losses, "W": W, "cos": cos}
"""


def test_the_books_skip_gram_section_gives_pytorchs_numbers(tmp_path, monkeypatch):
    data = tmp_path / "data"
    data.mkdir()
    write_ptb(data)
    (tmp_path / "work").mkdir()
    monkeypatch.chdir(tmp_path / "work")
    ours, _ = compare(SKIP_GRAM, monkeypatch, rtol=2e-4)
    assert ours["losses"][-1] < ours["losses"][0]


def _write_vectors(folder, lines):
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "vec.txt").write_text("".join(lines), encoding="utf-8")


def test_token_embedding_reads_the_books_vector_file(tmp_path):
    _write_vectors(tmp_path / "glove.6B.50d", ["the 0.5 -1.0 2.0\n", "cat 1 2 3\n"])
    glove = d2l.TokenEmbedding("glove.6b.50d", root=str(tmp_path))
    assert len(glove) == 3 and glove.idx_to_token == ["<unk>", "the", "cat"]
    assert glove.token_to_idx["cat"] == 2 and glove.unknown_idx == 0
    vectors = glove[["cat", "dog", "the"]]
    assert vectors.dtype == torch.float32
    np.testing.assert_array_equal(vectors.numpy(), [[1, 2, 3], [0, 0, 0], [0.5, -1, 2]])


def test_token_embedding_skips_fasttexts_header_and_unpacks_the_zip(tmp_path):
    with zipfile.ZipFile(tmp_path / "wiki.en.zip", "w") as z:
        z.writestr("wiki.en/vec.txt", "2 3\nhello 1 0 0\nworld 0 1 0\n")
    fasttext = d2l.TokenEmbedding("wiki.en", root=str(tmp_path))
    assert fasttext.idx_to_token == ["<unk>", "hello", "world"]
    assert (tmp_path / "wiki.en" / "vec.txt").is_file()


def test_token_embedding_refuses_a_malformed_file_naming_the_line(tmp_path):
    _write_vectors(tmp_path / "glove.6B.50d", ["the 0.5 -1.0\n", "cat 1 2 3\n"])
    with pytest.raises(ValueError, match="line 2 .* has 3 numbers, the lines before 2"):
        d2l.TokenEmbedding("glove.6b.50d", root=str(tmp_path))
    _write_vectors(tmp_path / "glove.6B.50d", ["the 0.5 -1.0\n", "cat one two\n"])
    with pytest.raises(ValueError, match="line 2 .* not a word followed by numbers"):
        d2l.TokenEmbedding("glove.6b.50d", root=str(tmp_path))
    with pytest.raises(FileNotFoundError, match="glove.6B.100d.zip"):
        d2l.TokenEmbedding("glove.6b.100d", root=str(tmp_path))
