"""``torch.cuda`` in dagrad: there is no GPU, so every query says so.

``is_available()`` is False and ``device_count()`` is 0, so the usual device choice
(``"cuda" if torch.cuda.is_available() else "cpu"``) picks the CPU; anything that would use
a GPU raises one error naming it.
"""
from . import amp as _amp
from ._missing import facade_module, forward_to

amp = facade_module(f"{__name__}.amp", "torch.cuda.amp: autocast and GradScaler, which do "
                    "nothing (there is no GPU; see torch.amp).",
                    attributes={"autocast": _amp.CudaAutocast,
                                "GradScaler": _amp.CudaGradScaler})


def is_available():
    """False: dagrad computes on the CPU only."""
    return False


def device_count():
    """0: dagrad sees no GPU."""
    return 0


def is_initialized():
    return False


def manual_seed(seed):
    """Seeding a GPU that is not there does nothing, as PyTorch without CUDA."""


def manual_seed_all(seed):
    """Seeding GPUs that are not there does nothing, as PyTorch without CUDA."""


def is_bf16_supported(including_emulation=True):
    """False: there is no CUDA device."""
    return False


def empty_cache():
    """Nothing to free: there is no GPU memory."""


__path__ = []           # a package to the import system: `import torch.cuda.amp` works
__getattr__ = forward_to("torch.cuda", hints={
    "current_device": "there is no CUDA device; torch.cuda.is_available() is False",
    "get_device_name": "there is no CUDA device; torch.cuda.is_available() is False"})
