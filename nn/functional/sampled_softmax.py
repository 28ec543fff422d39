"""Sampled softmax: the cross-entropy of a C-way softmax estimated from S << C sampled classes
(Bengio and Senécal, 2008; Jean et al., 2015), for outputs too large to score every class."""
import numpy as np

from dagrad import autograd as ag
from dagrad.autograd import as_array, as_tensor

from ._util import check_reduction
from .loss import cross_entropy


def log_uniform_probs(num_classes, dtype=np.float64):
    """The log-uniform (Zipfian) proposal over classes sorted by decreasing frequency, as
    TensorFlow's ``log_uniform_candidate_sampler``: Q(c) = log((c + 2) / (c + 1)) / log(C + 1).
    Returns (C,) probabilities that sum to 1."""
    c = np.arange(num_classes, dtype=np.float64)
    return (np.log1p(1.0 / (c + 1)) / np.log(num_classes + 1.0)).astype(dtype)


def unigram_probs(counts, power=0.75, dtype=np.float64):
    """Q(c) ∝ count(c)^power: word2vec's noise distribution (power 3/4 flattens the unigram
    distribution, so rare classes are drawn more often than their frequency). (C,) -> (C,)."""
    w = np.asarray(counts, dtype=np.float64) ** power
    if w.ndim != 1 or not w.sum() > 0:
        raise ValueError("unigram_probs: counts must be a 1-D array with a positive total")
    return (w / w.sum()).astype(dtype)


def proposal_probs(sampler, num_classes):
    """The proposal Q as a (C,) float64 array: ``sampler`` is "uniform", "log_uniform" or an
    array of C non-negative probabilities (normalised here)."""
    if isinstance(sampler, str):
        if sampler == "uniform":
            return np.full(num_classes, 1.0 / num_classes)
        if sampler == "log_uniform":
            return log_uniform_probs(num_classes)
        raise ValueError(f"sampled softmax: sampler must be 'uniform', 'log_uniform' or an "
                         f"array of class probabilities, got {sampler!r}")
    q = np.asarray(as_array(sampler), dtype=np.float64)
    if q.shape != (num_classes,) or (q < 0).any() or not q.sum() > 0:
        raise ValueError(f"sampled softmax: the proposal must be ({num_classes},) non-negative "
                         f"probabilities, got shape {tuple(q.shape)}")
    return q / q.sum()


def sample_classes(probs, num_sampled, generator=None):
    """``num_sampled`` class ids drawn with replacement from ``probs`` (C,), from autograd's
    global generator unless one is given. Returns (S,) int64."""
    rng = ag.generator() if generator is None else generator
    return rng.choice(len(probs), size=int(num_sampled), p=probs).astype(np.int64)


def sampled_softmax_loss(weights, biases, labels, inputs, num_sampled=None, sampler="uniform",
                         sampled=None, remove_accidental_hits=True, subtract_log_q=True,
                         reduction="mean", generator=None):
    """Sampled-softmax estimate of the cross-entropy of a softmax layer with C classes.

    The full loss of row n, with logits o_c = w_c·h_n + b_c, is ℓ_n = log Z_n - o_{y_n},
    Z_n = Σ_c exp(o_c): all C classes are scored. Here S classes s_1..s_S are drawn with
    replacement from a proposal Q (one draw shared by the batch) and Z is replaced by its
    importance-sampling estimate

        Ẑ_n = exp(o_{y_n}) + Σ_j [s_j ≠ y_n] exp(o_{s_j}) / (S·Q(s_j))
        ℓ̂_n = log Ẑ_n - o_{y_n} = -log softmax([o_y, o_{s_1} - log S·Q(s_1), …])₀

    The true class is scored exactly and removed from the samples ("accidental hits"), so
    E[Ẑ_n] = Z_n: the normaliser, and hence exp(ℓ̂_n), is unbiased. Subtracting log S·Q(s)
    from the sampled logits is the log-Q correction; without it (``subtract_log_q=False``)
    frequently drawn classes are over-counted. ℓ̂ itself is biased low by Jensen's inequality
    (E log Ẑ ≤ log E Ẑ), with a bias that vanishes as S grows; its gradient
    dℓ̂/do = softmax over the candidates - onehot(y) is a self-normalised importance-sampling
    estimate of the full gradient p - onehot(y). Cost: O(N·S·d) instead of O(N·C·d).

    Args (TensorFlow's names and order):
        weights: (C, d) output vectors w_c (the weight of a Linear(d, C)).
        biases: (C,) or None.
        labels: (N,) int class indices.
        inputs: (N, d) hidden vectors h.
        num_sampled: S, the number of classes drawn (ignored when ``sampled`` is given).
        sampler: the proposal Q: "uniform", "log_uniform" (classes sorted by decreasing
            frequency, see ``log_uniform_probs``) or (C,) probabilities (e.g.
            ``unigram_probs(counts)``).
        sampled: optional (S,) int class ids already drawn from Q (for reproducible runs).
        remove_accidental_hits, subtract_log_q: see above (both True by default).
        reduction: "mean" | "sum" | "none".
        generator: a NumPy Generator for the draw (default: autograd's global one).

    Returns the reduced loss (a scalar), or (N,) with ``reduction="none"``.
    """
    op = "sampled_softmax_loss"
    check_reduction(reduction, op)
    x, w = as_tensor(inputs), as_tensor(weights)
    num_classes = w.shape[0]
    y = as_array(labels)
    if w.ndim != 2 or x.ndim != 2 or x.shape[1] != w.shape[1]:
        raise ValueError(f"{op}: weights (C, d) and inputs (N, d) must share d, got "
                         f"{tuple(w.shape)} and {tuple(x.shape)}")
    if y.shape != (x.shape[0],) or not np.issubdtype(y.dtype, np.integer):
        raise ValueError(f"{op}: labels must be ({x.shape[0]},) class indices, got "
                         f"{tuple(y.shape)} {y.dtype}")
    if y.size and (y.min() < 0 or y.max() >= num_classes):
        raise IndexError(f"{op}: labels must be in [0, {num_classes - 1}]")
    q = proposal_probs(sampler, num_classes)
    if sampled is None:
        if num_sampled is None or num_sampled < 1:
            raise ValueError(f"{op}: give num_sampled >= 1 (or the sampled class ids)")
        sampled = sample_classes(q, num_sampled, generator)
    sampled = np.asarray(as_array(sampled), dtype=np.int64).reshape(-1)
    b = None if biases is None else as_tensor(biases)
    true_logits = (x * w[y]).sum(-1)                                    # (N,)
    sampled_logits = ag.linear(x, w[sampled], None if b is None else b[sampled])   # (N, S)
    if b is not None:
        true_logits = true_logits + b[y]
    if subtract_log_q:
        log_expected = np.log(len(sampled) * q[sampled]).astype(x.dtype)
        sampled_logits = sampled_logits - log_expected
    if remove_accidental_hits:
        sampled_logits = sampled_logits.masked_fill(y[:, None] == sampled[None, :], -np.inf)
    logits = ag.cat([true_logits.unsqueeze(1), sampled_logits], 1)      # (N, 1 + S)
    return cross_entropy(logits, np.zeros(len(y), np.int64), reduction=reduction)
