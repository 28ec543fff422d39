"""Lazy layers: the input size is read from the first input, as PyTorch's ``nn.Lazy*``.

``nn.LazyLinear(10)`` needs no ``in_features``: its parameters are ``UninitializedParameter``
placeholders until the first call, which builds the layer it stands for (``Linear(x.shape[-1],
10)``, initialised exactly as that layer is: PyTorch's defaults), moves the new values into the
placeholders (so an optimizer created before the first call already holds the right objects),
and turns the module into that layer (``type(layer) is nn.Linear`` afterwards, as PyTorch).

Before that first call a placeholder has no values: reading its shape, numbers or size raises
the ValueError PyTorch raises, saying to call the model on a batch first. So an optimizer may
be created on a lazy model, but nothing can use the parameters until they exist.
"""
import numpy as np

from dagrad.autograd.default_dtype import float_dtype

from .conv import Conv1d, Conv2d, ConvTranspose2d
from .linear import Linear
from .module import Module
from .normalization import BatchNorm1d, BatchNorm2d
from .parameter import Parameter


def _uninitialized(where):
    return ValueError(
        f"Attempted to use an uninitialized parameter in {where}. This error happens when you "
        f"are using a LazyModule (nn.LazyLinear, ...) before its first call: call the model on "
        f"a batch of inputs first, so it can infer the input size and create its parameters.")


class UninitializedParameter(Parameter):
    """A parameter without values yet (of a lazy layer before its first call). It becomes a
    ``Parameter`` in place when the layer materialises it."""

    __slots__ = ()

    def __init__(self, requires_grad=True, dtype=None):
        super().__init__(np.empty(0, float_dtype(dtype)), requires_grad)

    def materialize(self, values):
        """Take ``values`` (an ndarray) and become an ordinary ``Parameter``."""
        self._data = values
        self.__class__ = Parameter

    def __repr__(self):
        return "<UninitializedParameter>"

    shape = property(lambda self: _refuse("shape"))
    ndim = property(lambda self: _refuse("ndim"))
    # ``.data`` is an empty tensor, as PyTorch's: ``lazy.weight.data.normal_(0, 0.01)``
    # before the first call changes nothing (the textbook's LinearRegression does this).


def _refuse(name):
    raise _uninitialized(f"UninitializedParameter.{name}")


def _refusing(name):
    def method(self, *args, **kwargs):
        _refuse(name)
    method.__name__ = name
    return method


for _name in ("numel", "size", "dim", "numpy", "item", "tolist", "__array__", "__len__",
              "__getitem__", "__add__", "__radd__", "__sub__", "__rsub__", "__mul__", "__rmul__",
              "__matmul__", "__rmatmul__", "__truediv__", "__rtruediv__", "__pow__", "__neg__"):
    setattr(UninitializedParameter, _name, _refusing(_name))


class LazyModule(Module):
    """Base of the lazy layers. A subclass reads the missing size from an input
    (``_size_of(input)``) or from a saved weight (``_size_in(state)``), and ``_build(size)``
    returns the layer it becomes; the first call (or ``load_state_dict``) materialises it."""

    def _take_sizes_from(self, prefix, state_dict):
        """Before ``load_state_dict``: when this layer's weights are in ``state_dict``, take
        the sizes they imply and become the layer, as PyTorch's lazy modules do when a
        checkpoint is loaded before the first call (``Module``'s hook)."""
        state = {key[len(prefix):]: np.asarray(value) for key, value in state_dict.items()
                 if key.startswith(prefix) and "." not in key[len(prefix):]}
        size = self._size_in(state)
        if size is not None:
            self._become(self._build(size))

    def has_uninitialized_params(self):
        return any(isinstance(p, UninitializedParameter) for p in self._parameters.values())

    def _size_of(self, input):
        raise NotImplementedError

    def _size_in(self, state):
        """The input size a saved state implies (``state``: name -> array), or None."""
        raise NotImplementedError

    def _build(self, size):
        raise NotImplementedError

    def initialize_parameters(self, input):
        """Build the real layer for ``input`` and become it."""
        self._become(self._build(self._size_of(input)))

    def _become(self, layer):
        """Move ``layer``'s values into our placeholders and take its class and attributes
        (PyTorch's ``cls_to_become``)."""
        for name, placeholder in self._parameters.items():
            if placeholder is not None:
                placeholder.materialize(layer._parameters[name]._data)
        training = self.training
        self.__dict__.pop("_args", None)
        for key, value in vars(layer).items():
            if key not in ("_parameters", "_owner", "_path_cache"):
                self.__dict__[key] = value
        self.__dict__["training"] = training
        self.__class__ = type(layer)

    def __call__(self, *args, **kwargs):
        self.initialize_parameters(args[0])   # only reached while lazy: the class changes
        return Module.__call__(self, *args, **kwargs)   # self is the built layer's class now

    def forward(self, *args, **kwargs):
        raise _uninitialized(f"{type(self).__name__}.forward")

    def state_dict(self, *args, **kwargs):
        raise _uninitialized(f"{type(self).__name__}.state_dict (call the model once "
                             f"before saving it)")


def _placeholders(module, names, present=True, dtype=None):
    for name in names:
        if present:
            setattr(module, name, UninitializedParameter(dtype=dtype))
        else:
            module.register_parameter(name, None)


def _channels(input, spatial, name):
    """The channel count of a (N, C, *S) or unbatched (C, *S) input."""
    if input.ndim == spatial + 2:
        return input.shape[1]
    if input.ndim == spatial + 1:
        return input.shape[0]
    raise ValueError(f"{name}: expected a {spatial + 1}-D or {spatial + 2}-D input, got shape "
                     f"{tuple(input.shape)}")


class LazyLinear(LazyModule):
    """``Linear`` whose ``in_features`` is ``input.shape[-1]`` of the first input."""

    def __init__(self, out_features, bias=True, device=None, dtype=None):
        super().__init__()
        self.in_features, self.out_features, self._args = 0, out_features, (bias, dtype)
        _placeholders(self, ["weight"], dtype=dtype)
        _placeholders(self, ["bias"], bias, dtype)

    def _size_of(self, input):
        if not input.ndim:
            raise RuntimeError(f"LazyLinear: its input must have at least one dimension, whose "
                             f"last size becomes in_features; got a 0-d tensor (a single "
                             f"number). Give it a feature axis: x.reshape(1) for one sample of "
                             f"one feature, x.reshape(1, 1) for a batch of one")
        return input.shape[-1]

    def _size_in(self, state):
        return state["weight"].shape[1] if "weight" in state else None

    def _build(self, in_features):
        bias, dtype = self._args
        return Linear(in_features, self.out_features, bias, dtype)

    def extra_repr(self):
        return f"in_features=0, out_features={self.out_features}, bias={self._args[0]}"


class _LazyConv(LazyModule):
    _layer, _spatial = None, 0

    def __init__(self, out_channels, kernel_size, *args, bias=True, dtype=None, device=None,
                 **kwargs):
        super().__init__()
        self.in_channels, self.out_channels = 0, out_channels
        self._args = (kernel_size,) + args, dict(kwargs, bias=bias, dtype=dtype)
        _placeholders(self, ["weight"], dtype=dtype)
        _placeholders(self, ["bias"], bias, dtype)

    def _size_of(self, input):
        return _channels(input, self._spatial, type(self).__name__)

    def _size_in(self, state):
        if "weight" not in state:
            return None
        if self._layer is ConvTranspose2d:            # weight (in, out / groups, *kernel)
            return state["weight"].shape[0]
        args, kwargs = self._args                     # weight (out, in / groups, *kernel)
        groups = kwargs.get("groups", args[4] if len(args) > 4 else 1)
        return state["weight"].shape[1] * groups

    def _build(self, in_channels):
        args, kwargs = self._args
        return self._layer(in_channels, self.out_channels, *args, **kwargs)

    def extra_repr(self):
        return f"0, {self.out_channels}, kernel_size={self._args[0][0]}"


class LazyConv1d(_LazyConv):
    """``Conv1d`` whose ``in_channels`` is read from the first input (N, C, L) or (C, L).
    Arguments as Conv1d's after ``in_channels``."""
    _layer, _spatial = Conv1d, 1


class LazyConv2d(_LazyConv):
    """``Conv2d`` whose ``in_channels`` is read from the first input (N, C, H, W) or (C, H, W).
    Arguments as Conv2d's after ``in_channels``."""
    _layer, _spatial = Conv2d, 2


class LazyConvTranspose2d(_LazyConv):
    """``ConvTranspose2d`` whose ``in_channels`` is read from the first input.
    Arguments as ConvTranspose2d's after ``in_channels``."""
    _layer, _spatial = ConvTranspose2d, 2


class _LazyBatchNorm(LazyModule):
    _layer, _spatial = None, ()

    def __init__(self, eps=1e-5, momentum=0.1, affine=True, track_running_stats=True,
                 device=None, dtype=None):
        super().__init__()
        self.num_features = 0
        self._args = (eps, momentum, affine, track_running_stats, dtype)
        _placeholders(self, ["weight", "bias"], affine, dtype)

    def _size_of(self, input):
        if input.ndim < 2:
            raise ValueError(f"{type(self).__name__}: expected (N, C, ...) input, got shape "
                             f"{tuple(input.shape)}")
        return input.shape[1]

    def _size_in(self, state):
        for name in ("weight", "running_mean"):
            if name in state:
                return state[name].shape[0]
        return None

    def _build(self, num_features):
        return self._layer(num_features, *self._args)

    def extra_repr(self):
        eps, momentum, affine, track, _ = self._args
        return (f"0, eps={eps}, momentum={momentum}, affine={affine}, "
                f"track_running_stats={track}")


class LazyBatchNorm1d(_LazyBatchNorm):
    """``BatchNorm1d`` whose ``num_features`` is ``input.shape[1]`` of the first input."""
    _layer = BatchNorm1d


class LazyBatchNorm2d(_LazyBatchNorm):
    """``BatchNorm2d`` whose ``num_features`` is ``input.shape[1]`` of the first input."""
    _layer = BatchNorm2d
