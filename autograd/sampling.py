"""Drawing from and counting values: ``multinomial`` (samples of categories) and
``histogram`` (counts of values in bins), PyTorch's names. Neither has a gradient: both return
integers or counts, as in PyTorch."""
from collections import namedtuple

import numpy as np

from .random import numpy_generator
from .tensor import make_tensor, raw_data, Tensor

Histogram = namedtuple("histogram", ["hist", "bin_edges"])
Histogram.__doc__ = "``histogram``'s result, PyTorch's ``torch.return_types.histogram``."


def multinomial(input, num_samples, replacement=False, *, generator=None):
    """``num_samples`` category indices per row of ``input``, drawn with probabilities
    proportional to its (non-negative, finite) weights, as ``torch.multinomial``.

    Shapes: input (C,) -> (num_samples,) or (N, C) -> (N, num_samples), int64. With
    ``replacement`` each draw is independent (index = the first k with F_k > u, F the row's
    cumulative weights over their sum, u ~ U[0, 1)); without it, the indices come in the order
    successive draws without replacement give them (the k largest of wᵢ / Eᵢ, Eᵢ ~ Exp(1): the
    same distribution; categories of weight 0 come last, as in PyTorch). From the global
    generator (``manual_seed``) or ``generator``.
    """
    weights = np.asarray(raw_data(input), dtype=np.float64)
    _check_weights(weights, num_samples, replacement)
    rows = weights.reshape(-1, weights.shape[-1])
    rng = numpy_generator(generator)
    if replacement:
        cumulative = np.cumsum(rows, axis=1)
        draws = rng.random((rows.shape[0], num_samples)) * cumulative[:, -1:]
        picked = [np.searchsorted(c, u, side="right") for c, u in zip(cumulative, draws)]
        picked = np.minimum(np.asarray(picked), rows.shape[1] - 1)
    else:
        keys = rows / rng.standard_exponential(rows.shape)
        picked = np.argsort(-keys, axis=1, kind="stable")[:, :num_samples]
    return make_tensor(picked.astype(np.int64).reshape(weights.shape[:-1] + (num_samples,)),
                        None)


def _check_weights(weights, num_samples, replacement):
    """PyTorch's errors for what ``multinomial`` cannot draw from."""
    if weights.ndim not in (1, 2):
        raise RuntimeError(f"multinomial: prob_dist must be 1 or 2 dim, got shape "
                           f"{weights.shape}")
    if weights.shape[-1] == 0 or not isinstance(num_samples, (int, np.integer)) or \
            num_samples <= 0:
        raise RuntimeError(f"multinomial: cannot sample {num_samples} samples from "
                           f"{weights.shape[-1]} categories; num_samples must be positive")
    if not np.isfinite(weights).all() or (weights < 0).any():
        raise RuntimeError("multinomial: probability tensor contains either `inf`, `nan` or "
                           "element < 0")
    if (weights.sum(axis=-1) <= 0).any():
        raise RuntimeError("multinomial: invalid multinomial distribution (sum of probabilities "
                           "<= 0)")
    if not replacement and num_samples > weights.shape[-1]:
        raise RuntimeError(f"multinomial: cannot sample n_sample > prob_dist.size(-1) samples "
                           f"without replacement ({num_samples} > {weights.shape[-1]}); pass "
                           f"replacement=True to draw more")


def histogram(input, bins=100, *, range=None, weight=None, density=False):
    """Counts of the elements of ``input`` in ``bins`` bins of equal width over ``range`` (the
    data's min and max by default), or between the given edges (a 1-d tensor), as
    ``torch.histogram``. Returns ``(hist, bin_edges)`` in ``input``'s floating dtype; with
    ``weight`` each element adds its weight, with ``density`` the counts are divided by
    (total · bin width) so the histogram integrates to 1. A value on an inner edge counts in
    the bin to its right; the last bin includes its right edge."""
    values = raw_data(input)
    if values.dtype.kind != "f":
        raise RuntimeError(f"histogram: expected a floating-point input, got {values.dtype}; "
                           f"convert it with x.float()")
    edges = raw_data(bins) if isinstance(bins, Tensor) else bins
    weights = None if weight is None else np.asarray(raw_data(weight)).reshape(-1)
    hist, edges = np.histogram(values.reshape(-1), bins=edges, range=range, weights=weights,
                               density=density)
    return Histogram(make_tensor(hist.astype(values.dtype), None),
                     make_tensor(np.asarray(edges).astype(values.dtype), None))
