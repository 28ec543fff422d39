"""``Geometry``: the window a layer reads (kernel, stride, padding, dilation), which the
layers declare and ``nn.utils.receptive_field`` composes. A leaf module: the layers import it,
and it imports nothing of theirs."""
from typing import NamedTuple


class Geometry(NamedTuple):
    """The window a layer reads, per spatial axis: ``kernel``, ``stride``, ``padding`` (the
    low side: top, left) and ``dilation``, each a tuple of ints, or one int for every axis."""
    kernel: tuple
    stride: tuple
    padding: tuple
    dilation: tuple


POINTWISE = Geometry(1, 1, 0, 1)    # a layer that maps each pixel on its own
