"""Opening files that may be hostile: regular files only, and zip archives whose members are
checked before any is read.

Every loader of untrusted files (``nn.load``'s ``.npz``, ``nn.load_safetensors``, the ``.pt``
reader of ``dagrad.torch``) opens its file with ``open_regular_file`` and, for a zip, lists its
members with ``checked_zip``; every failure is a ``SerializationError``::

    with open_regular_file(path, "torch.load") as f:
        zf, members = checked_zip(f, path, "torch.load")     # name -> ZipInfo, all checked
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
import os
import stat
import struct
import zipfile

LOCAL_HEADER = struct.Struct("<4s2B4HL2L2H")     # the 30 fixed bytes of a local file header
LOCAL_SIGNATURE = b"PK\x03\x04"


class SerializationError(ValueError):
    """The file is not a readable state file (truncated, corrupted, foreign, hostile, or
    declaring more data than it holds)."""


def open_regular_file(path, who):
    """Open ``path`` for binary reading, refusing anything but a regular file.

    A FIFO, socket or device is refused at once (opening a FIFO without a writer would block
    for ever, a device such as /dev/zero never ends); the file is opened without blocking,
    checked with ``fstat`` on the open descriptor (no race with a rename), then switched back
    to blocking reads. Raises ``FileNotFoundError`` for a missing path, ``IsADirectoryError``
    for a directory (as ``open`` does) and ``SerializationError`` for the rest."""
    path = os.fspath(path)
    flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_BINARY", 0)
    try:
        fd = os.open(path, flags)
    except FileNotFoundError:
        raise FileNotFoundError(f"{who}: no such file: {path!r}") from None
    try:
        mode = os.fstat(fd).st_mode
        if stat.S_ISDIR(mode):
            raise IsADirectoryError(f"{who}: {path!r} is a directory; give the path of a file "
                                    f"inside it")
        if not stat.S_ISREG(mode):
            raise SerializationError(f"{who}: {path!r} is {_kind(mode)}, not a regular file; "
                                     f"load from a file saved on disk")
        if hasattr(os, "set_blocking"):
            os.set_blocking(fd, True)
        return os.fdopen(fd, "rb")
    except BaseException:
        os.close(fd)
        raise


def _kind(mode):
    for test, name in ((stat.S_ISFIFO, "a FIFO (named pipe)"), (stat.S_ISSOCK, "a socket"),
                       (stat.S_ISCHR, "a character device"), (stat.S_ISBLK, "a block device")):
        if test(mode):
            return name
    return "not a regular file"


def checked_zip(f, path, who):
    """Open the zip archive in the binary file ``f`` and check every member (see the module's
    docstring). Returns ``(zipfile.ZipFile, {name: ZipInfo})``; raises ``SerializationError``
    naming ``who`` and ``path`` for anything wrong, including what ``zipfile`` itself raises."""
    def refuse(why):
        return SerializationError(f"{who}: {path!r} {why}")

    size = _size(f)
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


def _size(f):
    """The size of the file ``f``: from its descriptor, or (an in-memory file such as
    ``io.BytesIO``, which ``torch.load`` also takes) from seeking to its end."""
    try:
        return os.fstat(f.fileno()).st_size
    except (AttributeError, OSError, ValueError):   # io.UnsupportedOperation is both
        position = f.tell()
        size = f.seek(0, os.SEEK_END)
        f.seek(position)
        return size


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
