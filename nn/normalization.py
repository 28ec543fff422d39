"""Normalisation layers: BatchNorm1d/2d and LayerNorm."""
import numpy as np

from dagrad.autograd.default_dtype import float_dtype
from dagrad.autograd import Tensor

from . import functional as F
from .module import Module
from .parameter import Parameter
from .geometry import POINTWISE


class _BatchNorm(Module):
    """Shared by BatchNorm1d and BatchNorm2d; see ``nn.functional.batch_norm`` for the maths.

    Parameters: ``weight`` γ (C,) = 1, ``bias`` β (C,) = 0 (when ``affine``). Buffers (in
    ``state_dict`` as PyTorch): ``running_mean`` (C,) = 0, ``running_var`` (C,) = 1 and
    ``num_batches_tracked`` (when ``track_running_stats``). Training mode normalises with the
    batch statistics and updates the running ones (r ← (1 - momentum) r + momentum · batch;
    ``momentum=None`` gives the cumulative average); evaluation mode uses the running ones.
    """

    geometry = POINTWISE     # acts on each pixel alone (receptive field)

    _dims = ()   # accepted input ranks

    def __init__(self, num_features, eps=1e-5, momentum=0.1, affine=True,
                 track_running_stats=True, dtype=None):
        super().__init__()
        self.num_features, self.eps, self.momentum = num_features, eps, momentum
        self.affine, self.track_running_stats = affine, track_running_stats
        dtype = float_dtype(dtype)
        if affine:
            self.weight = Parameter(np.ones(num_features, dtype))
            self.bias = Parameter(np.zeros(num_features, dtype))
        else:
            self.register_parameter("weight", None)
            self.register_parameter("bias", None)
        if track_running_stats:
            self.register_buffer("running_mean", Tensor(np.zeros(num_features, dtype)))
            self.register_buffer("running_var", Tensor(np.ones(num_features, dtype)))
            self.register_buffer("num_batches_tracked", Tensor(np.array(0, dtype=np.int64)))
        else:
            for name in ("running_mean", "running_var", "num_batches_tracked"):
                self.register_buffer(name, None)

    def reset_running_stats(self):
        if self.track_running_stats:
            self.running_mean.zero_()
            self.running_var.fill_(1)
            self.num_batches_tracked.zero_()

    def forward(self, input):
        if input.ndim not in self._dims or input.shape[1] != self.num_features:
            ranks = " or ".join(f"{d}-D" for d in self._dims)
            raise ValueError(f"{type(self).__name__}({self.num_features}): expected {ranks} "
                             f"input with {self.num_features} channels in dimension 1, got "
                             f"shape {tuple(input.shape)}")
        momentum = 0.0 if self.momentum is None else self.momentum
        if self.training and self.track_running_stats:
            self.num_batches_tracked.add_(1)
            if self.momentum is None:
                momentum = 1.0 / float(self.num_batches_tracked._data)
        use_batch = self.training or not self.track_running_stats
        track = not self.training or self.track_running_stats
        return F.batch_norm(input, self.running_mean if track else None,
                            self.running_var if track else None, self.weight, self.bias,
                            use_batch, momentum, self.eps)

    def extra_repr(self):
        return (f"{self.num_features}, eps={self.eps}, momentum={self.momentum}, "
                f"affine={self.affine}, track_running_stats={self.track_running_stats}")


class BatchNorm1d(_BatchNorm):
    """Batch normalisation of x (N, C) or (N, C, L) per channel C."""
    _dims = (2, 3)


class BatchNorm2d(_BatchNorm):
    """Batch normalisation of images x (N, C, H, W) per channel C."""
    _dims = (4,)


class LayerNorm(Module):
    """Normalise each sample over its last dimensions (``normalized_shape``), then scale and
    shift: y = γ (x - μ) / √(σ² + ε) + β. ``weight`` γ = 1, ``bias`` β = 0, both of shape
    ``normalized_shape`` (when ``elementwise_affine``)."""

    def __init__(self, normalized_shape, eps=1e-5, elementwise_affine=True, bias=True,
                 dtype=None):
        super().__init__()
        if isinstance(normalized_shape, int):
            normalized_shape = (normalized_shape,)
        self.normalized_shape = tuple(normalized_shape)
        self.eps, self.elementwise_affine = eps, elementwise_affine
        dtype = float_dtype(dtype)
        if elementwise_affine:
            self.weight = Parameter(np.ones(self.normalized_shape, dtype))
            if bias:
                self.bias = Parameter(np.zeros(self.normalized_shape, dtype))
            else:
                self.register_parameter("bias", None)
        else:
            self.register_parameter("weight", None)
            self.register_parameter("bias", None)

    def forward(self, input):
        return F.layer_norm(input, self.normalized_shape, self.weight, self.bias, self.eps)

    def extra_repr(self):
        return (f"{self.normalized_shape}, eps={self.eps}, "
                f"elementwise_affine={self.elementwise_affine}")
