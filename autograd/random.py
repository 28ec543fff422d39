"""The one global random-number generator behind ``rand``, ``randn``, dropout and init."""
import numpy as np

from .device import check_device

_generator = np.random.default_rng(0)


def manual_seed(seed):
    """Reset the global generator: the same seed gives the same random numbers."""
    global _generator
    _generator = np.random.default_rng(seed)
    return _generator


def generator():
    """The global ``numpy.random.Generator`` (use it for any randomness in the library)."""
    return _generator


class Generator:
    """PyTorch's ``torch.Generator``: a random stream of its own, for ``randn(...,
    generator=g)``, ``DataLoader(..., generator=g)`` and ``random_split``.
    ``Generator().manual_seed(0)`` returns the generator, as in PyTorch."""

    def __init__(self, device="cpu"):
        check_device(device, "Generator")
        self._seed = 0
        self.numpy_generator = np.random.default_rng(0)

    def manual_seed(self, seed):
        self._seed = int(seed)
        self.numpy_generator = np.random.default_rng(self._seed)
        return self

    def initial_seed(self):
        return self._seed


def numpy_generator(gen=None):
    """The ``numpy.random.Generator`` behind ``gen``: a ``Generator``, a NumPy generator, or
    None for the global one."""
    if gen is None:
        return _generator
    return getattr(gen, "numpy_generator", gen)
