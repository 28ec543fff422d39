"""dagrad's ``.npz`` format: state dicts (and checkpoints made of them) without pickle.

Loading never runs code and never allocates more than the file holds: the file is a zip of
uncompressed ``.npy`` arrays, read without pickle, whose members ``zipcheck`` checks first
(unique names, disjoint and inside the file); compressed or encrypted members are refused,
each member's declared shape times its item size must equal the bytes it holds before anything
is allocated, each member is decoded at most once (a manifest naming one twice is refused), and
every failure is a ``SerializationError`` with the file closed. Saving refuses what loading
would refuse (object and complex data). Besides the arrays it holds one JSON manifest (stored
as a NumPy string array under ``__dagrad__``) with the format version and the structure of the
saved object, so nested checkpoints such as ``{"model": model.state_dict(), "optimizer":
opt.state_dict(), "epoch": 3}`` round-trip too. A module state dict stores each array under its
own name ("0.weight", ...), so ``numpy.load`` reads it directly.

A whole module is stored as the tree ``module_tree`` describes, and rebuilt on loading under
the one policy of every format (``allowlist``).
"""
import json
import math
import re
import zipfile
from collections import OrderedDict

import numpy as np

from dagrad.autograd import Tensor, as_array

from ..module import Module
from . import allowlist
from .errors import SerializationError
from .module_tree import module_to_tree, tree_to_module
from .modules import refuse_cycles
from .zipcheck import checked_zip

FORMAT = "dagrad.state"
VERSION = 1
MANIFEST = "__dagrad__"
_TENSOR_KINDS = "biuf"


def writer(obj, who="nn.save"):
    """The function that writes ``obj`` as an ``.npz`` to a binary file (``nn.save`` calls it
    on a temporary file, see ``atomic``). Everything that could be refused is checked here,
    before any file is touched.

    ``obj`` is a state dict (name -> Tensor or ndarray) or any nesting of dicts (str or int
    keys), lists and tuples whose leaves are Tensors, ndarrays, numbers, strings, booleans,
    None or whole modules (see ``module_tree``). Object arrays are refused (they would need
    pickle to load).
    """
    arrays = OrderedDict()
    tree = _encode(obj, arrays, "", set())
    manifest = json.dumps({"format": FORMAT, "version": VERSION, "tree": tree})
    arrays[MANIFEST] = np.array(manifest)
    return lambda f: _write_npz(f, arrays)


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


def _member_name(path, arrays):
    """A unique zip member name for the array at ``path``: only letters, digits, ``._-`` and
    ``/`` between non-empty components other than ``.`` and ``..`` (a key such as
    ``../../x`` cannot name a file outside the archive when someone unzips it)."""
    parts = [re.sub(r"[^A-Za-z0-9._-]", "_", part) for part in (path or "array").split("/")]
    name = "/".join(p if p not in ("", ".", "..") else p.replace(".", "_") or "_"
                    for p in parts)
    while name in arrays or name == MANIFEST:
        name += "_"
    return name


def _encode(obj, arrays, path, open_containers):
    """The JSON description of ``obj``; arrays are added to ``arrays`` under unique names.
    ``open_containers`` holds the ids of the dicts and lists being encoded around ``obj``, so
    that one containing itself is named instead of recursing for ever."""
    if isinstance(obj, (Tensor, np.ndarray, np.generic)):
        kind = ("tensor" if isinstance(obj, Tensor) else
                "scalar" if isinstance(obj, np.generic) else "array")
        data = as_array(obj)
        where = path or "<root>"
        if data.dtype.hasobject:
            raise TypeError(f"nn.save: '{where}' is an object array; only numeric, "
                            f"boolean and string arrays can be saved (object arrays need "
                            f"pickle, which loading refuses)")
        refused = data.dtype.kind == "c" or (kind == "tensor"
                                             and data.dtype.kind not in _TENSOR_KINDS)
        if refused:
            raise TypeError(f"nn.save: '{where}' has dtype {data.dtype}; tensors hold real numbers "
                            f"or booleans and arrays also strings (nn.load refuses complex "
                            f"data). Save the real and imaginary parts (z.real, z.imag)")
        name = _member_name(path, arrays)
        arrays[name] = data
        return {kind: name}
    if obj is None or isinstance(obj, (bool, int, float, str)):
        return {"value": obj}
    if isinstance(obj, Module):
        refuse_cycles(obj, "nn.save")
        return {"module": _encode(module_to_tree(obj, path or "<root>"), arrays, path,
                                  open_containers)}
    if isinstance(obj, (dict, list, tuple)):
        if id(obj) in open_containers:
            raise ValueError(f"nn.save: '{path or '<root>'}' is the {type(obj).__name__} that "
                             f"contains it (a reference cycle); nn.save writes a tree, so save "
                             f"a copy without the back reference")
        open_containers.add(id(obj))
        try:
            return _encode_container(obj, arrays, path, open_containers)
        finally:
            open_containers.discard(id(obj))
    raise TypeError(f"nn.save: cannot save a {type(obj).__name__} at '{path or '<root>'}'; save "
                    f"state dicts (module.state_dict()) made of tensors, arrays and numbers")


def _encode_container(obj, arrays, path, open_containers):
    if isinstance(obj, dict):
        items = []
        for key, value in obj.items():
            if not isinstance(key, (str, int)) or isinstance(key, bool):
                raise TypeError(f"nn.save: dict keys must be str or int, got {key!r} "
                                f"({type(key).__name__})")
            items.append([key, _encode(value, arrays, _join(path, key), open_containers)])
        return {"dict": items}
    kind = "list" if isinstance(obj, list) else "tuple"
    return {kind: [_encode(v, arrays, _join(path, i), open_containers)
                   for i, v in enumerate(obj)]}


def read(f, where, who="nn.load", weights_only=True):
    """Read what ``writer`` wrote from the binary file ``f`` (opened by the regular-file
    guard). Tensors come back as Tensors (a module's state dict loads with
    ``model.load_state_dict(nn.load(path))``), arrays as arrays, NumPy scalars as NumPy
    scalars, dicts as dicts; whole modules of the classes ``allowlist`` allows
    (``weights_only=False`` allows every Module class of the program).

    Raises ``SerializationError`` (a ValueError) for anything wrong with the file: truncated,
    corrupted, foreign, encrypted or compressed members, two entries with one name,
    overlapping members, holding object arrays, or declaring more data than it holds (the zip
    is checked by ``zipcheck.checked_zip`` and each array's declared size against its member
    before anything is allocated, and each member is decoded at most once).
    """
    magic = f.read(4)
    f.seek(0)
    if magic != b"PK\x03\x04":
        what = "a single .npy array" if magic == b"\x93NUM" else "not an .npz file"
        raise SerializationError(f"{who}: {where!r} is {what}; expected a state file written "
                                 f"by nn.save")
    zf, members = checked_zip(f, where, who)
    try:
        with zf:
            return _Reader(zf, members, where, who, weights_only).load()
    except SerializationError:
        raise
    except RecursionError:
        raise SerializationError(f"{who}: {where!r} nests its content too deeply to be a state "
                                 f"file written by nn.save") from None
    except Exception as e:  # zipfile, zlib, json and NumPy each raise their own types
        raise SerializationError(f"{who}: {where!r} is truncated or corrupted "
                                 f"({type(e).__name__}: {e}); it cannot be read as a state "
                                 f"file written by nn.save") from None


class _Reader:
    """Reads the members of one open zip, checking every size before allocating."""

    def __init__(self, zf, members, path, who, weights_only):
        self.zf, self.members, self.path, self.who = zf, members, path, who
        self.classes = allowlist.module_classes(weights_only)
        self.decoded = set()

    def error(self, message):
        return SerializationError(f"{self.who}: {self.path!r} {message}")

    def refuse(self, full_name):
        return allowlist.refusal(self.who, self.path, full_name)

    def load(self):
        if MANIFEST + ".npy" not in self.members:
            raise self.error(f"is an .npz file but was not written by nn.save (it has no "
                             f"'{MANIFEST}' entry)")
        entry = self.array(MANIFEST)
        if entry.dtype.kind != "U" or entry.ndim:
            raise self.error(f"has a '{MANIFEST}' entry that is not a manifest written by "
                             f"nn.save")
        manifest = json.loads(str(entry))
        if not isinstance(manifest, dict) or manifest.get("format") != FORMAT:
            found = manifest.get("format") if isinstance(manifest, dict) else manifest
            raise self.error(f"has an unknown format {found!r}; expected a state file written "
                             f"by nn.save")
        if manifest.get("version") != VERSION:
            raise self.error(f"has format version {manifest.get('version')!r}; this version of "
                             f"dagrad reads version {VERSION}")
        return self.decode(manifest["tree"])

    def member(self, name):
        """The ZipInfo of array ``name``, after checking it can be read and is read once."""
        info = self.members.get(f"{name}.npy") if isinstance(name, str) else None
        if info is None:
            raise self.error(f"names an array {name!r} that it does not contain")
        if name in self.decoded:
            raise self.error(f"names array {name!r} twice (nn.save writes each array once; a "
                             f"repeated reference would multiply the memory needed)")
        self.decoded.add(name)
        return info

    def array(self, name):
        """Decode member ``name``: header, then exactly the bytes the header declares."""
        info = self.member(name)
        with self.zf.open(info) as fp:
            version = np.lib.format.read_magic(fp)
            read_header = {(1, 0): np.lib.format.read_array_header_1_0,
                           (2, 0): np.lib.format.read_array_header_2_0}.get(version)
            if read_header is None:
                raise self.error(f"member {info.filename!r} has .npy version {version}")
            shape, fortran, dtype = read_header(fp)
            if dtype.hasobject:
                raise self.error("contains object arrays, which could run code when loaded; "
                                 "refusing to load it")
            count = math.prod(shape)
            nbytes = count * dtype.itemsize
            if nbytes != info.file_size - fp.tell():
                raise self.error(f"member {info.filename!r} declares shape {shape} of "
                                 f"{dtype} ({nbytes} bytes) but holds "
                                 f"{info.file_size - fp.tell()} bytes")
            out = np.empty(shape[::-1] if fortran else shape, dtype=dtype)
            view = memoryview(out.reshape(-1).view(np.uint8)) if nbytes else memoryview(b"")
            done = 0
            while done < nbytes:
                n = fp.readinto(view[done:])
                if not n:
                    raise self.error(f"member {info.filename!r} ends early")
                done += n
            if fp.read(1):
                raise self.error(f"member {info.filename!r} holds more than it declares")
        return out.T if fortran else out

    def decode(self, node):
        if not isinstance(node, dict) or len(node) != 1:
            raise self.error(f"has an unknown entry in its manifest: {node!r:.80}")
        (kind, value), = node.items()
        if kind == "tensor":
            data = self.array(value)
            if data.dtype.kind not in _TENSOR_KINDS:
                raise self.error(f"tensor '{value}' has dtype {data.dtype}; a saved tensor "
                                 f"holds real numbers or booleans")
            return Tensor(data)
        if kind == "array":
            data = self.array(value)
            if data.dtype.kind == "c":
                raise self.error(f"array '{value}' is complex; nn.save never writes complex data")
            return data
        if kind == "scalar":
            data = self.array(value)
            if data.ndim:
                raise self.error(f"scalar '{value}' has shape {tuple(data.shape)}")
            return data[()]
        if kind == "value":
            return value
        if kind == "module":
            return tree_to_module(self.decode(value), self.classes, self.refuse)
        if kind == "dict":
            return OrderedDict((key, self.decode(item)) for key, item in value)
        if kind in ("list", "tuple"):
            items = [self.decode(item) for item in value]
            return items if kind == "list" else tuple(items)
        raise self.error(f"has an unknown entry in its manifest: {kind!r}")
