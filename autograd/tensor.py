"""``Tensor``: an ndarray plus the bookkeeping reverse-mode differentiation needs.

A tensor produced by an operation remembers that operation in ``grad_fn`` (a node of the compute
graph); a tensor created by the user is a *leaf* (``grad_fn is None``). ``backward()`` walks the
graph from a result back to the leaves and leaves dL/dleaf in each leaf's ``.grad``.

The class holds data and dispatches to operations; the operations themselves (forward and local
derivative side by side) live in ``autograd/ops``.
"""
import operator

import numpy as np

from .device import CPU, check_device, parse_to_args

DEFAULT_DTYPE = np.float32


def as_array(data, dtype=None):
    """Convert ``data`` (Tensor, ndarray, number, nested list) to an ndarray.

    Python floats become float32 (the default dtype) unless ``dtype`` says otherwise; NumPy
    arrays keep their dtype, as ``torch.tensor`` does.
    """
    if isinstance(data, Tensor):
        data = data._data
    if dtype is not None:
        return np.asarray(data, dtype=np.dtype(dtype))
    if isinstance(data, (np.ndarray, np.generic)):
        return np.asarray(data)
    arr = np.asarray(data)
    if arr.dtype == np.float64:
        arr = arr.astype(DEFAULT_DTYPE)
    return arr


def real_array(data, dtype=None):
    """``as_array(data, dtype)`` for a Tensor to hold: TypeError unless it holds real numbers
    (booleans, integers, floating point), saying why and what to do."""
    try:
        arr = as_array(data, dtype)
    except ValueError as e:
        if "inhomogeneous" not in str(e):
            raise
        raise ValueError(f"tensor: the nested sequences are ragged (rows of different lengths), "
                         f"so they do not make one array; pad the rows to one length or keep "
                         f"them as separate tensors ({e})") from None
    if arr.dtype.kind not in REAL_KINDS:
        raise TypeError(f"tensor: cannot hold data of dtype {arr.dtype}: "
                        f"{not_real_message(arr.dtype, data)}")
    return arr


REAL_KINDS = "biuf"     # bool, signed and unsigned integers, floating point


def not_real_message(dtype, data=None):
    """Why a tensor cannot hold ``dtype`` data (made from ``data``), and what to do instead."""
    if dtype.kind == "c":
        why = ("dagrad tensors hold real numbers (complex arithmetic and its gradients are not "
               "supported); carry the real and imaginary parts as two real tensors")
    elif dtype.kind == "O" and isinstance(data, int):
        why = (f"the integer {data} does not fit in int64; pass it as a float "
               f"(float(x)) or with dtype=float64")
    elif dtype.kind == "O":
        why = ("the data are not all numbers of one kind (mixed types, None or integers beyond "
               "int64 make a NumPy object array); convert them first, e.g. "
               "np.asarray(data, dtype=np.float32)")
    elif dtype.kind in "US":
        why = "strings are not numbers; encode them first (e.g. a vocabulary of indices)"
    else:
        why = "dagrad tensors hold booleans, integers or floating-point numbers"
    return why


def as_tensor(data, dtype=None, device=None):
    """``data`` as a Tensor (PyTorch's ``torch.as_tensor``): a Tensor passes through (converted
    when ``dtype`` differs), anything else is wrapped, sharing an ndarray's memory. ``device``
    can only be the CPU."""
    if device is not None:
        from .device import check_device
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

    # Every tensor sets these four; the rarely set ``_grad``, ``name`` and ``_hooks`` default
    # to the class's None and live in the instance's dict once set: an operation's result then
    # costs four stores instead of seven (0.13 µs of a small operation's ~2.5 µs).
    __slots__ = ("_data", "requires_grad", "grad_fn", "_version", "__dict__", "__weakref__")
    _grad = None
    name = None
    _hooks = None
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
        t = object.__new__(Tensor)
        t._data = data
        t.grad_fn = grad_fn
        t.requires_grad = grad_fn is not None
        t._version = 0
        return t

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
        """The shape as a tuple of ints (``torch.Size`` in PyTorch)."""
        return self._data.shape

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
        """The shape, or the length of dimension ``dim``."""
        return self._data.shape if dim is None else self._data.shape[dim]

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
                             f"scalars, this one has shape {self.shape}")
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

    # ------------------------------------------------------------------- in-place updates
    # Each one is the out-of-place operation written back into this tensor's memory by
    # ``inplace.write``, which records it in the graph when something requires grad.
    def zero_(self):
        return self.fill_(0)

    def fill_(self, value):
        return write(self, "fill_", _assign, value, arithmetic=False)

    def copy_(self, src):
        return write(self, "copy_", _assign, src, arithmetic=False)

    def uniform_(self, a=0.0, b=1.0):
        from .random import generator
        return self.copy_(generator().uniform(a, b, self.shape))

    def normal_(self, mean=0.0, std=1.0):
        from .random import generator
        return self.copy_(generator().normal(mean, std, self.shape))

    def masked_fill_(self, mask, value):
        return write(self, "masked_fill_", Tensor.masked_fill, mask, value, arithmetic=False)

    def __setitem__(self, index, value):
        write(self, "__setitem__", indexing.index_put, index, value, arithmetic=False)

    def add_(self, other, alpha=1):
        return write(self, "add_", Tensor.add, other, alpha=alpha)

    def sub_(self, other, alpha=1):
        return write(self, "sub_", Tensor.sub, other, alpha=alpha)

    def mul_(self, other):
        return write(self, "mul_", Tensor.mul, other)

    def div_(self, other):
        return write(self, "div_", Tensor.div, other)

    def pow_(self, exponent):
        return write(self, "pow_", Tensor.pow, exponent)

    def clamp_(self, min=None, max=None):
        return write(self, "clamp_", Tensor.clamp, min, max)

    clip_ = clamp_

    def neg_(self):
        return write(self, "neg_", Tensor.neg)

    def abs_(self):
        return write(self, "abs_", Tensor.abs)

    def exp_(self):
        return write(self, "exp_", Tensor.exp)

    def log_(self):
        return write(self, "log_", Tensor.log)

    def sqrt_(self):
        return write(self, "sqrt_", Tensor.sqrt)

    def relu_(self):
        return write(self, "relu_", Tensor.relu)

    def sigmoid_(self):
        return write(self, "sigmoid_", Tensor.sigmoid)

    def tanh_(self):
        return write(self, "tanh_", Tensor.tanh)

    __iadd__ = add_
    __isub__ = sub_
    __imul__ = mul_
    __itruediv__ = div_

    # ---------------------------------------------------------------------- arithmetic
    def __add__(self, other):
        return elementwise.Add.apply(self, other)

    def __radd__(self, other):
        return elementwise.Add.apply(other, self)

    def __sub__(self, other):
        return elementwise.Sub.apply(self, other)

    def __rsub__(self, other):
        return elementwise.Sub.apply(other, self)

    def __mul__(self, other):
        return elementwise.Mul.apply(self, other)

    def __rmul__(self, other):
        return elementwise.Mul.apply(other, self)

    def __truediv__(self, other):
        return elementwise.Div.apply(self, other)

    def __rtruediv__(self, other):
        return elementwise.Div.apply(other, self)

    def __pow__(self, exponent):
        return elementwise.Pow.apply(self, exponent)

    def __rpow__(self, base):
        return elementwise.Pow.apply(base, self)

    def __matmul__(self, other):
        return linalg.matmul(self, other)

    def __rmatmul__(self, other):
        return linalg.matmul(other, self)

    def __neg__(self):
        return elementwise.Neg.apply(self)

    def __pos__(self):
        return self

    def __abs__(self):
        return elementwise.Abs.apply(self)

    # comparisons and logic: never differentiable; operands meet in their promoted dtype
    # (x == np.float64(0.1) compares in x's float32, as PyTorch)
    def __eq__(self, other):
        return _elementwise(operator.eq, self, other)

    def __ne__(self, other):
        return _elementwise(operator.ne, self, other)

    def __lt__(self, other):
        return _elementwise(operator.lt, self, other)

    def __le__(self, other):
        return _elementwise(operator.le, self, other)

    def __gt__(self, other):
        return _elementwise(operator.gt, self, other)

    def __ge__(self, other):
        return _elementwise(operator.ge, self, other)

    def __invert__(self):
        return Tensor._make(~self._data, None)

    def __and__(self, other):
        return _elementwise(operator.and_, self, other)

    def __or__(self, other):
        return _elementwise(operator.or_, self, other)

    def __xor__(self, other):
        return _elementwise(operator.xor, self, other)

    def eq(self, other):
        return self == other

    def ne(self, other):
        return self != other

    def lt(self, other):
        return self < other

    def le(self, other):
        return self <= other

    def gt(self, other):
        return self > other

    def ge(self, other):
        return self >= other

    def logical_not(self):
        return Tensor._make(np.logical_not(self._data), None)

    def isnan(self):
        return Tensor._make(np.isnan(self._data), None)

    def isfinite(self):
        return Tensor._make(np.isfinite(self._data), None)

    def any(self, dim=None, keepdim=False):
        return Tensor._make(np.asarray(self._data.any(axis=dim, keepdims=keepdim)), None)

    def all(self, dim=None, keepdim=False):
        return Tensor._make(np.asarray(self._data.all(axis=dim, keepdims=keepdim)), None)

    def allclose(self, other, rtol=1e-5, atol=1e-8):
        return bool(np.allclose(self._data, raw_data(other), rtol=rtol, atol=atol))

    # ---------------------------------------------------------------------- elementwise
    def add(self, other, alpha=1):
        return self + (other if alpha == 1 else other * alpha)

    def sub(self, other, alpha=1):
        return self - (other if alpha == 1 else other * alpha)

    def mul(self, other):
        return self * other

    def div(self, other):
        return self / other

    def pow(self, exponent):
        return self ** exponent

    def neg(self):
        return -self

    def exp(self):
        return elementwise.Exp.apply(self)

    def log(self):
        return elementwise.Log.apply(self)

    def sqrt(self):
        return elementwise.Sqrt.apply(self)

    def rsqrt(self):
        return 1 / elementwise.Sqrt.apply(self)

    def abs(self):
        return elementwise.Abs.apply(self)

    def sin(self):
        return elementwise.Sin.apply(self)

    def cos(self):
        return elementwise.Cos.apply(self)

    def tanh(self):
        return elementwise.Tanh.apply(self)

    def sigmoid(self):
        return elementwise.Sigmoid.apply(self)

    def relu(self):
        return elementwise.Relu.apply(self)

    def square(self):
        return elementwise.Mul.apply(self, self)

    def reciprocal(self):
        return 1 / self

    def sign(self):
        return composed.sign(self)

    def clamp(self, min=None, max=None):
        return elementwise.clamp(self, min, max)

    clip = clamp

    def maximum(self, other):
        return elementwise.Maximum.apply(self, other)

    def minimum(self, other):
        return elementwise.Minimum.apply(self, other)

    def masked_fill(self, mask, value):
        return indexing.masked_fill(self, mask, value)

    def to(self, *args, **kwargs):
        """PyTorch's ``to``: ``to(dtype)``, ``to(device)``, ``to(device, dtype)``,
        ``to(other)``, ``to(device=..., dtype=..., copy=False)``. The device must be the CPU
        (see ``ag.device``); the cast is differentiable between floating dtypes. Returns self
        when nothing changes, as PyTorch, unless ``copy=True``."""
        dtype, copy = parse_to_args(args, kwargs, "Tensor.to")
        out = self if dtype is None else elementwise.cast(self, dtype)
        return out.clone() if copy and out is self else out

    def cpu(self):
        """This tensor (it is on the CPU already)."""
        return self

    def cuda(self, device=None, non_blocking=False):
        """Raises: dagrad has no GPU (the error says what to do instead)."""
        check_device("cuda" if device is None else device if isinstance(device, str)
                     else f"cuda:{device}", "Tensor.cuda")

    @property
    def device(self):
        """Where the tensor lives: always ``device(type='cpu')``."""
        return CPU

    is_cuda = False

    def type(self, dtype):
        return elementwise.cast(self, dtype)

    def float(self):
        return elementwise.cast(self, np.float32)

    def double(self):
        return elementwise.cast(self, np.float64)

    def long(self):
        return elementwise.cast(self, np.int64)

    def int(self):
        return elementwise.cast(self, np.int32)

    def bool(self):
        return elementwise.cast(self, np.bool_)

    def clone(self):
        """A copy with its own memory that stays in the graph (gradient passes through)."""
        return elementwise.Clone.apply(self)

    # ----------------------------------------------------------------------- reductions
    # Reductions forward to the functions of autograd/ops/reduction.py, the tensor first: each
    # signature (dim/keepdim, the axis/keepdims aliases) and docstring is written there, once.
    def sum(self, *args, **kwargs):
        return reduction.sum(self, *args, **kwargs)

    def mean(self, *args, **kwargs):
        return reduction.mean(self, *args, **kwargs)

    def var(self, *args, **kwargs):
        return reduction.var(self, *args, **kwargs)

    def std(self, *args, **kwargs):
        return reduction.std(self, *args, **kwargs)

    def prod(self, *args, **kwargs):
        return reduction.prod(self, *args, **kwargs)

    def max(self, *args, **kwargs):
        return reduction.max(self, *args, **kwargs)

    def min(self, *args, **kwargs):
        return reduction.min(self, *args, **kwargs)

    def amax(self, *args, **kwargs):
        return reduction.amax(self, *args, **kwargs)

    def amin(self, *args, **kwargs):
        return reduction.amin(self, *args, **kwargs)

    def argmax(self, *args, **kwargs):
        return reduction.argmax(self, *args, **kwargs)

    def argmin(self, *args, **kwargs):
        return reduction.argmin(self, *args, **kwargs)

    def logsumexp(self, *args, **kwargs):
        return reduction.logsumexp(self, *args, **kwargs)

    def softmax(self, *args, **kwargs):
        return reduction.softmax(self, *args, **kwargs)

    def log_softmax(self, *args, **kwargs):
        return reduction.log_softmax(self, *args, **kwargs)

    def norm(self, *args, **kwargs):
        return reduction.norm(self, *args, **kwargs)

    # -------------------------------------------------------------------------- shapes
    def reshape(self, *shape):
        return shape_ops.reshape(self, *shape)

    def view(self, *shape):
        return shape_ops.reshape(self, *shape)

    def view_as(self, other):
        return shape_ops.reshape(self, other.shape)

    def reshape_as(self, other):
        return shape_ops.reshape(self, other.shape)

    def flatten(self, start_dim=0, end_dim=-1):
        return shape_ops.flatten(self, start_dim, end_dim)

    def unflatten(self, dim, sizes):
        return shape_ops.unflatten(self, dim, sizes)

    def transpose(self, dim0, dim1):
        return shape_ops.transpose(self, dim0, dim1)

    swapaxes = transpose

    def permute(self, *dims):
        return shape_ops.permute(self, *dims)

    @property
    def T(self):
        """All dimensions reversed (the matrix transpose for 2-D tensors)."""
        return shape_ops.permute(self, *range(self.ndim - 1, -1, -1))

    @property
    def mT(self):
        """The last two dimensions swapped (a batch of matrices transposed)."""
        return shape_ops.transpose(self, -2, -1)

    def t(self):
        if self.ndim > 2:
            raise ValueError(f"t() expects a tensor with <= 2 dimensions, got shape {self.shape}")
        return self.T

    def unsqueeze(self, dim):
        return shape_ops.unsqueeze(self, dim)

    def squeeze(self, dim=None):
        return shape_ops.squeeze(self, dim)

    def expand(self, *sizes):
        return shape_ops.expand(self, *sizes)

    def expand_as(self, other):
        return shape_ops.broadcast_to(self, other.shape)

    def broadcast_to(self, shape):
        return shape_ops.broadcast_to(self, shape)

    def flip(self, dims):
        return shape_ops.flip(self, dims)

    def repeat(self, *sizes):
        return shape_ops.repeat(self, *sizes)

    def split(self, split_size_or_sections, dim=0):
        return shape_ops.split(self, split_size_or_sections, dim)

    def chunk(self, chunks, dim=0):
        return shape_ops.chunk(self, chunks, dim)

    def contiguous(self):
        return self

    # ------------------------------------------------------------------------ indexing
    def __getitem__(self, index):
        return indexing.getitem(self, index)

    def gather(self, dim, index):
        return indexing.gather(self, dim, index)

    def index_select(self, dim, index):
        return indexing.index_select(self, dim, index)

    def matmul(self, other):
        return linalg.matmul(self, other)

    def mm(self, other):
        return linalg.matmul(self, other)

    def dot(self, other):
        return linalg.matmul(self, other)

    def bmm(self, other):
        return composed.bmm(self, other)

    # ------------------------------------------------ composed operations (ops/composed.py)
    def sinh(self):
        return composed.sinh(self)

    def cosh(self):
        return composed.cosh(self)

    def tril(self, diagonal=0):
        return composed.tril(self, diagonal)

    def triu(self, diagonal=0):
        return composed.triu(self, diagonal)

    def narrow(self, dim, start, length):
        return composed.narrow(self, dim, start, length)

    def floor(self):
        return composed.floor(self)

    def ceil(self):
        return composed.ceil(self)

    def round(self, decimals=0):
        return composed.round(self, decimals)

    def sort(self, dim=-1, descending=False, stable=False):
        return composed.sort(self, dim, descending, stable)

    def argsort(self, dim=-1, descending=False, stable=False):
        return composed.argsort(self, dim, descending, stable)

    def topk(self, k, dim=-1, largest=True, sorted=True):
        return composed.topk(self, k, dim, largest, sorted)

    def cumsum(self, dim, dtype=None):
        return composed.cumsum(self, dim, dtype)

    def repeat_interleave(self, repeats, dim=None, *, output_size=None):
        return composed.repeat_interleave(self, repeats, dim)

    # --------------------------------------------- new tensors like this one (PyTorch's new_*)
    def new_tensor(self, data, dtype=None, device=None, requires_grad=False):
        """A new leaf from ``data`` with this tensor's dtype unless ``dtype`` is given."""
        from .creation import tensor
        return tensor(data, dtype or self.dtype, device, requires_grad)

    def new_zeros(self, *size, dtype=None, device=None, requires_grad=False):
        from .creation import zeros
        return zeros(*size, dtype=dtype or self.dtype, device=device,
                     requires_grad=requires_grad)

    def new_ones(self, *size, dtype=None, device=None, requires_grad=False):
        from .creation import ones
        return ones(*size, dtype=dtype or self.dtype, device=device, requires_grad=requires_grad)

    def new_empty(self, *size, dtype=None, device=None, requires_grad=False):
        return self.new_zeros(*size, dtype=dtype, device=device, requires_grad=requires_grad)

    def new_full(self, size, fill_value, dtype=None, device=None, requires_grad=False):
        from .creation import full
        return full(size, fill_value, dtype or self.dtype, device, requires_grad)

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


def _elementwise(op, a, b):
    """``op(a, b)`` outside the graph, on operands converted to their promoted dtype."""
    a, b = promote(raw_data(a), raw_data(b))
    return Tensor._make(np.asarray(op(a, b)), None)


def _assign(old, value):
    """``value`` broadcast to ``old``'s shape (what copy_ and fill_ write); in the graph the
    gradient goes to ``value`` and none to the overwritten ``old``."""
    return elementwise.Where.apply(np.True_, value, old)


class _HookHandle:
    """Returned by ``register_hook``; ``remove()`` unregisters the hook."""

    def __init__(self, hooks, hook):
        self._hooks, self._hook = hooks, hook

    def remove(self):
        if self._hook in self._hooks:
            self._hooks.remove(self._hook)


# The operations import Tensor, so they are imported after it is defined.
from .dtypes import promote  # noqa: E402
from .ops import composed, elementwise, indexing, linalg, reduction  # noqa: E402
from .ops import shape as shape_ops  # noqa: E402  ("shape" is an argument of reshape and view)
from .inplace import write  # noqa: E402
