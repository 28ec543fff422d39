"""``torch.nn.functional`` in dagrad: ``dagrad.nn.functional``."""
from dagrad.nn.functional import *  # noqa: F401,F403

from .._missing import forward_to

__getattr__ = forward_to("torch.nn.functional", "dagrad.nn.functional")
