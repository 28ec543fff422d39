"""The one global random-number generator behind ``rand``, ``randn``, dropout and init."""
import numpy as np

_generator = np.random.default_rng(0)


def manual_seed(seed):
    """Reset the global generator: the same seed gives the same random numbers."""
    global _generator
    _generator = np.random.default_rng(seed)
    return _generator


def generator():
    """The global ``numpy.random.Generator`` (use it for any randomness in the library)."""
    return _generator
