"""Data to arrays: what ``ag.tensor(data)`` and every operation's constants go through.

``as_array`` turns a number, a nested list, an ndarray or a Tensor into an ndarray with
PyTorch's choice of dtype (Python floats give the default dtype, float32 unless
``set_default_dtype``; NumPy values keep theirs);
``real_array`` also refuses what a Tensor cannot hold (complex numbers, strings, ragged lists,
integers beyond int64), saying why and what to do.
"""
import numpy as np

from .default_dtype import DEFAULT
from .scalars import checked_integer_array


class TensorBase:
    """The base class of ``Tensor`` (PyTorch's name for it too): it lets conversion recognise
    a tensor, whose ndarray is its ``_data``, without importing ``tensor.py`` (which imports
    this module)."""

    __slots__ = ()


def as_array(data, dtype=None):
    """Convert ``data`` (Tensor, ndarray, number, nested list) to an ndarray.

    Python floats become the default dtype (float32 unless ``set_default_dtype``) unless
    ``dtype`` says otherwise; NumPy arrays and scalars keep their dtype, also inside lists
    (``[np.float64(1.5)]`` is float64), as ``torch.tensor`` does.
    """
    if isinstance(data, TensorBase):
        data = data._data
    if dtype is not None:
        return np.asarray(data, dtype=np.dtype(dtype))
    if isinstance(data, (np.ndarray, np.generic)):
        return np.asarray(data)
    arr = np.asarray(data)
    if arr.dtype == np.float64 and not _holds_float64(data):
        arr = arr.astype(DEFAULT.dtype)
    return arr


def _holds_float64(data):
    """Whether nested lists ``data`` hold a float64 NumPy value or Tensor (which keeps the
    result float64, while Python floats give float32). Each list's element types are read
    as a set, so a long list of Python floats costs one pass in C."""
    pending = [data]
    while pending:
        items = pending.pop()
        if not isinstance(items, (list, tuple)):
            continue
        kinds = set(map(type, items))
        if np.float64 in kinds:
            return True
        for item in () if kinds <= _PLAIN_NUMBERS else items:
            if isinstance(item, (list, tuple)):
                pending.append(item)
            elif isinstance(item, (np.ndarray, TensorBase)) and np.asarray(
                    item._data if isinstance(item, TensorBase) else item).dtype == np.float64:
                return True
    return False


_PLAIN_NUMBERS = {float, int, bool}


def real_array(data, dtype=None):
    """``as_array(data, dtype)`` for a Tensor to hold: TypeError unless it holds real numbers
    (booleans, integers, floating point), saying why and what to do."""
    try:
        arr = as_array(data, dtype)
    except OverflowError:             # a value outside the integer dtype asked for
        if dtype is None or np.dtype(dtype).kind not in "iu":
            raise
        arr = checked_integer_array(data, dtype)
    except ValueError as e:
        if "inhomogeneous" not in str(e):
            raise
        raise ValueError(f"tensor: the nested sequences are ragged (rows of different lengths), "
                         f"so they do not make one array; pad the rows to one length or keep "
                         f"them as separate tensors ({e})") from None
    if arr.dtype == np.uint64 and dtype is None and _too_big_int(data) is not None:
        arr = arr.astype(object)        # Python ints in [2**63, 2**64): beyond int64 too
    if arr.dtype.kind == "f" and dtype is None and _ints_made_float(data, arr):
        arr = np.asarray(data, dtype=object)    # [1, 2**63]: NumPy's floats, PyTorch's error
    if arr.dtype == object and dtype is None and _python_numbers_with_a_float(data):
        arr = np.asarray(data, dtype=np.float64).astype(DEFAULT.dtype)   # [1.5, 2**70]
    if arr.dtype.kind not in REAL_KINDS:      # an int beyond int64: PyTorch's ValueError
        error = ValueError if arr.dtype.kind == "O" and _too_big_int(data) else TypeError
        raise error(f"tensor: cannot hold data of dtype {arr.dtype}: "
                    f"{not_real_message(arr.dtype, data)}")
    return arr


REAL_KINDS = "biuf"     # bool, signed and unsigned integers, floating point


def not_real_message(dtype, data=None):
    """Why a tensor cannot hold ``dtype`` data (made from ``data``), and what to do instead."""
    if dtype.kind == "c":
        why = ("dagrad tensors hold real numbers (complex arithmetic and its gradients are not "
               "supported); carry the real and imaginary parts as two real tensors")
    elif dtype.kind == "O" and _too_big_int(data) is not None:
        why = (f"the integer {_too_big_int(data)} does not fit in int64 (PyTorch: Overflow when "
               f"unpacking long); pass it as a float (float(x)) or with dtype=float64")
    elif dtype.kind == "O":
        why = ("the data are not all numbers of one kind (mixed types, None or integers beyond "
               "int64 make a NumPy object array); convert them first, e.g. "
               "np.asarray(data, dtype=np.float32)")
    elif dtype.kind in "US":
        why = "strings are not numbers; encode them first (e.g. a vocabulary of indices)"
    else:
        why = "dagrad tensors hold booleans, integers or floating-point numbers"
    return why


def _too_big_int(data):
    """The first Python int in ``data`` (a number or nested lists) outside int64, or None."""
    pending = [data]
    while pending:
        item = pending.pop()
        if isinstance(item, (list, tuple)):
            pending.extend(reversed(item))
        elif isinstance(item, int) and not -2 ** 63 <= item < 2 ** 63:
            return item
    return None


def _ints_made_float(data, arr):
    """Whether NumPy made floating-point ``arr`` of integers only, one beyond int64 (``[1,
    2**63]``), where PyTorch refuses. Only an array holding such a magnitude is walked."""
    if isinstance(data, np.ndarray) or not arr.size or not np.abs(arr).max() >= 2.0 ** 63:
        return False
    pending, too_big = [data], False
    while pending:
        item = pending.pop()
        if isinstance(item, (list, tuple)):
            pending.extend(item)
        elif isinstance(item, (float, np.floating)):
            return False
        elif isinstance(item, int) and not -2 ** 63 <= item < 2 ** 63:
            too_big = True
    return too_big


def _python_numbers_with_a_float(data):
    """Whether nested lists ``data`` hold only Python numbers, one a float at least: PyTorch
    then makes them all floating point, ints beyond int64 included."""
    pending, seen_float = [data], False
    while pending:
        item = pending.pop()
        if isinstance(item, (list, tuple)):
            pending.extend(item)
        elif type(item) is float:
            seen_float = True
        elif type(item) not in (int, bool):
            return False
    return seen_float
