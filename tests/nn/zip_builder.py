"""Zip archives built byte by byte, so that tests can write what ``zipfile`` refuses to write:
members whose data overlaps the next member, two entries with one name; and ``.pt`` archives
around a pickle written by hand."""
import io
import json
import struct
import zlib

import numpy as np

_LOCAL = struct.Struct("<4s2B4HL2L2H")
_CENTRAL = struct.Struct("<4s4B4HL2L5H2L")
_END = struct.Struct("<4s4H2LH")


def local_header(name, data):
    name = name.encode()
    return _LOCAL.pack(b"PK\x03\x04", 20, 0, 0, 0, 0, 0, zlib.crc32(data), len(data), len(data),
                       len(name), 0) + name


def central_entry(name, data, offset):
    name = name.encode()
    return _CENTRAL.pack(b"PK\x01\x02", 20, 0, 20, 0, 0, 0, 0, 0, zlib.crc32(data), len(data),
                         len(data), len(name), 0, 0, 0, 0, 0, offset) + name


def archive(entries):
    """A stored zip of ``entries``: (name, data, offset) for members already laid out in
    ``body``, given as ``(body, entries)``; returns the archive's bytes."""
    body, listed = entries
    directory = b"".join(central_entry(name, data, offset) for name, data, offset in listed)
    return body + directory + _END.pack(b"PK\x05\x06", 0, 0, len(listed), len(listed),
                                        len(directory), len(body), 0)


def plain(members):
    """``(body, entries)`` for members laid out one after another, as any zip writer does."""
    body, listed = b"", []
    for name, data in members:
        listed.append((name, data, len(body)))
        body += local_header(name, data) + data
    return body, listed


def npy(array):
    out = io.BytesIO()
    np.lib.format.write_array(out, np.asarray(array), allow_pickle=False)
    return out.getvalue()


def manifest(tree):
    return npy(np.array(json.dumps({"format": "dagrad.state", "version": 1, "tree": tree})))


def npy_header(shape, descr="|u1"):
    out = io.BytesIO()
    np.lib.format.write_array_header_1_0(out, {"descr": descr, "fortran_order": False,
                                               "shape": shape})
    return out.getvalue()


def nested_bomb(count, payload):
    """An nn.save-shaped file of ``count`` uint8 arrays, each referenced once, each with a
    valid CRC, whose member i's data holds member i+1 (local header and data) whole: reading
    them all reads about count²/2 times the file's size."""
    inner, members = bytes(payload), []
    for i in reversed(range(count)):
        header = npy_header((len(inner),))
        data = header + inner
        members.insert(0, (f"m{i}.npy", data, header))
        inner = local_header(f"m{i}.npy", data) + data
    head = manifest({"dict": [[f"k{i}", {"array": f"m{i}"}] for i in range(count)]})
    body = local_header("__dagrad__.npy", head) + head
    listed, offset = [("__dagrad__.npy", head, 0)], len(body)
    for name, data, header in members:
        listed.append((name, data, offset))
        offset += len(local_header(name, data)) + len(header)   # the next header starts here
    return archive((body + inner, listed))


def pt_file(pickle_bytes, storages=()):
    """A well-formed zip in torch.save's layout around ``pickle_bytes`` (``data.pkl``), with
    ``storages`` as (key, bytes) records."""
    import zipfile
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_STORED) as zf:
        zf.writestr("archive/data.pkl", pickle_bytes)
        zf.writestr("archive/byteorder", "little")
        for key, data in storages:
            zf.writestr(f"archive/data/{key}", data)
        zf.writestr("archive/version", "3\n")
    return buffer.getvalue()
