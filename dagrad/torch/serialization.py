"""``torch.save`` / ``torch.load`` in PyTorch's own file format, and ``torch.serialization``.

Both go through ``nn``'s one door for files (``dagrad.nn.formats``). ``save`` writes PyTorch's
zip format, which ``torch.load(f, weights_only=True)`` in PyTorch reads (a path ending in
``.safetensors`` writes safetensors instead: a flat state dict of tensors). ``load`` reads
whatever the file holds, chosen by its content: files written by PyTorch's ``torch.save`` or by
``save``, safetensors, and the ``.npz`` files ``nn.save`` writes. Loading opens the file once,
through the regular-file guard, and never runs code from it: the pickle goes through an
unpickler that only knows PyTorch's ``weights_only`` names and dagrad's own modules. A model of
your own class loads once its class is allowed, as in PyTorch 2.6+: ``add_safe_globals([Net])``
or ``with safe_globals([Net]):``.
"""
import os

from dagrad.autograd.device import check_device
from dagrad.nn.formats import (add_safe_globals, clear_safe_globals,  # noqa: F401
                               get_safe_globals, safe_globals, unsafe_globals)
from dagrad.nn.formats import door

from ._missing import forward_to


def get_unsafe_globals_in_checkpoint(f):
    """The classes and functions a ``.pt`` file names that ``load`` would refuse, as
    ``'module.name'`` strings (read from the pickle, never run)."""
    return unsafe_globals(f)


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
    safetensors = isinstance(f, (str, os.PathLike)) and os.fspath(f).endswith(".safetensors")
    door.write(obj, f, "safetensors" if safetensors else "pt", None, "torch.save", "pt")


def load(f, map_location=None, pickle_module=None, *, weights_only=None, mmap=None, **kwargs):
    """Load what ``torch.save`` (PyTorch's or ``save``) wrote, from a path or binary file
    object. ``map_location`` may name the CPU (a GPU is refused); storages saved on a GPU need
    it, as in PyTorch on a machine without one. ``weights_only=False`` also allows every Module
    class defined in this program; nothing in the file is ever imported or run."""
    if not callable(map_location) and not isinstance(map_location, dict):
        check_device(map_location, "torch.load(map_location=...)")
    if pickle_module is not None:
        raise TypeError("torch.load: dagrad never runs pickle; drop pickle_module")
    return door.read(f, map_location, weights_only is not False, "torch.load", "pt")


__getattr__ = forward_to("torch.serialization")
