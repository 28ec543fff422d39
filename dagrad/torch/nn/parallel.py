"""``torch.nn.parallel``: ``DataParallel`` on the CPU is the module itself, as in PyTorch on a
machine without GPUs (it then calls the wrapped module directly); distributed training is not
in dagrad (``DistributedDataParallel`` imports, and making one raises NotInDagradError)."""
from dagrad.nn import Module

from .._missing import forward_to
from ..distributed import refused_class

DistributedDataParallel = refused_class("torch.nn.parallel.DistributedDataParallel")


class DataParallel(Module):
    """Wraps ``module`` (reachable as ``.module``, its state dict keys prefixed ``module.``, as
    PyTorch's); calling it calls ``module``. ``device_ids`` may only name no GPU."""

    def __init__(self, module, device_ids=None, output_device=None, dim=0):
        super().__init__()
        if device_ids:
            from dagrad.autograd.device import check_device
            check_device(device_ids[0], "DataParallel(device_ids=...)")
        self.module = module
        self.dim = dim

    def forward(self, *inputs, **kwargs):
        return self.module(*inputs, **kwargs)


__getattr__ = forward_to("torch.nn.parallel")
