"""``save`` / ``load``: state dicts (and checkpoints made of them) as ``.npz`` files.

Loading never runs code: the file is a zip of ``.npy`` arrays read with
``allow_pickle=False``. Besides the arrays it holds one JSON manifest (stored as a NumPy string
array under ``__dagrad__``) with the format version and the structure of the saved object, so
nested checkpoints such as ``{"model": model.state_dict(), "optimizer": opt.state_dict(),
"epoch": 3}`` round-trip too. A module state dict stores each array under its own name
("0.weight", ...), so ``numpy.load`` reads it directly.

Saving writes to a temporary file in the same directory and renames it over the target, so an
interrupted or failed save leaves any previous file intact.

A hostile file cannot make ``load`` allocate more than the file holds: nn.save stores members
uncompressed, so ``load`` refuses compressed, encrypted or duplicated members, reads each
member's ``.npy`` header and checks that its shape times its item size fits the bytes the
member holds before any array is allocated, decodes each member at most once (a manifest that
names one member twice is refused), and turns every failure into a ``SerializationError``,
closing the file. Saving refuses what loading would refuse (object and complex arrays).
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


def _member_name(path):
    """A zip member name for ``path`` that no unzip tool can resolve outside its folder:
    no leading '/', no '.' or '..' components."""
    parts = [p for p in str(path).replace("\\", "/").split("/") if p not in ("", ".", "..")]
    return "/".join(parts) or "array"


def _encode(obj, arrays, path):
    """The JSON description of ``obj``; arrays are added to ``arrays`` under unique names."""
    if isinstance(obj, (Tensor, np.ndarray, np.generic)):
        kind = "tensor" if isinstance(obj, Tensor) else "array"
        data = obj._data if isinstance(obj, Tensor) else np.asarray(obj)
        if data.dtype.hasobject or data.dtype.kind == "c" or (
                kind == "tensor" and data.dtype.kind not in "biuf"):
            raise TypeError(f"save: '{path or '<root>'}' has dtype {data.dtype}; tensors must "
                            f"hold real numbers or booleans and arrays also strings (object "
                            f"arrays need pickle and complex ones are not loaded back)")
        name = _member_name(path)
        while name in arrays or name == MANIFEST:
            name += "_"
        arrays[name] = data
        if isinstance(obj, np.generic):
            kind = "scalar"                    # np.float64(2.5) comes back as np.float64
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
        _check_members(path)
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
            return _decode(manifest["tree"], _Members(npz))
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
    except Exception as e:       # anything a damaged zip or array makes NumPy or zipfile raise
        raise SerializationError(f"load: {path!r} is truncated or corrupted ({type(e).__name__}"
                                 f": {e}); it cannot be read as a state file written by "
                                 f"nn.save") from None


def _check_members(path):
    """Refuse, before anything is decoded, a zip whose members nn.save could not have written
    or whose arrays claim more bytes than their members hold (module docstring)."""
    file_size = os.path.getsize(path)
    with zipfile.ZipFile(path) as zf:
        infos = zf.infolist()
        names = [i.filename for i in infos]
        if len(set(names)) != len(names):
            raise SerializationError(f"load: {path!r} has duplicate members")
        if sum(i.file_size for i in infos) > file_size:
            raise SerializationError(f"load: {path!r} declares {sum(i.file_size for i in infos)}"
                                     f" bytes of members in a file of {file_size} bytes")
        for info in infos:
            if info.flag_bits & 0x1:
                raise SerializationError(f"load: {path!r}: member {info.filename!r} is "
                                         f"encrypted; nn.save never encrypts")
            if info.compress_type != zipfile.ZIP_STORED or info.compress_size != info.file_size:
                raise SerializationError(f"load: {path!r}: member {info.filename!r} is "
                                         f"compressed; nn.save stores members uncompressed")
            if info.filename.endswith(".npy"):
                with zf.open(info) as member:
                    _check_npy_header(member, info, path)


def _check_npy_header(member, info, path):
    version = np.lib.format.read_magic(member)
    header = (np.lib.format.read_array_header_1_0 if version == (1, 0) else
              np.lib.format.read_array_header_2_0)
    shape, _, dtype = header(member, max_header_size=10_000)
    if dtype.hasobject:
        raise SerializationError(f"load: {path!r}: member {info.filename!r} holds objects, "
                                 f"which could run code when loaded; refusing to load it")
    needed = int(np.prod(shape, dtype=object)) * dtype.itemsize
    if needed > info.file_size:
        raise SerializationError(f"load: {path!r}: member {info.filename!r} declares shape "
                                 f"{shape} of {dtype} ({needed} bytes) but holds "
                                 f"{info.file_size} bytes")


class _Members:
    """The arrays of an open .npz, each decoded at most once: a manifest naming one member
    twice (which nn.save never writes) is refused instead of allocating it again."""

    def __init__(self, npz):
        self.npz, self.used = npz, set()

    def __getitem__(self, name):
        if name in self.used:
            raise SerializationError(f"load: the manifest names member {name!r} twice")
        self.used.add(name)
        return self.npz[name]


def _decode(node, npz):
    if "tensor" in node:
        data = npz[node["tensor"]]
        if data.dtype.kind not in "biuf":
            raise SerializationError(f"load: tensor '{node['tensor']}' has dtype {data.dtype}; "
                                     f"a saved tensor holds numbers")
        return Tensor(data)
    if "array" in node:
        return npz[node["array"]]
    if "scalar" in node:
        return npz[node["scalar"]][()]
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
