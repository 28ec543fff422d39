"""Word embeddings (the book's chapter 15, before BERT): the Penn Treebank read for word2vec,
subsampling, skip-gram centre/context pairs, negative sampling and its minibatches, and
pretrained vectors (GloVe, fastText) read from their local text files. The random choices use
Python's ``random``, as the book's do."""
import collections
import math
import random

from dagrad import torch

from .files import DATA_HUB, DATA_URL, open_data, read_data, unpacked_member
from .linear import get_dataloader_workers
from .rnn import Vocab

DATA_HUB["ptb"] = (DATA_URL + "ptb.zip", "319d85e578af0cdc590547f26231e4e31cdf1e42")
DATA_HUB["glove.6b.50d"] = (DATA_URL + "glove.6B.50d.zip",
                            "0b8703943ccdb6eb788e6f091b8946e82231bc4d")
DATA_HUB["glove.6b.100d"] = (DATA_URL + "glove.6B.100d.zip",
                             "cd43bfb07e44e6f27cbcc7bc9ae3d80284fdaf5a")
DATA_HUB["glove.42b.300d"] = (DATA_URL + "glove.42B.300d.zip",
                              "b5116e234e9eb9076672cfeabf5469f3eec904fa")
DATA_HUB["wiki.en"] = (DATA_URL + "wiki.en.zip", "c1816da3821ae9f43899be655002f6c723e91b88")


def read_ptb(root="../data"):
    """The lines of the Penn Treebank's training split, ``root/ptb/ptb.train.txt`` (or the
    book's ``root/ptb.zip``), each as its list of words."""
    path = unpacked_member("read_ptb", root, "ptb", "ptb.train.txt")
    raw_text = read_data("read_ptb", path)
    return [line.split() for line in raw_text.split("\n")]


def subsample(sentences, vocab):
    """(the sentences without unknown words, each word w kept with probability
    min(1, √(t / f(w))), f(w) its share of the words and t = 1e-4; the word counts)."""
    sentences = [[token for token in line if vocab[token] != vocab.unk]
                 for line in sentences]
    counter = collections.Counter([token for line in sentences for token in line])
    num_tokens = sum(counter.values())

    def keep(token):
        return random.uniform(0, 1) < math.sqrt(1e-4 / counter[token] * num_tokens)
    return [[token for token in line if keep(token)] for line in sentences], counter


def get_centers_and_contexts(corpus, max_window_size):
    """Skip-gram pairs: every word of each sentence of two words or more is a centre, and its
    context is the words within a window of random size 1..``max_window_size`` either side.
    Returns (centres, contexts), one list of context words per centre."""
    centers, contexts = [], []
    for line in corpus:
        if len(line) < 2:
            continue
        centers += line
        for i in range(len(line)):
            window_size = random.randint(1, max_window_size)
            indices = list(range(max(0, i - window_size), min(len(line), i + 1 + window_size)))
            indices.remove(i)
            contexts.append([line[idx] for idx in indices])
    return centers, contexts


class RandomGenerator:
    """Draws from {1, ..., n} with probabilities proportional to ``sampling_weights`` (n of
    them), 10000 at a time (``random.choices``), one per ``draw()``."""

    def __init__(self, sampling_weights):
        self.population = list(range(1, len(sampling_weights) + 1))
        self.sampling_weights = sampling_weights
        self.candidates = []
        self.i = 0

    def draw(self):
        if self.i == len(self.candidates):
            self.candidates = random.choices(self.population, self.sampling_weights, k=10000)
            self.i = 0
        self.i += 1
        return self.candidates[self.i - 1]


def get_negatives(all_contexts, vocab, counter, K):
    """K noise words per context word, drawn with P(w) ∝ count(w)^0.75 over the vocabulary's
    indices 1.. (0 is "<unk>"), never one of that centre's context words."""
    sampling_weights = [counter[vocab.to_tokens(i)] ** 0.75 for i in range(1, len(vocab))]
    all_negatives, generator = [], RandomGenerator(sampling_weights)
    for contexts in all_contexts:
        negatives = []
        while len(negatives) < len(contexts) * K:
            neg = generator.draw()
            if neg not in contexts:
                negatives.append(neg)
        all_negatives.append(negatives)
    return all_negatives


def batchify(data):
    """A minibatch of (centre, contexts, negatives) examples: (centres (B, 1), contexts then
    negatives padded with 0 to the longest (B, L), masks (B, L) 1 on the real entries, labels
    (B, L) 1 on the contexts)."""
    max_len = max(len(c) + len(n) for _, c, n in data)
    centers, contexts_negatives, masks, labels = [], [], [], []
    for center, context, negative in data:
        cur_len = len(context) + len(negative)
        centers += [center]
        contexts_negatives += [context + negative + [0] * (max_len - cur_len)]
        masks += [[1] * cur_len + [0] * (max_len - cur_len)]
        labels += [[1] * len(context) + [0] * (max_len - len(context))]
    return (torch.tensor(centers).reshape((-1, 1)), torch.tensor(contexts_negatives),
            torch.tensor(masks), torch.tensor(labels))


class PTBDataset(torch.utils.data.Dataset):
    """Item i: (centre i, its context words, its noise words), as index lists."""

    def __init__(self, centers, contexts, negatives):
        if not len(centers) == len(contexts) == len(negatives):
            raise ValueError(f"PTBDataset: {len(centers)} centres, {len(contexts)} contexts "
                             f"and {len(negatives)} negatives; one of each per example")
        self.centers, self.contexts, self.negatives = centers, contexts, negatives

    def __getitem__(self, index):
        return self.centers[index], self.contexts[index], self.negatives[index]

    def __len__(self):
        return len(self.centers)


def load_data_ptb(batch_size, max_window_size, num_noise_words, root="../data"):
    """(a shuffled loader of ``batchify``'d skip-gram examples with negative sampling from the
    Penn Treebank, the vocabulary of words seen 10 times or more)."""
    sentences = read_ptb(root)
    vocab = Vocab(sentences, min_freq=10)
    subsampled, counter = subsample(sentences, vocab)
    corpus = [vocab[line] for line in subsampled]
    all_centers, all_contexts = get_centers_and_contexts(corpus, max_window_size)
    all_negatives = get_negatives(all_contexts, vocab, counter, num_noise_words)
    dataset = PTBDataset(all_centers, all_contexts, all_negatives)
    data_iter = torch.utils.data.DataLoader(dataset, batch_size, shuffle=True,
                                            collate_fn=batchify,
                                            num_workers=get_dataloader_workers())
    return data_iter, vocab


class TokenEmbedding:
    """Pretrained word vectors read from ``root/<name>/vec.txt`` (where the book unpacks
    ``DATA_HUB[embedding_name]``, e.g. ``glove.6B.50d/vec.txt``; the zip at ``root`` is
    unpacked there): one "word v1 v2 ..." a line, lines of fewer than two numbers (fastText's
    header) skipped. Index 0 is "<unk>" with the zero vector; ``emb[tokens]`` gives
    (len(tokens), d) float32."""

    def __init__(self, embedding_name, root="../data"):
        self.idx_to_token, self.idx_to_vec = self._load_embedding(embedding_name, root)
        self.unknown_idx = 0
        self.token_to_idx = {token: idx for idx, token in enumerate(self.idx_to_token)}

    def _load_embedding(self, embedding_name, root):
        idx_to_token, idx_to_vec = ["<unk>"], []
        path = unpacked_member("TokenEmbedding", root, embedding_name, "vec.txt")
        with open_data("TokenEmbedding", path) as f:
            for number, line in enumerate(f, 1):
                elems = line.rstrip().split(" ")
                token, values = elems[0], elems[1:]
                if len(values) <= 1:
                    continue
                if idx_to_vec and len(values) != len(idx_to_vec[0]):
                    raise ValueError(f"TokenEmbedding: line {number} of {path} has "
                                     f"{len(values)} numbers, the lines before "
                                     f"{len(idx_to_vec[0])}")
                try:
                    vector = [float(v) for v in values]
                except ValueError:
                    raise ValueError(f"TokenEmbedding: line {number} of {path} is not a word "
                                     f"followed by numbers: {line[:80]!r}") from None
                idx_to_token.append(token)
                idx_to_vec.append(vector)
        if not idx_to_vec:
            raise ValueError(f"TokenEmbedding: {path} holds no vectors")
        idx_to_vec = [[0.0] * len(idx_to_vec[0])] + idx_to_vec
        return idx_to_token, torch.tensor(idx_to_vec)

    def __getitem__(self, tokens):
        indices = [self.token_to_idx.get(token, self.unknown_idx) for token in tokens]
        return self.idx_to_vec[torch.tensor(indices)]

    def __len__(self):
        return len(self.idx_to_token)
