"""Gradient clipping, applied to ``.grad`` in place between ``backward()`` and ``step()``."""
import math

import numpy as np

from dagrad.autograd import Tensor


def _with_grads(parameters):
    if isinstance(parameters, Tensor):
        parameters = [parameters]
    return [p for p in parameters if p.grad is not None]


def clip_grad_norm_(parameters, max_norm, norm_type=2.0, error_if_nonfinite=False):
    """Rescale all gradients together so that their joint norm is at most ``max_norm``:

        n = ‖(‖g₁‖, ‖g₂‖, …)‖_p   (the p-norm of all gradient entries as one vector)
        gᵢ ← gᵢ · min(1, max_norm / (n + 1e-6))

    Returns n (a 0-d Tensor), measured before clipping. ``norm_type`` may be ``inf``.
    A non-finite n is handled as PyTorch does: with ``error_if_nonfinite=True`` it raises
    RuntimeError and leaves the gradients alone; otherwise the coefficient is applied anyway,
    so a NaN anywhere makes every gradient NaN (n = NaN) and an inf makes the coefficient 0
    (the inf entries become NaN, the others 0). No gradient is left silently unscaled.
    """
    params = _with_grads(parameters)
    if not params:
        return Tensor(np.array(0.0, dtype=np.float32))
    norm_type = float(norm_type)
    grads = [p.grad._data for p in params]
    if norm_type == math.inf:
        norms = [np.abs(g).max() if g.size else 0.0 for g in grads]
        total = float(np.max(np.array(norms, dtype=np.float64)))   # NaN propagates
    else:
        norms = [np.linalg.norm(g.reshape(-1), norm_type) for g in grads]
        total = float(np.linalg.norm(np.array(norms, dtype=np.float64), norm_type))
    if error_if_nonfinite and not math.isfinite(total):
        raise RuntimeError(f"clip_grad_norm_: the total norm of order {norm_type} for "
                           f"gradients from `parameters` is non-finite ({total}), so it cannot "
                           f"be clipped. To scale the gradients by the non-finite norm anyway, "
                           f"set error_if_nonfinite=False")
    coef = max_norm / (total + 1e-6)
    if not coef >= 1:            # also NaN: every gradient becomes NaN, as in PyTorch
        for p in params:
            with np.errstate(invalid="ignore"):
                p.grad._data = p.grad._data * p.grad.dtype.type(coef)
    return Tensor(np.array(total, dtype=grads[0].dtype))


def clip_grad_value_(parameters, clip_value):
    """Clip every gradient entry to [-clip_value, clip_value], in place."""
    clip_value = float(clip_value)
    for p in _with_grads(parameters):
        p.grad._data = np.clip(p.grad._data, -clip_value, clip_value)
