"""The one door for files: ``save`` and ``load`` for every format dagrad writes and reads.

=============  =====================  ==============================================  ==========
format         suffix (when saving)   holds                                           read by
=============  =====================  ==============================================  ==========
``pt``         ``.pt``, ``.pth``      what ``torch.save`` saves: checkpoints, whole   PyTorch
                                      modules, optimizer state
``npz``        ``.npz``               the same without pickle: arrays NumPy reads,    NumPy
                                      a JSON manifest for the structure
``safetensors`` ``.safetensors``      a flat state dict of tensors, string metadata   Hugging Face
=============  =====================  ==============================================  ==========

Saving chooses by ``format``, else by the suffix, else the caller's default (``npz`` for
``nn.save``, ``pt`` for ``torch.save``), and writes atomically (``atomic``). Loading chooses
by content: a path is opened once, through the regular-file guard (``guard``), and everything
is read from that handle. A zip holding ``__dagrad__.npy`` is dagrad's ``.npz``, any other zip
PyTorch's ``.pt``; eight bytes of header length that fit the file, then ``{``, are
safetensors. For a file that is none of them, the reader of the format its suffix names (or
the default) says what is wrong with it. Whole modules are rebuilt under one policy in every
format (``allowlist``, ``modules``).
"""
import contextlib
import io
import os
import zipfile

from . import npz, pt, safetensors
from .atomic import atomic_write
from .guard import file_size, open_regular_file

FORMATS = ("pt", "npz", "safetensors")
SUFFIXES = {".pt": "pt", ".pth": "pt", ".npz": "npz", ".safetensors": "safetensors"}
_ZIP = b"PK\x03\x04"


def save(obj, f, format=None, *, metadata=None):
    """``nn.save``: write ``obj`` (a state dict, a checkpoint of them, a whole module) to the
    path ``f`` (atomically) or the binary file object ``f``, in ``format``: ``"pt"`` (what
    PyTorch's ``torch.load`` reads), ``"npz"`` or ``"safetensors"`` (a flat state dict of
    tensors, with string ``metadata``); None chooses by the suffix (``.pt``, ``.pth``,
    ``.npz``, ``.safetensors``) and writes ``.npz`` for any other.

        nn.save({"model": model.state_dict(), "epoch": 3}, "checkpoint.pt")
        nn.save(model.state_dict(), "model.safetensors", metadata={"format": "pt"})
    """
    write(obj, f, format, metadata, "nn.save", "npz")


def load(f, map_location=None, *, weights_only=True):
    """``nn.load``: what the file at path ``f`` (or the binary file object ``f``) holds, in
    whichever format it is (``.pt`` from PyTorch or dagrad, dagrad's ``.npz``, safetensors):
    Tensors as Tensors, state dicts as dicts, whole modules as modules. ``map_location`` and
    ``weights_only`` are ``torch.load``'s.

    Raises ``FileNotFoundError`` for a missing file and ``SerializationError`` (a ValueError)
    for anything else wrong with it: not a regular file (a FIFO or device is refused at
    once), truncated, corrupted, foreign, hostile, or naming a class the allowlist lacks."""
    return read(f, map_location, weights_only, "nn.load", "npz")


def write(obj, f, format, metadata, who, default):
    """Write ``obj`` to the path (atomically) or binary file object ``f`` in ``format``
    (``"pt"``, ``"npz"``, ``"safetensors"``, or None: by the suffix, else ``default``).
    ``metadata`` (str -> str) goes into a safetensors header. Everything that could be
    refused is checked before any file is touched."""
    chosen = _format_to_write(f, format, default, who)
    if metadata is not None and chosen != "safetensors":
        raise TypeError(f"{who}: metadata is stored only in a safetensors file; this one is "
                        f"{chosen} (give a path ending in .safetensors, or format='safetensors')")
    if chosen == "safetensors":
        write = safetensors.writer(obj, who, metadata)
    else:
        write = (pt if chosen == "pt" else npz).writer(obj, who)
    if isinstance(f, (str, os.PathLike)):
        atomic_write(f, write)
    elif hasattr(f, "write"):
        write(f)
    else:
        raise TypeError(f"{who}: expected a path or a binary file object, got "
                        f"{type(f).__name__}")


def read(f, map_location, weights_only, who, default):
    """Read the file at path ``f`` (or the binary file object ``f``) in whichever format it
    is (see the module's docstring). ``map_location`` and ``weights_only`` are
    ``torch.load``'s; ``weights_only=False`` also allows every Module class the program
    defines, still never running code from the file."""
    with opened(f, who) as (fh, where):
        chosen = sniff(fh) or SUFFIXES.get(_suffix(where), default)
        if chosen == "pt":
            return pt.read(fh, where, who, weights_only, map_location)
        if chosen == "npz":
            return npz.read(fh, where, who, weights_only)
        return safetensors.read(fh, where, who)


def format_of(f):
    """``"pt"``, ``"npz"`` or ``"safetensors"``: the format the file at path ``f`` (or the
    binary file object ``f``) holds, read from its first bytes; None for anything else."""
    with opened(f, "format_of") as (fh, _):
        return sniff(fh)


def safetensors_metadata(f):
    """The ``__metadata__`` dict (str -> str) of a safetensors file, or {} when it has none.
    Reads only the header."""
    with opened(f, "safetensors_metadata") as (fh, where):
        return safetensors.read_metadata(fh, where, "safetensors_metadata")


def unsafe_globals(f):
    """The classes and functions a ``.pt`` file names that loading would refuse, as
    ``'module.name'`` strings (read from the pickle, never run)."""
    with opened(f, "get_unsafe_globals_in_checkpoint") as (fh, where):
        return pt.unsafe_globals(fh, where)


@contextlib.contextmanager
def opened(f, who):
    """``(binary file positioned at its start, its name for messages)`` for a path, opened
    through the regular-file guard and closed after, or for a binary file object (read into
    memory first when it cannot seek, or does not start at its beginning)."""
    if isinstance(f, (str, os.PathLike)):
        with open_regular_file(f, who) as fh:
            yield fh, os.fspath(f)
        return
    if not hasattr(f, "read"):
        raise TypeError(f"{who}: expected a path or a binary file object, got "
                        f"{type(f).__name__}")
    if isinstance(f.read(0), str):
        raise TypeError(f"{who}: the file object is open in text mode; open it with 'rb'")
    if not (hasattr(f, "seekable") and f.seekable()) or f.tell() != 0:
        f = io.BytesIO(f.read())
    yield f, "<file object>"


def sniff(fh):
    """The format the binary file ``fh`` holds, from its first bytes (and, for a zip, its
    member names); None when it is none of them. Leaves ``fh`` at its start."""
    head = fh.read(16)
    fh.seek(0)
    if head[:4] == _ZIP:
        names = _zip_names(fh)
        numpy_only = names and all(name.endswith(".npy") for name in names)
        return "npz" if npz.MANIFEST + ".npy" in names or numpy_only else "pt"
    if safetensors.looks_like(head, file_size(fh)):
        return "safetensors"
    return None


def _zip_names(fh):
    """The member names a zip's central directory lists ([] if it cannot be read: the
    format's reader then says why). The directory lies inside the file, so this is bounded."""
    try:
        with zipfile.ZipFile(fh) as zf:
            return zf.namelist()
    except Exception:           # zipfile raises many types for damaged archives
        return []
    finally:
        fh.seek(0)


def _suffix(name):
    return os.path.splitext(name)[1].lower()


def _format_to_write(f, format, default, who):
    if format is None:
        name = os.fspath(f) if isinstance(f, (str, os.PathLike)) else ""
        return SUFFIXES.get(_suffix(name), default)
    if format not in FORMATS:
        raise ValueError(f"{who}: format must be one of {', '.join(map(repr, FORMATS))} (or "
                         f"None: chosen by the file's suffix), got {format!r}")
    return format
