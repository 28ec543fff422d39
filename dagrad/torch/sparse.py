"""``torch.sparse``: products of sparse COO tensors with dense matrices (``autograd/sparse.py``)."""
from dagrad.autograd.sparse import spmm as mm  # noqa: F401

from ._missing import forward_to

__getattr__ = forward_to("torch.sparse")
