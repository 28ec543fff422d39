"""Functions that create tensors: ``tensor``, ``zeros``, ``randn``, ... (PyTorch's names).

Every one takes PyTorch's ``device=`` keyword: the CPU (``"cpu"``, ``ag.device("cpu")``, None)
is accepted, a GPU is refused with one clear error (see ``autograd/device.py``).
"""
import numpy as np

from .args import size_arg
from .default_dtype import DEFAULT, float_dtype as _float_dtype
from .device import check_device
from .random import generator, numpy_generator
from .scalars import check_python_int, checked_fill_value
from .tensor import make_tensor, raw_data, Tensor


def tensor(data, dtype=None, device=None, requires_grad=False):
    """A new leaf tensor holding a copy of ``data`` (number, nested list, ndarray or Tensor).

    Python floats give the default dtype (float32 unless ``set_default_dtype``), Python ints
    int64, bools bool; ndarrays keep their dtype.
    """
    check_device(device, "tensor")
    if isinstance(data, Tensor):
        data = data._data
    if isinstance(data, np.ndarray):
        data = data.copy()
    return Tensor(data, requires_grad=requires_grad, dtype=dtype)


def as_tensor(data, dtype=None, device=None):
    """``data`` as a Tensor (PyTorch's ``torch.as_tensor``): a Tensor passes through (converted
    when ``dtype`` differs), anything else is wrapped, sharing an ndarray's memory. ``device``
    can only be the CPU."""
    if device is not None:
        check_device(device, "as_tensor")
    if isinstance(data, Tensor):
        return data if dtype is None or data.dtype == np.dtype(dtype) else data.to(dtype)
    return Tensor(data, dtype=dtype)


def legacy_new(dtype, *args, device=None):
    """PyTorch's legacy constructors ``torch.Tensor(...)``, ``torch.FloatTensor(...)``,
    ``torch.LongTensor(...)``: a tensor of ``dtype`` made from

    - nothing: an empty tensor of shape (0,);
    - integers (or one ``torch.Size``/tuple of them): an uninitialised tensor of that shape
      (zeros here, as ``empty``): ``torch.Tensor(5)`` has five elements, ``torch.Tensor(2, 3)``
      is 2 × 3;
    - one sequence, array or tensor: its values, converted to ``dtype``
      (``torch.Tensor([1, 2])`` is float32, unlike ``torch.tensor([1, 2])``).
    """
    name = f"torch.{_LEGACY_NAMES.get(np.dtype(dtype), 'Tensor')}"
    check_device(device, name)
    if not args:
        return Tensor(np.empty(0, dtype=dtype))
    if all(isinstance(a, (int, np.integer)) and not isinstance(a, bool) for a in args):
        return zeros(*args, dtype=dtype)
    if len(args) == 1 and isinstance(args[0], tuple) and all(
            isinstance(a, (int, np.integer)) for a in args[0]):
        return zeros(*args[0], dtype=dtype)
    if len(args) == 1 and isinstance(args[0], (list, np.ndarray, Tensor)):
        data = args[0]._data if isinstance(args[0], Tensor) else args[0]
        return Tensor(np.array(data, dtype=dtype))
    raise TypeError(f"{name}(): expected sizes (ints), a torch.Size, or one sequence of data, "
                    f"got {', '.join(type(a).__name__ for a in args)}; for a tensor holding a "
                    f"number use torch.tensor({args[0]!r})")


_LEGACY_NAMES = {np.dtype(np.float32): "FloatTensor", np.dtype(np.float64): "DoubleTensor",
                 np.dtype(np.float16): "HalfTensor", np.dtype(np.int64): "LongTensor",
                 np.dtype(np.int32): "IntTensor", np.dtype(np.int16): "ShortTensor",
                 np.dtype(np.int8): "CharTensor", np.dtype(np.uint8): "ByteTensor",
                 np.dtype(np.bool_): "BoolTensor"}


def legacy_name(dtype):
    """PyTorch's legacy type name of a CPU tensor of ``dtype``: ``'torch.FloatTensor'``, ..."""
    return f"torch.{_LEGACY_NAMES[np.dtype(dtype)]}"


def legacy_dtype(kind):
    """The dtype that ``kind`` names: a dtype, a legacy type (``torch.FloatTensor``, which
    carries ``legacy_dtype``) or a legacy type's name (``'torch.LongTensor'``)."""
    kind = getattr(kind, "legacy_dtype", kind)
    if isinstance(kind, str) and kind.startswith("torch."):
        for dtype, name in _LEGACY_NAMES.items():
            if kind == f"torch.{name}":
                return dtype
        raise ValueError(f"Tensor.type: unknown type {kind!r}; dagrad has "
                         f"{', '.join(sorted(_LEGACY_NAMES.values()))}")
    return kind


def from_numpy(array):
    """A tensor sharing ``array``'s memory (writes to one show in the other), as PyTorch."""
    if not isinstance(array, np.ndarray):
        raise TypeError(f"from_numpy: expected a numpy.ndarray, got {type(array).__name__}")
    return make_tensor(array, None)


def _new(array, requires_grad, device, op):
    check_device(device, op)
    return Tensor(array, requires_grad=requires_grad)


def zeros(*size_args, size=None, dtype=None, device=None, requires_grad=False):
    """A tensor of zeros of the shape given positionally (``zeros(2, 3)``, ``zeros((2, 3))``)
    or as ``size=``."""
    shape = size_arg(size_args, "zeros", size)
    return _new(np.zeros(shape, _float_dtype(dtype)), requires_grad, device, "zeros")


def ones(*size_args, size=None, dtype=None, device=None, requires_grad=False):
    """A tensor of ones of the shape given positionally or as ``size=``."""
    shape = size_arg(size_args, "ones", size)
    return _new(np.ones(shape, _float_dtype(dtype)), requires_grad, device, "ones")


def empty(*size_args, size=None, dtype=None, device=None, requires_grad=False):
    """An uninitialised tensor of shape ``size`` (zeros here: NumPy's empty is not faster enough
    to justify garbage values)."""
    return zeros(*size_args, size=size, dtype=dtype, device=device, requires_grad=requires_grad)


def full(size, fill_value, dtype=None, device=None, requires_grad=False):
    """A tensor of shape ``size`` filled with ``fill_value``."""
    if dtype is None:
        dtype = np.asarray(check_python_int(fill_value, "full")).dtype
        dtype = DEFAULT.dtype if dtype == np.float64 else np.int64 if dtype == np.uint64 else dtype
    fill_value = checked_fill_value(fill_value, dtype, "full")
    return _new(np.full(size_arg((size,), "full"), fill_value, np.dtype(dtype)), requires_grad,
                device, "full")


def zeros_like(x, dtype=None, device=None, requires_grad=False):
    return _new(np.zeros(x.shape, dtype or x.dtype), requires_grad, device, "zeros_like")


def ones_like(x, dtype=None, device=None, requires_grad=False):
    return _new(np.ones(x.shape, dtype or x.dtype), requires_grad, device, "ones_like")


def empty_like(x, dtype=None, device=None, requires_grad=False):
    return zeros_like(x, dtype, device, requires_grad)


def full_like(x, fill_value, dtype=None, device=None, requires_grad=False):
    fill_value = checked_fill_value(fill_value, dtype or x.dtype, "full_like")
    return _new(np.full(x.shape, fill_value, dtype or x.dtype), requires_grad, device,
                "full_like")


def rand_like(x, dtype=None, device=None, requires_grad=False):
    """Uniform [0, 1) numbers with the shape (and floating dtype) of ``x``."""
    return rand(*x.shape, dtype=dtype or x.dtype, device=device, requires_grad=requires_grad)


def randn_like(x, dtype=None, device=None, requires_grad=False):
    """Standard normal numbers with the shape (and floating dtype) of ``x``."""
    return randn(*x.shape, dtype=dtype or x.dtype, device=device, requires_grad=requires_grad)


def eye(n, m=None, dtype=None, device=None, requires_grad=False):
    """The n x m identity matrix."""
    return _new(np.eye(n, m, dtype=_float_dtype(dtype)), requires_grad, device, "eye")


def arange(start, end=None, step=1, dtype=None, device=None, requires_grad=False):
    """Evenly spaced values in [start, end): ints give int64, floats float32 (as PyTorch).

    Element i is ``start + i·step`` (not NumPy's repeated additions, whose rounding errors
    differ: ``arange(-8.0, 8.0, 0.1)[80]`` is 4.4e-16 here and in PyTorch, -2.8e-14 in NumPy),
    with the roundings of PyTorch's CPU kernel (see ``_float_range``). A range whose bounds
    disagree with the sign of ``step`` raises, as in PyTorch."""
    if end is None:
        start, end = 0, start
    start, end, step = (check_python_int(raw_data(v).item() if isinstance(v, Tensor) else v,
                                         "arange") for v in (start, end, step))
    if step == 0:
        raise RuntimeError(f"arange: step must be nonzero (start={start}, end={end})")
    if (end - start) * step < 0:
        raise RuntimeError(f"arange: upper bound and lower bound inconsistent with step sign "
                           f"(start={start}, end={end}, step={step}); to count "
                           f"{'down' if step > 0 else 'up'} give step={-step}")
    integral = all(isinstance(v, (int, np.integer)) for v in (start, end, step))
    if dtype is None:
        dtype = np.int64 if integral else DEFAULT.dtype
    dtype = np.dtype(dtype)
    if integral:
        values = np.arange(start, end, step, dtype=np.int64).astype(dtype)
    else:
        count = np.ceil((end - start) / step)
        if not count < 2 ** 60:
            raise RuntimeError(f"arange: invalid size, possible overflow? ({start} to {end} by "
                               f"{step} is {count:.3g} elements); check start, end and step")
        count = max(int(count), 0)
        values = (_float_range(float(start), float(step), count, dtype) if dtype.kind == "f"
                  else (start + np.arange(count) * step).astype(dtype))
    return _new(values, requires_grad, device, "arange")


_LONG = np.longdouble if np.finfo(np.longdouble).nmant > 52 else np.float64


def _float_range(start, step, count, dtype):
    """``start + i·step`` for i < ``count``, rounded as PyTorch's CPU kernel rounds it, so the
    values agree to the last bit (checked against PyTorch for ranges up to 32768 elements;
    beyond that PyTorch splits the range between threads and its own rounding varies).

    The kernel works in vectors of 32 bytes (8 float32, 4 float64): a vector's first element
    is ``start + b·step`` computed in float64 with one rounding (a fused multiply-add) and then
    rounded to the dtype, the next ones add ``j·step`` to that rounded value; the elements left
    after the last pair of vectors get ``start + i·step`` each. The fused multiply-add is done
    in extended precision (``np.longdouble``) where the platform has it."""
    width = 32 // dtype.itemsize
    i = np.arange(count)
    first = i - i % width
    base = _fma(step, first, start).astype(dtype).astype(np.float64)
    values = _fma(step, i - first, base).astype(dtype)
    tail = count - count % (2 * width)
    values[tail:] = _fma(step, i[tail:], start).astype(dtype)
    return values


def _fma(a, b, c):
    """a·b + c with one rounding to float64 (b an integer array, c a number or array)."""
    return (_LONG(a) * b.astype(_LONG) + np.asarray(c, dtype=_LONG)).astype(np.float64)


def linspace(start, end, steps, dtype=None, device=None, requires_grad=False):
    """``steps`` evenly spaced values from ``start`` to ``end`` inclusive."""
    if isinstance(steps, bool) or not isinstance(steps, (int, np.integer)):
        raise TypeError(f"linspace: steps must be an int (the number of values), got "
                        f"{type(steps).__name__} {steps!r}")
    if steps < 0:
        raise RuntimeError(f"linspace: number of steps must be non-negative, got {steps}; "
                           f"linspace({start}, {end}, steps) gives steps values from start to "
                           f"end inclusive (0 gives an empty tensor)")
    return _new(np.linspace(start, end, steps, dtype=_float_dtype(dtype)), requires_grad,
                device, "linspace")


def rand(*size_args, size=None, dtype=None, device=None, requires_grad=False, generator=None):
    """Uniform random numbers in [0, 1) from the global generator (see ``manual_seed``)."""
    shape = size_arg(size_args, "rand", size)
    values = _rng(generator).random(shape, dtype=_float_dtype(dtype))
    return _new(values, requires_grad, device, "rand")


def randn(*size_args, size=None, dtype=None, device=None, requires_grad=False, generator=None):
    """Standard normal random numbers from the global generator (see ``manual_seed``)."""
    shape = size_arg(size_args, "randn", size)
    values = _rng(generator).standard_normal(shape, dtype=_float_dtype(dtype))
    return _new(values, requires_grad, device, "randn")


def normal(mean=0.0, std=1.0, size=None, *, generator=None, dtype=None, device=None,
           requires_grad=False):
    """Samples of N(mean, std²), as ``torch.normal``: ``mean`` and ``std`` are numbers or
    tensors (broadcast together, the result has their shape), or numbers with ``size``."""
    means, stds = (raw_data(m) for m in (mean, std))
    if size is not None:
        if isinstance(mean, Tensor) or isinstance(std, Tensor):
            raise TypeError("normal: give either tensors for mean/std, or numbers and size")
        shape = size_arg((size,), "normal")
    else:
        shape = np.broadcast_shapes(np.shape(means), np.shape(stds))
    if np.any(np.asarray(stds) < 0):
        raise ValueError("normal: std must be >= 0")
    if dtype is None:
        given = [m.dtype for m in (mean, std) if isinstance(m, Tensor)]
        dtype = np.result_type(*given) if given else DEFAULT.dtype
    values = _rng(generator).normal(means, stds, shape).astype(dtype)
    return _new(values, requires_grad, device, "normal")


def randint(low, high=None, size=(), dtype=None, device=None, generator=None):
    """Random integers in [low, high), int64, as ``torch.randint``: ``randint(low, high,
    size)``, or ``randint(high, size)`` for [0, high)."""
    if isinstance(high, (tuple, list)) and size == ():       # randint(high, size)
        low, high, size = 0, low, high
    if high is None:
        low, high = 0, low
    if low >= high:
        raise RuntimeError(f"randint: random_ expects 'from' to be less than 'to', but got "
                           f"from={low} >= to={high}")
    values = _rng(generator).integers(low, high, size=size_arg((size,), "randint"),
                                      dtype=np.dtype(dtype or np.int64))
    return _new(values, False, device, "randint")


def randperm(n, dtype=None, device=None, generator=None):
    """A random permutation of 0..n-1 (int64)."""
    values = _rng(generator).permutation(n).astype(dtype or np.int64)
    return _new(values, False, device, "randperm")


def _rng(gen):
    """The NumPy generator to draw from: ``gen`` (an ``ag.Generator`` or a NumPy generator),
    or the global one."""
    return generator() if gen is None else numpy_generator(gen)
