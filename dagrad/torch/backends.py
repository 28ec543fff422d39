"""``torch.backends`` in dagrad: the GPU back ends (mps, cudnn) report that they are absent,
so device-choosing code such as ``torch.backends.mps.is_available()`` picks the CPU."""
from types import SimpleNamespace

from ._missing import forward_to


def _false():
    return False


mps = SimpleNamespace(is_available=_false, is_built=_false)
cuda = SimpleNamespace(is_built=_false)
cudnn = SimpleNamespace(is_available=_false, enabled=False, deterministic=False,
                        benchmark=False)

__getattr__ = forward_to("torch.backends")
