"""What an operation says when its forward fails: the operation's name, its inputs' shapes and
dtypes, and the fix (PyTorch's words for a broadcasting mismatch)."""
import numpy as np

from .convert import REAL_KINDS, not_real_message


def real_result(ctx, out, arrays):
    """``out`` as an ndarray of real numbers; TypeError naming the operation otherwise (e.g.
    a complex constant mixed into x)."""
    out = np.asarray(out)
    if out.dtype.kind not in REAL_KINDS:
        described = ", ".join(str(getattr(a, "dtype", type(a).__name__)) for a in arrays)
        raise TypeError(f"{ctx.name}: its result would have dtype {out.dtype} (inputs: "
                        f"{described}): {not_real_message(out.dtype)}")
    return out


def describe_failure(name, arrays, error):
    """An error message naming the operation and its input shapes/dtypes; NumPy's broadcasting
    failure is said as PyTorch says it (which dimension, which sizes)."""
    described = ", ".join(f"{np.shape(a)} {getattr(a, 'dtype', type(a).__name__)}"
                          for a in arrays)
    if "could not be broadcast" not in str(error):      # not about shapes: no shape advice
        return f"{name}: {error} (inputs: {described})"
    error = _broadcast_mismatch([np.shape(a) for a in arrays]) or error
    return (f"{name}: {error} (inputs: {described}). Check the shapes: broadcasting aligns "
            f"trailing dimensions, which must be equal or 1; reshape or unsqueeze an operand.")


def _broadcast_mismatch(shapes):
    """PyTorch's words for the first pair of sizes that cannot broadcast, or None."""
    ndim = max(len(s) for s in shapes)
    padded = [(1,) * (ndim - len(s)) + tuple(s) for s in shapes]
    for dim in range(ndim):
        sizes = [s[dim] for s in padded]
        wide = [k for k, n in enumerate(sizes) if n != 1]
        for k in wide[1:]:
            if sizes[k] != sizes[wide[0]]:
                a, b = "abcdefgh"[wide[0]], "abcdefgh"[k] if k < 8 else str(k)
                return (f"the size of tensor {a} ({sizes[wide[0]]}) must match the size of "
                        f"tensor {b} ({sizes[k]}) at non-singleton dimension {dim}")
    return None
