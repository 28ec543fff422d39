"""Dropout."""
from . import functional as F
from .module import Module
from .geometry import POINTWISE


class Dropout(Module):
    """Inverted dropout: in training mode zero each element with probability p and scale the
    rest by 1/(1 - p); in evaluation mode (``model.eval()``) the identity."""

    geometry = POINTWISE     # acts on each pixel alone (receptive field)

    def __init__(self, p=0.5, inplace=False):
        super().__init__()
        if not 0.0 <= p <= 1.0:
            raise ValueError(f"Dropout: probability p must be in [0, 1], got {p}")
        self.p = p
        self.inplace = inplace

    def forward(self, input):
        return F.dropout(input, self.p, self.training)

    def extra_repr(self):
        return f"p={self.p}"


class Dropout1d(Dropout):
    """Channel dropout for (N, C, L) or (C, L): whole channels are zeroed with probability p,
    the rest scaled by 1/(1 - p); the identity in evaluation mode (``F.dropout1d``)."""

    def forward(self, input):
        return F.dropout1d(input, self.p, self.training)


class Dropout2d(Dropout):
    """Channel dropout for (N, C, H, W) or (C, H, W): whole feature maps are zeroed with
    probability p, the rest scaled by 1/(1 - p); the identity in evaluation mode."""

    def forward(self, input):
        return F.dropout2d(input, self.p, self.training)
