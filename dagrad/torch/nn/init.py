"""``torch.nn.init`` in dagrad: ``dagrad.nn.init`` (PyTorch's initialisers and defaults)."""
from dagrad.nn.init import *  # noqa: F401,F403

from .._missing import forward_to

__getattr__ = forward_to("torch.nn.init", "dagrad.nn.init")
