"""Fused operations for neural networks: faster or more stable than the same composition.

- ``Normalize``: (x - mean) / √(var + ε) over some axes, then an optional affine ``γ x̂ + β``
  (layer norm; batch norm in training mode), one pass forward and one backward.
- ``CrossEntropy``: log-softmax + negative log-likelihood of class indices, with class weights,
  ``ignore_index``, label smoothing and the reduction, stable for logits of any size.
- ``BinaryCrossEntropy``: PyTorch's binary cross-entropy of probabilities, with its clamped logs
  and its gradient, which stays large (not 0) at a saturated prediction of exactly 0 or 1.

Both backward formulas run on ndarrays (the fast path) and on Tensors (``create_graph=True``);
on the differentiable path they recompute what the fast path cached, from the inputs.
"""
import numpy as np

from ..dtypes import floating, promote_inputs
from ..function import Function
from ..sums import mean_last, sum_last
from ..tensor import raw_data


def _mean(x, axes):
    """The mean over ``axes``, kept as size 1 (over the last axis alone, a BLAS product)."""
    if axes == (-1,) or axes == (x.ndim - 1,):
        return mean_last(x)
    return x.mean(axis=axes, keepdims=True)


def _moments(x, axes, eps, stats=None):
    """x̂ = (x - mean) · r and r = 1/√(var + ε) over ``axes`` (biased variance), for ndarrays
    and Tensors alike; ``stats``, a dict, receives the mean and variance."""
    mean = _mean(x, axes)
    centred = x - mean
    var = _mean(centred * centred, axes)
    rstd = (var + eps) ** -0.5
    if stats is not None:
        stats["mean"], stats["var"] = mean, var
    return centred * rstd, rstd


class Normalize(Function):
    """y = γ ⊙ x̂ + β,   x̂ = (x - μ) / √(σ² + ε),   μ, σ² the mean and biased variance of x over
    ``axes`` (γ, β optional, broadcast against x).

    With g = dL/dy, ĝ = γ ⊙ g and ⟨·⟩ the mean over ``axes``::

        dL/dx = (ĝ - ⟨ĝ⟩ - x̂ ⟨ĝ ⊙ x̂⟩) / √(σ² + ε)
        dL/dγ = Σ g ⊙ x̂,      dL/dβ = Σ g       (summed down to γ's and β's shapes)
    """

    dtype_rule = floating

    def forward(ctx, x, weight=None, bias=None, axes=(-1,), eps=1e-5, stats=None):
        xhat, rstd = _moments(x, axes, eps, stats)
        ctx.axes, ctx.eps = axes, eps
        ctx.save(x, weight, xhat=xhat, rstd=rstd)
        out = xhat if weight is None else xhat * weight
        if bias is not None:
            out = out + bias
        return out.astype(x.dtype, copy=False)

    def backward(ctx, grad):
        x, weight = ctx.saved
        if ctx.create_graph:                # x̂ and r as functions of x
            xhat, rstd = _moments(x, ctx.axes, ctx.eps)
        else:                                 # the same values, kept by forward
            xhat, rstd = ctx.xhat, ctx.rstd
        need_x, need_w, need_b = ctx.needs_input_grad
        gx = None
        if need_x:
            gh = grad if weight is None else grad * weight
            axes = ctx.axes
            gx = (gh - _mean(gh, axes) - xhat * _mean(gh * xhat, axes)) * rstd
        return gx, (grad * xhat if need_w else None), (grad if need_b else None)


def normalize(x, axes, weight=None, bias=None, eps=1e-5, stats=None):
    """Normalise ``x`` to zero mean and unit variance over ``axes`` (a tuple of ints), then
    scale by ``weight`` and shift by ``bias`` if given (both broadcast against x). A dict
    ``stats`` receives the batch "mean" and biased "var" (keepdims shapes), e.g. for batch
    norm's running statistics."""
    return Normalize.apply(x, weight, bias, axes=tuple(axes), eps=float(eps), stats=stats)


class CrossEntropy(Function):
    """Cross-entropy of logits x (N, C) against class indices t (N,), fused with log-softmax.

    With p = softmax(x) (row-wise), class weights w (1 when not given), smoothing ε and
    v_n = 0 where t_n = ignore_index (else 1), the target distribution of row n is

        q_n = v_n ((1 - ε) w_{t_n} onehot(t_n) + (ε / C) w),
        ℓ_n = -Σ_c q_nc log p_nc,      dℓ_n/dx_n = p_n Σ_c q_nc - q_n

    ``reduction``: "none" gives ℓ (N,), "sum" Σ ℓ_n, "mean" Σ ℓ_n / Σ_n v_n w_{t_n} (PyTorch's
    weighted mean). log p = x - max - log Σ exp(x - max) never overflows. ``ignore_index``
    None: the caller has checked that no target is ignored (v = 1 without a mask).
    """

    dtype_rule = floating

    def forward(ctx, x, target, weight=None, ignore_index=-100, label_smoothing=0.0,
                reduction="mean"):
        n, c = x.shape
        shifted = x - np.maximum.reduce(x, axis=1, keepdims=True)
        e = np.exp(shifted)
        total = sum_last(e)
        log_total = np.log(total[:, 0])           # log p_nc = shifted_nc - log_total_n
        valid = None if ignore_index is None else target != ignore_index
        every = valid is None or valid.all()
        t = target if every else np.where(valid, target, 0)
        # w_{t_n} v_n; None when every one is 1 (no class weights, no target ignored)
        wt = ((None if every else valid.astype(x.dtype)) if weight is None
              else weight[t] if valid is None else weight[t] * valid)
        loss = log_total - shifted[np.arange(n), t]
        if wt is not None:
            loss *= wt
        if label_smoothing:
            if valid is None:
                valid = np.ones(n, bool)
            # -Σ_c w_c log p_nc = log_total_n Σ_c w_c - Σ_c w_c shifted_nc
            if weight is None:
                smooth = log_total * c - shifted.sum(axis=1)
            else:
                smooth = log_total * weight.sum() - shifted @ weight
            loss = (1 - label_smoothing) * loss + (label_smoothing / c) * (smooth * valid)
        ctx.reduction, ctx.smoothing = reduction, label_smoothing
        ctx.save(x, probs=e / total, target=t, target_weight=wt, valid=valid,
                 class_weight=weight)
        if reduction == "none":
            return loss.astype(x.dtype, copy=False)
        out = np.add.reduce(loss, axis=None)
        if reduction == "mean":        # every target ignored: 0 / 0, NaN as in PyTorch
            ctx.denominator = n if wt is None else wt.sum()
            out = out / ctx.denominator if ctx.denominator else np.nan
        return np.asarray(out, dtype=x.dtype)

    def backward(ctx, grad):
        x, = ctx.saved
        xp = ctx.xp
        if ctx.create_graph:                # softmax as a function of x
            e = xp.exp(x - raw_data(x).max(axis=1, keepdims=True))
            p = e / e.sum(axis=1, keepdims=True)
        else:                                 # the same values, kept by forward
            p = ctx.probs
        if ctx.reduction == "none":
            g = grad.reshape((-1, 1))
        elif ctx.reduction == "mean":            # every target ignored: no gradient (PyTorch)
            g = grad / ctx.denominator if ctx.denominator else grad * 0
        else:
            g = grad
        n, c = x.shape
        eps, valid, wt = ctx.smoothing, ctx.valid, ctx.target_weight
        if wt is None and not eps and ctx.reduction != "none" and not ctx.create_graph:
            gx = p * g                          # the usual case, q = onehot: (p - q) g
            gx[np.arange(n), ctx.target] -= g
            return gx, None, None
        if wt is None:
            wt = np.ones(n, p.dtype)
        picked = (1 - eps) * wt                          # q's weight at the target class
        q_total = picked                                 # Σ_c q_nc
        if eps:
            w = np.ones(c, dtype=p.dtype) if ctx.class_weight is None else ctx.class_weight
            q_total = picked + (eps / c) * valid * w.sum()
        gx = p * (g * q_total.reshape((-1, 1)).astype(p.dtype, copy=False))
        if eps:
            gx = gx - g * ((eps / c) * (valid.reshape((-1, 1)) * w)).astype(p.dtype, copy=False)
        at_target = (g * picked.reshape((-1, 1)).astype(p.dtype, copy=False)).reshape(-1)
        return _subtract_at(ctx, gx, (np.arange(n), ctx.target), at_target), None, None


def _subtract_at(ctx, a, index, values):
    """a - (zeros with ``values`` at ``index``): in place on the fast path, recorded with
    ``unindex`` on the differentiable one."""
    if ctx.create_graph:
        return a - ctx.xp.unindex(values, index, a.shape)
    a[index] -= values
    return a


def cross_entropy(x, target, weight=None, ignore_index=-100, label_smoothing=0.0,
                  reduction="mean"):
    """Fused cross-entropy of logits ``x`` (N, C) against int class indices ``target`` (N,).

    ``weight`` (C,) is a constant array of class weights. See ``CrossEntropy`` for the formula.
    """
    return CrossEntropy.apply(x, target, weight, ignore_index=ignore_index,
                              label_smoothing=float(label_smoothing), reduction=reduction)


BCE_EPS = 1e-12      # PyTorch's floor of x(1 - x) in the gradient


class BinaryCrossEntropy(Function):
    """ℓ = -[y · max(log x, -100) + (1 - y) · max(log(1 - x), -100)] elementwise, for
    probabilities x and targets y in [0, 1] (PyTorch's clamped logs: x = 0 or 1 gives a finite
    loss). PyTorch's gradients, which are not the clamped formula's::

        ∂ℓ/∂x = (x - y) / max(x (1 - x), 1e-12)      ±1e12·|x - y| at a saturated x = 0 or 1,
                                                     so a wrong saturated prediction can leave
        ∂ℓ/∂y = log(1 - x) - log x = -logit(x)
    """

    dtype_rule = promote_inputs

    def forward(ctx, x, y):
        ctx.save(x, y)
        with np.errstate(divide="ignore"):
            return -(y * np.maximum(np.log(x), -100) + (1 - y) * np.maximum(np.log1p(-x), -100))

    def backward(ctx, grad):
        x, y = ctx.saved
        gx = gy = None
        if ctx.needs_input_grad[0]:
            spread = x * (1 - x)
            gx = grad * (x - y) / ctx.xp.where(raw_data(spread) > BCE_EPS, spread, BCE_EPS)
        if ctx.needs_input_grad[1]:
            with np.errstate(divide="ignore"):
                gy = grad * (ctx.xp.log(1 - x) - ctx.xp.log(x))
        return gx, gy


def binary_cross_entropy(x, y):
    """The elementwise loss of ``BinaryCrossEntropy`` (the reduction is the caller's)."""
    return BinaryCrossEntropy.apply(x, y)
