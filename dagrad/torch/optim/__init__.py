"""``torch.optim`` in dagrad: ``dagrad.optim`` (update rules identical to PyTorch's)."""
from dagrad.optim import *  # noqa: F401,F403
from dagrad.optim import Optimizer  # noqa: F401

from .._missing import forward_to
from . import lr_scheduler  # noqa: F401

__getattr__ = forward_to("torch.optim", "dagrad.optim")
