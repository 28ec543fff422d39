"""The safetensors format: state dicts that PyTorch (``safetensors.torch.load_file``), Hugging
Face and most runtimes read. ``nn.save(state_dict, "model.safetensors")`` writes it and
``nn.load`` reads it.

The format, read and written here with NumPy alone::

    8 bytes       N, the header's length (unsigned 64-bit little-endian integer)
    N bytes       a JSON object (UTF-8, padded with spaces):
                    {"<name>": {"dtype": "F32", "shape": [out, in], "data_offsets": [begin, end]},
                     ...,
                     "__metadata__": {"<key>": "<value>", ...}}     (optional, str -> str)
    the rest      the tensors' bytes, little-endian and C-ordered; tensor <name> occupies
                  bytes [begin, end) of this part, and the tensors tile it with no gaps

Loading never runs code and trusts nothing in the file: the header's length is bounded, every
offset lies inside the file, the tensors tile the data without gaps or overlaps, every dtype is
on a whitelist and every span equals shape × itemsize, so no array larger than the file is ever
allocated. A file that breaks any of these raises ``SerializationError``.
"""
import json
import math
import struct
from collections import OrderedDict

import numpy as np

from dagrad.autograd import Tensor, as_array

from .errors import SerializationError
from .guard import file_size

MAX_HEADER = 100 * 1024 * 1024   # the limit the reference implementation enforces
METADATA = "__metadata__"
ALIGN = 8                        # the header is padded so the data starts 8-byte aligned

# safetensors dtype name <-> NumPy dtype (little-endian). BF16 has no NumPy dtype: it is read
# as float32 (a bfloat16 is the upper half of a float32) and never written.
DTYPES = {"F64": "<f8", "F32": "<f4", "F16": "<f2", "I64": "<i8", "I32": "<i4", "I16": "<i2",
          "I8": "i1", "U64": "<u8", "U32": "<u4", "U16": "<u2", "U8": "u1", "BOOL": "?"}
ITEMSIZE = {name: np.dtype(code).itemsize for name, code in DTYPES.items()} | {"BF16": 2}
NAMES = {np.dtype(code): name for name, code in DTYPES.items()}


def writer(state_dict, who="nn.save", metadata=None):
    """The function that writes ``state_dict`` (name -> Tensor or ndarray) as safetensors to a
    binary file; everything that could be refused is checked here, before any file is touched.

    ``metadata`` is an optional dict of str -> str stored in the header (``__metadata__``).
    Tensors are written largest itemsize first, then by name, so that every tensor starts
    aligned to its itemsize (as the ``safetensors`` package writes them).

    ``safetensors.torch.load_file(path)`` then gives the same names and layouts PyTorch's
    modules use: ``torch_model.load_state_dict(load_file(path))``.
    """
    if not isinstance(state_dict, dict):
        raise TypeError(f"{who}: a .safetensors file holds a state dict (name -> tensor), got "
                        f"a {type(state_dict).__name__}; save model.state_dict(), or choose "
                        f"another format for checkpoints (.pt or .npz)")
    arrays = OrderedDict()
    for name, value in state_dict.items():
        if not isinstance(name, str) or name == METADATA:
            raise TypeError(f"{who}: tensor names must be strings other than "
                            f"'{METADATA}', got {name!r}")
        if not isinstance(value, (Tensor, np.ndarray, np.generic)):
            raise ValueError(f"{who}: key '{name}' is invalid, expected a Tensor but "
                             f"received {type(value).__name__} ({value!r:.40}); a safetensors "
                             f"file holds tensors only (as safetensors.torch.save_file). Save "
                             f"a checkpoint with numbers in it as .pt or .npz, or "
                             f"wrap the number: ag.tensor({value!r:.20})")
        data = as_array(value)
        kind = np.dtype(data.dtype).newbyteorder("<") if data.dtype.itemsize > 1 else data.dtype
        if kind not in NAMES:
            raise TypeError(f"{who}: '{name}' has dtype {data.dtype}, which "
                            f"safetensors cannot hold; convert it to a float, integer or bool "
                            f"dtype (e.g. value.astype(np.float32))")
        arrays[name] = np.ascontiguousarray(data, dtype=kind)
    header = {}
    if metadata is not None:
        if not isinstance(metadata, dict) or not all(
                isinstance(k, str) and isinstance(v, str) for k, v in metadata.items()):
            raise TypeError(f"{who}: metadata must be a dict of str -> str, e.g. "
                            f"{{'format': 'pt'}}")
        header[METADATA] = dict(metadata)
    order = sorted(arrays, key=lambda name: (-arrays[name].itemsize, name))
    offset = 0
    for name in order:
        data = arrays[name]
        header[name] = {"dtype": NAMES[data.dtype], "shape": list(data.shape),
                        "data_offsets": [offset, offset + data.nbytes]}
        offset += data.nbytes
    text = json.dumps(header, separators=(",", ":")).encode("utf-8")
    text += b" " * (-(len(text) + 8) % ALIGN)

    def write(f):
        f.write(struct.pack("<Q", len(text)))
        f.write(text)
        for name in order:
            f.write(memoryview(arrays[name].reshape(-1)).cast("B"))

    return write


def read(f, where, who="nn.load"):
    """Read a safetensors file from the binary file ``f`` (opened by the regular-file guard) as
    a state dict (name -> Tensor), in the header's order. BF16 tensors come back as float32
    (exactly). Raises ``SerializationError`` (a ValueError) for a truncated, corrupted or
    hostile file."""
    entries, _, start = _read_header(f, where, who)
    state = OrderedDict()
    for name, (kind, shape, begin, end) in entries.items():
        f.seek(start + begin)
        raw = np.empty(end - begin, dtype=np.uint8)
        if f.readinto(memoryview(raw)) != raw.size:
            raise SerializationError(f"{who}: {where!r} ended inside tensor '{name}' (the file "
                                     f"changed while it was read)")
        state[name] = Tensor(_decode(raw, kind, shape, name, where, who))
    return state


def read_metadata(f, where, who):
    """The ``__metadata__`` dict (str -> str) of the safetensors file ``f``, or {} when it has
    none. Reads only the header."""
    return _read_header(f, where, who)[1]


def looks_like(head, size):
    """Whether a file of ``size`` bytes starting with ``head`` (at least 9 bytes) is laid out
    as safetensors: a header length that fits the file, then a JSON object."""
    if len(head) < 9:
        return False
    (length,) = struct.unpack("<Q", head[:8])
    return 2 <= length <= min(MAX_HEADER, size - 8) and head[8:9] == b"{"


def _read_header(f, path, who):
    """Parse and check the header: (name -> (dtype, shape, begin, end)), metadata, data start."""
    size = file_size(f)
    f.seek(0)

    def refuse(why):
        return SerializationError(f"{who}: {path!r} is not a valid safetensors file: {why}")

    if size < 8:
        raise refuse(f"it has {size} bytes, fewer than the 8 of the header length")
    (length,) = struct.unpack("<Q", f.read(8))
    if length > MAX_HEADER:
        raise refuse(f"its header claims {length} bytes, more than the limit of {MAX_HEADER}")
    if 8 + length > size:
        raise refuse(f"its header claims {length} bytes but the file has only {size - 8} after "
                     f"the length (truncated)")
    try:
        header = json.loads(f.read(length).decode("utf-8"), object_pairs_hook=_unique_keys)
    except _DuplicateKey as e:
        raise refuse(f"its header names {e.args[0]!r} twice (readers disagree on which one "
                     f"counts)") from None
    except (ValueError, RecursionError) as e:   # JSON, UTF-8, or an integer too long to parse
        raise refuse(f"its header is not JSON text ({type(e).__name__}: {e})") from None
    if not isinstance(header, dict):
        raise refuse(f"its header is a JSON {type(header).__name__}, not an object")
    metadata = header.pop(METADATA, None) or {}
    if not isinstance(metadata, dict) or not all(isinstance(v, str) for v in metadata.values()):
        raise refuse(f"'{METADATA}' must map strings to strings")
    data_size = size - 8 - length
    entries = OrderedDict()
    for name, entry in header.items():
        entries[name] = _check_entry(name, entry, data_size, refuse)
    end = 0
    for name, (_, _, begin, stop) in sorted(entries.items(), key=lambda item: item[1][2:]):
        if begin != end:
            what = "overlaps the tensor before it" if begin < end else f"leaves a gap at byte {end}"
            raise refuse(f"tensor '{name}' starts at byte {begin} and {what}")
        end = stop
    if end != data_size:
        raise refuse(f"the tensors cover {end} bytes of data but the file holds {data_size} "
                     f"after the header")
    return entries, dict(metadata), 8 + length


class _DuplicateKey(Exception):
    pass


def _unique_keys(pairs):
    """A JSON object as a dict, refusing a key given twice (``json`` would keep the last)."""
    out = {}
    for key, value in pairs:
        if key in out:
            raise _DuplicateKey(key)
        out[key] = value
    return out


def _check_entry(name, entry, data_size, refuse):
    if not isinstance(entry, dict) or set(entry) != {"dtype", "shape", "data_offsets"}:
        raise refuse(f"tensor '{name}' must have exactly dtype, shape and data_offsets")
    kind, shape, offsets = entry["dtype"], entry["shape"], entry["data_offsets"]
    if not isinstance(kind, str) or kind not in ITEMSIZE:
        raise refuse(f"tensor '{name}' has dtype {kind!r}; dagrad reads "
                     f"{', '.join(sorted(ITEMSIZE))}")
    if not isinstance(shape, list) or not all(_is_count(n) for n in shape):
        raise refuse(f"tensor '{name}' has shape {shape!r}; a shape is a list of "
                     f"non-negative integers")
    if (not isinstance(offsets, list) or len(offsets) != 2 or not all(map(_is_count, offsets))
            or not offsets[0] <= offsets[1] <= data_size):
        raise refuse(f"tensor '{name}' has data_offsets {offsets!r}, outside the "
                     f"{data_size} bytes of data")
    begin, end = offsets
    if math.prod(shape) * ITEMSIZE[kind] != end - begin:
        raise refuse(f"tensor '{name}' of shape {shape} and dtype {kind} needs "
                     f"{math.prod(shape) * ITEMSIZE[kind]} bytes but spans {end - begin}")
    return kind, tuple(shape), begin, end


def _is_count(n):
    return isinstance(n, int) and not isinstance(n, bool) and n >= 0


def _decode(raw, kind, shape, name, path, who):
    """The array a tensor's raw bytes hold."""
    if kind == "BF16":
        widened = raw.view("<u2").astype(np.uint32) << 16
        return widened.view(np.float32).reshape(shape)
    if kind == "BOOL" and raw.size and raw.max() > 1:
        raise SerializationError(f"{who}: {path!r}: bool tensor '{name}' holds bytes other "
                                 f"than 0 and 1")
    data = raw.view(DTYPES[kind]).reshape(shape)
    return data.astype(data.dtype.newbyteorder("="), copy=False)
