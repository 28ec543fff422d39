"""``torch.optim.lr_scheduler`` in dagrad: ``dagrad.optim.lr_scheduler``."""
from dagrad.optim.lr_scheduler import *  # noqa: F401,F403

from .._missing import forward_to

__getattr__ = forward_to("torch.optim.lr_scheduler", "dagrad.optim.lr_scheduler")
