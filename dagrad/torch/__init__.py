"""``dagrad.torch``: PyTorch's ``torch`` namespace over dagrad, for CPU PyTorch code.

Changing ``import torch`` to ``from dagrad import torch`` (and ``import torch.nn as nn`` to
``from dagrad.torch import nn``) is the only edit such a program needs::

    from dagrad import torch
    from dagrad.torch import nn

    device = "cuda" if torch.cuda.is_available() else "cpu"       # "cpu"
    model = nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 1)).to(device)
    x = torch.randn(16, 4, device=device)
    loss = ((model(x) - 1) ** 2).mean()
    loss.backward()
    torch.save(model.state_dict(), "model.pt")

Everything here is an alias of the implementation in ``dagrad.autograd``, ``dagrad.nn``,
``dagrad.optim``: the facade adds names, never behaviour. A PyTorch name dagrad does not have
(CUDA, ``torch.compile``, ...) raises ``NotInDagradError`` naming it.
"""
import builtins as _builtins

import numpy as _np

from dagrad.autograd import *  # noqa: F401,F403  (tensor functions, grad mode, random)
from dagrad.autograd import (Generator, device, enable_grad, is_grad_enabled,  # noqa
                             no_grad, set_grad_enabled)
from dagrad.autograd import manual_seed as _manual_seed
from dagrad.autograd.ops.reduction import MaxResult as _MaxResult  # noqa: F401
from dagrad.autograd.size import Size  # noqa: F401

from dagrad.autograd.out_arg import accepts_out as _accepts_out

from . import (accelerator, amp, autograd, backends, cuda, distributed,  # noqa: F401
               functional, nn, onnx, optim, sparse, utils)
from .amp import GradScaler, autocast  # noqa: F401
from .backends import get_float32_matmul_precision, set_float32_matmul_precision  # noqa: F401
from .dtypes import bfloat16, cdouble, cfloat, complex64, complex128  # noqa: F401
from ._missing import NotInDagradError, forward_to, install_missing_modules
from .serialization import load, save  # noqa: F401
from .tensor_types import (BoolTensor, ByteTensor, CharTensor, DoubleTensor,  # noqa: F401
                           FloatTensor, HalfTensor, IntTensor, LongTensor, ShortTensor, Tensor)

__version__ = "2.13.0+dagrad"     # the PyTorch API this facade follows, marked as dagrad's
__dagrad__ = True                 # what `import torch` gives under dagrad.torch.run


def load_ipython_extension(ipython):
    """``%load_ext dagrad.torch``: from now on, ``import torch`` and ``from d2l import torch
    as d2l`` in this kernel give dagrad's modules (see ``dagrad.torch.run``)."""
    from .run import install
    install()


def unload_ipython_extension(ipython):
    """``%unload_ext dagrad.torch``: later imports of ``torch`` and ``d2l`` are not redirected;
    restart the kernel to use the real ones."""
    from .run import uninstall
    uninstall()

# dtypes: NumPy dtype objects, so ``x.dtype == torch.float32`` and ``x.dtype is torch.float32``
float16 = half = _np.dtype(_np.float16)
float32 = float = _np.dtype(_np.float32)
float64 = double = _np.dtype(_np.float64)
int8, int16 = _np.dtype(_np.int8), _np.dtype(_np.int16)
int32 = int = _np.dtype(_np.int32)
int64 = long = _np.dtype(_np.int64)
uint8 = _np.dtype(_np.uint8)
bool = _np.dtype(_np.bool_)
dtype = _np.dtype
strided, sparse_coo = "strided", "sparse_coo"     # layouts, as Tensor.layout gives them

inference_mode = no_grad
from dagrad.autograd.sparse import mm  # noqa: E402,F811  (sparse-aware matmul)
clip = clamp  # noqa: F405


def manual_seed(seed):
    """Seed dagrad's global generator (``rand``, ``randn``, dropout, init, shuffling)."""
    _manual_seed(seed)
    return Generator().manual_seed(seed)


def numel(x):
    return x.numel()


# ``out=`` (``torch.add(x, y, out=result)``) on the functions that take it in PyTorch; the
# ``torch.f(x, ...)`` forms of Tensor methods (``__getattr__`` below) take it too.
_OUT = """abs amax amin arange argmax argmin bmm cat ceil clamp clip concat concatenate cos
    cosh cumsum diag exp eye floor full histogram linspace log log10 log1p logsumexp matmul
    max maximum mean min minimum mm multinomial norm normal ones pow prod rand randint randn
    randperm round sigmoid sign sin sinh sort sqrt square stack std sum tanh topk tril triu var
    where zeros""".split()
globals().update({_name: _accepts_out(globals()[_name]) for _name in _OUT})


def allclose(a, b, rtol=1e-05, atol=1e-08, equal_nan=False):
    return a.allclose(b, rtol=rtol, atol=atol) if not equal_nan else _builtins.bool(
        _np.allclose(a.numpy(), _np.asarray(b), rtol=rtol, atol=atol, equal_nan=True))


def equal(a, b):
    """True when both tensors have the same shape and elements."""
    return a.shape == b.shape and _builtins.bool((a.numpy() == b.numpy()).all())


install_missing_modules()    # import torch.linalg: a module whose names say dagrad lacks them
_find = forward_to("torch", hints={
    "compile": "dagrad runs eagerly; call the model directly",
    "jit": "dagrad runs eagerly; call the model directly"})


def __getattr__(name):
    """A name of autograd's; else, as PyTorch defines most functions twice, ``torch.f(x, ...)``
    is the Tensor method ``x.f(...)`` (``torch.isnan``, ``torch.dot``, ``torch.eq``, ...); else
    ``NotInDagradError``."""
    try:
        return _find(name)
    except NotInDagradError:
        method = None if name.startswith("_") or name.endswith("_") else getattr(Tensor, name,
                                                                                   None)
        if not callable(method):
            raise

    def function(input, *args, **kwargs):
        return getattr(input, name)(*args, **kwargs)

    function.__name__ = function.__qualname__ = name
    function.__doc__ = f"``torch.{name}(input, ...)`` is ``input.{name}(...)``."
    return _accepts_out(function)
