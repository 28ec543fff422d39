"""``save`` / ``load``: state dicts (and checkpoints made of them) as ``.npz`` files.

Loading never runs code: the file is a zip of ``.npy`` arrays read with
``allow_pickle=False``. Besides the arrays it holds one JSON manifest (stored as a NumPy string
array under ``__dagrad__``) with the format version and the structure of the saved object, so
nested checkpoints such as ``{"model": model.state_dict(), "optimizer": opt.state_dict(),
"epoch": 3}`` round-trip too. A module state dict stores each array under its own name
("0.weight", ...), so ``numpy.load`` reads it directly.

Saving writes to a temporary file in the same directory and renames it over the target, so an
interrupted or failed save leaves any previous file intact.
"""
import json
import os
import tempfile
import zipfile
from collections import OrderedDict

import numpy as np

from dagrad.autograd import Tensor

from .module import Module
from .module_tree import module_to_tree, tree_to_module

FORMAT = "dagrad.state"
VERSION = 1
MANIFEST = "__dagrad__"


class SerializationError(ValueError):
    """The file is not a readable dagrad state file (truncated, corrupted or foreign)."""


def save(obj, path):
    """Save ``obj`` to ``path`` (an ``.npz`` file, written atomically).

    ``obj`` is a state dict (name -> Tensor or ndarray) or any nesting of dicts (str or int
    keys), lists and tuples whose leaves are Tensors, ndarrays, numbers, strings, booleans,
    None or whole modules of dagrad's own classes (see ``module_tree``). Object arrays are refused (they would need pickle to load).
    """
    arrays = OrderedDict()
    tree = _encode(obj, arrays, "")
    manifest = json.dumps({"format": FORMAT, "version": VERSION, "tree": tree})
    arrays[MANIFEST] = np.array(manifest)
    atomic_write(path, lambda f: _write_npz(f, arrays))


def atomic_write(path, write):
    """Call ``write(f)`` on a temporary file next to ``path`` and rename it over ``path``.

    The temporary file is named after the target (``.model.npz.XXXX.tmp``, in the same
    directory, so the rename stays on one file system) and flushed to disk before the rename;
    an interrupted or failed write removes it and leaves any previous file intact. An existing
    target keeps its permissions.
    """
    path = os.fspath(path)
    directory = os.path.dirname(os.path.abspath(path))
    mode = os.stat(path).st_mode & 0o777 if os.path.exists(path) else 0o644
    fd, tmp = tempfile.mkstemp(dir=directory, prefix=f".{os.path.basename(path)}.",
                               suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as f:
            os.chmod(tmp, mode)
            write(f)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.remove(tmp)
        raise


def _write_npz(f, arrays):
    """Write ``arrays`` (name -> ndarray) as an uncompressed ``.npz``: one ``name.npy`` per
    array, as ``numpy.savez`` does, but any name works (``numpy.savez`` takes its keyword
    arguments, so names such as "file" or "allow_pickle" would be lost) and pickle is off."""
    with zipfile.ZipFile(f, mode="w", compression=zipfile.ZIP_STORED, allowZip64=True) as zf:
        for name, data in arrays.items():
            with zf.open(name + ".npy", "w", force_zip64=True) as member:
                np.lib.format.write_array(member, np.asanyarray(data), allow_pickle=False)


def _join(path, key):
    return f"{path}/{key}" if path else str(key)


def _encode(obj, arrays, path):
    """The JSON description of ``obj``; arrays are added to ``arrays`` under unique names."""
    if isinstance(obj, (Tensor, np.ndarray, np.generic)):
        kind = "tensor" if isinstance(obj, Tensor) else "array"
        data = obj._data if isinstance(obj, Tensor) else np.asarray(obj)
        if data.dtype.hasobject:
            raise TypeError(f"save: '{path or '<root>'}' is an object array; only numeric, "
                            f"boolean and string arrays can be saved (object arrays need "
                            f"pickle, which loading refuses)")
        name = path or "array"
        while name in arrays or name == MANIFEST:
            name += "_"
        arrays[name] = data
        return {kind: name}
    if obj is None or isinstance(obj, (bool, int, float, str)):
        return {"value": obj}
    if isinstance(obj, Module):
        return {"module": _encode(module_to_tree(obj, path or "<root>"), arrays, path)}
    if isinstance(obj, dict):
        items = []
        for key, value in obj.items():
            if not isinstance(key, (str, int)) or isinstance(key, bool):
                raise TypeError(f"save: dict keys must be str or int, got {key!r} "
                                f"({type(key).__name__})")
            items.append([key, _encode(value, arrays, _join(path, key))])
        return {"dict": items}
    if isinstance(obj, (list, tuple)):
        kind = "list" if isinstance(obj, list) else "tuple"
        return {kind: [_encode(v, arrays, _join(path, i)) for i, v in enumerate(obj)]}
    raise TypeError(f"save: cannot save a {type(obj).__name__} at '{path or '<root>'}'; save "
                    f"state dicts (module.state_dict()) made of tensors, arrays and numbers")


def load(path):
    """Load what ``save`` wrote. Tensors come back as Tensors (a module's state dict loads with
    ``model.load_state_dict(nn.load(path))``), arrays as arrays, dicts as dicts.

    Raises ``FileNotFoundError`` for a missing file and ``SerializationError`` (a ValueError)
    for a truncated, corrupted or foreign file, or one holding object arrays.
    """
    path = os.fspath(path)
    if not os.path.exists(path):
        raise FileNotFoundError(f"load: no such file: {path!r}")
    with open(path, "rb") as f:
        magic = f.read(4)
    if magic != b"PK\x03\x04":
        what = "a single .npy array" if magic == b"\x93NUM" else "not an .npz file"
        raise SerializationError(f"load: {path!r} is {what}; expected a state file written by "
                                 f"nn.save")
    try:
        with np.load(path, allow_pickle=False) as npz:
            if MANIFEST not in npz.files:
                raise SerializationError(f"load: {path!r} is an .npz file but was not written "
                                         f"by nn.save (it has no '{MANIFEST}' entry)")
            entry = npz[MANIFEST]
            if entry.dtype.kind != "U" or entry.ndim:
                raise SerializationError(f"load: {path!r} has a '{MANIFEST}' entry that is not "
                                         f"a manifest written by nn.save")
            manifest = json.loads(str(entry))
            if not isinstance(manifest, dict) or manifest.get("format") != FORMAT:
                found = manifest.get("format") if isinstance(manifest, dict) else manifest
                raise SerializationError(f"load: {path!r} has an unknown format {found!r}; "
                                         f"expected a state file written by nn.save")
            if manifest.get("version") != VERSION:
                raise SerializationError(f"load: {path!r} has format version "
                                         f"{manifest.get('version')!r}; this version of "
                                         f"dagrad reads version {VERSION}")
            return _decode(manifest["tree"], npz)
    except SerializationError:
        raise
    except ValueError as e:
        if "Object arrays" in str(e) or "pickled" in str(e):
            raise SerializationError(f"load: {path!r} contains object arrays, which could run "
                                     f"code when loaded; refusing to load it") from None
        raise SerializationError(f"load: {path!r} is not a valid state file "
                                 f"(corrupted or not written by nn.save): {e}") from None
    except RecursionError:
        raise SerializationError(f"load: {path!r} nests its content too deeply to be a state "
                                 f"file written by nn.save") from None
    except (zipfile.BadZipFile, EOFError, OSError, KeyError, IndexError, AttributeError,
            json.JSONDecodeError, TypeError) as e:
        raise SerializationError(f"load: {path!r} is truncated or corrupted ({type(e).__name__}"
                                 f": {e}); it cannot be read as a state file written by "
                                 f"nn.save") from None


def _decode(node, npz):
    if "tensor" in node:
        data = npz[node["tensor"]]
        if data.dtype.kind not in "biuf":
            raise SerializationError(f"load: tensor '{node['tensor']}' has dtype {data.dtype}; "
                                     f"a saved tensor holds numbers")
        return Tensor(data)
    if "array" in node:
        return npz[node["array"]]
    if "value" in node:
        return node["value"]
    if "module" in node:
        return tree_to_module(_decode(node["module"], npz))
    if "dict" in node:
        return OrderedDict((key, _decode(value, npz)) for key, value in node["dict"])
    if "list" in node:
        return [_decode(v, npz) for v in node["list"]]
    if "tuple" in node:
        return tuple(_decode(v, npz) for v in node["tuple"])
    raise SerializationError(f"load: unknown entry in the manifest: {sorted(node)}")
