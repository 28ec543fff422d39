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
    """
    params = _with_grads(parameters)
    if not params:
        return Tensor(np.array(0.0, dtype=np.float32))
    norm_type = float(norm_type)
    grads = [p.grad._data for p in params]
    if norm_type == math.inf:
        norms = [np.abs(g).max() if g.size else 0.0 for g in grads]
        total = float(max(norms))
    else:
        norms = [np.linalg.norm(g.reshape(-1), norm_type) for g in grads]
        total = float(np.linalg.norm(np.array(norms, dtype=np.float64), norm_type))
    if error_if_nonfinite and not math.isfinite(total):
        raise RuntimeError(f"clip_grad_norm_: the total norm of order {norm_type} of the "
                           f"gradients is {total}, so they cannot be clipped; pass "
                           f"error_if_nonfinite=False to clip anyway")
    coef = max_norm / (total + 1e-6)
    if coef < 1:
        for p in params:
            p.grad._data = p.grad._data * p.grad.dtype.type(coef)
    return Tensor(np.array(total, dtype=grads[0].dtype))


def clip_grad_value_(parameters, clip_value):
    """Clip every gradient entry to [-clip_value, clip_value], in place."""
    clip_value = float(clip_value)
    for p in _with_grads(parameters):
        p.grad._data = np.clip(p.grad._data, -clip_value, clip_value)
