"""Devices: dagrad computes on the CPU, with NumPy; ``device`` is PyTorch's name for that place.

PyTorch code says where tensors live (``torch.device("cpu")``, ``x.to(device)``,
``torch.zeros(3, device=device)``). Here every tensor lives on the CPU, so those arguments are
accepted when they name the CPU and refused, with one error saying so, when they name a GPU::

    dev = ag.device("cpu")
    x = ag.zeros(3, device=dev)      # x.device == dev
    x.to("cuda")                     # RuntimeError: dagrad computes on the CPU only ...
"""
from .tensor import Tensor

_CPU_NAMES = ("cpu",)
_GPU_NAMES = ("cuda", "mps", "xpu", "hip", "xla", "meta", "mtia", "privateuseone", "vulkan")


class device:
    """Where a tensor lives: always ``device(type='cpu')`` in dagrad.

    ``device("cpu")``, ``device("cpu:0")``, ``device("cpu", 0)`` and ``device(other_device)``
    are accepted; a GPU name (``"cuda"``, ``"mps"``, ...) raises a RuntimeError that says dagrad
    runs on the CPU.
    """

    __slots__ = ("type", "index")

    def __init__(self, type="cpu", index=None):
        if isinstance(type, device):
            type, index = type.type, type.index if index is None else index
        if not isinstance(type, str):
            raise TypeError(f"device(): expected a string such as 'cpu', got "
                            f"{type.__class__.__name__} {type!r}")
        name, _, suffix = type.partition(":")
        if suffix:
            if not suffix.isdigit():
                raise RuntimeError(f"device(): invalid device string {type!r}")
            index = int(suffix)
        if name in _GPU_NAMES:
            raise RuntimeError(_gpu_message(type if suffix else name))
        if name not in _CPU_NAMES:
            raise RuntimeError(f"device(): expected a device type such as 'cpu', got {type!r}")
        self.type, self.index = "cpu", index

    def __repr__(self):
        index = "" if self.index is None else f", index={self.index}"
        return f"device(type='{self.type}'{index})"

    def __str__(self):
        return self.type if self.index is None else f"{self.type}:{self.index}"

    def __eq__(self, other):
        # as PyTorch: a device equals a device, never a string (device("cpu") != "cpu")
        return isinstance(other, device) and (other.type, other.index) == (self.type, self.index)

    def __hash__(self):
        return hash((self.type, self.index))

    def __reduce__(self):
        return device, (self.type, self.index)


CPU = device("cpu")


def _gpu_message(name):
    return (f"device {name!r}: dagrad computes on the CPU only (NumPy arrays), it has no "
            f"{name.split(':')[0].upper()} support. Use device 'cpu', or choose it as PyTorch "
            f"code usually does: 'cuda' if torch.cuda.is_available() else 'cpu' "
            f"(is_available() is False in dagrad).")


def check_device(dev, op):
    """Accept ``dev`` if it names the CPU (a ``device``, a string or None); raise otherwise.

    ``op`` names the function that received the argument, for the error message.
    """
    if dev is None or dev is CPU:
        return CPU
    if isinstance(dev, int) and not isinstance(dev, bool):
        raise RuntimeError(f"{op}: device={dev} names GPU number {dev}; " + _gpu_message("cuda"))
    try:
        return device(dev)
    except TypeError:
        raise TypeError(f"{op}: device must be a device or a string such as 'cpu', got "
                        f"{dev!r}") from None


def is_device_like(arg):
    """True for what ``Tensor.to`` / ``Module.to`` read as a device: a device or a string
    (dtypes are NumPy types or dtype objects, never strings in PyTorch code)."""
    return isinstance(arg, (device, str))


def parse_to_args(args, kwargs, op):
    """Read PyTorch's ``to(...)`` arguments: ``to(dtype)``, ``to(device)``,
    ``to(device, dtype)``, ``to(other_tensor)``, ``to(device=..., dtype=...)``, plus
    ``non_blocking`` and ``copy``. Returns ``(dtype or None, copy)``; a GPU device raises."""
    kwargs = dict(kwargs)
    dtype = kwargs.pop("dtype", None)
    check_device(kwargs.pop("device", None), op)
    copy = bool(kwargs.pop("copy", False))
    kwargs.pop("non_blocking", None)
    kwargs.pop("memory_format", None)
    if kwargs:
        raise TypeError(f"{op}: unexpected keyword arguments {sorted(kwargs)}")
    args = list(args)
    if args and isinstance(args[0], Tensor):   # to(other): other's dtype (and device)
        dtype = args.pop(0).dtype
    if args and (is_device_like(args[0]) or isinstance(args[0], int)
                 and not isinstance(args[0], bool)):
        check_device(args.pop(0), op)
    if args:
        if dtype is not None and args[0] is not None:
            raise TypeError(f"{op}: dtype given twice")
        dtype = args.pop(0)
    if args:   # PyTorch's positional non_blocking, copy
        copy = bool(args[1]) if len(args) > 1 else copy
    return dtype, copy
