"""``torch.backends`` in dagrad: the GPU back ends (mps, cudnn, cuda) report that they are
absent, so device-choosing code such as ``torch.backends.mps.is_available()`` picks the CPU.

Each is a module (``import torch.backends.cudnn as cudnn`` works) whose settings PyTorch code
assigns (``cudnn.benchmark = True``, ``cudnn.deterministic = True``) are kept and change
nothing: dagrad's CPU results are deterministic for a given seed anyway.
"""
import sys
import types

from ._missing import forward_to


def _false():
    return False


def _backend(name, doc, **attributes):
    module = types.ModuleType(f"{__name__}.{name}", doc)
    module.__dict__.update(attributes)
    module.__getattr__ = forward_to(f"torch.backends.{name}")
    sys.modules[module.__name__] = module
    return module


mps = _backend("mps", "Apple's GPU: absent.", is_available=_false, is_built=_false)
cuda = _backend("cuda", "CUDA: absent.", is_built=_false)
cudnn = _backend("cudnn", "cuDNN: absent; its settings are kept and change nothing.",
                 is_available=_false, enabled=False, deterministic=False, benchmark=False,
                 allow_tf32=False)

__path__ = []           # a package to the import system: `import torch.backends.cudnn` works
__getattr__ = forward_to("torch.backends")
