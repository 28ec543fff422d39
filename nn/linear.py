"""The fully connected layer and the shape layers Identity, Flatten, Unflatten."""
import math

import numpy as np

from dagrad import autograd as ag
from dagrad.autograd.default_dtype import float_dtype

from . import init
from .module import Module
from .parameter import Parameter
from .geometry import POINTWISE


class Linear(Module):
    """y = x Wᵀ + b.

    Shapes: x (..., in_features) -> y (..., out_features); ``weight`` W (out_features,
    in_features) and ``bias`` b (out_features,), as PyTorch. Initialised as PyTorch:
    W, b ~ U(-1/√in_features, 1/√in_features).
    """

    def __init__(self, in_features, out_features, bias=True, dtype=None):
        super().__init__()
        if min(in_features, out_features) < 0:
            raise RuntimeError(f"Linear: Trying to create tensor with negative dimension: "
                               f"in_features={in_features}, out_features={out_features}; both "
                               f"are sizes >= 0")
        self.in_features, self.out_features = in_features, out_features
        self.weight = Parameter(np.empty((out_features, in_features), float_dtype(dtype)))
        if bias:
            self.bias = Parameter(np.empty(out_features, float_dtype(dtype)))
        else:
            self.register_parameter("bias", None)
        self.reset_parameters()

    def reset_parameters(self):
        init.kaiming_uniform_(self.weight, a=math.sqrt(5))   # = U(-1/√fan_in, 1/√fan_in)
        if self.bias is not None:
            init.uniform_fan_in_(self.bias, self.in_features)

    def forward(self, input):
        return ag.linear(input, self.weight, self.bias)

    def extra_repr(self):
        return (f"in_features={self.in_features}, out_features={self.out_features}, "
                f"bias={self.bias is not None}")


class NonDynamicallyQuantizableLinear(Linear):
    """A ``Linear`` under PyTorch's name for the output projection of ``MultiheadAttention``
    (PyTorch keeps it apart from ``Linear`` for its quantization tools; here it is the same
    layer)."""


class Identity(Module):
    """y = x (a placeholder, e.g. for an optional layer). Arguments are accepted and ignored."""

    geometry = POINTWISE     # acts on each pixel alone (receptive field)

    def __init__(self, *args, **kwargs):
        super().__init__()

    def forward(self, input):
        return input


class Flatten(Module):
    """Merge dimensions start_dim..end_dim into one: (N, C, H, W) -> (N, C·H·W) by default."""

    def __init__(self, start_dim=1, end_dim=-1):
        super().__init__()
        self.start_dim, self.end_dim = start_dim, end_dim

    def forward(self, input):
        return ag.flatten(input, self.start_dim, self.end_dim)

    def extra_repr(self):
        return f"start_dim={self.start_dim}, end_dim={self.end_dim}"


class Unflatten(Module):
    """Split dimension ``dim`` into ``unflattened_size``: (N, 12) -> (N, 3, 4)."""

    def __init__(self, dim, unflattened_size):
        super().__init__()
        self.dim, self.unflattened_size = dim, tuple(unflattened_size)

    def forward(self, input):
        return ag.unflatten(input, self.dim, self.unflattened_size)

    def extra_repr(self):
        return f"dim={self.dim}, unflattened_size={self.unflattened_size}"
