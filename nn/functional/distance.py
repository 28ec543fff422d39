"""Vectors scaled to unit length and the cosine of the angle between two (stateless forms)."""
import numpy as np

from dagrad.autograd import as_tensor
from dagrad.autograd.args import normalize_dim
from dagrad.autograd.dtypes import require_floating


def normalize(input, p=2.0, dim=1, eps=1e-12):
    """v / max(‖v‖_p, ε) for every vector v along ``dim`` (PyTorch's F.normalize).

    input (..., n, ...) -> the same shape; each slice along ``dim`` has p-norm 1 unless its norm
    is below ``eps``. Composed from ``norm``, ``clamp`` and a division, so the gradient is
    (I - v̂ v̂ᵀ) g / ‖v‖ for p = 2 (and 0 through the clamp where it holds)."""
    x = as_tensor(input)
    require_floating("normalize", x)
    dim = normalize_dim(dim, x.ndim, "normalize")
    return x / x.norm(p, dim, keepdim=True).clamp(min=eps)


def cosine_similarity(x1, x2, dim=1, eps=1e-8):
    """cos θ = Σ (x₁ / max(‖x₁‖, ε)) (x₂ / max(‖x₂‖, ε)) along ``dim``, as PyTorch computes it.

    x1 and x2 broadcast to a common shape (..., n, ...); the result drops ``dim``. Each norm
    is clamped at ``eps`` (so zero vectors give 0, not NaN) the way PyTorch clamps it, outside
    the graph: the gradient is that of the unclamped norm."""
    x1, x2 = as_tensor(x1), as_tensor(x2)
    require_floating("cosine_similarity", x1)
    shape = np.broadcast_shapes(x1.shape, x2.shape)
    x1, x2 = x1.broadcast_to(shape), x2.broadcast_to(shape)
    dim = normalize_dim(dim, len(shape), "cosine_similarity")
    return ((x1 / _clamped_norm(x1, dim, eps)) * (x2 / _clamped_norm(x2, dim, eps))).sum(dim)


def _clamped_norm(x, dim, eps):
    """‖x‖ along ``dim`` (kept), with max(‖x‖, ε) as its value and ‖x‖'s gradient."""
    norm = x.norm(2, dim, keepdim=True)
    value = norm.detach()
    return norm + (value.clamp(min=eps) - value)
