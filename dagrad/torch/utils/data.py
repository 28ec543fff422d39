"""``torch.utils.data`` in dagrad: ``dagrad.nn.data`` (Dataset, TensorDataset, DataLoader,
random_split, ...). ``DataLoader`` builds every batch in the calling process; it accepts
``num_workers``, ``pin_memory`` and ``persistent_workers`` so PyTorch code runs unchanged."""
from dagrad.nn.data import *  # noqa: F401,F403

from .._missing import forward_to

__getattr__ = forward_to("torch.utils.data", "dagrad.nn.data")
