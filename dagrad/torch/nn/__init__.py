"""``torch.nn`` in dagrad: the modules, losses and containers of ``dagrad.nn``."""
from dagrad.nn import *  # noqa: F401,F403
from dagrad.nn import Module, Parameter  # noqa: F401

from .. import _missing

# The facade's own submodules, not dagrad.nn's of the same names that the star import brought
# (``from . import functional`` would keep those): their __getattr__ says what dagrad lacks.
import dagrad.torch.nn.functional  # noqa: E402,F401
import dagrad.torch.nn.init  # noqa: E402,F401
import dagrad.torch.nn.utils  # noqa: E402,F401
from . import modules, parallel  # noqa: E402,F401
from .parallel import DataParallel  # noqa: E402,F401

__getattr__ = _missing.forward_to("torch.nn", "dagrad.nn")
