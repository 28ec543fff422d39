"""``data.pkl``: the pickle of a ``.pt`` file, written opcode by opcode (protocol 2, as PyTorch).

Python's own pickler would import ``torch`` to check each global it names, so the few opcodes
PyTorch's files use are emitted here directly. What each object becomes, as PyTorch writes it
(so that ``torch.load(weights_only=True)`` rebuilds it):

    Tensor        torch._utils._rebuild_tensor_v2(storage, offset, size, stride,
                                                  requires_grad, OrderedDict())
                  where storage is the persistent id ('storage', torch.FloatStorage, key,
                  'cpu', numel); uint16/32/64 use _rebuild_tensor_v3 with an untyped storage
    Parameter     torch._utils._rebuild_parameter(<tensor as above>, requires_grad, OrderedDict())
    ndarray       a Tensor (PyTorch's weights_only loader accepts no NumPy arrays)
    NumPy scalar  the Python number it holds
    dict, list, tuple, str, int, float, bool, None: themselves; OrderedDict, Counter, set,
    bytes, bytearray, complex, dtype, device: the reductions PyTorch allowlists
    Module        NEWOBJ of its class (module and qualified name) and BUILD of its attributes
    other object  NEWOBJ + BUILD of its ``__dict__`` when it is a plain object of a module-level
                  class (loading it needs ``add_safe_globals([cls])``, in PyTorch as here)
    class, function   a reference by module and qualified name

Tensors are written once per object (the same tensor twice, as with tied weights, shares one
storage when loaded); each tensor's storage holds its elements in C order.
"""
import struct
from collections import Counter, OrderedDict

import numpy as np

from dagrad.autograd import Tensor, device
from dagrad.autograd.size import Size

from ...module import Module
from ...parameter import Parameter
from ..modules import global_name, refuse_cycles, saved_state
from .dtypes import STORAGE_NAMES, TORCH_NAMES, UNTYPED_DTYPES

PROTO, STOP, MARK, TUPLE, EMPTY_TUPLE = b"\x80", b".", b"(", b"t", b")"
TUPLE1, TUPLE2, TUPLE3 = b"\x85", b"\x86", b"\x87"
NONE, NEWTRUE, NEWFALSE = b"N", b"\x88", b"\x89"
BININT, BININT1, BININT2, LONG1, BINFLOAT = b"J", b"K", b"M", b"\x8a", b"G"
BINUNICODE, GLOBAL, REDUCE, BUILD, NEWOBJ = b"X", b"c", b"R", b"b", b"\x81"
EMPTY_DICT, EMPTY_LIST, SETITEMS, APPENDS = b"}", b"]", b"u", b"e"
BINPUT, LONG_BINPUT, BINGET, LONG_BINGET, BINPERSID = b"q", b"r", b"h", b"j", b"Q"
_SMALL_TUPLES = {0: EMPTY_TUPLE, 1: TUPLE1, 2: TUPLE2, 3: TUPLE3}
_BATCH = 1000          # items per SETITEMS / APPENDS, as pickle batches them


class Pickler:
    """Pickles one object; ``storages`` then holds (key, contiguous array) to write."""

    def __init__(self):
        self.out = bytearray()
        self.memo = {}          # id(object) -> memo index (containers, tensors, globals)
        self.count = 0          # memo indices handed out
        self.keep = []          # objects whose id is in memo, kept alive while pickling
        self.storages = []      # [(key, array)] in order of first use
        self.path = []          # where in the object we are, for error messages
        self.in_module = 0      # how many modules are being saved around the current object

    def dumps(self, obj):
        self.out += PROTO + b"\x02"
        self.save(obj)
        self.out += STOP
        return bytes(self.out)

    # ----------------------------------------------------------------------------- memo
    def put(self, obj, key=None):
        index = self.count
        self.count += 1
        self.memo[id(obj) if key is None else key] = index
        self.keep.append(obj)
        self.out += BINPUT + bytes([index]) if index < 256 else LONG_BINPUT + struct.pack(
            "<I", index)

    def get(self, obj):
        index = self.memo.get(id(obj))
        if index is None:
            return False
        self.out += BINGET + bytes([index]) if index < 256 else LONG_BINGET + struct.pack(
            "<I", index)
        return True

    def where(self):
        return "".join(f"[{p!r}]" for p in self.path) or "the saved object"

    # ------------------------------------------------------------------------------ atoms
    def save_global(self, module, name):
        key = ("global", module, name)
        if key in self.memo:
            index = self.memo[key]
            self.out += BINGET + bytes([index]) if index < 256 else LONG_BINGET + struct.pack(
                "<I", index)
            return
        self.out += GLOBAL + f"{module}\n{name}\n".encode("utf-8")
        self.put(None, key)

    def save_int(self, value):
        if 0 <= value < 256:
            self.out += BININT1 + bytes([value])
        elif 0 <= value < 65536:
            self.out += BININT2 + struct.pack("<H", value)
        elif -2 ** 31 <= value < 2 ** 31:
            self.out += BININT + struct.pack("<i", value)
        else:
            data = value.to_bytes((value.bit_length() + 8) // 8, "little", signed=True)
            if len(data) > 255:
                raise TypeError(f"torch.save: the integer at {self.where()} has more than 2000 "
                                f"bits; PyTorch's weights_only loader reads at most 255 bytes")
            self.out += LONG1 + bytes([len(data)]) + data

    def save_str(self, value):
        data = value.encode("utf-8", "surrogatepass")
        self.out += BINUNICODE + struct.pack("<I", len(data)) + data

    def save_tuple(self, items):
        if len(items) in _SMALL_TUPLES:
            for item in items:
                self.save(item)
            self.out += _SMALL_TUPLES[len(items)]
        else:
            self.out += MARK
            for item in items:
                self.save(item)
            self.out += TUPLE

    def save_reduce(self, module, name, args):
        self.save_global(module, name)
        self.save_tuple(args)
        self.out += REDUCE

    # ------------------------------------------------------------------------------ save
    def save(self, obj):
        if obj is None:
            self.out += NONE
        elif obj is True or obj is False:
            self.out += NEWTRUE if obj else NEWFALSE
        elif type(obj) is int:
            self.save_int(obj)
        elif type(obj) is float:
            self.out += BINFLOAT + struct.pack(">d", obj)
        elif type(obj) is str:
            self.save_str(obj)
        elif isinstance(obj, np.generic):
            self.save_numpy_scalar(obj)
        elif self.get(obj):
            pass
        elif isinstance(obj, (Tensor, np.ndarray)):
            self.save_tensor(obj)
        elif isinstance(obj, Module):
            if not self.in_module:          # the outermost module: its tree must end
                refuse_cycles(obj, "torch.save")
            self.in_module += 1
            self.save_object(obj, saved_state(obj, self.where(), "torch.save"))
            self.in_module -= 1
        else:
            self.save_other(obj)

    def save_numpy_scalar(self, obj):
        if obj.dtype.kind not in "biuf":
            raise TypeError(f"torch.save: {self.where()} is a NumPy {obj.dtype} scalar; save "
                            f"numbers, booleans or tensors")
        self.save(obj.item())

    def save_other(self, obj):
        kind = type(obj)
        if kind in (dict, OrderedDict, Counter):
            self.save_dict(obj)
        elif kind is list:
            self.out += EMPTY_LIST
            self.put(obj)
            self.save_items(enumerate(obj), APPENDS, pairs=False)
        elif isinstance(obj, tuple):
            self.save_tuple_like(obj)
        elif kind is set:
            self.save_global("builtins", "set")
            self.out += EMPTY_LIST
            self.save_items(enumerate(sorted(obj, key=repr)), APPENDS, pairs=False)
            self.out += TUPLE1 + REDUCE
            self.put(obj)
        elif kind in (bytes, bytearray):
            if kind is bytearray:
                self.save_global("builtins", "bytearray")
            self.save_reduce("_codecs", "encode", (bytes(obj).decode("latin1"), "latin1"))
            if kind is bytearray:
                self.out += TUPLE1 + REDUCE
        elif kind is complex:
            self.save_reduce("builtins", "complex", (obj.real, obj.imag))
        elif isinstance(obj, np.dtype):
            self.save_dtype(obj)
        elif kind is device:
            self.save_reduce("torch", "device", (str(obj),))
        elif isinstance(obj, type) or callable(obj) and hasattr(obj, "__qualname__"):
            self.save_reference(obj)
        else:
            self.save_object(obj, plain_object_state(obj, self.where()))

    def save_tuple_like(self, obj):
        if type(obj) is Size:
            self.save_reduce("torch", "Size", (tuple(obj),))
        elif type(obj) is tuple:
            self.save_tuple(obj)
        else:   # a namedtuple: PyTorch's loader would need it allowlisted; keep the values
            raise TypeError(f"torch.save: {self.where()} is a {type(obj).__qualname__} (a named "
                            f"tuple); save tuple(value) or a dict")

    def save_dict(self, obj):
        if type(obj) is dict:
            self.out += EMPTY_DICT
        else:
            self.save_global("collections", type(obj).__name__)
            self.out += EMPTY_TUPLE + REDUCE
        self.put(obj)
        self.save_items(obj.items(), SETITEMS, pairs=True)
        state = getattr(obj, "__dict__", None)
        if state:       # OrderedDict attributes, such as a state dict's _metadata
            self.save({k: v for k, v in state.items()})
            self.out += BUILD

    def save_items(self, items, opcode, pairs):
        batch = []
        for item in items:
            batch.append(item)
            if len(batch) == _BATCH:
                self.save_batch(batch, opcode, pairs)
                batch = []
        if batch:
            self.save_batch(batch, opcode, pairs)

    def save_batch(self, batch, opcode, pairs):
        self.out += MARK
        for key, value in batch:
            if pairs:
                self.save(key)
            self.path.append(key)
            self.save(value)
            self.path.pop()
        self.out += opcode

    def save_dtype(self, dtype):
        name = TORCH_NAMES.get(np.dtype(dtype).newbyteorder("="))
        if name is None:
            raise TypeError(f"torch.save: {self.where()} is the NumPy dtype {dtype}, which "
                            f"PyTorch has no dtype for")
        self.save_global("torch", name)
        self.put(dtype)

    def save_reference(self, obj):
        self.save_global(*global_name(obj, self.where(), "torch.save"))
        self.put(obj)

    def save_object(self, obj, state):
        cls = type(obj)
        self.save_reference(cls)
        self.out += EMPTY_TUPLE + NEWOBJ
        self.put(obj)
        self.save(state)
        self.out += BUILD

    # ---------------------------------------------------------------------------- tensors
    def save_tensor(self, obj):
        array = obj._data if isinstance(obj, Tensor) else obj
        if array.dtype.kind not in "biuf":
            raise TypeError(f"torch.save: {self.where()} holds {array.dtype} data; tensors "
                            f"hold real numbers or booleans")
        if isinstance(obj, Parameter):
            self.save_global("torch._utils", "_rebuild_parameter")
            self.save_rebuild_tensor(array, False)
            self.save(bool(obj.requires_grad))
            self.save_reduce("collections", "OrderedDict", ())
            self.out += TUPLE3 + REDUCE
        else:
            self.save_rebuild_tensor(array, isinstance(obj, Tensor) and obj.requires_grad)
        self.put(obj)

    def save_rebuild_tensor(self, array, requires_grad):
        dtype = array.dtype.newbyteorder("=")
        untyped = dtype in UNTYPED_DTYPES
        self.save_global("torch._utils", "_rebuild_tensor_v3" if untyped else
                         "_rebuild_tensor_v2")
        self.out += MARK
        self.save_storage(array, untyped)
        self.save_int(0)
        self.save_tuple(tuple(int(n) for n in array.shape))
        self.save_tuple(c_strides(array.shape))
        self.save(bool(requires_grad))
        self.save_reduce("collections", "OrderedDict", ())
        if untyped:
            self.save_dtype(dtype)
        self.out += TUPLE + REDUCE

    def save_storage(self, array, untyped):
        data = np.ascontiguousarray(array, dtype=array.dtype.newbyteorder("<"))
        key = str(len(self.storages))
        self.storages.append((key, data))
        self.out += MARK
        self.save_str("storage")
        if untyped:
            self.save_global("torch.storage", "UntypedStorage")
        else:
            self.save_global("torch", STORAGE_NAMES[data.dtype.newbyteorder("=")])
        self.save_str(key)
        self.save_str("cpu")
        self.save_int(data.nbytes if untyped else data.size)
        self.out += TUPLE + BINPERSID


def c_strides(shape):
    """Strides in elements of a C-ordered array of ``shape``."""
    strides, step = [], 1
    for n in reversed(shape):
        strides.append(step)
        step *= max(int(n), 1)
    return tuple(reversed(strides))


def plain_object_state(obj, where):
    """``obj.__dict__`` for an object that pickle would save as NEWOBJ + BUILD of it."""
    cls = type(obj)
    plain = (cls.__reduce_ex__ is object.__reduce_ex__ and cls.__reduce__ is object.__reduce__
             and getattr(cls, "__getstate__", object.__getstate__) is object.__getstate__
             and not hasattr(cls, "__slots__") and isinstance(getattr(obj, "__dict__", None),
                                                              dict))
    if not plain or cls.__new__ is not object.__new__:
        raise TypeError(f"torch.save: cannot save {where}, a {cls.__qualname__}; save tensors, "
                        f"numbers, strings, containers of them, modules and plain objects")
    return dict(vars(obj))
