"""Initialisers: fill a tensor in place (names end with ``_``), as ``torch.nn.init``.

Every layer's ``reset_parameters`` uses PyTorch's default for that layer, e.g. ``Linear``:
W ~ U(-1/√fan_in, 1/√fan_in) (``kaiming_uniform_`` with a = √5) and the same range for b.

fan_in / fan_out of a weight of shape (out, in, *kernel) are in·k and out·k, k = Π kernel.
All randomness comes from autograd's global generator (``ag.manual_seed``).
"""
import math
import warnings

import numpy as np

from dagrad.autograd import generator, no_grad


def _fill(tensor, values):
    """Copy ``values`` into ``tensor`` in place, outside the graph; return the tensor."""
    with no_grad():
        tensor.copy_(np.asarray(values, dtype=tensor.dtype))
    return tensor


def calculate_gain(nonlinearity, param=None):
    """The recommended std gain for a nonlinearity: linear/conv/sigmoid 1, tanh 5/3, relu √2,
    leaky_relu √(2 / (1 + slope²)) (slope = ``param``, default 0.01), selu 3/4."""
    linear = ("linear", "conv1d", "conv2d", "conv3d", "conv_transpose1d", "conv_transpose2d",
              "conv_transpose3d", "sigmoid")
    if nonlinearity in linear:
        return 1.0
    if nonlinearity == "tanh":
        return 5.0 / 3
    if nonlinearity == "relu":
        return math.sqrt(2.0)
    if nonlinearity == "leaky_relu":
        slope = 0.01 if param is None else param
        if isinstance(slope, bool) or not isinstance(slope, (int, float)):
            raise ValueError(f"calculate_gain: negative_slope {param!r} is not a number")
        return math.sqrt(2.0 / (1 + slope ** 2))
    if nonlinearity == "selu":
        return 3.0 / 4
    raise ValueError(f"calculate_gain: unsupported nonlinearity {nonlinearity!r}")


def calculate_fan_in_and_fan_out(tensor):
    """(fan_in, fan_out) of a weight of shape (out, in, *kernel)."""
    if tensor.ndim < 2:
        raise ValueError(f"fan in and fan out need a tensor with at least 2 dimensions, got "
                         f"shape {tuple(tensor.shape)}")
    receptive = int(np.prod(tensor.shape[2:])) if tensor.ndim > 2 else 1
    return tensor.shape[1] * receptive, tensor.shape[0] * receptive


_calculate_fan_in_and_fan_out = calculate_fan_in_and_fan_out


def _fan(tensor, mode):
    if mode not in ("fan_in", "fan_out"):
        raise ValueError(f"mode must be 'fan_in' or 'fan_out', got {mode!r}")
    fan_in, fan_out = calculate_fan_in_and_fan_out(tensor)
    return fan_in if mode == "fan_in" else fan_out


def uniform_(tensor, a=0.0, b=1.0):
    """x ~ U(a, b)."""
    return _fill(tensor, generator().uniform(a, b, tensor.shape))


def normal_(tensor, mean=0.0, std=1.0):
    """x ~ N(mean, std²)."""
    return _fill(tensor, generator().normal(mean, std, tensor.shape))


def trunc_normal_(tensor, mean=0.0, std=1.0, a=-2.0, b=2.0):
    """x ~ N(mean, std²) restricted to [a, b] (resampling values outside)."""
    values = generator().normal(mean, std, tensor.shape)
    bad = (values < a) | (values > b)
    while bad.any():
        values[bad] = generator().normal(mean, std, int(bad.sum()))
        bad = (values < a) | (values > b)
    return _fill(tensor, values)


def constant_(tensor, val):
    return _fill(tensor, np.full(tensor.shape, val))


def ones_(tensor):
    return constant_(tensor, 1.0)


def zeros_(tensor):
    return constant_(tensor, 0.0)


def eye_(tensor):
    """The identity matrix (2-D tensors)."""
    if tensor.ndim != 2:
        raise ValueError(f"eye_: needs a 2-D tensor, got shape {tuple(tensor.shape)}")
    return _fill(tensor, np.eye(*tensor.shape))


def _no_elements(tensor):
    """True (with PyTorch's warning) for a tensor with a 0 in its shape, e.g. the weight of
    Linear(0, n): initialising it is a no-op, not a division by a zero fan."""
    if 0 not in tuple(tensor.shape):
        return False
    warnings.warn("Initializing zero-element tensors is a no-op", stacklevel=3)
    return True


def xavier_uniform_(tensor, gain=1.0):
    """Glorot: x ~ U(-a, a), a = gain · √(6 / (fan_in + fan_out))."""
    if _no_elements(tensor):
        return tensor
    fan_in, fan_out = calculate_fan_in_and_fan_out(tensor)
    a = gain * math.sqrt(6.0 / (fan_in + fan_out))
    return uniform_(tensor, -a, a)


def xavier_normal_(tensor, gain=1.0):
    """Glorot: x ~ N(0, σ²), σ = gain · √(2 / (fan_in + fan_out))."""
    if _no_elements(tensor):
        return tensor
    fan_in, fan_out = calculate_fan_in_and_fan_out(tensor)
    return normal_(tensor, 0.0, gain * math.sqrt(2.0 / (fan_in + fan_out)))


def kaiming_uniform_(tensor, a=0.0, mode="fan_in", nonlinearity="leaky_relu"):
    """He: x ~ U(-bound, bound), bound = gain · √(3 / fan),
    gain = calculate_gain(nonlinearity, a)."""
    if _no_elements(tensor):
        return tensor
    bound = calculate_gain(nonlinearity, a) * math.sqrt(3.0 / _fan(tensor, mode))
    return uniform_(tensor, -bound, bound)


def kaiming_normal_(tensor, a=0.0, mode="fan_in", nonlinearity="leaky_relu"):
    """He: x ~ N(0, σ²), σ = gain / √fan."""
    if _no_elements(tensor):
        return tensor
    std = calculate_gain(nonlinearity, a) / math.sqrt(_fan(tensor, mode))
    return normal_(tensor, 0.0, std)


def orthogonal_(tensor, gain=1.0):
    """A (semi-)orthogonal matrix (rows or columns orthonormal) times ``gain``, from the QR
    decomposition of a Gaussian matrix; extra dimensions are flattened into the columns."""
    if tensor.ndim < 2:
        raise ValueError(f"orthogonal_: needs at least 2 dimensions, got shape "
                         f"{tuple(tensor.shape)}")
    if tensor.numel() == 0:
        return tensor
    rows = tensor.shape[0]
    cols = tensor.numel() // rows
    flat = generator().standard_normal((rows, cols))
    if rows < cols:
        flat = flat.T
    q, r = np.linalg.qr(flat)
    q = q * np.sign(np.diag(r))          # make the decomposition unique
    if rows < cols:
        q = q.T
    return _fill(tensor, gain * q.reshape(tensor.shape))


def uniform_fan_in_(tensor, fan_in):
    """x ~ U(-1/√fan_in, 1/√fan_in): PyTorch's default for biases (and RNN weights)."""
    bound = 1.0 / math.sqrt(fan_in) if fan_in > 0 else 0.0
    return uniform_(tensor, -bound, bound)
