"""Dropout (stateless form)."""
import numpy as np

from dagrad.autograd import generator

from ._util import as_tensor


def dropout(input, p=0.5, training=True, inplace=False):
    """Inverted dropout: in training, each element is zeroed with probability p and the others
    are scaled by 1/(1 - p), so E[y] = x and evaluation needs no rescaling:

        y = x ⊙ m / (1 - p),   m ~ Bernoulli(1 - p)     (training)
        y = x                                              (evaluation)

    The mask comes from autograd's global generator (``ag.manual_seed``). ``inplace`` is
    accepted for PyTorch compatibility and ignored.
    """
    if not 0.0 <= p <= 1.0:
        raise ValueError(f"dropout: probability p must be in [0, 1], got {p}")
    x = as_tensor(input)
    if not training or p == 0.0:
        return x
    if p == 1.0:
        return x * np.zeros(x.shape, dtype=x.dtype)
    keep = generator().random(x.shape, dtype=np.float32) >= p
    return x * np.multiply(keep, 1.0 / (1.0 - p), dtype=x.dtype)
