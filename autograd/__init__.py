"""autograd: reverse-mode automatic differentiation over NumPy.

``Tensor`` records every operation applied to it into a directed acyclic graph; ``backward()``
walks that graph in reverse topological order and applies each operation's local derivative
(the chain rule, edge by edge)::

    from dagrad import autograd as ag
    x = ag.tensor([1.0, 2.0], requires_grad=True)
    y = (x * x).sum()
    y.backward()
    x.grad          # tensor([2., 4.])
"""
import numpy as np

from .tensor import Tensor
from .convert import as_array
from . import tensor_methods  # noqa: F401  (adds x + y, x.sum(), ... to Tensor)
from . import functional
from .creation import (arange, as_tensor, empty, empty_like, eye, from_numpy, full,
                       full_like, linspace, normal, ones, ones_like, rand, rand_like, randint,
                       randn, randn_like, randperm, tensor, zeros, zeros_like)
from .default_dtype import get_default_dtype, set_default_dtype
from .device import device
from .printing import set_printoptions
from .dtypes import promote_types, result_type
from .engine import backward, grad
from .custom_function import CustomFunction
from .function import Function, unbroadcast
from .grad_mode import (detect_anomaly, enable_grad, is_grad_enabled, no_grad,
                        set_grad_enabled)
from .gradcheck import GradcheckError, gradcheck
from .ops.arithmetic import floor_divide, pow, remainder
from .ops.elementary import cos, exp, log, log1p, sin, sqrt
from .ops.activation import elu, erf, gelu, leaky_relu, relu, sigmoid, softplus, tanh
from .ops.piecewise import abs, clamp, maximum, minimum, where
from .ops.cast import cast
from .ops.indexing import gather, getitem, index_select, masked_fill
from .ops.linalg import linear, matmul
from .ops.reduction import (amax, amin, argmax, argmin, logsumexp, log_softmax, max, mean, min,
                            norm, prod, softmax, std, sum, var)
from .ops.shape import (broadcast_to, cat, chunk, expand, flatten, flip, pad, permute, repeat,
                        reshape, split, squeeze, stack, transpose, unbind, unflatten,
                        unsqueeze)
from .ops.diagonal import diag_embed, diagonal, diagonal_scatter
from .ops.composed import (argsort, bmm, ceil, cosh, cumsum, diag, floor, log10, meshgrid,
                           narrow, repeat_interleave, round, sign, sinh, sort, square, topk,
                           tril, triu)
from .random import Generator, generator, manual_seed
from .sampling import histogram, multinomial
from .sparse import SparseTensor, sparse_coo_tensor, spmm
from .memory import keep_freed_memory
from .blas import get_num_threads, set_num_threads

float16, float32, float64 = np.float16, np.float32, np.float64
int8, int16, int32, int64, uint8 = np.int8, np.int16, np.int32, np.int64, np.uint8
bool_ = np.bool_
clip = clamp
concat = concatenate = cat


def is_tensor(x):
    return isinstance(x, Tensor)


# The public names: what ``from dagrad.autograd import *`` (and so ``dagrad.torch``) exports.
# The modules behind them (``engine``, ``versions``, ``np``, ...) are reached by their paths.
__all__ = [
    "Tensor", "as_array", "as_tensor", "is_tensor", "tensor", "from_numpy", "device",
    "set_printoptions",
    # creation and random numbers
    "arange", "empty", "empty_like", "eye", "full", "full_like", "linspace", "normal", "ones",
    "ones_like", "rand", "rand_like", "randint", "randn", "randn_like", "randperm", "zeros",
    "zeros_like", "Generator", "generator", "manual_seed", "multinomial", "histogram",
    # dtypes
    "float16", "float32", "float64", "int8", "int16", "int32", "int64", "uint8", "bool_",
    "get_default_dtype", "set_default_dtype", "promote_types", "result_type",
    # differentiation
    "backward", "grad", "gradcheck", "GradcheckError", "Function", "CustomFunction",
    "unbroadcast", "detect_anomaly", "enable_grad", "is_grad_enabled", "no_grad",
    "set_grad_enabled",
    # operations
    "abs", "cast", "clamp", "clip", "cos", "elu", "erf", "exp", "floor_divide", "gelu",
    "leaky_relu", "log", "log1p", "maximum", "minimum", "pow", "relu", "remainder", "sigmoid",
    "sin", "softplus", "sqrt", "tanh", "where", "gather", "getitem", "index_select",
    "masked_fill", "linear", "matmul", "amax", "amin", "argmax", "argmin", "logsumexp",
    "log_softmax", "max", "mean", "min", "norm", "prod", "softmax", "std", "sum", "var",
    "broadcast_to", "cat", "concat", "concatenate", "chunk", "expand", "flatten", "flip",
    "pad", "permute", "repeat", "reshape", "split", "squeeze", "stack", "transpose", "unbind",
    "unflatten", "unsqueeze", "diag_embed", "diagonal", "diagonal_scatter", "argsort", "bmm",
    "ceil", "cosh", "cumsum", "diag", "floor", "log10", "meshgrid", "narrow", "repeat_interleave",
    "round", "sign", "sinh", "sort", "square", "topk", "tril", "triu",
    "SparseTensor", "sparse_coo_tensor", "spmm",
    # speed
    "keep_freed_memory", "get_num_threads", "set_num_threads",
]
