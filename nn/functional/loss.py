"""Loss functions (stateless), with ``reduction`` = "mean" | "sum" | "none" as in PyTorch.

x is the prediction (``input``), y the target; ℓ is the elementwise loss before reduction.
"""
import math

import numpy as np

from dagrad import autograd as ag
from dagrad.autograd.dtypes import require_floating
from dagrad.autograd.ops.nn_ops import binary_cross_entropy as _fused_binary_cross_entropy
from dagrad.autograd.ops.nn_ops import cross_entropy as _fused_cross_entropy
from dagrad.autograd import as_array, as_tensor

from ._util import check_reduction, reduce
from .activation import log_softmax


def _check_same_shape(x, y, op):
    """Raise if broadcasting the target would change the prediction's shape (a classic bug:
    predictions (N, 1) against targets (N,) broadcast to (N, N))."""
    if x.shape != y.shape:
        try:
            shape = np.broadcast_shapes(x.shape, y.shape)
        except ValueError:
            shape = None
        if shape != x.shape:
            raise ValueError(f"{op}: target of shape {tuple(y.shape)} does not match the "
                             f"input's shape {tuple(x.shape)}; reshape one of them, e.g. "
                             f"target.reshape(input.shape)")


def _pair(input, target, op, reduction):
    check_reduction(reduction, op)
    x, y = as_tensor(input), as_tensor(target)
    require_floating(op, x)
    _check_same_shape(x, y, op)
    return x, y


def mse_loss(input, target, reduction="mean"):
    """ℓ = (x - y)²."""
    x, y = _pair(input, target, "mse_loss", reduction)
    d = x - y
    return reduce(d * d, reduction)


def l1_loss(input, target, reduction="mean"):
    """ℓ = |x - y|."""
    x, y = _pair(input, target, "l1_loss", reduction)
    return reduce((x - y).abs(), reduction)


def huber_loss(input, target, reduction="mean", delta=1.0):
    """ℓ = ½ d² if |d| < δ else δ (|d| - ½ δ), d = x - y: quadratic near 0, linear beyond δ."""
    x, y = _pair(input, target, "huber_loss", reduction)
    if delta <= 0:
        raise ValueError(f"huber_loss: delta must be positive, got {delta}")
    d = x - y
    a = d.abs()
    return reduce(ag.where(a < delta, 0.5 * d * d, delta * (a - 0.5 * delta)), reduction)


def smooth_l1_loss(input, target, reduction="mean", beta=1.0):
    """ℓ = ½ d² / β if |d| < β else |d| - ½ β (Huber loss divided by β)."""
    x, y = _pair(input, target, "smooth_l1_loss", reduction)
    d = x - y
    a = d.abs()
    if beta == 0:
        return reduce(a, reduction)
    return reduce(ag.where(a < beta, (0.5 / beta) * d * d, a - 0.5 * beta), reduction)


def _class_weight(weight, c, dtype, op):
    if weight is None:
        return None
    w = as_array(weight).astype(dtype, copy=False)
    if w.shape != (c,):
        raise ValueError(f"{op}: weight must have one entry per class, shape ({c},), got "
                         f"{tuple(w.shape)}")
    return w


def _class_targets(x, target, ignore_index, op):
    """Move the class dimension (1) last: logits (M, C) and int targets (M,), M = N·d₁·…;
    checks that every target is a class index or ignore_index. Also returns whether none
    can be ignore_index (every target a class, and ignore_index none: the usual -100)."""
    t = as_array(target)
    if t.dtype.kind not in "iu":                        # NumPy's integer kinds
        raise TypeError(f"{op}: class-index targets must be integers, got {t.dtype}; use "
                        f"target.long(), or pass probabilities of the input's shape")
    shape = x._data.shape                  # (plain tuples: this runs at every training step)
    expected = shape[:1] + shape[2:]
    if t.shape != expected:
        raise ValueError(f"{op}: target of shape {t.shape} does not match input of shape "
                         f"{shape}: expected class indices of shape {expected}")
    c = shape[1]
    # one pass when every target is a class: read as unsigned, a negative one is huge; a mask
    # only when some target is outside (or is ignore_index)
    every_class = not t.size or np.maximum.reduce(
        t if t.dtype.kind == "u" else t.view(f"u{t.dtype.itemsize}"), axis=None) < c
    if not every_class:
        bad = (t != ignore_index) & ((t < 0) | (t >= c))
        if bad.any():
            raise IndexError(f"{op}: target {int(t[bad][0])} is out of bounds for {c} classes "
                             f"(targets must be in [0, {c - 1}] or equal ignore_index="
                             f"{ignore_index})")
    if len(shape) > 2:
        x = x.permute(0, *range(2, len(shape)), 1).reshape(-1, c)
    return x, t.reshape(-1), expected, every_class and not 0 <= ignore_index < c


def _batched(input, target, op):
    """Unbatched input (C,) becomes (1, C) with target (1,); returns a flag to undo it."""
    x = as_tensor(input)
    if x.ndim == 0:
        raise ValueError(f"{op}: input must have a class dimension, got a 0-d tensor")
    if x.ndim == 1:
        t = target.unsqueeze(0) if isinstance(target, ag.Tensor) else np.asarray(target)[None]
        return x.unsqueeze(0), t, True
    return x, target, False


def cross_entropy(input, target, weight=None, ignore_index=-100, reduction="mean",
                  label_smoothing=0.0):
    """Cross-entropy between logits x (N, C) or (N, C, d₁, …) and targets y.

    Class indices y (N,) or (N, d₁, …): ℓ_n = -w_{y_n} log softmax(x_n)_{y_n}, skipping targets
    equal to ``ignore_index``; "mean" divides by Σ w_{y_n} over the kept targets. Probabilities
    y of the input's shape: ℓ_n = -Σ_c w_c y_nc log softmax(x_n)_c, "mean" divides by N.
    ``label_smoothing`` ε mixes the target with the uniform distribution: (1 - ε) y + ε / C.
    Computed from log-softmax, so logits of any size (±1e4) are fine.
    """
    op = "cross_entropy"
    check_reduction(reduction, op)
    if not 0.0 <= label_smoothing <= 1.0:
        raise ValueError(f"{op}: label_smoothing must be in [0, 1], got {label_smoothing}")
    x, target, unbatched = _batched(input, target, op)
    c = x._data.shape[1]                # (a plain shape: this runs at every training step)
    w = _class_weight(weight, c, x._data.dtype, op)
    if as_array(target).dtype.kind == "f":                       # class probabilities
        y = as_tensor(target)
        if y.shape == x.shape[:1] + x.shape[2:]:     # class indices stored as floats
            raise TypeError(f"{op}: expected target dtype to be an integer type (class "
                            f"indices), but got {y.dtype} of shape {tuple(y.shape)}; use "
                            f"target.long(), or pass probabilities of the input's shape "
                            f"{tuple(x.shape)}")
        if y.shape != x.shape:
            raise ValueError(f"{op}: probability targets must have the input's shape "
                             f"{tuple(x.shape)}, got {tuple(y.shape)}")
        if label_smoothing:
            y = y * (1 - label_smoothing) + label_smoothing / c
        terms = log_softmax(x, 1) * y
        if w is not None:
            terms = terms * w.reshape((c,) + (1,) * (x.ndim - 2))
        loss = reduce(-terms.sum(1), reduction)
    else:
        flat, t, shape, none_ignored = _class_targets(x, target, ignore_index, op)
        if isinstance(target, ag.Tensor) and target.ndim == 1:
            t = target                  # the same indices, and its name shows in viz pictures
        loss = _fused_cross_entropy(flat, t, w, None if none_ignored else ignore_index,
                                    label_smoothing, reduction)
        if reduction == "none":
            loss = loss.reshape(shape)
    return loss.reshape(loss.shape[1:]) if unbatched and reduction == "none" else loss


def nll_loss(input, target, weight=None, ignore_index=-100, reduction="mean"):
    """Negative log-likelihood of log-probabilities x (N, C) or (N, C, d₁, …) at class indices
    y: ℓ_n = -w_{y_n} x_{n, y_n} (0 where y_n = ignore_index); "mean" divides by Σ w_{y_n}."""
    op = "nll_loss"
    check_reduction(reduction, op)
    x, target, unbatched = _batched(input, target, op)
    require_floating(op, x)
    flat, t, shape, _ = _class_targets(x, target, ignore_index, op)
    w = _class_weight(weight, x.shape[1], x.dtype, op)
    valid = t != ignore_index
    t = np.where(valid, t, 0)
    wt = valid.astype(x.dtype) if w is None else w[t] * valid
    loss = -flat[np.arange(len(t)), t] * wt
    if reduction == "mean":
        total = wt.sum()
        # every target ignored: the mean is 0 / 0, NaN, and its gradient 0, as in PyTorch
        return loss.sum() / total if total else loss.sum() + np.nan
    if reduction == "sum":
        return loss.sum()
    loss = loss.reshape(shape)
    return loss.reshape(loss.shape[1:]) if unbatched else loss


def _all_in_unit_interval(a):
    """True if every entry is in [0, 1] (NaN is not)."""
    return bool(np.all((a >= 0) & (a <= 1)))


def binary_cross_entropy(input, target, weight=None, reduction="mean"):
    """ℓ = -w [y max(log x, -100) + (1 - y) max(log(1 - x), -100)] for probabilities x in
    [0, 1]: each log is clamped at -100 (as PyTorch), so x = 0 or 1 gives a finite loss. The
    gradient is PyTorch's, ∂ℓ/∂x = w (x - y) / max(x(1 - x), 1e-12): at a saturated x = 0 or
    1 it is about ±1e12 where the target disagrees (not 0), so the prediction can leave.
    Prefer ``binary_cross_entropy_with_logits`` on raw scores: it is exact for any logit."""
    op = "binary_cross_entropy"
    x, y = _pair(input, target, op, reduction)
    if x.shape != y.shape:
        raise ValueError(f"{op}: target shape {tuple(y.shape)} must equal input shape "
                         f"{tuple(x.shape)}")
    if not _all_in_unit_interval(x._data):
        raise ValueError(f"{op}: all elements of input should be between 0 and 1 (NaN is not); "
                         f"every input must be a probability: apply sigmoid first, or use "
                         f"binary_cross_entropy_with_logits on raw scores")
    if not _all_in_unit_interval(y._data):
        raise ValueError(f"{op}: all elements of target should be between 0 and 1 (NaN is "
                         f"not), as in PyTorch; targets are probabilities of the positive "
                         f"class (labels 0/1, or soft labels in between)")
    loss = _fused_binary_cross_entropy(x, y)
    if weight is not None:
        loss = loss * weight
    return reduce(loss, reduction)


def binary_cross_entropy_with_logits(input, target, weight=None, reduction="mean",
                                     pos_weight=None):
    """Binary cross-entropy of logits x (σ(x) is the probability), computed stably:

        ℓ = -w [p y log σ(x) + (1 - y) log(1 - σ(x))] = w [(1 - y) x + (1 + (p - 1) y) softplus(-x)]

    with ``pos_weight`` p weighting the positive class (broadcast along the last dimension).
    softplus(z) = log(1 + eᶻ) is evaluated without overflow, so logits of ±1e4 are exact.
    """
    op = "binary_cross_entropy_with_logits"
    x, y = _pair(input, target, op, reduction)
    if x.shape != y.shape:
        raise ValueError(f"{op}: target shape {tuple(y.shape)} must equal input shape "
                         f"{tuple(x.shape)}")
    softplus_neg = ag.softplus(-x, 1.0, math.inf)
    if pos_weight is None:
        loss = (1 - y) * x + softplus_neg
    else:
        loss = (1 - y) * x + (1 + (pos_weight - 1) * y) * softplus_neg
    if weight is not None:
        loss = loss * weight
    return reduce(loss, reduction)


def kl_div(input, target, reduction="mean", log_target=False):
    """Kullback-Leibler divergence with x = log q (log-probabilities) and target p:
    ℓ = p (log p - x), 0 where p = 0; with ``log_target=True`` the target is log p:
    ℓ = eᵗ (t - x). "batchmean" divides the sum by the batch size N (the true KL divergence);
    "mean" divides by the number of elements, as PyTorch."""
    op = "kl_div"
    check_reduction(reduction, op, extra=("batchmean",))
    x, t = as_tensor(input), as_tensor(target)
    require_floating(op, x)
    _check_same_shape(x, t, op)
    if log_target:
        loss = ag.exp(t) * (t - x)
    else:
        positive = t > 0
        loss = ag.where(positive, t * ag.log(ag.where(positive, t, 1.0)), 0.0) - t * x
    if reduction == "batchmean":
        return loss.sum() / (x.shape[0] if x.ndim else 1)
    return reduce(loss, reduction)


def gaussian_nll_loss(input, target, var, full=False, eps=1e-6, reduction="mean"):
    """Negative log-likelihood of y under N(x, var):

        ℓ = ½ (log max(var, ε) + (x - y)² / max(var, ε))   (+ ½ log 2π if ``full``)

    ``var`` has the input's shape, or one dimension less, or a last dimension of 1 (one
    variance shared by all features). The clamp at ε lets the gradient through unchanged, as
    PyTorch (it only keeps the division safe)."""
    op = "gaussian_nll_loss"
    x, y = _pair(input, target, op, reduction)
    v = as_tensor(var)
    if v.shape != x.shape:
        if x.shape[:-1] == v.shape:
            v = v.unsqueeze(-1)
        elif not (x.shape[:-1] == v.shape[:-1] and v.shape[-1:] == (1,)) and v.numel() != 1:
            raise ValueError(f"{op}: var of shape {tuple(v.shape)} does not fit input of "
                             f"shape {tuple(x.shape)}: give it the input's shape, or drop or "
                             f"set to 1 its last dimension")
    if (v._data < 0).any():
        raise ValueError(f"{op}: var has negative entries; variances must be >= 0")
    v = v + (np.maximum(v._data, eps) - v._data)      # clamp the value, keep the gradient
    d = x - y
    loss = 0.5 * (ag.log(v) + d * d / v)
    if full:
        loss = loss + 0.5 * math.log(2 * math.pi)
    return reduce(loss, reduction)
