"""Activation layers: thin modules over ``nn.functional`` (see there for the formulas)."""
import numpy as np

from dagrad.autograd.default_dtype import float_dtype

from . import functional as F
from .module import Module
from .parameter import Parameter
from .geometry import POINTWISE


class ReLU(Module):
    """y = max(x, 0)."""

    geometry = POINTWISE     # acts on each pixel alone (receptive field)

    def __init__(self, inplace=False):
        super().__init__()

    def forward(self, input):
        return F.relu(input)


class LeakyReLU(Module):
    """y = x if x > 0 else negative_slope · x."""

    geometry = POINTWISE     # acts on each pixel alone (receptive field)

    def __init__(self, negative_slope=0.01, inplace=False):
        super().__init__()
        self.negative_slope = negative_slope

    def forward(self, input):
        return F.leaky_relu(input, self.negative_slope)

    def extra_repr(self):
        return f"negative_slope={self.negative_slope}"


class PReLU(Module):
    """y = x if x > 0 else a · x with learnable slope(s) a: one shared (``num_parameters=1``)
    or one per channel (dimension 1 of the input), initialised to ``init``."""

    geometry = POINTWISE     # acts on each pixel alone (receptive field)

    def __init__(self, num_parameters=1, init=0.25, dtype=None):
        super().__init__()
        self.num_parameters = num_parameters
        self.weight = Parameter(np.full(num_parameters, init,
                                        dtype=float_dtype(dtype)))

    def forward(self, input):
        return F.prelu(input, self.weight)

    def extra_repr(self):
        return f"num_parameters={self.num_parameters}"


class ELU(Module):
    """y = x if x > 0 else α (eˣ - 1)."""

    geometry = POINTWISE     # acts on each pixel alone (receptive field)

    def __init__(self, alpha=1.0, inplace=False):
        super().__init__()
        self.alpha = alpha

    def forward(self, input):
        return F.elu(input, self.alpha)

    def extra_repr(self):
        return f"alpha={self.alpha}"


class GELU(Module):
    """y = x Φ(x) (Φ the standard normal CDF); ``approximate="tanh"`` for the tanh form."""

    geometry = POINTWISE     # acts on each pixel alone (receptive field)

    def __init__(self, approximate="none"):
        super().__init__()
        self.approximate = approximate

    def forward(self, input):
        return F.gelu(input, self.approximate)

    def extra_repr(self):
        return f"approximate={self.approximate!r}"


class SiLU(Module):
    """y = x σ(x)."""

    geometry = POINTWISE     # acts on each pixel alone (receptive field)

    def __init__(self, inplace=False):
        super().__init__()

    def forward(self, input):
        return F.silu(input)


class Sigmoid(Module):
    """y = σ(x) = 1 / (1 + e⁻ˣ)."""

    geometry = POINTWISE     # acts on each pixel alone (receptive field)

    def forward(self, input):
        return F.sigmoid(input)


class Tanh(Module):
    """y = tanh x."""

    geometry = POINTWISE     # acts on each pixel alone (receptive field)

    def forward(self, input):
        return F.tanh(input)


class Hardtanh(Module):
    """y = x clipped to [min_val, max_val]."""

    geometry = POINTWISE     # acts on each pixel alone (receptive field)

    def __init__(self, min_val=-1.0, max_val=1.0, inplace=False):
        super().__init__()
        if min_val > max_val:
            raise ValueError(f"Hardtanh: min_val ({min_val}) must not exceed max_val "
                             f"({max_val})")
        self.min_val, self.max_val = min_val, max_val

    def forward(self, input):
        return F.hardtanh(input, self.min_val, self.max_val)

    def extra_repr(self):
        return f"min_val={self.min_val}, max_val={self.max_val}"


class Softplus(Module):
    """y = (1/β) log(1 + e^(βx)), linear where βx > threshold."""

    geometry = POINTWISE     # acts on each pixel alone (receptive field)

    def __init__(self, beta=1.0, threshold=20.0):
        super().__init__()
        self.beta, self.threshold = beta, threshold

    def forward(self, input):
        return F.softplus(input, self.beta, self.threshold)

    def extra_repr(self):
        return f"beta={self.beta}, threshold={self.threshold}"


class Softmax(Module):
    """yᵢ = exp(xᵢ) / Σⱼ exp(xⱼ) along ``dim``."""

    geometry = POINTWISE     # acts on each pixel alone (receptive field)

    def __init__(self, dim=None):
        super().__init__()
        self.dim = dim

    def forward(self, input):
        return F.softmax(input, self.dim)

    def extra_repr(self):
        return f"dim={self.dim}"


class LogSoftmax(Module):
    """yᵢ = xᵢ - log Σⱼ exp(xⱼ) along ``dim``."""

    geometry = POINTWISE     # acts on each pixel alone (receptive field)

    def __init__(self, dim=None):
        super().__init__()
        self.dim = dim

    def forward(self, input):
        return F.log_softmax(input, self.dim)

    def extra_repr(self):
        return f"dim={self.dim}"
