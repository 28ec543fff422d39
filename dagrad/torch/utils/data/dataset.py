"""``torch.utils.data.dataset``: the datasets and ``random_split`` (``dagrad.nn.data``)."""
from dagrad.nn.data import Dataset, Subset, TensorDataset, random_split  # noqa: F401

from ..._missing import forward_to

__getattr__ = forward_to("torch.utils.data.dataset", "dagrad.nn.data")
