"""``torch.autograd.functional`` in dagrad: jacobian, hessian, vjp, jvp, hvp."""
from dagrad.autograd.functional import *  # noqa: F401,F403

from .._missing import forward_to

__getattr__ = forward_to("torch.autograd.functional", "dagrad.autograd.functional")
