"""Pooling and resampling layers: MaxPool2d, AvgPool2d, AdaptiveAvgPool2d, Upsample. They hold
no parameters; each calls its ``nn.functional`` form (formulas there)."""
from . import functional as F
from .functional.conv import pair
from .module import Module
from .geometry import Geometry


def _window(layer, dilation=1):
    """The ``Geometry`` of a pooling layer (its arguments as pairs), for the receptive field."""
    name = type(layer).__name__
    return Geometry(*(pair(value, 2, arg, name) for value, arg in (
        (layer.kernel_size, "kernel_size"), (layer.stride, "stride"), (layer.padding, "padding"),
        (dilation, "dilation"))))


class MaxPool2d(Module):
    """y[n, c, h, w] = max over the k_h×k_w window at (h·s_h, w·s_w) (dilated by d, padding
    counts as -inf): (N, C, H, W) -> (N, C, H_out, W_out), H_out = ⌊(H + 2p - d·(k-1) - 1)/s⌋
    + 1 (⌈⌉ with ``ceil_mode``). ``stride`` defaults to ``kernel_size``. With
    ``return_indices`` also returns each maximum's index in the flattened input plane."""

    def __init__(self, kernel_size, stride=None, padding=0, dilation=1, return_indices=False,
                 ceil_mode=False):
        super().__init__()
        self.kernel_size, self.stride, self.padding = kernel_size, stride or kernel_size, padding
        self.dilation, self.return_indices, self.ceil_mode = dilation, return_indices, ceil_mode

    @property
    def geometry(self):
        """The window each output pixel reads (see ``nn.utils.receptive_field``)."""
        return _window(self, self.dilation)

    def forward(self, input):
        return F.max_pool2d(input, self.kernel_size, self.stride, self.padding, self.dilation,
                            self.ceil_mode, self.return_indices)

    def extra_repr(self):
        return (f"kernel_size={self.kernel_size}, stride={self.stride}, padding={self.padding}, "
                f"dilation={self.dilation}, ceil_mode={self.ceil_mode}")


class AvgPool2d(Module):
    """y[n, c, h, w] = (Σ over the k_h×k_w window at (h·s_h, w·s_w)) / divisor: (N, C, H, W) ->
    (N, C, H_out, W_out). The divisor counts the padding (``count_include_pad=True``) or only
    real pixels, or is ``divisor_override``."""

    def __init__(self, kernel_size, stride=None, padding=0, ceil_mode=False,
                 count_include_pad=True, divisor_override=None):
        super().__init__()
        self.kernel_size, self.stride, self.padding = kernel_size, stride or kernel_size, padding
        self.ceil_mode, self.count_include_pad = ceil_mode, count_include_pad
        self.divisor_override = divisor_override

    @property
    def geometry(self):
        """The window each output pixel reads (see ``nn.utils.receptive_field``)."""
        return _window(self)

    def forward(self, input):
        return F.avg_pool2d(input, self.kernel_size, self.stride, self.padding, self.ceil_mode,
                            self.count_include_pad, self.divisor_override)

    def extra_repr(self):
        return f"kernel_size={self.kernel_size}, stride={self.stride}, padding={self.padding}"


class AdaptiveAvgPool2d(Module):
    """Average pooling to a fixed output size whatever the input size: output row i averages
    input rows ⌊i·H/H_out⌋ .. ⌈(i+1)·H/H_out⌉ - 1 (columns likewise). ``output_size`` 1 gives
    global average pooling; None keeps that dimension."""

    def __init__(self, output_size):
        super().__init__()
        self.output_size = output_size

    def forward(self, input):
        return F.adaptive_avg_pool2d(input, self.output_size)

    def extra_repr(self):
        return f"output_size={self.output_size}"


class Upsample(Module):
    """Resize signals (N, C, L) or images (N, C, H, W) to ``size`` or by ``scale_factor``:
    ``mode="nearest"`` copies the nearest source pixel, "linear"/"bilinear" interpolates (see
    ``nn.functional.interpolate``)."""

    def __init__(self, size=None, scale_factor=None, mode="nearest", align_corners=None):
        super().__init__()
        self.size, self.scale_factor = size, scale_factor
        self.mode, self.align_corners = mode, align_corners

    def forward(self, input):
        return F.interpolate(input, self.size, self.scale_factor, self.mode, self.align_corners)

    def extra_repr(self):
        what = f"size={self.size}" if self.size is not None else (
            f"scale_factor={self.scale_factor}")
        return f"{what}, mode={self.mode!r}"
