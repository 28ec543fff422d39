"""``torch.utils.data.distributed``: ``DistributedSampler`` imports, and making one raises
NotInDagradError (dagrad trains in one process; see ``torch.distributed``)."""
from ..._missing import forward_to
from ...distributed import refused_class

DistributedSampler = refused_class("torch.utils.data.distributed.DistributedSampler")

__getattr__ = forward_to("torch.utils.data.distributed")
