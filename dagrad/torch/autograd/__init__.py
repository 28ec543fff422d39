"""``torch.autograd`` in dagrad: ``grad``, ``backward``, ``Function`` and ``functional``.

``Function`` is PyTorch's form of a custom operation (static ``forward``/``backward`` on
Tensors, ``ctx.save_for_backward``), ``dagrad.autograd.CustomFunction``."""
from dagrad.autograd import CustomFunction as Function  # noqa: F401
from dagrad.autograd import (backward, detect_anomaly, enable_grad, grad,  # noqa: F401
                             gradcheck, no_grad, set_grad_enabled)

from .._missing import forward_to
from . import functional  # noqa: F401

__getattr__ = forward_to("torch.autograd", "dagrad.autograd")
