"""Whole modules in files, the one way for every format: what is saved of a module, how a saved
module is rebuilt, and the check that a rebuilt model is a tree (or a DAG), never a cycle.

Saving keeps a module's tables (``_parameters``, ``_buffers``, ``_modules``) and its plain
attributes, never its hooks (code) nor what ``_after_load`` rebuilds. Loading creates the class
the file names, if ``allowlist`` allows it, without running its ``__init__`` (``new_module``),
and sets the saved attributes through ``restore_module``, which checks each as data from a
stranger. A file whose modules contain themselves (a module among its own descendants) is
refused: every walk over such a model (``state_dict``, ``train``, ``repr``) would never end.
"""
import sys
import weakref

from dagrad.autograd import Tensor

from ..module import Module
from ..parameter import Parameter
from .errors import SerializationError

SKIPPED = ("_owner", "_path_cache", "_forward_hooks", "_forward_pre_hooks")
# PyTorch's Module keeps these tables of hooks; in a file they must be empty (hooks are code)
TORCH_HOOK_TABLES = frozenset((
    "_backward_pre_hooks", "_backward_hooks", "_forward_hooks", "_forward_hooks_with_kwargs",
    "_forward_hooks_always_called", "_forward_pre_hooks", "_forward_pre_hooks_with_kwargs",
    "_state_dict_hooks", "_state_dict_pre_hooks", "_load_state_dict_pre_hooks",
    "_load_state_dict_post_hooks", "_is_full_backward_hook"))


# ------------------------------------------------------------------------------- saving
def saved_state(module, where, who):
    """The attributes of ``module`` to save: its tables and plain attributes, no hooks.
    ``where`` names it in errors (e.g. ``"['model']"``), ``who`` the saving function."""
    if module.__dict__.get("_forward_hooks") or module.__dict__.get("_forward_pre_hooks"):
        raise TypeError(f"{who}: the module at {where} has forward hooks, which are code; "
                        f"remove them or save its state_dict()")
    if any(type(p).__name__ == "UninitializedParameter"
           for p in module.__dict__.get("_parameters", {}).values()):
        raise TypeError(f"{who}: the module at {where} is a lazy layer that has not seen an "
                        f"input yet; call the model on a batch first, so its parameters exist")
    derived = getattr(type(module), "_derived_attributes", ())   # rebuilt by _after_load
    return {key: value for key, value in vars(module).items()
            if key not in SKIPPED and key not in derived}


def refuse_cycles(module, who):
    """Before saving: RuntimeError naming ``who`` and the path if ``module`` contains itself
    (a file written from it would hold a model no walk could finish)."""
    for _ in module._walk(who):
        pass


def global_name(obj, where, who):
    """``(module, qualname)`` by which a file names the class or function ``obj``; TypeError
    when that name would not find ``obj`` again (a lambda, a local class)."""
    module, name = getattr(obj, "__module__", None), getattr(obj, "__qualname__", "")
    found = sys.modules.get(module)
    for part in name.split("."):
        found = getattr(found, part, None)
    if found is not obj or "<" in name:
        raise TypeError(f"{who}: {where} is {obj!r}, which cannot be named by its module and "
                        f"name (a lambda or local definition); save data, not code")
    return module, name


# ------------------------------------------------------------------------------ loading
def _error(message):
    return SerializationError(f"the file {message}")


def new_module(cls):
    """An empty instance of Module class ``cls``: its tables exist, its ``__init__`` is not
    run (the attributes come from the file, through ``restore_module``)."""
    module = cls.__new__(cls)
    Module.__init__(module)
    return module


def restore_module(module, state):
    """Set the attributes of ``module`` from a pickled module's ``state`` (written by dagrad,
    or by PyTorch: its hook tables are dropped when empty, ``_non_persistent_buffers_set``
    becomes dagrad's ``_non_persistent``)."""
    if not isinstance(state, dict) or not all(type(k) is str for k in state):
        raise _error(f"gives a {type(module).__name__} module the state {state!r:.80}")
    d = module.__dict__
    for key, value in state.items():
        if key.startswith("__"):
            raise _error(f"gives a module the attribute {key!r}")
        if key in TORCH_HOOK_TABLES:
            if value:
                raise _error(f"gives a {type(module).__name__} module {key}; hooks are code, "
                             f"which is never loaded")
        elif key == "_non_persistent_buffers_set":
            d["_non_persistent"] = {name: True for name in _names(value, key)}
        elif key == "_non_persistent":
            d["_non_persistent"] = {name: True for name in _names(value, key)}
        elif key == "_parameters":
            d[key] = {name: _parameter(p, name) for name, p in _table(value, key).items()}
        elif key == "_buffers":
            d[key] = {name: _tensor_or_none(b, name) for name, b in _table(value, key).items()}
        elif key == "_modules":
            children = {name: _module_or_none(m, name) for name, m in _table(value, key).items()}
            for child in children.values():
                if child is not None:
                    child.__dict__["_owner"] = weakref.ref(module)
            d[key] = children
        elif key == "training":
            if type(value) is not bool:
                raise _error(f"gives a module training={value!r:.40}")
            d[key] = value
        else:
            d[key] = value
    after_load = getattr(type(module), "_after_load", None)    # dagrad's own code, if any
    if after_load is not None:
        after_load(module)


def _table(value, key):
    if not isinstance(value, dict) or not all(type(k) is str for k in value):
        raise _error(f"gives a module a {key} that is not a table of names")
    return value


def _names(value, key):
    if not isinstance(value, (set, list, tuple, dict)) or not all(type(k) is str for k in value):
        raise _error(f"gives a module a {key} that is not a set of names")
    return value


def _parameter(value, name):
    if value is None or isinstance(value, Parameter):
        return value
    if isinstance(value, Tensor):
        return Parameter(value, requires_grad=value.dtype.kind == "f")
    raise _error(f"gives a module the parameter {name!r} as a {type(value).__name__}")


def _tensor_or_none(value, name):
    if value is None or isinstance(value, Tensor):
        return value
    raise _error(f"gives a module the buffer {name!r} as a {type(value).__name__}")


def _module_or_none(value, name):
    if value is None or isinstance(value, Module):
        return value
    raise _error(f"gives a module the child {name!r} as a {type(value).__name__}")




def refuse_loaded_cycles(modules):
    """Raise ``SerializationError`` if a module in ``modules`` (every module one load built)
    is among its own descendants. Shared children (one layer under two names, a DAG) are
    allowed, as in PyTorch. One depth-first walk, O(modules + children)."""
    ON_PATH, DONE = 1, 2
    state = {}
    for root in modules:
        if id(root) in state:
            continue
        path = []                   # (name, module) from root down to the current module
        stack = [(None, root, 0)]
        while stack:
            name, m, depth = stack.pop()
            while len(path) > depth:
                state[id(path.pop()[1])] = DONE
            seen = state.get(id(m))
            if seen == ON_PATH:
                names = [n for n, _ in path[1:]] + [name]
                start = next(i for i, (_, a) in enumerate(path) if a is m)
                raise _error(
                    f"holds a {type(m).__name__} module that contains itself: "
                    f"'{'.'.join(names[start:])}' below it is that module again (a cycle); a "
                    f"model is a tree of modules, and every walk over this one (state_dict, "
                    f"train, repr) would never end")
            if seen == DONE:
                continue
            state[id(m)] = ON_PATH
            path.append((name, m))
            stack.extend((child_name, child, depth + 1)
                         for child_name, child in reversed(m.__dict__["_modules"].items())
                         if child is not None)
        for _, m in path:
            state[id(m)] = DONE
