"""``torch.nn.utils`` in dagrad: gradient clipping and parameter/vector conversion."""
from dagrad.nn.utils import *  # noqa: F401,F403

from .._missing import forward_to

__getattr__ = forward_to("torch.nn.utils", "dagrad.nn.utils")
