"""detect_anomaly's checks: a value holding NaN or inf is named by the operation (and module,
and user hook) that produced it."""
import numpy as np

from .convert import as_array
from .lazy_grads import LazyGrad
from .tensor import raw_data


def check_finite(ctx, value, phase, hook=None):
    """detect_anomaly: raise if ``value`` holds NaN or inf, naming the operation, the module
    and, when it ran inside one, the user's hook."""
    values = value if isinstance(value, (tuple, list)) else (value,)
    for v in values:
        if v is None:
            continue
        if isinstance(v, LazyGrad):
            v = v.dense()
        arr = raw_data(v)
        if not is_finite(arr):
            where = f" in {hook}" if hook else ""
            where += f" (in module '{ctx.module}')" if ctx.module else ""
            raise RuntimeError(
                f"detect_anomaly: operation '{ctx.name}'{where} produced NaN or inf in its "
                f"{phase} pass (output shape {np.shape(arr)}). Check its inputs: e.g. log of a "
                f"non-positive number, division by zero or overflow of exp.")


def is_finite(value):
    """False if the array (or Tensor, or tuple of them) holds a NaN or an inf."""
    if isinstance(value, (tuple, list)):
        return all(is_finite(v) for v in value)
    arr = as_array(value)
    return not np.issubdtype(arr.dtype, np.inexact) or bool(np.all(np.isfinite(arr)))


def hook_name(hook):
    """A user hook as a message names it: its function's name, or its class's."""
    return getattr(hook, "__qualname__", None) or type(hook).__name__
