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

from ..serialization import SerializationError

ARCHIVE = "archive"
ALIGNMENT = 64
FORMAT_VERSION = b"3\n"
_PAD_ID = b"FB"
_LOCAL_HEADER = 30
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
    """The records of a ``.pt`` file opened as ``zipfile.ZipFile`` ``zf`` of ``size`` bytes.

    Every member is checked before anything is read: stored (not compressed or encrypted),
    lying inside the file, and named once; all records share the first record's folder.
    ``read(name)`` returns a record's bytes, at most the member's size, which the file holds.
    """

    def __init__(self, zf, size, where):
        self.zf, self.where = zf, where
        infos = zf.infolist()
        if not infos:
            raise self.error("is an empty zip archive, not a file written by torch.save")
        first = infos[0].filename
        if "/" not in first:
            raise self.error("is a zip archive whose records are not in a folder; a file "
                             "written by torch.save keeps them under 'archive/'")
        self.prefix = first[:first.index("/") + 1]
        if any(info.filename == self.prefix + "constants.pkl" for info in infos):
            raise self.error("is a TorchScript archive (torch.jit.save), not a torch.save "
                             "file; dagrad runs no TorchScript: save the model's state_dict() "
                             "in PyTorch and load that")
        self.members = {}
        for info in infos:
            if info.filename in self.members:
                raise self.error(f"names the record {info.filename!r} twice")
            if not info.filename.startswith(self.prefix):
                raise self.error(f"has the record {info.filename!r} outside its folder "
                                 f"{self.prefix!r}")
            if info.flag_bits & 0x1:
                raise self.error(f"has an encrypted record {info.filename!r}")
            if info.compress_type != zipfile.ZIP_STORED:
                raise self.error(f"has a compressed record {info.filename!r}; torch.save "
                                 f"stores records uncompressed (was the file re-zipped?)")
            if info.compress_size != info.file_size or info.file_size > size:
                raise self.error(f"record {info.filename!r} declares {info.file_size} bytes, "
                                 f"more than the {size}-byte file holds")
            self.members[info.filename] = info
        self._check_disjoint(size)

    def _check_disjoint(self, size):
        """Records may not overlap, nor reach past the file (one stretch of bytes read as
        several records would let a small file describe much more data than it holds). A
        record spans its local header (whose lengths are read from the file) and its data."""
        spans = []
        for info in self.members.values():
            self.zf.fp.seek(info.header_offset)
            header = self.zf.fp.read(_LOCAL_HEADER)
            if len(header) != _LOCAL_HEADER or header[:4] != b"PK\x03\x04":
                raise self.error(f"record {info.filename!r} has no local header")
            name_length, extra_length = struct.unpack("<HH", header[26:30])
            end = info.header_offset + _LOCAL_HEADER + name_length + extra_length + info.file_size
            if end > size:
                raise self.error(f"record {info.filename!r} declares {info.file_size} bytes, "
                                 f"more than the {size}-byte file holds")
            spans.append((info.header_offset, end, info.filename))
        spans.sort()
        for (_, end, name), (start, _, next_name) in zip(spans, spans[1:]):
            if end > start:
                raise self.error(f"records {name!r} and {next_name!r} overlap")

    def error(self, message):
        return SerializationError(f"torch.load: {self.where} {message}")

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
