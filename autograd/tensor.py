"""``Tensor``: an ndarray plus the bookkeeping reverse-mode differentiation needs.

A tensor produced by an operation remembers that operation in ``grad_fn`` (a node of the compute
graph); a tensor created by the user is a *leaf* (``grad_fn is None``). ``backward()`` walks the
graph from a result back to the leaves and leaves dL/dleaf in each leaf's ``.grad``.

This file is the tensor itself: its storage (one ndarray), dtype and shape, its gradient, hooks
and version counter, the fast constructor operations use (``_make``) and ``backward``. The
PyTorch method surface (``x + y``, ``x.sum()``, ``x.reshape(...)``, ``x.add_(y)``, ...) is in
``autograd/tensor_methods.py``, which adds those methods to this class; the operations
themselves (forward and local derivative side by side) live in ``autograd/ops``.
"""
import numpy as np

from .device import check_device
from .scalars import checked_integer_array
from .size import Size

_tuple_new = tuple.__new__
new_object = object.__new__   # looked up once: the lookup is a third of make_tensor's cost

DEFAULT_DTYPE = np.float32


def as_array(data, dtype=None):
    """Convert ``data`` (Tensor, ndarray, number, nested list) to an ndarray.

    Python floats become float32 (the default dtype) unless ``dtype`` says otherwise; NumPy
    arrays and scalars keep their dtype, also inside lists (``[np.float64(1.5)]`` is float64),
    as ``torch.tensor`` does.
    """
    if isinstance(data, Tensor):
        data = data._data
    if dtype is not None:
        return np.asarray(data, dtype=np.dtype(dtype))
    if isinstance(data, (np.ndarray, np.generic)):
        return np.asarray(data)
    arr = np.asarray(data)
    if arr.dtype == np.float64 and not _holds_float64(data):
        arr = arr.astype(DEFAULT_DTYPE)
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
            elif isinstance(item, (np.ndarray, Tensor)) and np.asarray(
                    item._data if isinstance(item, Tensor) else item).dtype == np.float64:
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
        arr = np.asarray(data, dtype=np.float64).astype(DEFAULT_DTYPE)   # [1.5, 2**70]
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


def as_tensor(data, dtype=None, device=None):
    """``data`` as a Tensor (PyTorch's ``torch.as_tensor``): a Tensor passes through (converted
    when ``dtype`` differs), anything else is wrapped, sharing an ndarray's memory. ``device``
    can only be the CPU."""
    if device is not None:
        check_device(device, "as_tensor")
    if isinstance(data, Tensor):
        return data if dtype is None or data.dtype == np.dtype(dtype) else data.to(dtype)
    return Tensor(data, dtype=dtype)


def _is_float(dtype):
    return np.issubdtype(dtype, np.floating)


class Tensor:
    """An n-dimensional array that records the operations applied to it.

    Attributes:
        data: as in PyTorch, a Tensor sharing this one's memory, detached from the graph
            (``p.data.normal_(0, 0.01)``). The ``numpy.ndarray`` itself is ``numpy()``.
        requires_grad: whether gradients with respect to this tensor are wanted.
        grad: after ``backward()``, dL/dself as a Tensor of the same shape (leaves, or tensors
            that called ``retain_grad()``); None before.
        grad_fn: the operation that produced this tensor (None for a leaf).
        name: optional label shown by ``viz``.
    """

    # Every tensor sets these four; the rarely set ``_grad``, ``name``, ``_hooks`` and ``_base``
    # default to the class's None and live in the instance's dict once set: a result then
    # costs four stores instead of seven (0.13 µs of a small operation's ~2.5 µs).
    __slots__ = ("_data", "requires_grad", "grad_fn", "_version", "__dict__", "__weakref__")
    _grad = None
    name = None
    _hooks = None
    _base = None             # the tensor whose memory this one views (PyTorch's ``_base``)
    __array_ufunc__ = None   # make ndarray (op) Tensor defer to Tensor's reflected operators
    __hash__ = object.__hash__  # == is elementwise, so hash by identity (like PyTorch)

    def __init__(self, data, requires_grad=False, dtype=None, name=None):
        self._data = real_array(data, dtype)
        self.grad_fn = None
        if name is not None:
            self.name = name
        self._version = 0
        self.requires_grad = False
        if requires_grad:
            self.requires_grad_(True)

    @staticmethod
    def _make(data, grad_fn):
        """Fast constructor used by operations (no conversion, no checks)."""
        return make_tensor(data, grad_fn)

    # ----------------------------------------------------------------------------- metadata
    @property
    def grad(self):
        """∂L/∂self after ``backward()``: a Tensor of this tensor's shape and dtype, or None."""
        return self._grad

    @grad.setter
    def grad(self, value):
        """Assigning checks what PyTorch checks: None, or a Tensor of this tensor's shape and
        dtype (an optimizer would otherwise broadcast a wrong-shaped gradient silently)."""
        if value is not None:
            if not isinstance(value, Tensor):
                raise TypeError(f"assigned grad expected to be a Tensor or None but got grad of "
                                f"type {type(value).__name__}; wrap it, e.g. ag.tensor(g)")
            if value._data.shape != self._data.shape:
                raise RuntimeError(f"attempting to assign a gradient of size "
                                   f"'{list(value.shape)}' to a tensor of size "
                                   f"'{list(self.shape)}'. Please ensure that the gradient and "
                                   f"the tensor are the same size")
            if value._data.dtype != self._data.dtype:
                raise RuntimeError(f"attempting to assign a gradient with dtype "
                                   f"'{value.dtype}' to a tensor with dtype '{self.dtype}'; "
                                   f"the gradient must have the tensor's dtype: convert it with "
                                   f".to({self.dtype})")
        self._grad = value

    @property
    def data(self):
        """A Tensor that shares this tensor's memory and is detached from the graph, as
        PyTorch's ``.data``: ``p.data.add_(...)`` changes ``p``. Assigning ``t.data = other``
        (a Tensor or an array of the same shape) replaces the values ``t`` holds. As in
        PyTorch, writes through ``.data`` are not recorded: a backward that saved the old
        values will not notice (``_version`` None marks the alias)."""
        alias = Tensor._make(self._data, None)
        alias._version = None
        return alias

    @data.setter
    def data(self, value):
        self._data = real_array(value)

    @property
    def shape(self):
        """The shape: a ``Size``, a tuple of ints printed as PyTorch's ``torch.Size([2, 3])``.
        (Made without re-checking the ints NumPy gives: 3000 instructions a call against 1600
        for the tuple, measured with callgrind; a training step reads it ~20 times.)"""
        return _tuple_new(Size, self._data.shape)

    @property
    def ndim(self):
        return self._data.ndim

    @property
    def dtype(self):
        return self._data.dtype

    @property
    def is_leaf(self):
        """True for tensors the user created (no ``grad_fn``)."""
        return self.grad_fn is None

    def size(self, dim=None):
        """The shape (a ``Size``), or the length of dimension ``dim``."""
        return _tuple_new(Size, self._data.shape) if dim is None else self._data.shape[dim]

    def dim(self):
        return self._data.ndim

    def numel(self):
        """Number of elements."""
        return self._data.size

    def __len__(self):
        if self._data.ndim == 0:
            raise TypeError("len() of a 0-d tensor")
        return self._data.shape[0]

    # ------------------------------------------------------------------------- conversions
    def item(self):
        """The value of a one-element tensor as a Python number."""
        if self._data.size != 1:
            raise ValueError(f"item(): only one-element tensors can be converted to Python "
                             f"scalars, this one has shape {tuple(self.shape)}")
        return self._data.item()

    def numpy(self):
        """The underlying ndarray (shares memory, like ``torch.Tensor.numpy``)."""
        return self._data

    def tolist(self):
        return self._data.tolist()

    def __float__(self):
        return float(self.item())

    def __int__(self):
        return int(self.item())

    def __index__(self):
        if not np.issubdtype(self.dtype, np.integer) or self._data.size != 1:
            raise TypeError("only integer tensors of a single element can be used as an index")
        return int(self._data.item())

    def __bool__(self):
        if self._data.size != 1:
            raise RuntimeError(f"Boolean value of a tensor with {self._data.size} elements is "
                               f"ambiguous: use .any() or .all()")
        return bool(self._data.item())

    def __iter__(self):
        for i in range(len(self)):
            yield self[i]

    def __array__(self, dtype=None, copy=None):
        return self._data if dtype is None else self._data.astype(dtype)

    def __repr__(self):
        body = np.array2string(self._data, separator=", ", precision=4, prefix="tensor(")
        extras = []
        if self._data.dtype not in (np.float32, np.int64, np.bool_):
            extras.append(f"dtype={self._data.dtype}")
        if self.grad_fn is not None:
            extras.append(f"grad_fn=<{self.grad_fn.name}>")
        elif self.requires_grad:
            extras.append("requires_grad=True")
        return "tensor(" + body + "".join(", " + e for e in extras) + ")"

    # ------------------------------------------------------------------- autograd interface
    def requires_grad_(self, requires_grad=True):
        """Ask for (or stop asking for) gradients with respect to this leaf tensor."""
        if requires_grad and not _is_float(self._data.dtype):
            raise TypeError(
                f"requires_grad=True needs a floating-point tensor, this one is "
                f"{self._data.dtype}: only floating-point tensors have gradients. Convert it "
                f"first, e.g. x.float() or ag.tensor(data, dtype=ag.float32).")
        if not requires_grad and self.grad_fn is not None:
            raise RuntimeError("requires_grad_(False) on a non-leaf tensor: use .detach()")
        self.requires_grad = bool(requires_grad)
        return self

    def backward(self, gradient=None, retain_graph=False, create_graph=False, inputs=None):
        """Compute d(self)/d(leaf) for every leaf that requires grad, adding it to ``leaf.grad``.

        ``gradient`` is dL/d(self); it may be omitted only when self has one element (then it
        is 1). ``retain_graph=True`` keeps saved values so backward can run again;
        ``create_graph=True`` records the backward pass itself (higher-order derivatives).
        """
        from .engine import backward
        backward([self], None if gradient is None else [gradient], retain_graph,
                 create_graph, inputs)

    def register_hook(self, hook):
        """Call ``hook(grad)`` when this tensor's gradient has been computed.

        The hook may return a new gradient to use in its place. Returns a handle with
        ``remove()``.
        """
        if not self.requires_grad:
            raise RuntimeError("register_hook: this tensor does not require grad, so it will "
                               "never receive a gradient")
        if self.grad_fn is None:
            if self._hooks is None:
                self._hooks = []
            hooks = self._hooks
        else:
            if self.grad_fn.hooks is None:
                self.grad_fn.hooks = []
                self.grad_fn.watched = True
            hooks = self.grad_fn.hooks
        hooks.append(hook)
        return _HookHandle(hooks, hook)

    def retain_grad(self):
        """Keep ``.grad`` on this non-leaf tensor after backward (leaves always keep it)."""
        import weakref
        if not self.requires_grad:
            raise RuntimeError("retain_grad: this tensor does not require grad")
        if self.grad_fn is not None:
            self.grad_fn.retained = weakref.ref(self)
            self.grad_fn.watched = True

    @property
    def retains_grad(self):
        return self.grad_fn is not None and self.grad_fn.retained is not None

    def detach(self):
        """A new leaf sharing this tensor's data, cut off from the graph."""
        return Tensor._make(self._data, None)

    def detach_(self):
        self.grad_fn = None
        self.requires_grad = False
        return self

    def is_floating_point(self):
        return _is_float(self._data.dtype)

    def __format__(self, spec):
        """``f"{loss:.4f}"`` formats a one-element tensor as its number, as PyTorch."""
        if self._data.size == 1 and spec:
            return format(self._data.item(), spec)
        return format(str(self), spec)


def raw_data(x):
    """The ndarray behind a Tensor, or ``x`` itself for constants."""
    return x._data if isinstance(x, Tensor) else x


class _HookHandle:
    """Returned by ``register_hook``; ``remove()`` unregisters the hook."""

    def __init__(self, hooks, hook):
        self._hooks, self._hook = hooks, hook

    def remove(self):
        if self._hook in self._hooks:
            self._hooks.remove(self._hook)


def make_tensor(data, grad_fn):
    """A Tensor holding the ndarray ``data`` whose history is ``grad_fn`` (a ``Function``, or
    None for a tensor that needs no gradient), without conversion or checks: how operations
    make their outputs (``Tensor._make`` is the same; a module function is called in half
    the time of a static method, and every operation makes one)."""
    t = new_object(Tensor)
    t._data = data
    t.grad_fn = grad_fn
    t.requires_grad = grad_fn is not None
    t._version = 0
    return t
