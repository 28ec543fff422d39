"""word2vec (Mikolov et al., 2013): word vectors learned by predicting words from their
neighbours, with skip-gram or CBOW, and negative sampling or a hierarchical softmax."""
import numpy as np

from dagrad import autograd as ag
from dagrad.autograd import as_array

from .. import init
from ..embedding import Embedding
from ..datasets.text import Vocab
from ..functional.sampled_softmax import unigram_probs
from ..hierarchical_softmax import HierarchicalSoftmax
from ..module import Module
from ..utils.retrieval import topk_inner_product

MODES = ("skipgram", "cbow")
OUTPUTS = ("negative", "hierarchical")


def keep_probabilities(counts, t=1e-3):
    """Subsampling of frequent words: each occurrence of word w is kept with probability
    min(1, √(t / f_w) + t / f_w), f_w its relative frequency (the word2vec C code's rule),
    so "the" and "of" are mostly dropped and rare words always kept. (V,) -> (V,)."""
    f = np.asarray(counts, dtype=np.float64)
    f = f / f.sum()
    return np.minimum(1.0, np.sqrt(t / f) + t / f)


def context_windows(ids, window, rng):
    """The neighbours of every position within a dynamic window: for position i a radius
    b_i ~ U{1..window} is drawn (near words count more often, as in word2vec) and the
    context is ids[i-b_i .. i+b_i] without i. Returns (contexts (n, 2·window) with -1 where a
    slot is beyond b_i or the text, centres (n,))."""
    ids = np.asarray(ids, dtype=np.int64)
    n = len(ids)
    radius = rng.integers(1, window + 1, size=n)
    offsets = np.concatenate([np.arange(-window, 0), np.arange(1, window + 1)])
    pos = np.arange(n)[:, None] + offsets                          # (n, 2w)
    ok = (pos >= 0) & (pos < n) & (np.abs(offsets) <= radius[:, None])
    return np.where(ok, ids[np.clip(pos, 0, n - 1)], -1), ids


class Word2Vec(Module):
    """Word vectors trained to predict words from their neighbours.

    Every word w has an input vector v_w (``in_embed``, the word vector used afterwards) and,
    with negative sampling, an output vector u_w (``out_embed``).

    Skip-gram predicts each context word o from the centre word c; CBOW predicts the centre
    from the mean of its context vectors, v = (1/|ctx|) Σ v_o. With negative sampling
    (``output="negative"``) the loss of a (v, target o) pair is

        ℓ = -log σ(u_o·v) - Σ_{k=1..K} log σ(-u_{n_k}·v),    n_k ~ Q(w) ∝ count(w)^0.75

    a logistic regression that tells the observed word from K noise words. With
    ``output="hierarchical"`` it is -log p(o | v) under a ``HierarchicalSoftmax`` over the
    Huffman tree of the word counts (frequent words get short paths).

    Args:
        vocab: a ``Vocab`` (lets the similarity helpers take words) or the vocabulary size.
        embedding_dim: d.
        mode: "skipgram" or "cbow".
        output: "negative" (K = ``negative`` noise words per target) or "hierarchical".
        counts: word counts (V,) for the noise distribution and the Huffman tree; taken from
            ``vocab`` when it is a ``Vocab``, uniform otherwise.

    Initialisation as the C code: v ~ U(-0.5/d, 0.5/d), u = 0.
    Shapes: ``loss(inputs, targets)`` with skip-gram inputs (B,) centre ids and targets (B,)
    context ids; CBOW inputs (B, 2w) context ids (-1 = empty slot) and targets (B,) centres.
    """

    def __init__(self, vocab, embedding_dim=100, mode="skipgram", output="negative",
                 negative=5, counts=None):
        super().__init__()
        if mode not in MODES:
            raise ValueError(f"Word2Vec: mode must be one of {MODES}, got {mode!r}")
        if output not in OUTPUTS:
            raise ValueError(f"Word2Vec: output must be one of {OUTPUTS}, got {output!r}")
        self.vocab = vocab if isinstance(vocab, Vocab) else None
        size = len(vocab) if self.vocab is not None else int(vocab)
        if counts is None:
            counts = self.vocab.counts if self.vocab is not None else np.ones(size)
        counts = as_array(counts)
        if counts.shape != (size,):
            raise ValueError(f"Word2Vec: counts must have one entry per word ({size},), got "
                             f"{tuple(counts.shape)}")
        self.counts = counts
        self.mode, self.output, self.negative = mode, output, int(negative)
        self.embedding_dim = int(embedding_dim)
        self.in_embed = Embedding(size, embedding_dim)
        init.uniform_(self.in_embed.weight, -0.5 / embedding_dim, 0.5 / embedding_dim)
        if output == "negative":
            self.out_embed = Embedding(size, embedding_dim)
            init.zeros_(self.out_embed.weight)
            self.noise = unigram_probs(counts, 0.75)
        else:
            self.hsoftmax = HierarchicalSoftmax(embedding_dim, size, counts=counts)

    def __len__(self):
        return self.in_embed.num_embeddings

    # --------------------------------------------------------------------- training
    def forward(self, inputs):
        """The vector that predicts the target: v_c for skip-gram (B,) -> (B, d); the mean
        of the non-empty context vectors for CBOW (B, 2w) -> (B, d)."""
        ids = as_array(inputs)
        if self.mode == "skipgram":
            return self.in_embed(ids)
        mask = (ids >= 0).astype(self.in_embed.weight.dtype)[..., None]     # (B, 2w, 1)
        summed = (self.in_embed(np.maximum(ids, 0)) * mask).sum(1)
        return summed / np.maximum(mask.sum(1), 1)

    def loss(self, inputs, targets, noise=None):
        """Mean loss over the batch (see the class docstring). ``noise`` (B, K) fixes the
        negative samples (default: K fresh draws per target from Q)."""
        v = self(inputs)
        t = as_array(targets)
        if self.output == "hierarchical":
            return self.hsoftmax(v, t).loss
        if noise is None:
            noise = ag.generator().choice(len(self.noise), size=(len(t), self.negative),
                                          p=self.noise)
        words = np.concatenate([t[:, None], noise], 1)                  # (B, 1 + K)
        scores = (self.out_embed(words) @ v.unsqueeze(-1)).squeeze(-1)  # u·v, (B, 1 + K)
        signs = np.ones(words.shape, v.dtype)
        signs[:, 1:] = -1
        return ag.softplus(-scores * signs, 1.0, np.inf).sum(1).mean()  # -log σ(±u·v)

    def batches(self, ids, batch_size=1024, window=5, subsample=1e-3, seed=None):
        """One epoch of shuffled training batches (inputs, targets) from the word ids of a
        text: frequent words subsampled (``keep_probabilities``; None to keep all), then
        dynamic context windows (``context_windows``) turned into skip-gram pairs (centre,
        context) or CBOW rows (contexts, centre)."""
        rng = np.random.default_rng(seed) if seed is not None else ag.generator()
        ids = np.asarray(ids, dtype=np.int64)
        if subsample is not None:
            ids = ids[rng.random(len(ids)) < keep_probabilities(self.counts, subsample)[ids]]
        contexts, centres = context_windows(ids, window, rng)
        if self.mode == "skipgram":
            rows, cols = np.nonzero(contexts >= 0)
            inputs, targets = centres[rows], contexts[rows, cols]
        else:
            keep = (contexts >= 0).any(1)
            inputs, targets = contexts[keep], centres[keep]
        order = rng.permutation(len(targets))
        for start in range(0, len(order), batch_size):
            idx = order[start:start + batch_size]
            yield inputs[idx], targets[idx]

    # ------------------------------------------------------------------ using it
    def vectors(self, normalize=True, center=False):
        """The word vectors v (V, d) as a NumPy array, scaled to unit length by default (then
        inner products are cosine similarities). ``center=True`` first subtracts the mean
        vector: training with negative sampling pushes every word along one common
        direction, which raises all cosines alike and hides the differences between them."""
        w = self.in_embed.weight._data.copy()
        if center:
            w -= w.mean(0)
        if normalize:
            w /= np.maximum(np.linalg.norm(w, axis=1, keepdims=True), 1e-12)
        return w

    def group_similarity(self, groups, center=True):
        """How much nearer words of the same kind are than random words: ``groups`` is a list
        of word lists (e.g. pronouns, prepositions); returns {"within": mean cosine over the
        pairs inside each group (groups weighted equally), "random": mean cosine over all
        pairs of distinct vocabulary words, "gap": within - random}."""
        v = self.vectors(center=center)
        within = []
        for words in groups:
            ids = [self._id(w) for w in words]
            if len(ids) < 2:
                raise ValueError(f"group_similarity: a group needs at least 2 words, got "
                                 f"{words}")
            s = v[ids] @ v[ids].T
            within.append(s[np.triu_indices(len(ids), 1)].mean())
        n = len(v)
        total = v.sum(0)
        random = float((total @ total - (v * v).sum()) / (n * (n - 1)))   # Σ_{i≠j} v_i·v_j
        within = float(np.mean(within))
        return {"within": within, "random": random, "gap": within - random}

    def _id(self, word):
        if isinstance(word, (int, np.integer)):
            return int(word)
        if self.vocab is None:
            raise TypeError("Word2Vec: build the model with a Vocab to look words up by name; "
                            "pass word ids otherwise")
        return self.vocab[word]

    def _named(self, scores, ids):
        names = self.vocab.itos if self.vocab is not None else None
        return [((names[i] if names else int(i)), float(s)) for s, i in zip(scores, ids)]

    def similarity(self, a, b):
        """cos(v_a, v_b) = v_a·v_b / (‖v_a‖ ‖v_b‖) for two words (or ids)."""
        v = self.vectors()
        return float(v[self._id(a)] @ v[self._id(b)])

    def most_similar(self, word, k=10):
        """The k nearest words by cosine similarity: [(word, cos), ...], best first, the word
        itself excluded. ``word`` is a word, an id or a vector (d,)."""
        v = self.vectors()
        if isinstance(word, (str, int, np.integer)):
            query, exclude = v[self._id(word)], [self._id(word)]
        else:
            query, exclude = np.asarray(as_array(word), dtype=v.dtype), [-1]
            query = query / max(np.linalg.norm(query), 1e-12)
        scores, ids = topk_inner_product(query, v, k, exclude=[exclude])
        return self._named(scores[0], ids[0])

    def analogy(self, a, b, c, k=1):
        """"a is to b as c is to ?": the k words w (not a, b or c) maximising
        cos(v_w, v̂_b - v̂_a + v̂_c) (3CosAdd on unit vectors v̂), e.g. man : king :: woman :
        queen. Returns [(word, cos), ...]."""
        v = self.vectors()
        ia, ib, ic = self._id(a), self._id(b), self._id(c)
        query = v[ib] - v[ia] + v[ic]
        query = query / max(np.linalg.norm(query), 1e-12)
        scores, ids = topk_inner_product(query, v, k, exclude=[[ia, ib, ic]])
        return self._named(scores[0], ids[0])

    def extra_repr(self):
        return (f"{len(self)}, {self.embedding_dim}, mode={self.mode!r}, "
                f"output={self.output!r}" + (f", negative={self.negative}"
                                             if self.output == "negative" else ""))
