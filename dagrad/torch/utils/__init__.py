"""``torch.utils`` in dagrad: only ``torch.utils.data`` (datasets and loaders)."""
from .._missing import forward_to
from . import data  # noqa: F401

__getattr__ = forward_to("torch.utils")
