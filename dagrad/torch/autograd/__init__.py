"""``torch.autograd`` in dagrad: ``grad``, ``backward``, ``Function`` and ``functional``."""
from dagrad.autograd import (Function, backward, detect_anomaly, enable_grad, grad,  # noqa
                             gradcheck, no_grad, set_grad_enabled)

from .._missing import forward_to
from . import functional  # noqa: F401

__getattr__ = forward_to("torch.autograd", "dagrad.autograd")
