"""``torch.save`` / ``torch.load`` in dagrad's safe format (``nn.save`` / ``nn.load``).

State dicts, optimizer state, nested checkpoints (dicts, lists, tuples of tensors, numbers,
strings) and whole modules of dagrad's own classes are written as an ``.npz`` file with a JSON
manifest; loading never unpickles, so it never runs code from the file. The file is not
PyTorch's format. A path ending in ``.safetensors`` chooses that format instead (a flat state
dict of tensors, ``nn.save_safetensors`` / ``nn.load_safetensors``), which PyTorch and Hugging
Face read.
"""
import os

from dagrad.autograd.device import check_device
from dagrad.nn.safetensors import load_safetensors, save_safetensors
from dagrad.nn.serialization import load as _load
from dagrad.nn.serialization import save as _save


def _is_safetensors(f):
    return isinstance(f, (str, os.PathLike)) and os.fspath(f).endswith(".safetensors")


def save(obj, f, pickle_module=None, pickle_protocol=None, **kwargs):
    """Save ``obj`` (state dict, checkpoint, or whole dagrad module) to the path ``f``; a
    path ending in ``.safetensors`` takes a state dict and writes safetensors."""
    if pickle_module is not None:
        raise TypeError("torch.save: dagrad never pickles; drop pickle_module")
    if _is_safetensors(f):
        if not isinstance(obj, dict):
            raise TypeError(f"torch.save: a .safetensors file holds a state dict (name -> "
                            f"tensor), got a {type(obj).__name__}; save model.state_dict(), or "
                            f"use another suffix for checkpoints")
        save_safetensors(obj, f)
    else:
        _save(obj, f)


def load(f, map_location=None, pickle_module=None, *, weights_only=None, mmap=None, **kwargs):
    """Load what ``save`` wrote (by the path's suffix, as ``save`` chose). ``map_location`` may name the CPU (a GPU is refused);
    ``weights_only`` is accepted (the format holds only data anyway)."""
    if not callable(map_location) and not isinstance(map_location, dict):
        check_device(map_location, "torch.load(map_location=...)")
    if pickle_module is not None:
        raise TypeError("torch.load: dagrad never unpickles; drop pickle_module")
    return load_safetensors(f) if _is_safetensors(f) else _load(f)
