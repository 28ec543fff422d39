"""``torch.utils.data.dataloader``: ``DataLoader`` and ``default_collate`` (``dagrad.nn.data``)."""
from dagrad.nn.data import DataLoader, default_collate  # noqa: F401

from ..._missing import forward_to

__getattr__ = forward_to("torch.utils.data.dataloader", "dagrad.nn.data")
