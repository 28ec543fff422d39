"""PyTorch's ``.pt`` file format: ``writer`` writes what ``torch.load`` reads, ``read`` reads
what ``torch.save`` writes, without PyTorch and without running code from the file.

A ``.pt`` file is a zip archive (see ``archive``) of a pickle, ``data.pkl``, whose tensors refer
to storages kept as raw bytes in ``data/0``, ``data/1``, ... (see ``pickler``). Loading runs
the pickle through ``unpickler.RestrictedUnpickler``, whose names come from PyTorch's
``weights_only`` set (``torch_globals``), dagrad's own module classes and the user's
``add_safe_globals`` (the policy of every format: ``formats.allowlist``), so it loads state
dicts, optimizer state, nested checkpoints and whole modules, and refuses anything else with
``SerializationError`` before running it. What it allocates is bounded by the file: each
storage is read once, its size checked against its record, and tensors are views of their
storages.

    nn.save({"model": model.state_dict(), "epoch": 3}, "checkpoint.pt")
    # in PyTorch: torch.load("checkpoint.pt", weights_only=True)["model"]
    checkpoint = nn.load("checkpoint.pt")          # tensors as dagrad Tensors
"""
import pickletools
import sys

import numpy as np

from .. import allowlist
from ..errors import SerializationError
from . import torch_globals
from .archive import ALIGNMENT, FORMAT_VERSION, ArchiveReader, ArchiveWriter
from .dtypes import BFLOAT16, numpy_dtype
from .pickler import Pickler
from .rebuild import Storage, StorageType
from .unpickler import RestrictedUnpickler

ZIP_MAGIC = b"PK\x03\x04"


def writer(obj, who="torch.save"):
    """The function that writes ``obj`` to a binary file in PyTorch's format: what
    ``torch.save(obj, f)`` writes for the same object. The pickle is made here, before any file
    is touched, so an object that cannot be saved leaves the file as it was.

    ``obj`` is any nesting of dicts, lists, tuples, tensors, NumPy arrays (written as
    tensors), numbers, strings, modules and plain objects (see ``pickler``).
    """
    pickler = Pickler()
    data = pickler.dumps(obj)

    def write(fh):
        archive = ArchiveWriter(fh)
        archive.write("data.pkl", data)
        archive.write(".format_version", b"1")
        archive.write(".storage_alignment", str(ALIGNMENT).encode())
        archive.write("byteorder", b"little")
        for key, array in pickler.storages:
            archive.write(f"data/{key}", array.reshape(-1).view(np.uint8))
        archive.write("version", FORMAT_VERSION)
        archive.close()

    return write


def read(f, where, who="torch.load", weights_only=True, map_location=None):
    """Read a ``.pt`` file written by ``torch.save`` from the binary file ``f``: tensors become
    dagrad Tensors, parameters Parameters, PyTorch's layers dagrad's layers of the same name.

    ``map_location``: storages saved on a GPU load only when it is given (anything naming the
    CPU: ``"cpu"``, a device, a dict or function of locations); everything loads on the CPU.
    ``weights_only=False`` also allows every Module class defined in this process (a
    program's own ``class Net(nn.Module)``), still without running code from the file: modules
    are built from their saved attributes. Other classes need ``add_safe_globals``.

    Raises ``SerializationError`` for a file that is not PyTorch's zip format, is damaged, or
    names anything not allowed; ``RuntimeError`` for GPU storages without ``map_location``.
    """
    try:
        return _load_stream(f, where, map_location, weights_only)
    except (SerializationError, RuntimeError) as e:     # RuntimeError: GPU storages
        prefix = "torch.load: "             # what every message of this reader starts with
        if who != "torch.load" and str(e).startswith(prefix):
            e.args = (f"{who}: {str(e)[len(prefix):]}",)    # named after the door used
        raise


def _load_stream(fh, where, map_location, weights_only):
    start = fh.tell()
    magic = fh.read(4)
    if magic != ZIP_MAGIC:
        raise SerializationError(f"torch.load: {where!r} is {explain(magic)}")
    fh.seek(start)
    archive = ArchiveReader(fh, where)
    try:
        return _Loader(archive, where, map_location, weights_only).load()
    except SerializationError:
        raise
    except RecursionError:
        raise SerializationError(f"torch.load: {where!r} nests its content too deeply") from None
    except RuntimeError as e:
        if isinstance(e, _DeviceError):
            raise RuntimeError(str(e)) from None
        raise SerializationError(f"torch.load: {where!r} is damaged ({e})") from None
    except Exception as e:      # zipfile, struct, unicode, hashing: a damaged file
        raise SerializationError(f"torch.load: {where!r} is damaged or not a PyTorch file "
                                 f"({type(e).__name__}: {e})") from None
    finally:
        archive.close()


_DEVICE_KINDS = ("cpu", "cuda", "mps", "xpu", "hpu", "mtia", "xla", "meta", "privateuseone",
                 "ipu", "vulkan", "hip", "ve", "lazy", "maia")


class _DeviceError(RuntimeError):
    """Storages saved on a GPU, loaded without ``map_location``."""


def unsafe_globals(f, where):
    """The globals the ``.pt`` file ``f`` names that loading would refuse (neither PyTorch's
    weights_only set, nor dagrad's own, nor allowlisted), as ``'module.name'`` strings: what
    ``add_safe_globals`` would need, if the file is trusted. The pickle is only read
    (``pickletools.genops``), never run."""
    archive = ArchiveReader(f, where)
    try:
        data = archive.read("data.pkl")
    finally:
        archive.close()
    known = {**torch_globals.default_globals(True), **allowlist.module_classes(),
             **allowlist.user_globals()}
    names, strings = [], []
    try:
        for opcode, argument, _ in pickletools.genops(data):
            if opcode.name in ("SHORT_BINUNICODE", "BINUNICODE", "BINUNICODE8", "UNICODE"):
                strings.append(argument)
            elif opcode.name == "GLOBAL":
                names.append(argument.replace(" ", ".", 1))
            elif opcode.name == "STACK_GLOBAL" and len(strings) >= 2:
                names.append(f"{strings[-2]}.{strings[-1]}")
    except Exception as e:      # a damaged pickle: report what was read before the damage
        raise SerializationError(f"get_unsafe_globals_in_checkpoint: data.pkl is damaged "
                                 f"({e})") from None
    found = []
    for name in names:
        module, _, rest = name.partition(".")
        name = f"{_IMPORT_MAPPING.get(module, module)}.{rest}"
        if name not in known and allowlist.dagrad_function(name) is None and name not in found:
            found.append(name)
    return found


_IMPORT_MAPPING = {"__builtin__": "builtins", "copy_reg": "copyreg"}


def explain(magic):
    """What a file starting with ``magic`` is instead of a ``.pt`` file, and what to do."""
    if magic[:1] == b"\x80":
        return ("a pickle in PyTorch's legacy format (before PyTorch 1.6, or saved with "
                "_use_new_zipfile_serialization=False); dagrad reads the zip format: load and "
                "save it again with a current PyTorch")
    if magic == b"\x93NUM":
        return "a NumPy .npy array, not a PyTorch file; read it with numpy.load"
    return "not a PyTorch file (it does not start as a zip archive)"


class _Loader:
    """One load: the archive's records, the storages read so far, the allowed names."""

    def __init__(self, archive, where, map_location, weights_only):
        self.archive, self.where = archive, where
        self.map_location = map_location
        self.storages = {}      # key -> Storage
        self.kinds = {}         # key -> the dtype name its persistent id gave
        if not archive.has("data.pkl"):
            raise archive.error("has no data.pkl record, so it was not written by torch.save")
        order = archive.read("byteorder", 16) if archive.has("byteorder") else b"little"
        if order not in (b"little", b"big"):
            raise archive.error(f"has the unknown byte order {order[:16]!r}")
        self.swap = order.decode() != sys.byteorder
        self.table = torch_globals.default_globals(map_location is not None)
        self.callable_ids = torch_globals.callables(self.table)
        self.classes = allowlist.module_classes(weights_only)

    def load(self):
        data = self.archive.read("data.pkl")
        unpickler = RestrictedUnpickler(data, self.table, self.callable_ids, self.classes,
                                        allowlist.user_globals(), self.persistent_load,
                                        self.refuse, allowlist.dagrad_function)
        return unpickler.load()

    def refuse(self, full_name):
        why = torch_globals.unsupported(full_name)
        if why:
            return SerializationError(f"torch.load: {self.where!r} holds {full_name}, "
                                      f"{why}, which dagrad's tensors cannot hold; convert it "
                                      f"in PyTorch (e.g. .float()) before saving")
        return allowlist.refusal("torch.load", self.where, full_name)

    def persistent_load(self, pid):
        if len(pid) != 5:
            raise self.archive.error(f"has the storage id {pid!r:.80}")
        _, kind, key, location, numel = pid
        if not isinstance(kind, StorageType) or type(key) is not str or type(numel) is not int \
                or numel < 0 or type(location) is not str:
            raise self.archive.error(f"has the storage id {pid!r:.80}")
        self.check_location(location)
        if key in self.storages:
            if self.kinds[key] != kind.dtype_name or self.storages[key].array.size != numel:
                raise self.archive.error(f"reads storage {key} as {numel} {kind.dtype_name} "
                                         f"elements and as {self.storages[key]!r}")
            return self.storages[key]
        self.kinds[key] = kind.dtype_name
        self.storages[key] = self.read_storage(key, kind.dtype_name, numel)
        return self.storages[key]

    def check_location(self, location):
        kind, _, index = location.partition(":")
        if kind not in _DEVICE_KINDS or index and not index.isdigit():
            raise self.archive.error(f"keeps a storage on the unknown device {location!r:.40}")
        if kind != "cpu" and self.map_location is None:
            raise _DeviceError(
                f"torch.load: {self.where!r} holds tensors saved on the device {location!r}; "
                f"dagrad computes on the CPU only. Load with map_location='cpu' (or "
                f"map_location=torch.device('cpu')) to read them onto the CPU.")

    def read_storage(self, key, dtype_name, numel):
        name = f"data/{key}"
        if not self.archive.has(name):
            raise self.archive.error(f"has no record {name!r} for a storage it uses")
        wide = dtype_name == BFLOAT16
        dtype = np.dtype(np.uint16) if wide else numpy_dtype(dtype_name)
        nbytes = numel * dtype.itemsize
        if self.archive.size(name) != nbytes:
            raise self.archive.error(f"declares storage {key} as {numel} {dtype_name} "
                                     f"elements ({nbytes} bytes) but its record holds "
                                     f"{self.archive.size(name)} bytes")
        array = np.empty(numel, dtype=dtype)
        self.archive.read_into(name, memoryview(array.view(np.uint8)))
        if self.swap:
            array.byteswap(inplace=True)
        if wide:        # bfloat16: the upper 16 bits of a float32
            array = (array.astype(np.uint32) << 16).view(np.float32)
        return Storage(array, "float32" if wide else dtype_name)
