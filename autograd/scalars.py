"""Python numbers as PyTorch reads them, in one place.

* A Python int is an int64, or a uint64 from 2⁶³ up: one outside [-2⁶³, 2⁶⁴) raises
  ``OverflowError`` wherever it is used (``full``, ``fill_``, ``x + n``, ``masked_fill``), even
  for a floating-point tensor (PyTorch: "int too big to convert").
* A fill value (``full``, ``full_like``, ``fill_``) is converted with a check: a value outside
  the dtype's range raises ``RuntimeError`` ("value cannot be converted to type int32 without
  overflow"), where NumPy would raise its own error or wrap silently. As in PyTorch, an
  unsigned dtype takes negative integers down to -max (they wrap: ``full((1,), -1,
  dtype=uint8)`` is 255).
* In integer arithmetic a number wraps to the tensor's dtype as a C cast does
  (``int32_tensor * (2**40 + 3)`` multiplies by 3, ``uint8_tensor + 300`` adds 44), PyTorch's
  result, where NumPy raises.
"""
import numpy as np

PYTHON_INT_RANGE = (-2 ** 63, 2 ** 64)       # int64, then uint64


def int_too_big(value, op):
    """The OverflowError for a Python int outside what PyTorch reads (int64 or uint64)."""
    return OverflowError(
        f"{op}: the Python integer {value} is too big to convert: PyTorch reads a Python int "
        f"as int64 (or uint64 from 2**63), so PyTorch raises too. Pass it as a float, "
        f"float({value}) = {float(value):.6g}, if an approximate value will do.")


def check_python_int(value, op):
    """``value`` unchanged, or ``int_too_big`` when it is a Python int PyTorch cannot read."""
    if type(value) is int and not PYTHON_INT_RANGE[0] <= value < PYTHON_INT_RANGE[1]:
        raise int_too_big(value, op)
    return value


def checked_fill_value(value, dtype, op):
    """``value`` (a Python or NumPy number) checked for a tensor of ``dtype``, as PyTorch
    converts a fill value: ``int_too_big`` for a Python int beyond uint64, RuntimeError for a
    value outside the dtype's range (NaN and infinities count as outside an integer dtype's).
    Anything that is not a number is returned unchanged."""
    dtype = np.dtype(dtype)
    if isinstance(value, (bool, np.bool_)) or not isinstance(
            value, (int, float, np.integer, np.floating)):
        return value
    check_python_int(value, op)
    if dtype.kind in "iu":
        info = np.iinfo(dtype)
        low = -int(info.max) if dtype.kind == "u" else int(info.min)
        fits = np.isfinite(value) and low <= value < int(info.max) + 1
    elif dtype.kind == "f":
        fits = not np.isfinite(value) or abs(float(value)) <= float(np.finfo(dtype).max)
    else:
        fits = True
    if not fits:
        wider = ("int64" if dtype.kind in "iu" and np.isfinite(value) and dtype != np.int64
                 and -2 ** 63 <= value < 2 ** 63 else "float64")
        raise RuntimeError(
            f"{op}: value {value} cannot be converted to type {dtype} without overflow (the "
            f"values of {dtype} lie in [{_bounds(dtype)}]); use a dtype that holds it, e.g. "
            f"dtype=torch.{wider}, or a value in that range")
    if dtype.kind in "iu" and isinstance(value, (int, np.integer)):
        return wrapped_int(int(value), dtype)       # (a negative value for an unsigned dtype)
    return value


def checked_integer_array(data, dtype, op="tensor"):
    """``data`` (numbers, nested lists) as an array of the integer ``dtype`` where NumPy
    refuses some value: PyTorch's check of each value (``checked_fill_value``), then the
    conversion (floats truncated, negatives for an unsigned dtype wrapped, as in PyTorch)."""
    dtype = np.dtype(dtype)
    values = np.asarray(data, dtype=object)
    for value in values.flat:
        checked_fill_value(value, dtype, op)
    wrapped = [wrapped_int(int(value), dtype) for value in values.flat]
    return np.asarray(wrapped, dtype=dtype).reshape(values.shape)


def _bounds(dtype):
    info = np.iinfo(dtype) if dtype.kind in "iu" else np.finfo(dtype)
    return f"{info.min}, {info.max}"


def wrapped_int(value, dtype):
    """The Python int ``value`` wrapped into the integer ``dtype`` as a C cast wraps it (two's
    complement), so NumPy computes what PyTorch does instead of raising; values that fit are
    returned unchanged."""
    info = np.iinfo(dtype)
    if info.min <= value <= info.max:
        return value
    bits = 8 * dtype.itemsize
    value %= 2 ** bits
    return value - 2 ** bits if info.min < 0 and value > info.max else value
