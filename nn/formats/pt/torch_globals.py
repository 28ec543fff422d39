"""PyTorch's ``weights_only`` set (``torch/_weights_only_unpickler.py``), mapped to dagrad: what
each name a ``.pt`` file may use stands for when it is loaded.

``collections.OrderedDict`` and ``Counter``, ``torch._utils._rebuild_tensor_v2`` and the other
tensor rebuilders, ``torch.nn.parameter.Parameter``, the storage classes
(``torch.FloatStorage``, ...), the dtypes (``torch.float32``, ...), ``torch.Size``,
``torch.device``, ``builtins.set``, ``bytearray``, ``complex`` and ``_codecs.encode`` (how
protocol 2 writes bytes). Each stands for a checked function of ``rebuild`` or a plain
container, never for PyTorch's own code. The rest of the policy (dagrad's module classes, the
user's ``add_safe_globals``) is ``formats.allowlist``.
"""
import codecs
from collections import Counter, OrderedDict

import numpy as np

from dagrad.autograd import Tensor, device
from dagrad.autograd.size import Size

from ...parameter import Parameter
from ..errors import SerializationError
from . import rebuild
from .dtypes import DTYPES, STORAGES, UNSUPPORTED, numpy_dtype


def _set(items=()):
    if type(items) not in (list, tuple, set):
        raise SerializationError(f"torch.load: the file builds a set from a "
                                 f"{type(items).__name__}")
    return set(items)


def _bytearray(data=b""):
    if type(data) is not bytes:             # bytearray(10**12) would allocate 1 TB
        raise SerializationError(f"torch.load: the file builds a bytearray from a "
                                 f"{type(data).__name__}")
    return bytearray(data)


def _complex(real=0.0, imag=0.0):
    if not all(type(v) in (int, float) for v in (real, imag)):
        raise SerializationError("torch.load: the file builds a complex number from non-numbers")
    return complex(real, imag)


def _encode(text, encoding="utf-8", errors="strict"):
    if type(text) is not str or encoding not in ("latin1", "latin-1", "utf-8", "ascii"):
        raise SerializationError("torch.load: the file encodes bytes other than as protocol 2 "
                                 "writes them")
    return codecs.encode(text, encoding, "strict")


def _ordered_dict(items=()):
    if type(items) not in (list, tuple, dict, OrderedDict):
        raise SerializationError(f"torch.load: the file builds an OrderedDict from a "
                                 f"{type(items).__name__}")
    return OrderedDict(items)


def _counter(items=()):
    if type(items) not in (dict, list, tuple, str):
        raise SerializationError(f"torch.load: the file builds a Counter from a "
                                 f"{type(items).__name__}")
    return Counter(items)


class DeviceValue:
    """``torch.device`` in a file: the CPU, or a GPU named by a checkpoint's settings, which
    ``load`` maps to the CPU when ``map_location`` says so (and refuses otherwise)."""

    def __init__(self, map_location_given):
        self.map_location_given = map_location_given

    def __call__(self, kind="cpu", index=None):
        if not isinstance(kind, str) or (index is not None and type(index) is not int):
            raise SerializationError(f"torch.load: the file builds a device from {kind!r:.40}")
        if kind.partition(":")[0] != "cpu" and self.map_location_given:
            return device("cpu")
        try:
            return device(kind, index)
        except RuntimeError as e:
            raise SerializationError(f"torch.load: the file holds torch.device({kind!r}); {e} "
                                     f"Load with map_location='cpu' to read it as the CPU.") \
                from None


def _size(dims=()):
    if type(dims) not in (tuple, list) or not all(type(d) is int for d in dims):
        raise SerializationError(f"torch.load: the file builds a torch.Size from {dims!r:.60}")
    return Size(dims)


def _get_layout(name):
    raise SerializationError(f"torch.load: the file holds a tensor of layout {name!r:.40} "
                             f"(sparse); save it with .to_dense() in PyTorch")


def _unsupported_rebuild(what):
    def refuse(*args):
        raise SerializationError(f"torch.load: the file holds {what}, which dagrad does not "
                                 f"have; convert it to an ordinary dense tensor in PyTorch "
                                 f"before saving")
    return refuse


def default_globals(map_location_given):
    """PyTorch's weights_only allowlist, mapped to dagrad: ``'module.name' -> object``."""
    table = {
        "collections.OrderedDict": _ordered_dict,
        "collections.Counter": _counter,
        "torch.nn.parameter.Parameter": Parameter,
        "torch.serialization._get_layout": _get_layout,
        "torch.Size": _size,
        "torch.Tensor": Tensor,
        "torch.device": DeviceValue(map_location_given),
        "_codecs.encode": _encode,
        "builtins.bytearray": _bytearray,
        "builtins.set": _set,
        "builtins.complex": _complex,
        "torch._utils._rebuild_tensor": rebuild.rebuild_tensor_v1,
        "torch._utils._rebuild_tensor_v2": rebuild.rebuild_tensor_v2,
        "torch._utils._rebuild_tensor_v3": rebuild.rebuild_tensor_v3,
        "torch._utils._rebuild_parameter": rebuild.rebuild_parameter,
        "torch._utils._rebuild_parameter_with_state": rebuild.rebuild_parameter_with_state,
        "torch._tensor._rebuild_from_type_v2": rebuild.rebuild_from_type,
        "torch.storage.UntypedStorage": rebuild.StorageType("UntypedStorage"),
    }
    for what, name in (("a quantized tensor", "_rebuild_qtensor"),
                       ("a sparse tensor", "_rebuild_sparse_tensor"),
                       ("a tensor without data (meta device)", "_rebuild_meta_tensor_no_storage"),
                       ("a nested tensor", "_rebuild_nested_tensor"),
                       ("a tensor subclass", "_rebuild_wrapper_subclass"),
                       ("a tensor saved through NumPy", "_rebuild_device_tensor_from_numpy"),
                       ("a device tensor", "_rebuild_device_tensor_from_cpu_tensor")):
        table[f"torch._utils.{name}"] = _unsupported_rebuild(what)
    for name in DTYPES:
        table[f"torch.{name}"] = numpy_dtype(name)
    for name in STORAGES:
        table[f"torch.{name}"] = rebuild.StorageType(name)
    return table


# the callables REDUCE may call, besides what the user allowlisted
def callables(table):
    return {id(v) for k, v in table.items()
            if callable(v) and not isinstance(v, (rebuild.StorageType, np.dtype, type))
            } | {id(Parameter)}



def unsupported(full_name):
    """Why dagrad cannot load ``torch.<dtype or storage>``, or None."""
    module, _, name = full_name.rpartition(".")
    return UNSUPPORTED.get(name) if module == "torch" else None
