"""Files: ``nn.save(obj, path, format=None)`` and ``nn.load(path)`` for every format dagrad
reads and writes (PyTorch's ``.pt``, dagrad's ``.npz``, safetensors), chosen by content when
loading and by suffix when saving (``door``).

Every reader opens its file once through the regular-file guard (``guard``), bounds what it
allocates by the file's size, runs no code from the file and raises ``SerializationError``
for anything wrong with it; whole modules are rebuilt under one policy (``allowlist``: PyTorch's
weights_only set, dagrad's layers, the user's ``add_safe_globals``). Writers replace files
atomically (``atomic``).

    guard.py         the regular-file guard: open once, refuse FIFOs and devices
    door.py          save / load: choose the format, open the file, call its reader or writer
    npz.py           dagrad's .npz (module_tree.py: whole modules in it)
    safetensors.py   the safetensors format
    pt/              PyTorch's .pt format: zip archive, pickle written and read opcode by opcode
    allowlist.py     which classes and functions a file may name, in every format
    modules.py       what is saved of a module, how it is rebuilt, no cycles
    zipcheck.py      zip archives checked before a member is read
    atomic.py        atomic_write
    errors.py        SerializationError, RefusedGlobalError
    class_paths.py   torch.nn.modules.<file>.<Class>: PyTorch's paths to dagrad's layers
    legacy.py        nn.save_pt and the other names before the one door (deprecated)
"""
from .allowlist import add_safe_globals, clear_safe_globals, get_safe_globals, safe_globals
from .door import FORMATS, format_of, load, safetensors_metadata, save, unsafe_globals
from .errors import RefusedGlobalError, SerializationError

__all__ = ["save", "load", "format_of", "safetensors_metadata", "unsafe_globals", "FORMATS",
           "SerializationError", "RefusedGlobalError", "add_safe_globals",
           "clear_safe_globals", "get_safe_globals", "safe_globals"]
