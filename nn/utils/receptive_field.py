"""The receptive field of a stack of convolution and pooling layers: which input pixels one
output pixel can see.

Every layer that reads a fixed window of its input describes that window as its ``geometry``:
kernel k, stride s, low-side padding p and dilation d per spatial axis (``Conv1d``, ``Conv2d``,
``MaxPool2d``, ``AvgPool2d``; a layer that acts on each pixel separately, such as an activation,
batch norm or dropout, is the window ``POINTWISE``: k = 1, s = 1, p = 0, d = 1). Output pixel q
of such a layer reads the input pixels q·s - p + i·d, i = 0..k-1. Chaining layers, with r the
receptive field size, j the jump (the input distance between neighbouring output pixels of the
stack so far) and c the input coordinate of the centre of output pixel 0:

    r_out = r_in + d·(k-1)·j_in,     j_out = j_in·s,     c_out = c_in + (d·(k-1)/2 - p)·j_in

starting from r = 1, j = 1, c = 0 at the input. A layer of your own joins in by defining
``geometry`` (an attribute or a property returning a ``Geometry``).
"""
from typing import NamedTuple

from ..containers import ModuleList, Sequential
from ..geometry import POINTWISE, Geometry  # noqa: F401  (nn.utils re-exports them)


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
        if getattr(item, "geometry", None) is None and isinstance(
                item, (list, tuple, Sequential, ModuleList)):
            stack.extend(reversed(list(item)))
        else:
            out.append(item)
    return out


def _axes(value, n):
    return tuple(value) if isinstance(value, tuple) else (value,) * n


def _geometry(layer, n):
    """The layer's ``Geometry`` with every field a tuple of n ints."""
    geometry = getattr(layer, "geometry", None)
    name = type(layer).__name__
    if geometry is None:
        raise ValueError(f"receptive_field: {name} describes no geometry (kernel, stride, "
                         f"padding, dilation), so the receptive field through it is not a fixed "
                         f"window (a Linear or adaptive pooling layer sees the whole input). "
                         f"Pass only the convolutional part, e.g. model[:k].")
    fields = Geometry(*(_axes(v, n) for v in geometry))
    if any(len(v) != n for v in fields):
        raise ValueError(f"receptive_field: {name} has a geometry over {len(fields.kernel)} "
                         f"spatial axes but the stack has {n}")
    return fields


def receptive_field_table(layers):
    """[(layer, ReceptiveField after it), ...] for each leaf layer of ``layers`` in order."""
    leaves = _layers(layers)
    n = next((len(g.kernel) for g in (getattr(layer, "geometry", None) for layer in leaves)
              if g is not None and isinstance(g.kernel, tuple)), 2)
    size, jump, start = (1,) * n, (1,) * n, (0.0,) * n
    table = []
    for layer in leaves:
        kernel, stride, pad, dil = _geometry(layer, n)
        start = tuple(c + (d * (k - 1) / 2 - p) * j
                      for c, d, k, p, j in zip(start, dil, kernel, pad, jump))
        size = tuple(r + d * (k - 1) * j for r, d, k, j in zip(size, dil, kernel, jump))
        jump = tuple(j * s for j, s in zip(jump, stride))
        table.append((layer, ReceptiveField(size, jump, start)))
    return table


def receptive_field(layers):
    """The ``ReceptiveField`` (size, jump, start per spatial axis) of the output of a stack of
    layers that describe their ``geometry``, e.g.
    ``receptive_field(nn.Sequential(nn.Conv2d(1, 8, 3), nn.MaxPool2d(2), nn.Conv2d(8, 8, 3)))``
    gives size (8, 8): 3 + (2-1)·1 + (3-1)·2."""
    table = receptive_field_table(layers)
    if not table:
        raise ValueError("receptive_field: no layers given")
    return table[-1][1]
