"""``torch.functional`` in dagrad: the functions PyTorch defines in Python (``split``,
``meshgrid``, ``norm``), the same objects as ``torch.split``, ... Its other names
(``einsum``, ``stft``, ``cdist``, ...) raise NotInDagradError. (dagrad's Jacobians and Hessians
are ``torch.autograd.functional``, as in PyTorch.)"""
from dagrad.autograd import meshgrid, norm, split  # noqa: F401

from ._missing import forward_to

__getattr__ = forward_to("torch.functional")
