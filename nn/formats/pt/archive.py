"""The zip container of PyTorch's ``.pt`` files: writing it, and reading its records safely.

A file written by ``torch.save`` is a zip archive whose members all sit under one folder (the
"archive name"; PyTorch uses the file's stem, or ``archive`` for a file object)::

    archive/data.pkl              the pickled object; tensors refer to storages by key
    archive/.format_version       "1": storages are numbered 0, 1, 2, ... in order of use
    archive/.storage_alignment    "64": each storage's bytes start at a multiple of 64
    archive/byteorder             "little" or "big": the byte order of the storages
    archive/data/0, data/1, ...   one member per storage: its raw bytes, C order
    archive/version               "3\\n": the container's format version

Members are stored, never compressed; the padding that aligns a member's data is an extra
field with id ``FB`` in its local header (as PyTorch's writer makes it).
"""
import struct
import zipfile

from ..errors import SerializationError
from ..zipcheck import checked_zip

ARCHIVE = "archive"
ALIGNMENT = 64
FORMAT_VERSION = b"3\n"
_PAD_ID = b"FB"
_LOCAL_HEADER = 30      # the fixed part of a zip local file header
_ZIP64_EXTRA = 20


class ArchiveWriter:
    """Writes the records of one ``.pt`` file to the binary file object ``f``, in order."""

    def __init__(self, f, name=ARCHIVE):
        self.zip = zipfile.ZipFile(f, mode="w", compression=zipfile.ZIP_STORED, allowZip64=True)
        self.prefix = name + "/"

    def write(self, name, data):
        """Add record ``name`` holding ``data`` (bytes, or a C-contiguous NumPy array, written
        without a copy), its bytes starting at a multiple of ``ALIGNMENT``."""
        view = memoryview(data).cast("B")
        info = zipfile.ZipInfo(self.prefix + name)
        info.compress_type = zipfile.ZIP_STORED
        info.file_size = view.nbytes
        zip64 = info.file_size * 1.05 > zipfile.ZIP64_LIMIT
        header = (_LOCAL_HEADER + len(info.filename.encode("utf-8")) + 4
                  + (_ZIP64_EXTRA if zip64 else 0))
        pad = -(self.zip.start_dir + header) % ALIGNMENT
        info.extra = _PAD_ID + struct.pack("<H", pad) + b"Z" * pad
        with self.zip.open(info, mode="w", force_zip64=zip64) as member:
            for start in range(0, view.nbytes, 1 << 24):
                member.write(view[start:start + (1 << 24)])

    def close(self):
        self.zip.close()


class ArchiveReader:
    """The records of a ``.pt`` file: the zip in binary file ``f``, its members checked by
    ``formats.zipcheck.checked_zip`` (stored, inside the file, disjoint, named once) and all under
    the first record's folder. ``read(name)`` returns a record's bytes, which the file holds.
    """

    def __init__(self, f, where):
        self.where = where
        self._refuse_torchscript(f)
        self.zf, members = checked_zip(f, where, "torch.load")
        if not members:
            raise self.error("is an empty zip archive, not a file written by torch.save")
        first = next(iter(members))
        if "/" not in first:
            raise self.error("is a zip archive whose records are not in a folder; a file "
                             "written by torch.save keeps them under 'archive/'")
        self.prefix = first[:first.index("/") + 1]
        for name in members:
            if not name.startswith(self.prefix):
                raise self.error(f"has the record {name!r} outside its folder "
                                 f"{self.prefix!r}")
        self.members = members

    def _refuse_torchscript(self, f):
        """A TorchScript archive (compressed source code, ``constants.pkl``) gets its own
        message, from the names in its central directory alone."""
        start = f.tell()
        try:
            with zipfile.ZipFile(f) as zf:
                names = zf.namelist()
        except Exception:           # checked_zip says what is wrong with it
            names = []
        f.seek(start)
        if any(name.count("/") == 1 and name.endswith("/constants.pkl") for name in names):
            raise self.error("is a TorchScript archive (torch.jit.save), not a torch.save "
                             "file; dagrad runs no TorchScript: save the model's state_dict() "
                             "in PyTorch and load that")

    def close(self):
        self.zf.close()

    def error(self, message):
        return SerializationError(f"torch.load: {self.where!r} {message}")

    def has(self, name):
        return self.prefix + name in self.members

    def size(self, name):
        return self.members[self.prefix + name].file_size

    def read(self, name, limit=None):
        """The bytes of record ``name`` (an error if absent, or longer than ``limit``)."""
        info = self.members.get(self.prefix + name)
        if info is None:
            raise self.error(f"has no record {name!r}")
        if limit is not None and info.file_size > limit:
            raise self.error(f"record {name!r} holds {info.file_size} bytes, more than the "
                             f"{limit} it may")
        with self.zf.open(info) as member:
            data = member.read(info.file_size + 1)
        if len(data) != info.file_size:
            raise self.error(f"record {name!r} holds {len(data)} bytes but declares "
                             f"{info.file_size}")
        return data

    def read_into(self, name, buffer):
        """Fill ``buffer`` (a writable byte view of exactly the record's size) from ``name``."""
        info = self.members[self.prefix + name]
        with self.zf.open(info) as member:
            done = 0
            while done < len(buffer):
                n = member.readinto(buffer[done:])
                if not n:
                    raise self.error(f"record {name!r} ends early")
                done += n
