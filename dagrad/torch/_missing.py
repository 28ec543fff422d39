"""The one error for names PyTorch has and dagrad does not, and the ``__getattr__`` that raises it.

Every module of ``dagrad.torch`` ends with ``__getattr__ = forward_to(...)``: a name not
defined in the facade is looked up in the dagrad module it mirrors (``dagrad.nn`` for
``torch.nn``, ...), and a name found nowhere raises ``NotInDagradError`` naming it.
"""
import importlib


class NotInDagradError(NotImplementedError, AttributeError):
    """A PyTorch name that dagrad does not have (CUDA, compilation, ...).

    It is a NotImplementedError, with a message that names the missing attribute; it is also
    an AttributeError so that ``hasattr(torch, "compile")`` is False and
    ``getattr(torch, name, default)`` returns the default, as Python code expects of a
    missing attribute."""


def not_in_dagrad(qualified_name, hint=""):
    return NotInDagradError(
        f"{qualified_name}: dagrad does not have it. dagrad.torch covers the CPU part of "
        f"PyTorch that dagrad implements (tensors, autograd, nn, optim, utils.data)"
        + (f"; {hint}" if hint else "") + ".")


def forward_to(facade_name, *sources, hints=None):
    """A module ``__getattr__`` that finds ``name`` in the dagrad modules ``sources`` (dotted
    names, imported on first use) or raises ``NotInDagradError`` for ``facade_name.name``."""
    hints = hints or {}

    def __getattr__(name):
        if name.startswith("__"):   # Python's own protocol probes (__path__, __wrapped__, ...)
            raise AttributeError(f"module {facade_name!r} has no attribute {name!r}")
        for source in sources:
            module = importlib.import_module(source)
            if hasattr(module, name):
                return getattr(module, name)
        raise not_in_dagrad(f"{facade_name}.{name}", hints.get(name, ""))

    return __getattr__
