"""Which classes and functions a file may name, and what each stands for: the one policy of
every format (``.pt``, and whole modules in ``.npz``).

A file names globals (``module`` and ``name``: a pickle's GLOBAL, a saved module's class);
here a name is only ever looked up in tables, never imported or found by attribute access on
a module the file names. The tables:

- **PyTorch's weights_only set** (``pt.torch_globals``): containers, tensor rebuilders,
  storages, dtypes, ``torch.Size``, ``torch.device``; each stands for a checked function or a
  plain container, never for PyTorch's own code.
- **dagrad's own module classes**, by their own path (``dagrad.nn.linear.Linear``) and by
  PyTorch's (``torch.nn.modules.linear.Linear``, see ``class_paths``), and the functions of
  ``dagrad.nn.functional`` (as values, e.g. an activation a layer holds). Only classes already
  defined are found: nothing is imported because a file names it. A module is built by
  ``modules.restore_module`` from its saved attributes, never by its ``__init__``.
- **what the user allowlisted** with ``add_safe_globals`` / ``safe_globals``, by
  ``module.qualname`` (or the name given with it), as PyTorch 2.6+ asks for a model of one's
  own class. Such classes are trusted as PyTorch trusts them: a pickle's BUILD calls their
  ``__setstate__``. Names in the modules ``sys``, ``os``, ``posix`` and ``nt`` are refused even
  then.
- with ``weights_only=False``, **every Module class defined in this process** (a program's own
  ``class Net(nn.Module)``), found among the subclasses, still built from its saved attributes.
"""
import sys

from ..module import Module
from .class_paths import torch_class_paths
from .errors import RefusedGlobalError

BLOCKED_MODULES = ("sys", "os", "posix", "nt")
_user = set()           # add_safe_globals: objects, or (object, "module.name") pairs


# --------------------------------------------------------------------- the user's allowlist
def add_safe_globals(safe_globals):
    """Trust these classes and functions when loading (``torch.serialization.add_safe_globals``):
    each an object (found by its ``__module__`` and ``__qualname__``) or an ``(object,
    "module.name")`` pair."""
    for item in safe_globals:
        _check_entry(item)
    _user.update(safe_globals)


def get_safe_globals():
    """The user's allowlist, as a list."""
    return list(_user)


def clear_safe_globals():
    """Empty the user's allowlist."""
    _user.clear()


class safe_globals:
    """``with safe_globals([Net]):`` trusts ``Net`` for the loads inside the block only."""

    def __init__(self, safe_globals):
        for item in safe_globals:
            _check_entry(item)
        self.safe_globals = list(safe_globals)

    def __enter__(self):
        self.added = [g for g in self.safe_globals if g not in _user]
        _user.update(self.added)
        return self

    def __exit__(self, *exc):
        _user.difference_update(self.added)


def _check_entry(item):
    if isinstance(item, tuple):
        if len(item) != 2 or not isinstance(item[1], str):
            raise ValueError(f"add_safe_globals: a pair is (object, 'module.name'), got "
                             f"{item!r:.80}")
    elif not hasattr(item, "__qualname__"):
        raise TypeError(f"add_safe_globals: {item!r:.80} is not a class or function; pass the "
                        f"class or function the file names")


def user_globals():
    """``'module.name' -> object`` for everything the user allowlisted."""
    table = {}
    for item in _user:
        if isinstance(item, tuple):
            table[item[1]] = item[0]
        else:
            table[f"{item.__module__}.{item.__qualname__}"] = item
    return table


# --------------------------------------------------------------------- dagrad's own names
def dagrad_modules():
    """``'module.qualname' -> class`` for every Module class defined in dagrad, under its own
    path and under PyTorch's path for it. Only classes already defined are found (nothing is
    imported because a file names it)."""
    import dagrad.nn.models  # noqa: F401  (the ready-made models, whose classes files name)
    table = {}
    stack = [Module]
    while stack:
        cls = stack.pop()
        stack.extend(cls.__subclasses__())
        if cls.__module__.startswith("dagrad."):
            table.setdefault(f"{cls.__module__}.{cls.__qualname__}", cls)
    table.update(torch_class_paths())
    return table


def process_modules():
    """Every Module class defined in this process (``weights_only=False``): a program's own
    ``class Net(nn.Module)``, found among the subclasses, never imported."""
    table, stack = {}, [Module]
    while stack:
        cls = stack.pop()
        stack.extend(cls.__subclasses__())
        table.setdefault(f"{cls.__module__}.{cls.__qualname__}", cls)
    return table


def dagrad_function(full_name):
    """A function of ``dagrad.nn.functional`` named by ``full_name`` (its own path, or
    ``torch.nn.functional.<name>``), or None. Such a function is a value only (a layer's
    activation); REDUCE never calls it."""
    functional = sys.modules.get("dagrad.nn.functional")
    if full_name.startswith("torch.nn.functional."):
        found = getattr(functional, full_name[len("torch.nn.functional."):], None)
    else:
        module, _, name = full_name.rpartition(".")
        if not module.startswith("dagrad.nn.functional"):
            return None
        found = getattr(sys.modules.get(module), name, None)
    is_function = type(found).__name__ == "function"
    if is_function and found.__module__.startswith("dagrad.nn.functional"):
        return found
    return None


def module_classes(weights_only=True):
    """``'module.qualname' -> class`` for every Module class a file may name: dagrad's own, the
    user's allowlisted ones and, with ``weights_only=False``, every one this process defines."""
    table = process_modules() if not weights_only else {}
    table.update(dagrad_modules())
    table.update((name, obj) for name, obj in user_globals().items()
                 if isinstance(obj, type) and issubclass(obj, Module))
    return table


def is_blocked(full_name):
    """Whether ``full_name`` lies in a module no file may name, allowlisted or not."""
    return full_name.split(".")[0] in BLOCKED_MODULES


def refusal(who, where, full_name):
    """The error for a file naming ``full_name``, which the allowlist does not hold."""
    module, _, name = full_name.rpartition(".")
    if is_blocked(full_name):
        return RefusedGlobalError(f"{who}: {where!r} names {full_name}, from the module "
                                  f"{module}, which is never allowed")
    return RefusedGlobalError(
        f"{who}: {where!r} names {full_name}, which is not an allowed global: a file may use "
        f"only tensors, containers, numbers and dagrad's own modules (PyTorch's weights_only "
        f"set), and loading never imports or calls anything else. If you trust the file and "
        f"{name} is a class of yours, allow it with "
        f"torch.serialization.add_safe_globals([{name}]) or "
        f"`with torch.serialization.safe_globals([{name}]):`")
