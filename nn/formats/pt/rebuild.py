"""What the allowlisted names of a ``.pt`` file build: storages, tensors and parameters (whole
modules are ``formats.modules``'s).

These functions stand where PyTorch's ``torch._utils._rebuild_tensor_v2`` and friends stand
when a file is unpickled; each checks its arguments as data from a stranger: types, signs,
lengths, and that a tensor's elements lie inside its storage (``offset + Σ (size_i - 1) ·
stride_i < len(storage)``). A tensor is a NumPy view of its storage, so tensors that shared a
storage when saved share memory when loaded, as in PyTorch; a layout whose elements overlap
(a stride of 0, from ``expand``) is read-only.
"""
import numpy as np

from dagrad.autograd import Tensor

from ...parameter import Parameter
from ..errors import SerializationError
from .dtypes import STORAGES, TORCH_NAMES, numpy_dtype

MAX_VIEW_ELEMENTS = 2 ** 31     # elements a read-only overlapping view may present


class StorageType:
    """What ``torch.FloatStorage`` (and the others) stand for in a file: a storage's dtype."""

    def __init__(self, name):
        self.name = name
        self.dtype_name = STORAGES.get(name, "uint8")      # UntypedStorage holds bytes

    def __repr__(self):
        return f"torch.{self.name}"


class Storage:
    """A storage read from the file: a 1-D array of its elements (``array``)."""

    __slots__ = ("array", "dtype_name")

    def __init__(self, array, dtype_name):
        self.array, self.dtype_name = array, dtype_name

    def __repr__(self):
        return f"Storage({self.dtype_name}, {self.array.size} elements)"


def _error(message):
    return SerializationError(f"torch.load: the file {message}")


def _ints(value, what):
    if isinstance(value, (tuple, list)) and all(type(v) is int for v in value):
        return tuple(value)
    raise _error(f"gives a tensor's {what} as {value!r:.80}, not a tuple of integers")


def _check_hooks(hooks):
    if hooks is not None and (not isinstance(hooks, dict) or hooks):
        raise _error("attaches backward hooks to a tensor; hooks are code, which is never "
                     "loaded")


def rebuild_tensor(storage, storage_offset, size, stride, dtype_name=None):
    """The tensor of ``size`` over ``storage`` at ``storage_offset`` with ``stride`` (in
    elements), as ``torch.Tensor.set_(storage, offset, size, stride)``."""
    if not isinstance(storage, Storage):
        raise _error(f"builds a tensor from {type(storage).__name__}, not from a storage")
    size, stride = _ints(size, "size"), _ints(stride, "stride")
    if type(storage_offset) is not int or storage_offset < 0:
        raise _error(f"gives a tensor the storage offset {storage_offset!r}")
    if len(size) != len(stride) or min(size + stride, default=0) < 0:
        raise _error(f"gives a tensor the size {size} and stride {stride}")
    array = storage.array
    if dtype_name is not None and dtype_name != storage.dtype_name:
        array = _reinterpret(storage, dtype_name)
    numel = 1
    for n in size:
        numel *= n
    if numel:
        last = storage_offset + sum((n - 1) * s for n, s in zip(size, stride))
        if last >= array.size:
            raise _error(f"gives a tensor of size {size}, stride {stride} and offset "
                         f"{storage_offset} whose elements reach index {last} of a storage of "
                         f"{array.size}")
    overlapping = numel > 1 and _overlaps(size, stride)
    if overlapping and numel > MAX_VIEW_ELEMENTS:
        raise _error(f"gives a tensor of {numel} elements over a storage of {array.size}")
    item = array.itemsize
    view = np.lib.stride_tricks.as_strided(
        array[storage_offset:] if numel else array[:0], shape=size,
        strides=tuple(s * item for s in stride), writeable=not overlapping)
    return Tensor(view)


def _reinterpret(storage, dtype_name):
    """An untyped (byte) storage read as ``dtype_name`` (``_rebuild_tensor_v3``)."""
    if storage.dtype_name != "uint8":
        raise _error(f"reads a {storage.dtype_name} storage as {dtype_name}")
    dtype = numpy_dtype(dtype_name)
    if storage.array.size % dtype.itemsize:
        raise _error(f"reads a storage of {storage.array.size} bytes as {dtype_name}")
    return storage.array.view(dtype)


def _overlaps(size, stride):
    """Whether two indices of the layout reach one element (False means one-to-one)."""
    extent = 0
    dims = sorted(((s, n) for n, s in zip(size, stride) if n > 1))
    for s, n in dims:
        if s <= extent:
            return True
        extent += (n - 1) * s
    return False


def rebuild_tensor_v2(storage, storage_offset, size, stride, requires_grad, backward_hooks,
                      metadata=None):
    """``torch._utils._rebuild_tensor_v2``: a tensor, with ``requires_grad`` set."""
    return _finish(rebuild_tensor(storage, storage_offset, size, stride), requires_grad,
                   backward_hooks, metadata)


def rebuild_tensor_v3(storage, storage_offset, size, stride, requires_grad, backward_hooks,
                      dtype, metadata=None):
    """``torch._utils._rebuild_tensor_v3``: an untyped storage read as ``dtype``."""
    name = _dtype_name(dtype)
    return _finish(rebuild_tensor(storage, storage_offset, size, stride, name), requires_grad,
                   backward_hooks, metadata)


def rebuild_tensor_v1(storage, storage_offset, size, stride):
    """``torch._utils._rebuild_tensor`` (files of old PyTorch versions)."""
    return rebuild_tensor(storage, storage_offset, size, stride)


def _dtype_name(dtype):
    name = TORCH_NAMES.get(dtype) if isinstance(dtype, np.dtype) else None
    if name is None:
        raise _error(f"gives {dtype!r:.60} where a dtype belongs")
    return name


def _finish(tensor, requires_grad, backward_hooks, metadata):
    if type(requires_grad) is not bool:
        raise _error(f"gives requires_grad={requires_grad!r:.40}, not a bool")
    _check_hooks(backward_hooks)
    if metadata is not None and (not isinstance(metadata, dict) or any(metadata.values())):
        raise _error(f"marks a tensor with {metadata!r:.80} (negated or conjugated views), "
                     f"which dagrad does not have")
    if requires_grad:
        if tensor.dtype.kind != "f":
            raise _error(f"asks a {tensor.dtype} tensor to require gradients")
        tensor.requires_grad_(True)
    return tensor


def rebuild_parameter(data, requires_grad, backward_hooks):
    """``torch._utils._rebuild_parameter``: ``Parameter(data, requires_grad)``."""
    if not isinstance(data, Tensor) or type(requires_grad) is not bool:
        raise _error(f"builds a Parameter from {type(data).__name__} and "
                     f"requires_grad={requires_grad!r:.40}")
    _check_hooks(backward_hooks)
    if requires_grad and data.dtype.kind != "f":
        raise _error(f"asks a {data.dtype} parameter to require gradients")
    return Parameter(data, requires_grad=requires_grad)


def rebuild_parameter_with_state(data, requires_grad, backward_hooks, state):
    """``torch._utils._rebuild_parameter_with_state``: a Parameter; its Python attributes
    (``state``) must be empty, as dagrad's parameters have none."""
    if state not in (None, {}, (None, None), ({}, None), (None, {}), ({}, {})):
        raise _error("gives a Parameter Python attributes, which dagrad's parameters cannot "
                     "hold")
    return rebuild_parameter(data, requires_grad, backward_hooks)


def rebuild_from_type(func, new_type, args, state):
    """``torch._tensor._rebuild_from_type_v2``: ``func(*args)`` as ``new_type`` (Tensor or
    Parameter), where ``func`` is one of the rebuild functions above and ``state`` empty."""
    if func not in TENSOR_REBUILDERS or new_type not in (Tensor, Parameter):
        raise _error(f"rebuilds a tensor with {func!r:.60} as {new_type!r:.60}")
    if not isinstance(args, tuple):
        raise _error("gives the arguments of a tensor as no tuple")
    if state:
        raise _error("gives a tensor Python attributes, which dagrad's tensors cannot hold")
    tensor = func(*args)
    return Parameter(tensor, requires_grad=tensor.requires_grad) if new_type is Parameter \
        else tensor


TENSOR_REBUILDERS = (rebuild_tensor_v1, rebuild_tensor_v2, rebuild_tensor_v3,
                     rebuild_parameter, rebuild_parameter_with_state)


def ordered_dict_attributes(instance, state):
    """BUILD on an OrderedDict: PyTorch's state dicts carry ``_metadata`` (layer versions)."""
    if not isinstance(state, dict) or not all(type(k) is str and not k.startswith("__")
                                              for k in state):
        raise _error(f"gives an OrderedDict the attributes {state!r:.80}")
    instance.__dict__.update(state)
    return instance

