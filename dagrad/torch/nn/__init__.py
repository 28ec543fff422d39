"""``torch.nn`` in dagrad: the modules, losses and containers of ``dagrad.nn``."""
from dagrad.nn import *  # noqa: F401,F403
from dagrad.nn import Module, Parameter  # noqa: F401

from .. import _missing
from . import functional, init, modules, parallel, utils  # noqa: F401
from .parallel import DataParallel  # noqa: F401

__getattr__ = _missing.forward_to("torch.nn", "dagrad.nn")
