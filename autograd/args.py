"""Argument normalisation shared by every operation that takes dimensions.

PyTorch spells them ``dim``/``keepdim``; NumPy ``axis``/``keepdims``. dagrad accepts both and
turns them into non-negative axes here, once, with one error message: the ``reduction``
decorator does it for every reduction.
"""
import functools
import inspect
import math
import operator


def reduction(dims="many", name=None):
    """Decorator of a reduction ``f(x, ..., dim=..., keepdim=..., ...)``.

    The decorated function also takes NumPy's spellings ``axis`` and ``keepdims`` (keywords),
    rejects a name given in both spellings, and receives ``dim`` normalised against ``x.ndim``:
    ``dims="many"``: None (every dimension, also for an empty ``dim=()`` as PyTorch) or a
    tuple of non-negative axes (from an int or a sequence); ``dims="one"``: None or one
    non-negative int. A ``dim`` without default is required, as PyTorch's softmax's. Errors name the operation
    (``name``, by default the function's name).
    """
    def decorate(fn):
        op = name or fn.__name__
        params = inspect.signature(fn).parameters
        names = list(params)
        at_dim = names.index("dim")
        at_keep = names.index("keepdim") if "keepdim" in params else None
        default_dim = params["dim"].default
        normalize = normalize_dims if dims == "many" else _normalize_one

        @functools.wraps(fn)
        def wrapper(*args, axis=None, keepdims=None, **kwargs):
            positional = len(args) > at_dim
            if axis is not None:
                if positional or "dim" in kwargs:
                    raise TypeError(f"{op}: give `dim` or its alias `axis`, not both")
                dim = axis
            else:
                dim = args[at_dim] if positional else kwargs.get("dim", default_dim)
            if dim is inspect.Parameter.empty:
                raise TypeError(f"{op}() missing 1 required positional argument: \"dim\"")
            if dims == "many" and isinstance(dim, (tuple, list)) and not dim:
                dim = None          # PyTorch: dim=() reduces every dimension
            if keepdims is not None:
                if at_keep is None:
                    raise TypeError(f"{op}() got an unexpected keyword argument 'keepdims'")
                if len(args) > at_keep or "keepdim" in kwargs:
                    raise TypeError(f"{op}: give `keepdim` or its alias `keepdims`, not both")
                kwargs["keepdim"] = keepdims
            dim = normalize(dim, args[0].ndim, op)
            if positional:
                args = args[:at_dim] + (dim,) + args[at_dim + 1:]
            else:
                kwargs["dim"] = dim
            return fn(*args, **kwargs)
        return wrapper
    return decorate


def _normalize_one(dim, ndim, op):
    return None if dim is None else normalize_dim(dim, ndim, op)


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


def size_arg(size, op, keyword=None):
    """The shape of a tensor to create: ``shape_arg``, and every size >= 0 (PyTorch's error).
    ``keyword`` is the shape given as ``size=`` (``torch.rand(size=(2, 3))``), if it was."""
    if keyword is not None:
        if size:
            raise TypeError(f"{op}: give the shape either positionally or as size=, not both")
        size = (keyword,)
    shape = shape_arg(size, op)
    for s in shape:
        if s < 0:
            raise RuntimeError(f"{op}: Trying to create tensor with negative dimension {s}: "
                               f"{list(shape)}")
    if math.prod(shape) >= 2 ** 60:
        raise RuntimeError(f"{op}: Storage size calculation overflowed with sizes="
                           f"{list(shape)}: {math.prod(shape):.3g} elements are more than any "
                           f"memory holds; check the sizes")
    return shape


def shape_arg(shape, op):
    """Accept ``f(2, 3)`` and ``f((2, 3))`` alike (PyTorch's varargs shapes)."""
    if len(shape) == 1 and isinstance(shape[0], (tuple, list)):
        shape = shape[0]
    try:
        return tuple(map(operator.index, shape))
    except TypeError:
        raise TypeError(f"{op}: sizes must be ints, got {shape!r}") from None
