"""Argument helpers shared by the functional API."""
import numpy as np

from dagrad.autograd import Tensor

REDUCTIONS = ("none", "mean", "sum")


def as_tensor(x):
    """A Tensor for ``x`` (Tensors pass through; arrays and numbers are wrapped, no copy)."""
    return x if isinstance(x, Tensor) else Tensor(x)


def as_array(x):
    """The ndarray behind ``x`` (a Tensor, an array or anything NumPy converts)."""
    return x._data if isinstance(x, Tensor) else np.asarray(x)


def check_reduction(reduction, op, extra=()):
    if reduction not in REDUCTIONS + tuple(extra):
        allowed = ", ".join(repr(r) for r in REDUCTIONS + tuple(extra))
        raise ValueError(f"{op}: reduction must be one of {allowed}, got {reduction!r}")


def reduce(loss, reduction):
    """Apply the reduction: the mean or sum of all elements, or the elementwise loss."""
    if reduction == "mean":
        return loss.mean()
    if reduction == "sum":
        return loss.sum()
    return loss
