"""``Tensor``: an ndarray plus the bookkeeping reverse-mode differentiation needs.

A tensor produced by an operation remembers that operation in ``grad_fn`` (a node of the compute
graph); a tensor created by the user is a *leaf* (``grad_fn is None``). ``backward()`` walks the
graph from a result back to the leaves and leaves dL/dleaf in each leaf's ``.grad``.

This file is the tensor itself: its storage (one ndarray), dtype and shape, its gradient and
version counter, and the fast constructor operations use (``make_tensor``). The PyTorch method
surface (``x + y``, ``x.sum()``, ``x.reshape(...)``, ``x.add_(y)``, ``backward()``,
``register_hook``, ...) is in ``autograd/tensor_methods.py``, which adds those methods to this
class; the operations themselves (forward and local derivative side by side) live in
``autograd/ops``.
"""
import numpy as np

from .convert import TensorBase, real_array
from .printing import format_tensor, tensor_repr
from .size import Size

_tuple_new = tuple.__new__
new_object = object.__new__   # looked up once: the lookup is a third of make_tensor's cost


def _is_float(dtype):
    return np.issubdtype(dtype, np.floating)


class Tensor(TensorBase):
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

    # Every tensor sets these four; the rarely set ``_grad``, ``name``, ``_hooks`` and ``_view``
    # default to the class's None and live in the instance's dict once set: a result then
    # costs four stores instead of seven (0.13 µs of a small operation's ~2.5 µs).
    __slots__ = ("_data", "requires_grad", "grad_fn", "_version", "__dict__", "__weakref__")
    _grad = None
    name = None
    _hooks = None
    _view = None             # a view's record (``views.View``): autograd/views.py owns it
    _base = None             # the tensor whose memory a view views (PyTorch's ``_base``)
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
        alias = make_tensor(self._data, None)
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
        """As PyTorch prints it: ``tensor([0.3932, 0.2100])`` (``autograd/printing.py``)."""
        return tensor_repr(self)

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

    def detach(self):
        """A new leaf sharing this tensor's data, cut off from the graph."""
        return make_tensor(self._data, None)

    def detach_(self):
        self.grad_fn = None
        self.requires_grad = False
        return self

    def is_floating_point(self):
        return _is_float(self._data.dtype)

    def __format__(self, spec):
        """``f"{loss:.4f}"``: a 0-d tensor formats as its number, as PyTorch."""
        return format_tensor(self, spec)


def raw_data(x):
    """The ndarray behind a Tensor, or ``x`` itself for constants."""
    return x._data if isinstance(x, Tensor) else x


def make_tensor(data, grad_fn):
    """A Tensor holding the ndarray ``data`` whose history is ``grad_fn`` (a ``Function``, or
    None for a tensor that needs no gradient), without conversion or checks: how operations
    make their outputs (a module function: called in half the time of a static method, and
    every operation makes one)."""
    t = new_object(Tensor)
    t._data = data
    t.grad_fn = grad_fn
    t.requires_grad = grad_fn is not None
    t._version = 0
    return t
