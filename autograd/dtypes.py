"""Which dtype an operation computes in: PyTorch's type promotion, in one place.

**Categories.** Every dtype belongs to a category, ordered bool < integer < floating. Operands
are ranked by kind: tensors with at least one dimension, then 0-d tensors, then scalars (Python
and NumPy numbers: ``2``, ``0.5``, ``np.float64(2)``). NumPy arrays are apart: PyTorch hands
``tensor * ndarray`` to NumPy, so an array operand (even a 0-d one) meets the result of the
others with NumPy's promotion (``ones(2) * np.array(2.5)`` and ``ones(2) * np.array([2, 3])``
are float64, as in PyTorch).

**The rule** (PyTorch's ``result_type``). Promote the tensors with dimensions among themselves
(``float32`` with ``float64`` gives ``float64``; ``int64`` with ``float32`` gives ``float32``, the
floating one). A 0-d tensor or a scalar counts only when its category is higher than everything
ranked above it; then a 0-d tensor brings its own dtype and a scalar the default dtype of its
category (``int64`` for integers, ``float32`` for floating-point numbers). So::

    ones(2) * np.float64(2)          float32   (a scalar never raises the precision)
    ones(2) * tensor(2.0).double()   float32   (neither does a 0-d tensor)
    tensor([1, 2]) * 0.5             float32   (a float scalar over an int tensor: float32)
    tensor([1, 2]) * ones(2)         float32
    ones(2) * ones(2).double()       float64   (two tensors with dimensions)
    tensor([1, 2]) / tensor([2, 4])  float32   (true division of integers: the default float)

NumPy promotes differently (``float32 array * np.float64(2)`` is float64, ``int64 * float32``
is float64), so the operations below never let NumPy choose: before the forward runs, every
operand is converted to the result dtype (a Tensor that requires grad through a recorded cast, so
its gradient comes back in its own dtype) and NumPy scalars become Python numbers.

**Rules of the operations** (a ``Function`` names one in its ``dtype_rule`` attribute; ``apply``
runs it on the inputs before ``forward``):

* ``promote_inputs``: ``+ *``, ``maximum``/``minimum``, ``clamp`` with tensor bounds,
  ``cat``/``stack`` (``where`` and ``clamp`` with numbers call ``promote`` themselves);
* ``promote_subtraction``, ``promote_power``: the same, refusing what PyTorch refuses (a bool
  tensor in ``-``, a bool raised to a bool tensor);
* ``promote_inputs_to_float``: true division (integers and bools give float32);
* ``to_float``: functions defined on real numbers only (exp, log, sqrt, sin, cos, tanh, sigmoid,
  erf, logsumexp) compute an integer or bool input in float32, as PyTorch;
* ``floating``: operations PyTorch refuses on integers (softmax, gelu, layer norm,
  cross-entropy, convolution, ...) raise, and their floating inputs must share one dtype;
* ``same_dtype``: matrix products need operands of one dtype (PyTorch's "mat1 and mat2 must
  have the same dtype"): dagrad raises instead of converting silently.
"""
import inspect

import numpy as np

from .convert import as_array
from .default_dtype import DEFAULT
from .grad_mode import STATE
from .scalars import check_python_int, checked_fill_value, wrapped_int
from .tensor import make_tensor, raw_data, Tensor

BOOL, INTEGER, FLOATING, COMPLEX = 0, 1, 2, 3
_CATEGORY = {"b": BOOL, "i": INTEGER, "u": INTEGER, "f": FLOATING, "c": COMPLEX}
_BOOL, _INT64 = np.dtype(np.bool_), np.dtype(np.int64)


def category(dtype):
    """BOOL, INTEGER, FLOATING or COMPLEX; TypeError for non-numeric dtypes (strings...)."""
    try:
        return _CATEGORY[dtype.kind]
    except KeyError:
        raise TypeError(f"dtype {dtype} is not numeric") from None


def promote_types(a, b):
    """The dtype of an operation on two tensors of dtypes ``a`` and ``b`` (None: absent): the
    higher category wins outright (int64 with float32 is float32, not NumPy's float64); within
    a category the wider dtype."""
    a = None if a is None else np.dtype(a)
    b = None if b is None else np.dtype(b)
    if a is None or a == b:
        return b
    if b is None:
        return a
    ca, cb = category(a), category(b)
    if ca != cb:
        return a if ca > cb else b
    return np.promote_types(a, b)


def _scalar_dtype(x):
    """The dtype a Python or NumPy number stands for, or None if ``x`` is not a number.
    (PyTorch reads a NumPy bool as a floating-point number: ``bool_tensor * np.bool_(True)``
    is float32 there, so here too.)"""
    if isinstance(x, bool):
        return _BOOL
    if isinstance(x, (int, np.integer)):
        return _INT64
    if isinstance(x, (float, np.floating, np.bool_)):
        return DEFAULT.dtype
    return None


def result_type(*operands, op="result_type"):
    """The dtype PyTorch gives an operation on ``operands`` (Tensors, arrays, numbers; None is
    skipped). See the module docstring for the rule. A Python int PyTorch cannot read (beyond
    uint64) raises ``OverflowError`` naming ``op``, as PyTorch's "int too big to convert"."""
    dims = zero_dim = scalars = None
    numpy_arrays, numbers = [], []
    for x in operands:
        if x is None:
            continue
        if isinstance(x, np.ndarray):
            numpy_arrays.append(x.dtype)
            continue
        if isinstance(x, Tensor):
            x = x._data
        else:
            d = _scalar_dtype(x)
            if d is not None:
                check_python_int(x, op)
                scalars = promote_types(scalars, d)
                numbers.append(x.item() if isinstance(x, np.generic) else x)
                continue
            x = as_array(x)
        if x.ndim:
            dims = promote_types(dims, x.dtype)
        else:
            zero_dim = promote_types(zero_dim, x.dtype)
    if numpy_arrays:
        # PyTorch leaves ``tensor * ndarray`` to NumPy: NumPy's promotion, in which numbers
        # are weak (they never widen an array's dtype)
        tensors = _combine(dims, zero_dim)
        return np.result_type(*numpy_arrays, *(() if tensors is None else (tensors,)), *numbers)
    return _combine(dims, _combine(zero_dim, scalars))


def _combine(higher, lower):
    """Operands ranked ``lower`` count only with a higher category than those ranked above."""
    if higher is None:
        return lower
    if lower is None or category(higher) >= category(lower):
        return higher
    return lower


def promote(*operands, to_float=False, op="promote", checked=False):
    """``operands`` converted to their common dtype (``result_type``; at least float32 with
    ``to_float``). Tensors stay Tensors (cast through a recorded operation when they require
    grad), arrays stay arrays, NumPy scalars become Python numbers, and a Python int beyond an
    integer dtype wraps as in PyTorch's arithmetic (``scalars.wrapped_int``), or raises with
    ``checked`` (PyTorch's ``where`` and ``clamp`` check). ``op`` names the operation in
    errors."""
    try:
        dtype = result_type(*operands, op=op)
    except TypeError:
        return operands      # not numbers: the operation itself reports what is wrong
    if to_float and category(dtype) < FLOATING:
        dtype = DEFAULT.dtype
    if not any(isinstance(x, (Tensor, np.ndarray)) for x in operands):
        return tuple(None if x is None else np.asarray(x, dtype) for x in operands)
    if checked and dtype.kind in "iu":
        for x in operands:
            checked_fill_value(x, dtype, op)
    return tuple(_convert(x, dtype) for x in operands)


def _convert(x, dtype):
    if isinstance(x, Tensor):
        if x._data.dtype == dtype:
            return x
        return x.to(dtype)     # the method surface's recorded cast (ops/cast.py is above)
    if isinstance(x, np.ndarray):
        return x if x.dtype == dtype else x.astype(dtype)
    if isinstance(x, np.generic):
        return x.item()            # a Python number: NumPy never raises an array's precision
    if type(x) is int and dtype.kind in "iu":
        return wrapped_int(x, dtype)
    if x is None or isinstance(x, (bool, int, float)):
        return x
    return as_array(x).astype(dtype, copy=False)


# --------------------------------------------------------------------- rules of operations
# Each takes the operation's class and its inputs and returns ``(inputs, arrays)``: the inputs
# to record and the arrays ``forward`` receives. Each has a guard, ``rule.fast(inputs)``, that
# ``Function.apply`` calls first: the arrays when the inputs need no conversion (operands that
# already share a floating dtype, the common case, which must cost no more than reading the
# arrays), else None, and then the rule itself runs.

_F32, _F64 = np.dtype(np.float32), np.dtype(np.float64)


def guarded_by(fast):
    """Give a dtype rule its fast case: ``rule.fast = fast``."""
    def attach(rule):
        rule.fast = fast
        return rule
    return attach


def arrays_of(inputs):
    """The arrays behind ``inputs`` (Tensors give their ndarray, constants pass through)."""
    return [raw_data(x) for x in inputs]


def _converted(inputs, to_float, op):
    inputs = promote(*inputs, to_float=to_float, op=op.__name__)
    return inputs, arrays_of(inputs)


_F32_SCALARS, _F64_SCALARS = {}, {}
_SCALARS = {_F32: _F32_SCALARS, _F64: _F64_SCALARS}   # dtype -> {value: its 0-d array}


def scalar_array(value, dtype):
    """``value`` (a Python float) as a read-only 0-d array of ``dtype``.

    NumPy's arithmetic with a 0-d array costs about half of that with a Python float, in the
    forward and in the backward that multiplies by the saved constant. The arrays are cached,
    so a loop that repeats a constant keeps one array, not one per graph node (a chain of a
    million ``y * 1.0000001`` would otherwise hold a million). Zeros are not cached: -0.0 and
    0.0 are equal keys but different numbers. One table per dtype: a key of (value, dtype)
    cost a tuple and the dtype's hash on every call, and the two floating dtypes are found by
    identity (hashing a dtype costs as much as the rest of the lookup)."""
    cache = _F32_SCALARS if dtype is _F32 else _F64_SCALARS if dtype is _F64 else None
    if cache is None:
        cache = _SCALARS.get(dtype)
        if cache is None:
            cache = _SCALARS[dtype] = {}
    array = cache.get(value)
    if array is None:
        array = np.asarray(value, dtype)
        if value != 0:
            if len(cache) >= 1024:
                cache.clear()
            array.flags.writeable = False
            cache[value] = array
    return array


def pair_of_one_dtype(inputs):
    """Guard of ``promote``: two tensors of one dtype, or a float tensor with a Python float
    (which becomes a 0-d array of the tensor's dtype, ``scalar_array``)."""
    if len(inputs) == 2:
        a, b = inputs
        if isinstance(a, Tensor):
            x = a._data
            if isinstance(b, Tensor):
                if b._data.dtype is x.dtype:
                    return x, b._data
            elif type(b) is float:
                dt = x.dtype
                if dt is _F32 or dt is _F64:    # the cache read inline: a call is 2% of W1
                    c = (_F32_SCALARS if dt is _F32 else _F64_SCALARS).get(b)
                    return x, (c if c is not None else scalar_array(b, dt))
        elif type(a) is float and isinstance(b, Tensor):
            dt = b._data.dtype
            if dt is _F32 or dt is _F64:
                c = (_F32_SCALARS if dt is _F32 else _F64_SCALARS).get(a)
                return (c if c is not None else scalar_array(a, dt)), b._data
    return None


def float_pair_of_one_dtype(inputs):
    """Guard of ``-`` and ``**``: ``pair_of_one_dtype`` for floating-point operands only (bool
    tensors go to the rule, which refuses them)."""
    arrays = pair_of_one_dtype(inputs)
    if arrays is not None and arrays[0].dtype.kind == "f":
        return arrays
    return None


def float_pair(inputs):
    """Guard of true division: a float tensor with a tensor of its dtype or a Python
    number."""
    if len(inputs) == 2:
        a, b = inputs
        if isinstance(a, Tensor):
            x = a._data
            dt = x.dtype
            if dt is _F32 or dt is _F64:
                if isinstance(b, Tensor):
                    if b._data.dtype is dt:
                        return x, b._data
                elif type(b) is float or type(b) is int:
                    return x, b
    return None


def float_first(inputs):
    """Guard of ``to_float``: the first input is a floating-point tensor."""
    x = inputs[0]
    if isinstance(x, Tensor):
        dt = x._data.dtype
        if dt is _F32 or dt is _F64 or dt.kind == "f":
            return (x._data,) if len(inputs) == 1 else (x._data,) + inputs[1:]
    return None


def floats_alike(inputs, indices=""):
    """Guard of ``same_dtype``: the first input is a float32 or float64 tensor and every other
    one a tensor of its dtype, or None (an optional input left out). ``indices``: the dtype
    kinds also let through as they are after the first input (``floating``'s class indices)."""
    x = inputs[0]
    if not isinstance(x, Tensor):
        return None
    dt = x._data.dtype
    if dt is not _F32 and dt is not _F64:
        return None
    arrays = [x._data]
    for y in inputs[1:]:
        if y is None:
            arrays.append(None)
        elif isinstance(y, Tensor) and (y._data.dtype is dt or y._data.dtype.kind in indices):
            arrays.append(y._data)
        elif indices and type(y) is np.ndarray and y.dtype.kind in indices:
            arrays.append(y)
        else:
            return None
    return arrays


def floats_and_indices(inputs):
    """Guard of ``floating``: ``floats_alike`` that also lets integer and bool tensors and
    arrays (class indices, masks) through, which the rule leaves alone."""
    return floats_alike(inputs, "biu")


@guarded_by(pair_of_one_dtype)
def promote_inputs(op, inputs):
    """Rule ``promote``: all inputs converted to ``result_type(*inputs)``."""
    return _converted(inputs, False, op)


@guarded_by(float_pair)
def promote_inputs_to_float(op, inputs):
    """Rule ``promote_to_float``: as ``promote``, with integer and bool results made float32."""
    return _converted(inputs, True, op)


@guarded_by(float_pair_of_one_dtype)
def promote_subtraction(op, inputs):
    """Rule of binary ``-``: ``promote``, refusing bool tensors and Python bools (PyTorch)."""
    for x in inputs:
        if type(x) is bool or _dtype(x) is _BOOL:
            raise TypeError(
                "sub: subtraction, the `-` operator, with a bool tensor is not supported (as in "
                "PyTorch). To invert a mask use `~` or logical_not(); to subtract numbers "
                "convert first, e.g. x.long() or x.float().")
    return promote_inputs(op, inputs)


@guarded_by(float_pair_of_one_dtype)
def promote_power(op, inputs):
    """Rule of ``**``: ``promote``; PyTorch has no power of two bools, except a bool tensor
    to a bool number (``b ** True`` is ``b``; ``Pow`` keeps that result bool)."""
    inputs, arrays = promote_inputs(op, inputs)
    base, exponent = arrays
    if _dtype(base) == _BOOL or (isinstance(base, bool) and _dtype(exponent) == _BOOL):
        if _dtype(exponent) == _BOOL or isinstance(base, bool):
            raise TypeError(
                "pow: a bool raised to a bool tensor is not defined (PyTorch refuses it "
                "too). Convert one operand, e.g. x.long() or x.float().")
    return inputs, arrays


@guarded_by(float_first)
def to_float(op, inputs):
    """Rule ``to_float``: an integer or bool first input is computed in the default dtype
    (float32 unless ``set_default_dtype``)."""
    x = inputs[0]
    # A number keeps its full precision (a backward formula's log(2) must stay float64; as a
    # 0-d value it never raises a tensor's precision anyway); integers become float32.
    array = x._data if isinstance(x, Tensor) else np.asarray(x)
    if array.dtype.kind != "f":
        array = array.astype(DEFAULT.dtype)
    inputs = (make_tensor(array, None),) + tuple(inputs[1:])
    return inputs, arrays_of(inputs)


@guarded_by(floats_and_indices)
def floating(op, inputs):
    """Rule ``floating``: the first input must be floating-point, and every other floating
    input must have its dtype (integer inputs such as class indices are left alone)."""
    k, first = _first_array(inputs)
    require_floating(op.__name__, inputs[k])
    for i in range(k + 1, len(inputs)):
        d = _dtype(inputs[i])
        if d is not None and d.kind == "f" and d != first:
            raise _mismatch(op, k, first, i, d)
    return inputs, arrays_of(inputs)


def require_floating(name, x):
    """The dtype of ``x``; TypeError naming operation ``name`` unless it is floating-point."""
    dtype = _dtype(x)
    if dtype is not None and dtype.kind != "f":
        raise TypeError(
            f"{name}: expected a floating-point tensor, got {dtype} (PyTorch does not compute "
            f"it on integers either). Convert it first, e.g. x.float() or x.to(ag.float32).")
    return dtype


@guarded_by(floats_alike)
def same_dtype(op, inputs):
    """Rule ``same_dtype``: every array input has the first one's dtype."""
    k, first = _first_array(inputs)
    for i in range(k + 1, len(inputs)):
        d = _dtype(inputs[i])
        if d is not None and d != first:
            raise _mismatch(op, k, first, i, d)
    return inputs, arrays_of(inputs)


def _first_array(inputs):
    """Position and dtype of the first input that is a Tensor or an array (0, None if none)."""
    for k, x in enumerate(inputs):
        d = _dtype(x)
        if d is not None:
            return k, d
    return 0, None


def _dtype(x):
    if isinstance(x, Tensor):
        return x._data.dtype
    return x.dtype if isinstance(x, np.ndarray) else None


def _mismatch(op, i, a, j, b):
    """PyTorch's "mat1 and mat2 must have the same dtype" error, with the argument names
    (taken from the operation's ``forward``) and the fix."""
    names = list(inspect.signature(op.forward).parameters)[1:]
    name_i = names[i] if i < len(names) else f"input {i}"
    name_j = names[j] if j < len(names) else f"input {j}"
    path = STATE.frame.path
    where = f" (in module '{path}')" if path else ""
    return TypeError(
        f"{op.__name__}{where}: {name_i} and {name_j} must have the same dtype, but got {a} "
        f"and {b}. dagrad does not convert between them silently: convert the "
        f"data, e.g. x.to(ag.{b}) ({'x.float()' if b == np.float32 else 'x.double()'} for a "
        f"Tensor, ag.tensor(array, dtype=ag.{b}) for a NumPy array), or the model, e.g. "
        f"model.to(ag.{a}).")
