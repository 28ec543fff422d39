"""Dropout."""
from . import functional as F
from .module import Module


class Dropout(Module):
    """Inverted dropout: in training mode zero each element with probability p and scale the
    rest by 1/(1 - p); in evaluation mode (``model.eval()``) the identity."""

    def __init__(self, p=0.5, inplace=False):
        super().__init__()
        if not 0.0 <= p <= 1.0:
            raise ValueError(f"Dropout: probability p must be in [0, 1], got {p}")
        self.p = p

    def forward(self, input):
        return F.dropout(input, self.p, self.training)

    def extra_repr(self):
        return f"p={self.p}"
