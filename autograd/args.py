"""Argument normalisation shared by every operation that takes dimensions.

PyTorch spells them ``dim``/``keepdim``; NumPy ``axis``/``keepdims``. dagrad accepts both and
turns them into non-negative axis tuples here, once, with one error message.
"""
import operator


def pick(dim, axis, op):
    """Return whichever of ``dim`` and ``axis`` (its NumPy alias) was given."""
    if axis is not None:
        if dim is not None:
            raise TypeError(f"{op}: give `dim` or its alias `axis`, not both")
        return axis
    return dim


def normalize_dim(dim, ndim, op):
    """One dimension index, negatives counted from the end, checked against ``ndim``."""
    try:
        d = operator.index(dim)
    except TypeError:
        raise TypeError(f"{op}: dim must be an int, got {dim!r}") from None
    lo, hi = -max(ndim, 1), max(ndim, 1) - 1
    if not lo <= d <= hi:
        raise IndexError(f"{op}: dimension out of range (expected to be in range of "
                         f"[{lo}, {hi}] for a {ndim}-d tensor, but got {dim})")
    return d % max(ndim, 1)


def normalize_dims(dim, ndim, op):
    """``None`` (all dimensions) or an int or a sequence of ints -> tuple of axes, or None."""
    if dim is None:
        return None
    if isinstance(dim, (tuple, list)):
        axes = tuple(normalize_dim(d, ndim, op) for d in dim)
        if len(set(axes)) != len(axes):
            raise ValueError(f"{op}: dimension repeated in {dim}")
        return axes
    return (normalize_dim(dim, ndim, op),) if ndim else ()


def shape_arg(shape, op):
    """Accept ``f(2, 3)`` and ``f((2, 3))`` alike (PyTorch's varargs shapes)."""
    if len(shape) == 1 and isinstance(shape[0], (tuple, list)):
        shape = shape[0]
    try:
        return tuple(operator.index(s) for s in shape)
    except TypeError:
        raise TypeError(f"{op}: sizes must be ints, got {shape!r}") from None
