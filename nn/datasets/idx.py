"""IDX files, the format of MNIST and Fashion-MNIST (``train-images-idx3-ubyte`` and the like),
plain or gzip-compressed.

Layout: two zero bytes, a type byte, the number of dimensions d; then d sizes as big-endian
int32; then the elements in C order, big-endian. The reader trusts nothing in a file: the
sizes must account for exactly the bytes that follow, and a compressed file is never inflated
past what its own size allows (deflate shrinks data at most 1032 times).
"""
import gzip
import os

import numpy as np

from ..formats.guard import file_size, open_regular_file

TYPES = {0x08: ">u1", 0x09: ">i1", 0x0B: ">i2", 0x0C: ">i4", 0x0D: ">f4", 0x0E: ">f8"}
MAX_DEFLATE_RATIO = 1032
_CHUNK = 1 << 20


def read_idx(path):
    """The array stored in the IDX file ``path`` (``.gz`` or not), in native byte order.

    The file is opened once, through the regular-file guard (a FIFO or device raises a
    ValueError at once). Raises ValueError naming the file when it is not a well-formed IDX
    file."""
    path = os.fspath(path)
    with open_regular_file(path, "read_idx") as f:
        size = file_size(f)
        if not path.endswith(".gz"):
            return parse_idx(f.read(size + 1), path)
        limit = MAX_DEFLATE_RATIO * size + 64
        try:
            with gzip.GzipFile(fileobj=f, mode="rb") as inflated:
                raw = _read_at_most(inflated, limit, path)
        except (OSError, EOFError, gzip.BadGzipFile) as e:
            raise ValueError(f"read_idx: {path} is not a readable gzip file ({e})") from None
    return parse_idx(raw, path)


def _read_at_most(f, limit, path):
    parts, total = [], 0
    while True:
        part = f.read(_CHUNK)
        if not part:
            return b"".join(parts)
        total += len(part)
        if total > limit:
            raise ValueError(f"read_idx: {path} inflates to more than {limit} bytes, more than "
                             f"a gzip file of its size can hold")
        parts.append(part)


def parse_idx(raw, name="<bytes>"):
    """The array encoded by the IDX bytes ``raw`` (see the module's docstring)."""
    if len(raw) < 4 or raw[0] != 0 or raw[1] != 0 or raw[2] not in TYPES:
        raise ValueError(f"read_idx: {name} is not an IDX file (it must start with two zero "
                         f"bytes and a type code among {sorted(hex(t) for t in TYPES)})")
    ndim = raw[3]
    header = 4 + 4 * ndim
    if len(raw) < header:
        raise ValueError(f"read_idx: {name} ends inside its header ({ndim} sizes announced, "
                         f"{len(raw)} bytes in all)")
    shape = tuple(int(n) for n in np.frombuffer(raw, ">u4", count=ndim, offset=4))
    dtype = np.dtype(TYPES[raw[2]])
    expected = dtype.itemsize * int(np.prod(shape, dtype=object))
    if expected != len(raw) - header:
        raise ValueError(f"read_idx: {name} announces shape {shape} of {dtype.name} "
                         f"({expected} bytes) but holds {len(raw) - header} bytes of data")
    data = np.frombuffer(raw, dtype, offset=header).reshape(shape)
    return data.astype(dtype.newbyteorder("="))
