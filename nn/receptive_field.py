"""The receptive field of a stack of convolution and pooling layers: which input pixels one
output pixel can see.

Output pixel q of a layer with kernel k, stride s, low-side padding p and dilation d reads the
input pixels q·s - p + i·d, i = 0..k-1. Chaining layers, with r the receptive field size, j the
jump (the input distance between neighbouring output pixels of the stack so far) and c the
input coordinate of the centre of output pixel 0:

    r_out = r_in + d·(k-1)·j_in,     j_out = j_in·s,     c_out = c_in + (d·(k-1)/2 - p)·j_in

starting from r = 1, j = 1, c = 0 at the input. Layers that act on each pixel separately
(activations, batch norm, dropout) leave all three unchanged.
"""
from typing import NamedTuple

from dagrad.autograd.ops.conv import conv_padding, pair

from .activation import (ELU, GELU, Hardtanh, LeakyReLU, LogSoftmax, PReLU, ReLU, Sigmoid, SiLU,
                         Softmax, Softplus, Tanh)
from .containers import ModuleList, Sequential
from .conv import Conv1d, Conv2d
from .dropout import Dropout
from .linear import Identity
from .normalization import BatchNorm1d, BatchNorm2d
from .pooling import AvgPool2d, MaxPool2d

PER_PIXEL = (ELU, GELU, Hardtanh, LeakyReLU, PReLU, ReLU, Sigmoid, SiLU, Softplus, Tanh,
             Softmax, LogSoftmax, Dropout, Identity, BatchNorm1d, BatchNorm2d)


class ReceptiveField(NamedTuple):
    """Per spatial axis: ``size`` r (input pixels one output pixel sees), ``jump`` j (input
    pixels between neighbouring output pixels, the product of the strides) and ``start`` c (the
    input coordinate of the centre of output pixel 0; output pixel q is centred at c + q·j)."""
    size: tuple
    jump: tuple
    start: tuple


def _layers(layers):
    """The leaf layers of ``layers`` (a module, a Sequential or a list, nested), in order."""
    stack, out = [layers], []
    while stack:
        item = stack.pop()
        if isinstance(item, (list, tuple, Sequential, ModuleList)):
            stack.extend(reversed(list(item)))
        else:
            out.append(item)
    return out


def _geometry(layer, n):
    """(kernel, stride, low padding, dilation) of ``layer`` over n axes, or None if it acts
    on each pixel separately."""
    if isinstance(layer, PER_PIXEL):
        return None
    name = type(layer).__name__
    if isinstance(layer, (Conv1d, Conv2d)):
        kernel, stride, dilation = layer.kernel_size, layer.stride, layer.dilation
        pads = conv_padding(name, layer.padding, kernel, stride, dilation)
        return kernel, stride, tuple(lo for lo, _ in pads), dilation
    if isinstance(layer, (MaxPool2d, AvgPool2d)):
        return (pair(layer.kernel_size, n, "kernel_size", name),
                pair(layer.stride, n, "stride", name),
                pair(layer.padding, n, "padding", name),
                pair(getattr(layer, "dilation", 1), n, "dilation", name))
    raise ValueError(f"receptive_field: {name} is not a convolution, a pooling or a per-pixel "
                     f"layer, so the receptive field through it is not a fixed window (a "
                     f"Linear or adaptive pooling layer sees the whole input). Pass only the "
                     f"convolutional part, e.g. model[:k].")


def receptive_field_table(layers):
    """[(layer, ReceptiveField after it), ...] for each leaf layer of ``layers`` in order."""
    leaves = _layers(layers)
    n = next((len(layer.kernel_size) for layer in leaves if isinstance(layer, (Conv1d, Conv2d))),
             2)
    size, jump, start = (1,) * n, (1,) * n, (0.0,) * n
    table = []
    for layer in leaves:
        geometry = _geometry(layer, n)
        if geometry is not None:
            kernel, stride, pad, dil = geometry
            if len(kernel) != n:
                raise ValueError(f"receptive_field: {type(layer).__name__} has {len(kernel)} "
                                 f"spatial axes but the stack has {n}")
            start = tuple(c + (d * (k - 1) / 2 - p) * j
                          for c, d, k, p, j in zip(start, dil, kernel, pad, jump))
            size = tuple(r + d * (k - 1) * j for r, d, k, j in zip(size, dil, kernel, jump))
            jump = tuple(j * s for j, s in zip(jump, stride))
        table.append((layer, ReceptiveField(size, jump, start)))
    return table


def receptive_field(layers):
    """The ``ReceptiveField`` (size, jump, start per spatial axis) of the output of a stack of
    Conv1d/Conv2d/MaxPool2d/AvgPool2d and per-pixel layers, e.g.
    ``receptive_field(nn.Sequential(nn.Conv2d(1, 8, 3), nn.MaxPool2d(2), nn.Conv2d(8, 8, 3)))``
    gives size (8, 8): 3 + (2-1)·1 + (3-1)·2."""
    table = receptive_field_table(layers)
    if not table:
        raise ValueError("receptive_field: no layers given")
    return table[-1][1]
