"""A whole module as plain data, and back: how ``nn.save(model, "model.npz")`` stores a model.

A module becomes a tree of its class's name (``module:qualname``), its attributes (numbers,
strings, tuples, None), its parameters, buffers and child modules: what ``modules.saved_state``
keeps, the same for every format. Loading rebuilds it with the same policy as a ``.pt`` file:
the class must be allowed (``allowlist.module_classes``: dagrad's own layers, the user's
``add_safe_globals``, every Module class of the program with ``weights_only=False``); nothing a
file names is ever imported, and no ``__init__`` runs (``modules.restore_module`` sets the
saved attributes).
"""
from dagrad.autograd import Tensor

from ..module import Module
from ..parameter import Parameter
from . import modules
from .errors import SerializationError

MARK = "__dagrad_module__"
_TABLES = ("_parameters", "_buffers", "_modules")
_PLAIN = (type(None), bool, int, float, str)


def module_to_tree(module, where="<root>"):
    """``module`` as nested dicts of plain values and Tensors (the ``.npz`` writer encodes
    those). TypeError for what a file cannot hold: hooks, unnamed classes, other objects."""
    module_name, qualname = modules.global_name(type(module), f"'{where}'", "nn.save")
    attrs = {}
    for key, value in modules.saved_state(module, f"'{where}'", "nn.save").items():
        if key in _TABLES:
            attrs[key] = {name: _entry(v, f"{where}.{name}") for name, v in value.items()}
        else:
            attrs[key] = _plain(value, f"{where}.{key}")
    frozen = [name for name, p in module._parameters.items()
              if p is not None and not p.requires_grad]
    return {MARK: f"{module_name}:{qualname}", "attrs": attrs, "frozen": frozen}


def _entry(value, where):
    if isinstance(value, Module):
        return module_to_tree(value, where)
    if value is None or isinstance(value, Tensor):
        return value if value is None else value.detach()
    raise TypeError(f"nn.save: '{where}' is a {type(value).__name__}, not a tensor or module")


def _plain(value, where):
    if isinstance(value, _PLAIN) or isinstance(value, Tensor):
        return value
    if isinstance(value, (tuple, list)):
        return type(value)(_plain(v, f"{where}.{i}") for i, v in enumerate(value))
    if isinstance(value, dict) and all(isinstance(k, str) for k in value):
        return {k: _plain(v, f"{where}.{k}") for k, v in value.items()}
    raise TypeError(f"nn.save: attribute '{where}' is a {type(value).__name__}, which a saved "
                    f"module cannot hold (only numbers, strings, tuples, tensors and "
                    f"modules); save the state_dict() instead")


def tree_to_module(tree, classes, refuse):
    """Rebuild the module ``module_to_tree`` described. ``classes`` is
    ``allowlist.module_classes(...)``; ``refuse(name)`` is the error for a class not in it."""
    name = tree.get(MARK)
    if not isinstance(name, str) or name.count(":") != 1:
        raise SerializationError(f"the file names {name!r:.80} where a module class belongs")
    cls = classes.get(name.replace(":", "."))
    if cls is None:
        raise refuse(name.replace(":", "."))
    attrs, frozen = tree.get("attrs"), tree.get("frozen", [])
    if not isinstance(attrs, dict) or not isinstance(frozen, list):
        raise SerializationError(f"the file gives a {cls.__name__} module the state "
                                 f"{attrs!r:.80}")
    state = dict(attrs)
    if isinstance(state.get("_parameters"), dict):
        state["_parameters"] = {
            key: Parameter(p, requires_grad=key not in frozen and p.dtype.kind == "f")
            if isinstance(p, Tensor) else p for key, p in state["_parameters"].items()}
    if isinstance(state.get("_modules"), dict):
        state["_modules"] = {key: tree_to_module(m, classes, refuse)
                             if isinstance(m, dict) and MARK in m else m
                             for key, m in state["_modules"].items()}
    module = modules.new_module(cls)
    modules.restore_module(module, state)
    return module
