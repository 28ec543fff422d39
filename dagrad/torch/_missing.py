"""The one error for names PyTorch has and dagrad does not, and the ``__getattr__`` that raises it.

Every module of ``dagrad.torch`` ends with ``__getattr__ = forward_to(...)``: a name not
defined in the facade is looked up in the dagrad module it mirrors (``dagrad.nn`` for
``torch.nn``, ...); a name found nowhere raises ``NotInDagradError`` naming it when PyTorch's
module has it (``pytorch_names``), a plain AttributeError when it does not (a typo). A submodule
PyTorch has and dagrad lacks imports as a module whose every name raises NotInDagradError
(``_MissingModules``). ``Tensor`` does the same for its attributes (``autograd/missing.py``,
where the error class lives).
"""
import importlib
import importlib.abc
import importlib.machinery
import importlib.util
import sys
import types

from dagrad.autograd.missing import NotInDagradError, not_in_dagrad  # noqa: F401

from .pytorch_names import MODULE_NAMES, SUBMODULES


def forward_to(facade_name, *sources, hints=None):
    """A module ``__getattr__`` that finds ``name`` in the dagrad modules ``sources`` (dotted
    names, imported on first use) or raises ``NotInDagradError`` for ``facade_name.name``."""
    hints = hints or {}
    pytorch_has = MODULE_NAMES.get(facade_name)
    if pytorch_has is not None:
        pytorch_has = pytorch_has | SUBMODULES.get(facade_name, frozenset())

    def __getattr__(name):
        if name.startswith("__"):   # Python's own protocol probes (__path__, __wrapped__, ...)
            raise AttributeError(f"module {facade_name!r} has no attribute {name!r}")
        for source in sources:
            module = importlib.import_module(source)
            if hasattr(module, name):
                return getattr(module, name)
        if pytorch_has is not None and name not in pytorch_has and name not in hints:
            raise AttributeError(f"module {facade_name!r} has no attribute {name!r} (PyTorch's "
                                 f"has none either)")
        raise not_in_dagrad(f"{facade_name}.{name}", hints.get(name, ""))

    return __getattr__


def facade_module(fullname, doc, *sources, attributes=None):
    """A module of ``dagrad.torch`` made in code, not a file (``torch.backends.cudnn``,
    ``torch.nn.modules.linear``): registered in ``sys.modules`` with a module spec, so
    ``import torch.backends.cudnn as cudnn`` and ``importlib.util.find_spec`` treat it as any
    other module; names it lacks are looked up in ``sources`` (``forward_to``)."""
    module = types.ModuleType(fullname, doc)
    module.__spec__ = importlib.machinery.ModuleSpec(fullname, None, origin="dagrad.torch")
    module.__dict__.update(attributes or {})
    module.__getattr__ = forward_to("torch" + fullname[len("dagrad.torch"):], *sources)
    sys.modules[fullname] = module
    return module


class _MissingModules(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    """Finds what no other finder found under ``dagrad.torch``: a submodule PyTorch has and
    dagrad lacks (``import torch.distributions``, ``from torch import linalg``) becomes a
    module whose every attribute raises ``NotInDagradError`` naming it, so a program fails
    where it uses the module, with that message. Other names stay ModuleNotFoundError."""

    def find_spec(self, fullname, path=None, target=None):
        if not fullname.startswith("dagrad.torch."):
            return None
        package, _, name = fullname.rpartition(".")
        if name not in SUBMODULES.get("torch" + package[len("dagrad.torch"):], ()):
            return None
        return importlib.util.spec_from_loader(fullname, self)

    def create_module(self, spec):
        return None

    def exec_module(self, module):
        module.__getattr__ = forward_to("torch" + module.__name__[len("dagrad.torch"):])


def install_missing_modules():
    """Put the finder of missing PyTorch submodules last on ``sys.meta_path`` (once)."""
    if not any(isinstance(f, _MissingModules) for f in sys.meta_path):
        sys.meta_path.append(_MissingModules())
