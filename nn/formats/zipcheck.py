"""Zip archives that may be hostile: their members are checked before any is read.

Both zip formats (dagrad's ``.npz`` and PyTorch's ``.pt``) are opened by ``nn.load`` through
the regular-file guard (``guard.open_regular_file``), and their members listed once with
``checked_zip``; every failure is a ``SerializationError``::

    with open_regular_file(path, "nn.load") as f:
        zf, members = checked_zip(f, path, "nn.load")     # name -> ZipInfo, all checked
        data = zf.read(members["archive/data.pkl"])

What ``checked_zip`` guarantees, so that a reader allocates at most what the file holds:

- entry names are unique (zip readers disagree on which of two same-named entries wins: one
  file would show different contents to different tools);
- every member is stored (no compression, no encryption), so its size is what it occupies;
- each member's local header and data, ``[header offset, data end)``, lies inside the file
  before the central directory, and no two members' ranges overlap. Overlapping members are
  the "zip bomb" construction: N stored members each containing the next would make N
  reads total N²/2 times the file's size. With disjoint ranges the declared sizes add up to
  at most the file's size.
"""
import struct
import zipfile

from .errors import SerializationError
from .guard import file_size

LOCAL_HEADER = struct.Struct("<4s2B4HL2L2H")     # the 30 fixed bytes of a local file header
LOCAL_SIGNATURE = b"PK\x03\x04"


def checked_zip(f, path, who):
    """Open the zip archive in the binary file ``f`` and check every member (see the module's
    docstring). Returns ``(zipfile.ZipFile, {name: ZipInfo})``; raises ``SerializationError``
    naming ``who`` and ``path`` for anything wrong, including what ``zipfile`` itself raises."""
    def refuse(why):
        return SerializationError(f"{who}: {path!r} {why}")

    size = file_size(f)
    try:
        zf = zipfile.ZipFile(f)
    except (zipfile.BadZipFile, zipfile.LargeZipFile, OSError, ValueError, EOFError,
            struct.error, UnicodeDecodeError, NotImplementedError) as e:
        raise refuse(f"is truncated or corrupted: not a readable zip archive "
                     f"({type(e).__name__}: {e})") from None
    try:
        members = _check_members(zf, f, size, getattr(zf, "start_dir", size), refuse)
    except BaseException:
        zf.close()
        raise
    return zf, members


def _check_members(zf, f, size, directory_start, refuse):
    members, spans = {}, []
    for info in zf.infolist():
        name = info.filename
        if name in members:
            raise refuse(f"has two entries named {name!r}; zip readers disagree on which one "
                         f"counts, so the file is refused")
        if info.flag_bits & 0x1:
            raise refuse(f"member {name!r} is encrypted; state files are never encrypted")
        if info.compress_type != zipfile.ZIP_STORED:
            raise refuse(f"member {name!r} is compressed (compression method "
                         f"{info.compress_type}); state files store members uncompressed")
        begin, end = info.header_offset, _data_end(info, f, size, refuse)
        if end > min(size, directory_start) or info.file_size > size:
            raise refuse(f"member {name!r} declares {info.file_size} bytes, more than the "
                         f"{size}-byte file can hold before its central directory")
        if info.compress_size != info.file_size:
            raise refuse(f"member {name!r} is stored uncompressed but declares "
                         f"{info.file_size} bytes in {info.compress_size}")
        members[name] = info
        spans.append((begin, end, name))
    spans.sort()
    for (_, end, name), (begin, _, following) in zip(spans, spans[1:]):
        if begin < end:
            raise refuse(f"has overlapping members: {name!r} ends at byte {end}, after "
                         f"{following!r} starts at byte {begin} (a zip bomb's construction)")
    return members


def _data_end(info, f, size, refuse):
    """The offset just past member ``info``'s data, read from its local header."""
    if not 0 <= info.header_offset <= size - LOCAL_HEADER.size:
        raise refuse(f"member {info.filename!r} starts at byte {info.header_offset}, outside "
                     f"the {size}-byte file")
    f.seek(info.header_offset)
    fields = LOCAL_HEADER.unpack(f.read(LOCAL_HEADER.size))
    if fields[0] != LOCAL_SIGNATURE:
        raise refuse(f"member {info.filename!r} has no local header at byte "
                     f"{info.header_offset}")
    name_length, extra_length = fields[-2:]
    return info.header_offset + LOCAL_HEADER.size + name_length + extra_length + info.compress_size
