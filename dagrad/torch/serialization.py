"""``torch.save`` / ``torch.load`` in PyTorch's own file format, and ``torch.serialization``.

``save`` writes PyTorch's zip format (``nn.save_pt``), which ``torch.load(f, weights_only=True)``
in PyTorch reads; ``load`` reads files written by PyTorch's ``torch.save`` or by ``save``
(``nn.load_pt``), through an unpickler that only knows PyTorch's ``weights_only`` names and
dagrad's own modules, so a file never runs code. A model of your own class loads once its class
is allowed, as in PyTorch 2.6+: ``add_safe_globals([Net])`` or ``with safe_globals([Net]):``.
A path ending in ``.safetensors`` chooses that format instead (a flat state dict of tensors,
``nn.save_safetensors`` / ``nn.load_safetensors``); ``load`` also reads the ``.npz`` files
``nn.save`` writes.
"""
import os
import zipfile

from dagrad.autograd.device import check_device
from dagrad.nn.safetensors import load_safetensors, save_safetensors
from dagrad.nn.serialization import MANIFEST
from dagrad.nn.serialization import load as _load_npz
from dagrad.nn.torchfile import (add_safe_globals, clear_safe_globals,  # noqa: F401
                                 get_safe_globals, load_pt, safe_globals, save_pt)

from ._missing import forward_to


def get_unsafe_globals_in_checkpoint(f):
    """The classes and functions a ``.pt`` file names that ``load`` would refuse, as
    ``'module.name'`` strings (read from the pickle, never run)."""
    from dagrad.nn.torchfile import unsafe_globals
    return unsafe_globals(f)


def _is_safetensors(f):
    return isinstance(f, (str, os.PathLike)) and os.fspath(f).endswith(".safetensors")


def _is_dagrad_npz(f):
    if not isinstance(f, (str, os.PathLike)) or not zipfile.is_zipfile(f):
        return False
    with zipfile.ZipFile(f) as zf:
        return MANIFEST + ".npy" in zf.namelist()


def save(obj, f, pickle_module=None, pickle_protocol=2, _use_new_zipfile_serialization=True,
         **kwargs):
    """Save ``obj`` (tensors, state dicts, optimizer state, checkpoints of them, whole modules)
    to the path or binary file object ``f`` in PyTorch's format; a path ending in
    ``.safetensors`` takes a state dict and writes safetensors."""
    if pickle_module is not None:
        raise TypeError("torch.save: dagrad writes PyTorch's pickle itself; drop pickle_module")
    if not _use_new_zipfile_serialization:
        raise ValueError("torch.save: dagrad writes only PyTorch's zip format (the default "
                         "since PyTorch 1.6); drop _use_new_zipfile_serialization=False")
    if _is_safetensors(f):
        if not isinstance(obj, dict):
            raise TypeError(f"torch.save: a .safetensors file holds a state dict (name -> "
                            f"tensor), got a {type(obj).__name__}; save model.state_dict(), or "
                            f"use another suffix for checkpoints")
        save_safetensors(obj, f)
    else:
        save_pt(obj, f)


def load(f, map_location=None, pickle_module=None, *, weights_only=None, mmap=None, **kwargs):
    """Load what ``torch.save`` (PyTorch's or ``save``) wrote, from a path or binary file
    object. ``map_location`` may name the CPU (a GPU is refused); storages saved on a GPU need
    it, as in PyTorch on a machine without one. ``weights_only=False`` also allows every Module
    class defined in this program; nothing in the file is ever imported or run."""
    if not callable(map_location) and not isinstance(map_location, dict):
        check_device(map_location, "torch.load(map_location=...)")
    if pickle_module is not None:
        raise TypeError("torch.load: dagrad never runs pickle; drop pickle_module")
    if _is_safetensors(f):
        return load_safetensors(f)
    if _is_dagrad_npz(f):
        return _load_npz(f)
    return load_pt(f, map_location=map_location, weights_only=weights_only is not False)


__getattr__ = forward_to("torch.serialization")
