"""The PyTorch method surface of ``Tensor``: operators, comparisons, elementwise functions,
reductions, shapes, indexing, in-place updates, casts and ``new_*``.

Each method is a one-line call of an operation in ``autograd/ops``, where the forward, the local
derivative and the formula's docstring are written, and ``backward``, ``register_hook`` and
``retain_grad`` call the engine. ``autograd/tensor.py`` holds the tensor itself (storage, dtype
and shape, grad, version); this module imports it, the operations and the engine, and
``install`` (at the end) adds the methods below to ``Tensor``. The operations and the engine
import ``tensor.py`` and never this module, so no module imports itself back.

A method PyTorch has and dagrad lacks is added here, calling the operation that computes it.
"""
import operator
import weakref

import numpy as np

from . import creation, engine, random, sampling, sparse
from .device import CPU, check_device, parse_to_args
from .dtypes import promote
from .errors import describe_failure
from .inplace import restride, write
from .missing import install_missing
from .ops import (activation, arithmetic, cast, composed, diagonal, elementary, indexing, linalg,
                  piecewise, reduction)
from .ops import shape as shape_ops   # "shape" is an argument of reshape and view
from .scalars import checked_fill_value
from .tensor import make_tensor, raw_data, Tensor


class TensorMethods:
    """The methods ``install`` adds to ``Tensor`` (``x.sum()``, ``x + y``, ``x.add_(y)``, ...).

    Not a base class: ``Tensor`` is defined before the operations exist (they import it), so
    the methods are added to it once both are defined.
    """

    # ---------------------------------------------- autograd interface (the engine is below)
    def backward(self, gradient=None, retain_graph=False, create_graph=False, inputs=None):
        """Compute d(self)/d(leaf) for every leaf that requires grad, adding it to ``leaf.grad``.

        ``gradient`` is dL/d(self); it may be omitted only when self has one element (then it
        is 1). ``retain_graph=True`` keeps saved values so backward can run again;
        ``create_graph=True`` records the backward pass itself (higher-order derivatives).
        """
        engine.backward([self], None if gradient is None else [gradient], retain_graph,
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
        if not self.requires_grad:
            raise RuntimeError("retain_grad: this tensor does not require grad")
        if self.grad_fn is not None:
            self.grad_fn.retained = weakref.ref(self)
            self.grad_fn.watched = True

    @property
    def retains_grad(self):
        return self.grad_fn is not None and self.grad_fn.retained is not None

    # ------------------------------------------------------------------- in-place updates
    # Each one is the out-of-place operation written back into this tensor's memory by
    # ``inplace.write``, which records it in the graph when something requires grad.
    def zero_(self):
        return self.fill_(0)

    def fill_(self, value):
        value = checked_fill_value(value, self.dtype, "fill_")
        return write(self, "fill_", _assign, value, arithmetic=False)

    def copy_(self, src):
        return write(self, "copy_", _assign, src, arithmetic=False)

    def fill_diagonal_(self, fill_value, wrap=False):
        return write(self, "fill_diagonal_", diagonal.filled_diagonal, fill_value, wrap=wrap,
                     arithmetic=False)

    def uniform_(self, a=0.0, b=1.0):
        return self.copy_(random.generator().uniform(a, b, self.shape))

    def normal_(self, mean=0.0, std=1.0):
        return self.copy_(random.generator().normal(mean, std, self.shape))

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

    def floor_divide_(self, other):
        return write(self, "floor_divide_", Tensor.floor_divide, other)

    def remainder_(self, other):
        return write(self, "remainder_", Tensor.remainder, other)

    __iadd__ = add_
    __isub__ = sub_
    __imul__ = mul_
    __itruediv__ = div_
    __ifloordiv__ = floor_divide_
    __imod__ = remainder_

    # In-place changes of shape: the same memory seen with a new shape (``inplace.restride``)
    def unsqueeze_(self, dim):
        return restride(self, "unsqueeze_", shape_ops.unsqueeze, dim)

    def squeeze_(self, dim=None):
        return restride(self, "squeeze_", shape_ops.squeeze, dim)

    def transpose_(self, dim0, dim1):
        return restride(self, "transpose_", shape_ops.transpose, dim0, dim1)

    def t_(self):
        _check_t(self, "t_")
        return restride(self, "t_", Tensor.t)

    # ---------------------------------------------------------------------- arithmetic
    def __add__(self, other):
        try:
            return arithmetic.Add.apply(self, other)
        except TypeError:       # dense + sparse is dense, as in PyTorch (free when not raised)
            return arithmetic.Add.apply(self, sparse.as_dense_operand(other))

    def __radd__(self, other):
        return arithmetic.Add.apply(other, self)

    def __sub__(self, other):
        try:
            return arithmetic.Sub.apply(self, other)
        except TypeError:
            return arithmetic.Sub.apply(self, sparse.as_dense_operand(other))

    def __rsub__(self, other):
        return arithmetic.Sub.apply(other, self)

    def __mul__(self, other):
        return arithmetic.Mul.apply(self, other)

    def __rmul__(self, other):
        return arithmetic.Mul.apply(other, self)

    def __truediv__(self, other):
        return arithmetic.Div.apply(self, other)

    def __rtruediv__(self, other):
        return arithmetic.Div.apply(other, self)

    def __pow__(self, exponent):
        return arithmetic.Pow.apply(self, exponent)

    def __rpow__(self, base):
        return arithmetic.Pow.apply(base, self)

    def __floordiv__(self, other):
        return arithmetic.FloorDivide.apply(self, other)

    def __rfloordiv__(self, other):
        return arithmetic.FloorDivide.apply(other, self)

    def __mod__(self, other):
        return arithmetic.Remainder.apply(self, other)

    def __rmod__(self, other):
        return arithmetic.Remainder.apply(other, self)

    def __matmul__(self, other):
        if isinstance(other, sparse.SparseTensor):     # dense @ sparse is dense, as PyTorch
            return sparse.dense_spmm(self, other)
        return linalg.matmul(self, other)

    def __rmatmul__(self, other):
        return linalg.matmul(other, self)

    def __neg__(self):
        return arithmetic.Neg.apply(self)

    def __pos__(self):
        return self

    def __abs__(self):
        return piecewise.Abs.apply(self)

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
        if self._data.dtype.kind not in "biu":
            raise TypeError(f"~ (operator.invert) is only implemented on integer and "
                            f"Boolean-type tensors, got a {self._data.dtype} tensor of shape "
                            f"{tuple(self.shape)}; for a mask write ~(x > 0) or x.logical_not()"
                            f", for a negation -x")
        return make_tensor(~self._data, None)

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
        return make_tensor(np.logical_not(self._data), None)

    def isnan(self):
        return make_tensor(np.isnan(self._data), None)

    def isfinite(self):
        return make_tensor(np.isfinite(self._data), None)

    def any(self, dim=None, keepdim=False):
        return make_tensor(np.asarray(self._data.any(axis=dim, keepdims=keepdim)), None)

    def all(self, dim=None, keepdim=False):
        return make_tensor(np.asarray(self._data.all(axis=dim, keepdims=keepdim)), None)

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

    def floor_divide(self, other):
        return self // other

    def remainder(self, other):
        return self % other

    def neg(self):
        return -self

    def exp(self):
        return elementary.Exp.apply(self)

    def log1p(self):
        return elementary.log1p(self)

    def diag(self, diagonal=0):
        return composed.diag(self, diagonal)

    def log(self):
        return elementary.Log.apply(self)

    def log10(self):
        return composed.log10(self)

    def sqrt(self):
        return elementary.Sqrt.apply(self)

    def rsqrt(self):
        return 1 / elementary.Sqrt.apply(self)

    def abs(self):
        return piecewise.Abs.apply(self)

    def sin(self):
        return elementary.Sin.apply(self)

    def cos(self):
        return elementary.Cos.apply(self)

    def tanh(self):
        return activation.Tanh.apply(self)

    def sigmoid(self):
        return activation.Sigmoid.apply(self)

    def relu(self):
        return activation.Relu.apply(self)

    def square(self):
        return arithmetic.Mul.apply(self, self)

    def reciprocal(self):
        return 1 / self

    def sign(self):
        return composed.sign(self)

    def clamp(self, min=None, max=None):
        return piecewise.clamp(self, min, max)

    clip = clamp

    def maximum(self, other):
        return piecewise.Maximum.apply(self, other)

    def minimum(self, other):
        return piecewise.Minimum.apply(self, other)

    def masked_fill(self, mask, value):
        return indexing.masked_fill(self, mask, value)

    def to(self, *args, **kwargs):
        """PyTorch's ``to``: ``to(dtype)``, ``to(device)``, ``to(device, dtype)``,
        ``to(other)``, ``to(device=..., dtype=..., copy=False)``. The device must be the CPU
        (see ``ag.device``); the cast is differentiable between floating dtypes. Returns self
        when nothing changes, as PyTorch, unless ``copy=True``."""
        dtype, copy = parse_to_args(args, kwargs, "Tensor.to")
        out = self if dtype is None else cast.cast(self, dtype)
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

    is_cuda = is_xpu = is_mps = is_meta = False     # where a tensor lives: the CPU
    is_cpu = True
    is_sparse = False                               # dense (see autograd/sparse.py)
    layout = "strided"

    def to_sparse(self, sparse_dim=None):
        return sparse.to_sparse(self, sparse_dim)

    def to_dense(self):
        return self

    def type(self, dtype=None, non_blocking=False):
        """With no argument, PyTorch's name of this tensor's type (``'torch.FloatTensor'``);
        else this tensor cast to ``dtype`` (a dtype, a legacy type such as
        ``torch.LongTensor``, or its name)."""
        if dtype is None:
            return creation.legacy_name(self.dtype)
        return cast.cast(self, creation.legacy_dtype(dtype))

    def float(self):
        return cast.cast(self, np.float32)

    def double(self):
        return cast.cast(self, np.float64)

    def long(self):
        return cast.cast(self, np.int64)

    def int(self):
        return cast.cast(self, np.int32)

    def bool(self):
        return cast.cast(self, np.bool_)

    def clone(self):
        """A copy with its own memory that stays in the graph (gradient passes through)."""
        return cast.Clone.apply(self)

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
        return shape_ops.view(self, *shape)

    def view_as(self, other):
        return shape_ops.view(self, other.shape)

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
        _check_t(self, "t")
        return self.T

    def unbind(self, dim=0):
        return shape_ops.unbind(self, dim)

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
        """This tensor, or a copy in row-major order when it is a view whose layout is not
        (``x.t().contiguous().view(6)`` works, as in PyTorch)."""
        if self._base is None or self._data.flags.c_contiguous:
            return self
        return self.clone()

    def is_contiguous(self):
        return self._base is None or bool(self._data.flags.c_contiguous)

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

    def mv(self, vec):
        """Matrix times vector: (n, m) @ (m,) -> (n,)."""
        if self.ndim != 2 or getattr(vec, "ndim", None) != 1:
            raise RuntimeError(f"mv: expected a 2-D matrix and a 1-D vector, got shapes "
                               f"{tuple(self.shape)} and {tuple(getattr(vec, 'shape', ()))}")
        return linalg.matmul(self, vec)

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

    def diagonal(self, offset=0, dim1=0, dim2=1):
        return diagonal.diagonal(self, offset, dim1, dim2)

    def diagonal_scatter(self, src, offset=0, dim1=0, dim2=1):
        return diagonal.diagonal_scatter(self, src, offset, dim1, dim2)

    def diag_embed(self, offset=0, dim1=-2, dim2=-1):
        return diagonal.diag_embed(self, offset, dim1, dim2)

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

    def cumsum(self, dim=None, dtype=None, *, axis=None):
        if (dim is None) == (axis is None):
            raise TypeError("cumsum: give the dimension once, as dim or its alias axis")
        return composed.cumsum(self, axis if dim is None else dim, dtype)

    def repeat_interleave(self, repeats, dim=None, *, output_size=None):
        return composed.repeat_interleave(self, repeats, dim)

    def multinomial(self, num_samples, replacement=False, *, generator=None):
        return sampling.multinomial(self, num_samples, replacement, generator=generator)

    def histogram(self, bins=100, *, range=None, weight=None, density=False):
        return sampling.histogram(self, bins, range=range, weight=weight, density=density)

    def nelement(self):
        return self.numel()

    # --------------------------------------------- new tensors like this one (PyTorch's new_*)
    def new_tensor(self, data, dtype=None, device=None, requires_grad=False):
        """A new leaf from ``data`` with this tensor's dtype unless ``dtype`` is given."""
        return creation.tensor(data, dtype or self.dtype, device, requires_grad)

    def new_zeros(self, *size, dtype=None, device=None, requires_grad=False):
        return creation.zeros(*size, dtype=dtype or self.dtype, device=device,
                              requires_grad=requires_grad)

    def new_ones(self, *size, dtype=None, device=None, requires_grad=False):
        return creation.ones(*size, dtype=dtype or self.dtype, device=device,
                             requires_grad=requires_grad)

    def new_empty(self, *size, dtype=None, device=None, requires_grad=False):
        return self.new_zeros(*size, dtype=dtype, device=device, requires_grad=requires_grad)

    def new_full(self, size, fill_value, dtype=None, device=None, requires_grad=False):
        return creation.full(size, fill_value, dtype or self.dtype, device, requires_grad)


class _HookHandle:
    """Returned by ``register_hook``; ``remove()`` unregisters the hook."""

    def __init__(self, hooks, hook):
        self._hooks, self._hook = hooks, hook

    def remove(self):
        if self._hook in self._hooks:
            self._hooks.remove(self._hook)


def _check_t(x, what):
    if x.ndim > 2:
        raise RuntimeError(f"{what}() expects a tensor with <= 2 dimensions, but self is "
                           f"{x.ndim}D (shape {tuple(x.shape)}); use transpose(dim0, dim1) or "
                           f"permute(...) for more dimensions")


_SYMBOLS = {"eq": "==", "ne": "!=", "lt": "<", "le": "<=", "gt": ">", "ge": ">=", "and_": "&",
            "or_": "|", "xor": "^"}


def _elementwise(op, a, b):
    """``op(a, b)`` outside the graph, on operands converted to their promoted dtype; a
    failure names the operation and the operands' shapes and dtypes (PyTorch's words for a
    broadcasting mismatch)."""
    a, b = promote(raw_data(a), raw_data(b), op=op.__name__)
    try:
        return make_tensor(np.asarray(op(a, b)), None)
    except (ValueError, TypeError) as e:
        name = f"{op.__name__.rstrip('_')} ({_SYMBOLS[op.__name__]})"
        if isinstance(e, TypeError):      # & | ^ of floating-point operands
            e = TypeError("it is only implemented on integer and Boolean-type tensors")
        raise type(e)(describe_failure(name, [a, b], e)) from None


def _assign(old, value):
    """``value`` broadcast to ``old``'s shape (what copy_ and fill_ write); in the graph the
    gradient goes to ``value`` and none to the overwritten ``old``."""
    return piecewise.Where.apply(np.True_, value, old)


# What a class statement puts in every class's namespace: not methods, never copied. (A class
# that defines __eq__ gets __hash__ = None; Tensor keeps hashing by identity.)
_CLASS_BOOKKEEPING = {"__module__", "__qualname__", "__doc__", "__dict__", "__weakref__",
                      "__hash__", "__firstlineno__", "__static_attributes__"}


def install(cls, methods=TensorMethods):
    """Add every method, property and constant of ``methods`` to ``cls``. A name ``cls``
    defines already is an error: each method is written in one place."""
    for name, member in vars(methods).items():
        if name in _CLASS_BOOKKEEPING:
            continue
        if name in vars(cls):
            raise TypeError(f"Tensor.{name} is defined both in tensor.py and in "
                            f"tensor_methods.py; keep one")
        setattr(cls, name, member)


install(Tensor)
install_missing(Tensor)     # after every method is in place
