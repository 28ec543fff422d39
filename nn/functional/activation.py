"""Activation functions (stateless). Each is an autograd operation or a short composition."""

from dagrad import autograd as ag
from dagrad.autograd import as_tensor
from dagrad.autograd.args import normalize_dim
from dagrad.autograd.dtypes import require_floating


def relu(input, inplace=False):
    """max(x, 0). ``inplace`` is accepted for PyTorch compatibility and ignored."""
    return ag.relu(input)


def leaky_relu(input, negative_slope=0.01, inplace=False):
    """x if x > 0 else negative_slope · x."""
    return ag.leaky_relu(input, negative_slope)


def prelu(input, weight):
    """x if x > 0 else a · x, with learnable slopes ``weight`` (1 or C values, one per channel;
    the channel dimension is dimension 1 of the input)."""
    x = as_tensor(input)
    a = weight
    if a.numel() > 1:
        if x.ndim < 2 or x.shape[1] != a.numel():
            raise ValueError(f"prelu: {a.numel()} slopes need an input with that many channels "
                             f"in dimension 1, got shape {tuple(x.shape)}")
        a = a.reshape((a.numel(),) + (1,) * (x.ndim - 2))
    return ag.where(x > 0, x, a * x)


def elu(input, alpha=1.0, inplace=False):
    """x if x > 0 else α (eˣ - 1)."""
    return ag.elu(input, alpha)


def gelu(input, approximate="none"):
    """x Φ(x) with Φ the standard normal CDF; ``approximate="tanh"`` for the tanh form."""
    return ag.gelu(input, approximate)


def silu(input, inplace=False):
    """x σ(x) (also called swish)."""
    x = as_tensor(input)
    require_floating("silu", x)
    return x * ag.sigmoid(x)


def sigmoid(input):
    """σ(x) = 1 / (1 + e⁻ˣ)."""
    return ag.sigmoid(input)


def tanh(input):
    return ag.tanh(input)


def hardtanh(input, min_val=-1.0, max_val=1.0, inplace=False):
    """x clipped to [min_val, max_val]; gradient 1 inside, 0 outside."""
    if min_val > max_val:
        raise ValueError(f"hardtanh: min_val ({min_val}) must not exceed max_val ({max_val})")
    return ag.clamp(input, min_val, max_val)


def softplus(input, beta=1.0, threshold=20.0):
    """(1/β) log(1 + e^(βx)); x itself where βx > threshold (as PyTorch)."""
    return ag.softplus(input, beta, threshold)


def _softmax_dim(ndim, dim):
    """PyTorch's rule when dim is not given: 0 for 0-, 1- and 3-D inputs, else 1."""
    if dim is not None:
        return dim
    return 0 if ndim in (0, 1, 3) else 1


def softmax(input, dim=None, dtype=None):
    """exp(xᵢ) / Σⱼ exp(xⱼ) along ``dim``, computed stably."""
    x = as_tensor(input) if dtype is None else as_tensor(input).to(dtype)
    return ag.softmax(x, normalize_dim(_softmax_dim(x.ndim, dim), x.ndim, "softmax"))


def log_softmax(input, dim=None, dtype=None):
    """xᵢ - log Σⱼ exp(xⱼ) along ``dim``, computed stably."""
    x = as_tensor(input) if dtype is None else as_tensor(input).to(dtype)
    return ag.log_softmax(x, normalize_dim(_softmax_dim(x.ndim, dim), x.ndim, "log_softmax"))


