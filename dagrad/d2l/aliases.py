"""The book's framework-neutral names (``d2l.reshape``, ``d2l.tensor``, ``d2l.reduce_sum``, ...):
the book writes one text for several frameworks with these, and for PyTorch each is a torch
function or a one-line call of the tensor's method."""
from dagrad import torch

ones_like, ones = torch.ones_like, torch.ones
zeros_like, zeros = torch.zeros_like, torch.zeros
tensor, arange, meshgrid, linspace, eye = (torch.tensor, torch.arange, torch.meshgrid,
                                           torch.linspace, torch.eye)
sin, sinh, cos, cosh, tanh = torch.sin, torch.sinh, torch.cos, torch.cosh, torch.tanh
exp, log, abs, sigmoid = torch.exp, torch.log, torch.abs, torch.sigmoid
normal, rand, randn = torch.normal, torch.rand, torch.randn
matmul, batch_matmul = torch.matmul, torch.bmm
concat, stack = torch.cat, torch.stack
int32, int64, float32 = torch.int32, torch.int64, torch.float32


def numpy(x, *args, **kwargs):
    """``x`` as a NumPy array, detached from the graph."""
    return x.detach().numpy(*args, **kwargs)


def size(x, *args, **kwargs):
    """The number of elements of ``x``."""
    return x.numel(*args, **kwargs)


def reshape(x, *args, **kwargs):
    return x.reshape(*args, **kwargs)


def to(x, *args, **kwargs):
    return x.to(*args, **kwargs)


def reduce_sum(x, *args, **kwargs):
    return x.sum(*args, **kwargs)


def reduce_mean(x, *args, **kwargs):
    return x.mean(*args, **kwargs)


def argmax(x, *args, **kwargs):
    return x.argmax(*args, **kwargs)


def astype(x, *args, **kwargs):
    """``x`` converted to a dtype (``x.type(dtype)``)."""
    return x.type(*args, **kwargs)


def transpose(x, *args, **kwargs):
    """The transpose of a matrix (``x.t()``)."""
    return x.t(*args, **kwargs)


def expand_dims(x, *args, **kwargs):
    return x.unsqueeze(*args, **kwargs)


def swapaxes(x, *args, **kwargs):
    return x.swapaxes(*args, **kwargs)


def repeat(x, *args, **kwargs):
    return x.repeat(*args, **kwargs)


__all__ = ["ones_like", "ones", "zeros_like", "zeros", "tensor", "arange", "meshgrid",
           "linspace", "eye", "sin", "sinh", "cos", "cosh", "tanh", "exp", "log", "abs",
           "sigmoid", "normal", "rand", "randn", "matmul", "batch_matmul", "concat", "stack",
           "int32", "int64", "float32", "numpy", "size", "reshape", "to", "reduce_sum",
           "reduce_mean", "argmax", "astype", "transpose", "expand_dims", "swapaxes", "repeat"]
