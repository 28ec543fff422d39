"""Dropout (stateless form)."""
import warnings

import numpy as np

from dagrad.autograd import as_tensor, generator


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


def _channel_dropout(input, p, training, spatial, name):
    """Dropout of whole channels: input (N, C, *S) or (C, *S) with ``spatial`` = len(S); one
    Bernoulli(1 - p) draw per (sample, channel) zeroes or keeps the whole feature map:

        y[n, c] = x[n, c] · m[n, c] / (1 - p),   m[n, c] ~ Bernoulli(1 - p)
    """
    if not 0.0 <= p <= 1.0:
        raise ValueError(f"{name}: probability p must be in [0, 1], got {p}")
    x = as_tensor(input)
    if x.ndim not in (spatial + 1, spatial + 2):
        raise ValueError(f"{name}: expected a {spatial + 1}-D (C, ...) or {spatial + 2}-D "
                         f"(N, C, ...) input, got shape {tuple(x.shape)}")
    if not training or p == 0.0:
        return x
    mask_shape = x.shape[:x.ndim - spatial] + (1,) * spatial
    keep = generator().random(mask_shape, dtype=np.float32) >= p
    scale = 0.0 if p == 1.0 else 1.0 / (1.0 - p)
    return x * np.multiply(keep, scale, dtype=x.dtype)


def dropout1d(input, p=0.5, training=True, inplace=False):
    """Channel dropout for (N, C, L) or (C, L) inputs: each channel is zeroed entirely with
    probability p, the others scaled by 1/(1 - p) (neighbouring positions are correlated, so
    dropping single elements would regularise little)."""
    return _channel_dropout(input, p, training, 1, "dropout1d")


def dropout2d(input, p=0.5, training=True, inplace=False):
    """Channel dropout for (N, C, H, W) inputs: each feature map is zeroed entirely with
    probability p, the others scaled by 1/(1 - p).

    Other shapes are treated as PyTorch 2.x treats them, with its warnings: a 3-D input is
    (N, C, L), so whole length-L channels are dropped (dropout1d's behaviour, not (C, H, W));
    a 2-D input (N, C) gets one draw per element, as ``dropout`` would."""
    x = as_tensor(input)
    if x.ndim not in (3, 4):
        warnings.warn(f"dropout2d: Received a {x.ndim}-D input to dropout2d, which is "
                      f"deprecated and will result in an error in a future release. To retain "
                      f"the behavior and silence this warning, please use dropout instead. "
                      f"Note that dropout2d exists to provide channel-wise dropout on inputs "
                      f"with 2 spatial dimensions, a channel dimension, and an optional batch "
                      f"dimension (i.e. 3D or 4D inputs).", stacklevel=2)
    if x.ndim == 3:
        warnings.warn("dropout2d: Received a 3D input to dropout2d and assuming that "
                      "channel-wise 1D dropout behavior is desired - input is interpreted as "
                      "shape (N, C, L), where C is the channel dim. To maintain the 1D "
                      "channel-wise dropout behavior, please switch to using dropout1d "
                      "instead.", stacklevel=2)
    if x.ndim < 2:
        raise ValueError(f"dropout2d: feature dropout needs at least 2 dimensions (N, C, ...), "
                         f"got shape {tuple(x.shape)}")
    return _channel_dropout(x, p, training, x.ndim - 2, "dropout2d")
