"""Convolution layers: Conv1d, Conv2d, ConvTranspose2d and the depthwise-separable block.

Each holds ``weight`` and ``bias`` with PyTorch's names, shapes and default initialisation and
calls one operation of ``nn.functional`` (see there for the formulas)::

    Conv2d:           weight (C_out, C_in/groups, kh, kw), bias (C_out,)
    ConvTranspose2d:  weight (C_in, C_out/groups, kh, kw), bias (C_out,)
    init:             W ~ kaiming_uniform(a=√5) = U(-1/√fan_in, 1/√fan_in),  b ~ U(same bound)
                      with fan_in = weight.shape[1] · kh · kw
"""
import math

import numpy as np

from dagrad.autograd.default_dtype import float_dtype

from .functional.conv import conv_padding, pair

from . import functional as F
from . import init
from .containers import Sequential
from .module import Module
from .parameter import Parameter
from .geometry import Geometry


class _ConvNd(Module):
    """Shared by the convolution layers: argument checks, parameters and their initialisation."""

    _spatial = 2
    _transposed = False

    def __init__(self, in_channels, out_channels, kernel_size, stride=1, padding=0, dilation=1,
                 groups=1, bias=True, padding_mode="zeros", dtype=None, *, output_padding=0):
        super().__init__()
        name, n = type(self).__name__, self._spatial
        if output_padding and not self._transposed:
            raise TypeError(f"{name}: output_padding applies only to transposed convolutions")
        if padding_mode != "zeros":
            raise ValueError(f"{name}: only padding_mode='zeros' is supported, got "
                             f"{padding_mode!r}")
        if groups < 1 or in_channels % groups or out_channels % groups:
            raise ValueError(f"{name}: in_channels={in_channels} and out_channels="
                             f"{out_channels} must both be divisible by groups={groups}")
        self.in_channels, self.out_channels, self.groups = in_channels, out_channels, groups
        self.kernel_size = pair(kernel_size, n, "kernel_size", name)
        self.stride = pair(stride, n, "stride", name)
        self.padding = padding if isinstance(padding, str) else pair(padding, n, "padding", name)
        self.dilation = pair(dilation, n, "dilation", name)
        conv_padding(name, self.padding, self.kernel_size, self.stride, self.dilation)  # check
        self.output_padding = pair(output_padding, n, "output_padding", name)
        self.padding_mode = padding_mode
        dtype = float_dtype(dtype)
        shape = ((in_channels, out_channels // groups) if self._transposed
                 else (out_channels, in_channels // groups)) + self.kernel_size
        self.weight = Parameter(np.empty(shape, dtype))
        if bias:
            self.bias = Parameter(np.empty(out_channels, dtype))
        else:
            self.register_parameter("bias", None)
        self.reset_parameters()

    @property
    def geometry(self):
        """The window each output pixel reads (kernel, stride, low-side padding, dilation), for
        ``nn.utils.receptive_field``; None for a transposed convolution, which spreads each
        input pixel over a window instead."""
        if self._transposed:
            return None
        pads = conv_padding(type(self).__name__, self.padding, self.kernel_size, self.stride,
                            self.dilation)
        return Geometry(self.kernel_size, self.stride, tuple(lo for lo, _ in pads), self.dilation)

    def reset_parameters(self):
        init.kaiming_uniform_(self.weight, a=math.sqrt(5))   # = U(-1/√fan_in, 1/√fan_in)
        if self.bias is not None:
            init.uniform_fan_in_(self.bias, init.calculate_fan_in_and_fan_out(self.weight)[0])

    def extra_repr(self):
        s = (f"{self.in_channels}, {self.out_channels}, kernel_size={self.kernel_size}, "
             f"stride={self.stride}")
        if self.padding != (0,) * self._spatial:
            s += f", padding={self.padding!r}"
        if self.dilation != (1,) * self._spatial:
            s += f", dilation={self.dilation}"
        if self.output_padding != (0,) * self._spatial:
            s += f", output_padding={self.output_padding}"
        if self.groups != 1:
            s += f", groups={self.groups}"
        if self.bias is None:
            s += ", bias=False"
        return s


class Conv1d(_ConvNd):
    """1-d convolution over signals: (N, C_in, L) -> (N, C_out, L_out),
    y[n, o, t] = b[o] + Σ_(c,i) W[o, c, i] · x_pad[n, c, t·s + i·d] (within o's group),
    L_out = ⌊(L + 2p - d·(k-1) - 1)/s⌋ + 1. ``padding`` may be "same" or "valid"."""

    _spatial = 1

    def forward(self, input):
        return F.conv1d(input, self.weight, self.bias, self.stride, self.padding,
                        self.dilation, self.groups)


class Conv2d(_ConvNd):
    """2-d convolution over images: (N, C_in, H, W) -> (N, C_out, H_out, W_out),
    y[n, o, h, w] = b[o] + Σ_(c,i,j) W[o, c, i, j] · x_pad[n, c, h·s_h + i·d_h, w·s_w + j·d_w]
    (c over o's group), H_out = ⌊(H + 2p - d·(kh-1) - 1)/s⌋ + 1. ``padding`` may be "same" or
    "valid"; ``groups=in_channels`` makes it depthwise."""

    def forward(self, input):
        return F.conv2d(input, self.weight, self.bias, self.stride, self.padding,
                        self.dilation, self.groups)


class ConvTranspose2d(_ConvNd):
    """2-d transposed convolution (the gradient of Conv2d with respect to its input; it
    upsamples by ``stride``): (N, C_in, H, W) -> (N, C_out, H_out, W_out) with
    H_out = (H-1)·s - 2p + d·(kh-1) + output_padding + 1.

    ``forward(input, output_size=None)``: ``output_size`` (H_out, W_out) picks the
    output_padding that gives that size, as PyTorch.
    """

    _transposed = True

    def __init__(self, in_channels, out_channels, kernel_size, stride=1, padding=0,
                 output_padding=0, groups=1, bias=True, dilation=1, padding_mode="zeros",
                 dtype=None):
        if isinstance(padding, str):
            raise ValueError(f"ConvTranspose2d: padding must be an int or a pair, got "
                             f"{padding!r}")
        super().__init__(in_channels, out_channels, kernel_size, stride, padding, dilation,
                         groups, bias, padding_mode, dtype, output_padding=output_padding)

    def forward(self, input, output_size=None):
        extra = self.output_padding
        if output_size is not None:
            size = tuple(output_size)[-2:]
            smallest = tuple((n - 1) * s - 2 * p + d * (k - 1) + 1 for n, s, p, d, k in zip(
                input.shape[-2:], self.stride, self.padding, self.dilation, self.kernel_size))
            extra = tuple(m - n for m, n in zip(size, smallest))
            if any(not 0 <= e < max(s, d) for e, s, d in zip(extra, self.stride,
                                                             self.dilation)):
                raise ValueError(f"ConvTranspose2d: output_size {size} is not reachable from "
                                 f"input size {tuple(input.shape[-2:])}: the possible sizes "
                                 f"start at {smallest} and exceed it by less than the stride "
                                 f"{self.stride}")
        return F.conv_transpose2d(input, self.weight, self.bias, self.stride, self.padding,
                                  extra, self.groups, self.dilation)


class DepthwiseSeparableConv2d(Sequential):
    """A depthwise convolution (one k×k filter per input channel, groups = C_in) followed by a
    pointwise 1×1 convolution that mixes the channels:

        y = pointwise(depthwise(x)),   (N, C_in, H, W) -> (N, C_out, H_out, W_out)

    Parameters: C_in·k_h·k_w (+ C_in bias) + C_in·C_out (+ C_out bias), instead of
    C_in·C_out·k_h·k_w (+ C_out) for a full convolution: about 1/C_out + 1/(k_h·k_w) of it.
    Children ``depthwise`` and ``pointwise`` are Conv2d layers.
    """

    def __init__(self, in_channels, out_channels, kernel_size, stride=1, padding=0, dilation=1,
                 bias=True, dtype=None):
        super().__init__()
        self.depthwise = Conv2d(in_channels, in_channels, kernel_size, stride, padding,
                                dilation, groups=in_channels, bias=bias, dtype=dtype)
        self.pointwise = Conv2d(in_channels, out_channels, 1, bias=bias, dtype=dtype)
