"""dagrad: reverse-mode automatic differentiation over NumPy, PyTorch-shaped neural-network
modules and optimizers, and pictures of the compute graph with the gradient on every edge.

    from dagrad import autograd as ag, nn, optim, viz
    from dagrad import torch      # PyTorch's namespace over the above, for CPU PyTorch code

The subpackages are imported on first use, so ``import dagrad`` costs only this file.
"""
import importlib

__version__ = "0.1.0"
__all__ = ["autograd", "nn", "onnx", "optim", "viz", "torch", "d2l", "exercises"]


def __getattr__(name):
    if name in __all__:
        return importlib.import_module(f"{__name__}.{name}")
    raise AttributeError(f"module 'dagrad' has no attribute '{name}'")


def __dir__():
    return sorted(list(globals()) + __all__)
