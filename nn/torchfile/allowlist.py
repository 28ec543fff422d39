"""Which names a ``.pt`` file may use, and what each stands for in dagrad.

A pickle names globals (``module`` and ``name``) and asks to call them; here a name is only
ever looked up in tables, never imported or found by attribute access on a module the file
names. The tables:

- **PyTorch's weights_only set** (``torch/_weights_only_unpickler.py``): ``collections.OrderedDict``
  and ``Counter``, ``torch._utils._rebuild_tensor_v2`` and the other tensor rebuilders,
  ``torch.nn.parameter.Parameter``, the storage classes (``torch.FloatStorage``, ...), the
  dtypes (``torch.float32``, ...), ``torch.Size``, ``torch.device``, ``builtins.set``,
  ``bytearray``, ``complex`` and ``_codecs.encode`` (how protocol 2 writes bytes). Each stands
  for a checked function of ``rebuild`` or a plain container, never for PyTorch's own code.
- **dagrad's own module classes**, by their own path (``dagrad.nn.linear.Linear``) and by
  PyTorch's (``torch.nn.modules.linear.Linear``, see ``class_paths``), and the functions of
  ``dagrad.nn.functional`` (as values, e.g. an activation a layer holds): a module is built
  by ``rebuild.restore_module``, never by its ``__init__`` or ``__setstate__``.
- **what the user allowlisted** with ``add_safe_globals`` / ``safe_globals``, by
  ``module.qualname`` (or the name given with it), as PyTorch 2.6+ asks for a model of one's
  own class. Such classes are trusted as PyTorch trusts them: BUILD calls their
  ``__setstate__``. Names in the modules ``sys``, ``os``, ``posix`` and ``nt`` are refused even
  then.
"""
import codecs
import sys
from collections import Counter, OrderedDict

import numpy as np

from dagrad.autograd import Tensor, device
from dagrad.autograd.size import Size

from ..module import Module
from ..parameter import Parameter
from ..serialization import SerializationError
from . import rebuild
from .class_paths import torch_class_paths
from .dtypes import DTYPES, STORAGES, UNSUPPORTED, numpy_dtype

BLOCKED_MODULES = ("sys", "os", "posix", "nt")
_user = set()           # add_safe_globals: objects, or (object, "module.name") pairs


# --------------------------------------------------------------------- the user's allowlist
def add_safe_globals(safe_globals):
    """Trust these classes and functions when loading (``torch.serialization.add_safe_globals``):
    each an object (found by its ``__module__`` and ``__qualname__``) or an ``(object,
    "module.name")`` pair."""
    for item in safe_globals:
        _check_entry(item)
    _user.update(safe_globals)


def get_safe_globals():
    """The user's allowlist, as a list."""
    return list(_user)


def clear_safe_globals():
    """Empty the user's allowlist."""
    _user.clear()


class safe_globals:
    """``with safe_globals([Net]):`` trusts ``Net`` for the loads inside the block only."""

    def __init__(self, safe_globals):
        for item in safe_globals:
            _check_entry(item)
        self.safe_globals = list(safe_globals)

    def __enter__(self):
        self.added = [g for g in self.safe_globals if g not in _user]
        _user.update(self.added)
        return self

    def __exit__(self, *exc):
        _user.difference_update(self.added)


def _check_entry(item):
    if isinstance(item, tuple):
        if len(item) != 2 or not isinstance(item[1], str):
            raise ValueError(f"add_safe_globals: a pair is (object, 'module.name'), got "
                             f"{item!r:.80}")
    elif not hasattr(item, "__qualname__"):
        raise TypeError(f"add_safe_globals: {item!r:.80} is not a class or function; pass the "
                        f"class or function the file names")


def user_globals():
    """``'module.name' -> object`` for everything the user allowlisted."""
    table = {}
    for item in _user:
        if isinstance(item, tuple):
            table[item[1]] = item[0]
        else:
            table[f"{item.__module__}.{item.__qualname__}"] = item
    return table


# --------------------------------------------------------------------- PyTorch's own set
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


# --------------------------------------------------------------------- dagrad's own names
def dagrad_modules():
    """``'module.qualname' -> class`` for every Module class defined in dagrad, under its own
    path and under PyTorch's path for it. Only classes already defined are found (nothing is
    imported because a file names it)."""
    import dagrad.nn.models  # noqa: F401  (the ready-made models, whose classes files name)
    table = {}
    stack = [Module]
    while stack:
        cls = stack.pop()
        stack.extend(cls.__subclasses__())
        if cls.__module__.startswith("dagrad."):
            table.setdefault(f"{cls.__module__}.{cls.__qualname__}", cls)
    table.update(torch_class_paths())
    return table


def process_modules():
    """Every Module class defined in this process (``weights_only=False``): a program's own
    ``class Net(nn.Module)``, found among the subclasses, never imported."""
    table, stack = {}, [Module]
    while stack:
        cls = stack.pop()
        stack.extend(cls.__subclasses__())
        table.setdefault(f"{cls.__module__}.{cls.__qualname__}", cls)
    return table


def dagrad_function(full_name):
    """A function of ``dagrad.nn.functional`` named by ``full_name`` (its own path, or
    ``torch.nn.functional.<name>``), or None. Such a function is a value only (a layer's
    activation); REDUCE never calls it."""
    functional = sys.modules.get("dagrad.nn.functional")
    if full_name.startswith("torch.nn.functional."):
        found = getattr(functional, full_name[len("torch.nn.functional."):], None)
    else:
        module, _, name = full_name.rpartition(".")
        if not module.startswith("dagrad.nn.functional"):
            return None
        found = getattr(sys.modules.get(module), name, None)
    is_function = type(found).__name__ == "function"
    if is_function and found.__module__.startswith("dagrad.nn.functional"):
        return found
    return None


def unsupported(full_name):
    """Why dagrad cannot load ``torch.<dtype or storage>``, or None."""
    module, _, name = full_name.rpartition(".")
    return UNSUPPORTED.get(name) if module == "torch" else None
