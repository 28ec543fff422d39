"""``torch.utils.data.sampler``: the samplers (``dagrad.nn.samplers``)."""
from dagrad.nn.samplers import (BatchSampler, RandomSampler, Sampler,  # noqa: F401
                                SequentialSampler, SubsetRandomSampler, WeightedRandomSampler)

from ..._missing import forward_to

__getattr__ = forward_to("torch.utils.data.sampler", "dagrad.nn.samplers")
