"""``torch.utils.data`` in dagrad: ``dagrad.nn.data`` (Dataset, TensorDataset, DataLoader,
random_split, ...) and ``dagrad.nn.samplers``. ``DataLoader`` builds every batch in the calling
process; it accepts ``num_workers``, ``pin_memory`` and ``persistent_workers`` so PyTorch code
runs unchanged. PyTorch's files are modules here too (``from torch.utils.data.dataloader import
DataLoader``, ``torch.utils.data.sampler``, ``.dataset``, ``.distributed``)."""
from dagrad.nn.data import *  # noqa: F401,F403

from ..._missing import forward_to
from . import dataloader, dataset, distributed, sampler  # noqa: F401
from .distributed import DistributedSampler  # noqa: F401

__getattr__ = forward_to("torch.utils.data", "dagrad.nn.data")
