"""Normalisation layers, stateless forms: batch norm and layer norm."""
from dagrad.autograd import Tensor, as_array, as_tensor, no_grad
from dagrad.autograd.ops.nn_ops import normalize


def batch_norm(input, running_mean, running_var, weight=None, bias=None, training=False,
               momentum=0.1, eps=1e-5):
    """Normalise each channel (dimension 1) of x (N, C) or (N, C, d₁, …):

        y = γ (x - μ) / √(σ² + ε) + β

    ``training=True``: μ, σ² are the mean and biased variance over the batch (and d₁, …), and
    the running statistics, if given, are updated in place (unbiased variance):
    r ← (1 - momentum) r + momentum · batch value. ``training=False``: μ, σ² are the running
    statistics (constants).
    """
    x = as_tensor(input)
    if x.ndim < 2:
        raise ValueError(f"batch_norm: expected input of shape (N, C) or (N, C, ...), got "
                         f"{tuple(x.shape)}")
    c = x.shape[1]
    shape = (1, c) + (1,) * (x.ndim - 2)
    w = None if weight is None else weight.reshape(shape)
    b = None if bias is None else bias.reshape(shape)
    if training:
        axes = (0,) + tuple(range(2, x.ndim))
        n = x.numel() // c
        if n <= 1:
            raise ValueError(f"batch_norm: expected more than 1 value per channel when "
                             f"training, got input of shape {tuple(x.shape)}; use a larger "
                             f"batch or call model.eval()")
        stats = {}
        out = normalize(x, axes, w, b, eps, stats)
        with no_grad():
            if running_mean is not None:
                _blend(running_mean, stats["mean"].reshape(c), momentum)
            if running_var is not None:
                _blend(running_var, stats["var"].reshape(c) * (n / (n - 1)), momentum)
        return out
    if running_mean is None or running_var is None:
        raise ValueError("batch_norm: evaluation (training=False) needs running_mean and "
                         "running_var")
    mean = as_array(running_mean).reshape(shape)
    inv_std = (as_array(running_var).reshape(shape) + eps) ** -0.5
    scale = inv_std if w is None else w * inv_std
    out = (x - mean) * scale
    return out if b is None else out + b


def _blend(stat, batch_value, momentum):
    """stat ← (1 - momentum) stat + momentum · batch_value, in place."""
    if isinstance(stat, Tensor):
        stat.mul_(1 - momentum).add_(batch_value.astype(stat.dtype, copy=False), momentum)
    else:
        stat *= 1 - momentum
        stat += momentum * batch_value


def layer_norm(input, normalized_shape, weight=None, bias=None, eps=1e-5):
    """Normalise over the last len(normalized_shape) dimensions, per sample:

        y = γ (x - μ) / √(σ² + ε) + β,   μ, σ² the mean and biased variance of those dimensions

    γ, β have shape ``normalized_shape``. One fused operation (see ``autograd.ops.nn_ops``).
    """
    x = as_tensor(input)
    shape = (normalized_shape,) if isinstance(normalized_shape, int) else tuple(normalized_shape)
    k = len(shape)
    if k == 0 or x.shape[x.ndim - k:] != shape:
        raise ValueError(f"layer_norm: normalized_shape {shape} must match the last dimensions "
                         f"of the input, whose shape is {tuple(x.shape)}")
    return normalize(x, tuple(range(x.ndim - k, x.ndim)), weight, bias, eps)
