"""A whole module as plain data, and back: what ``nn.save(model)`` / ``torch.save(model)`` write.

PyTorch pickles a whole model; loading a pickle runs code from the file. Here a module becomes
a tree of its class's dotted name, its attributes (numbers, strings, tuples, None), its
parameters, buffers and child modules; loading rebuilds it from that tree and only ever
instantiates ``Module`` classes defined in dagrad itself, without calling their ``__init__``.
A model of a class defined elsewhere (a user's ``class Net(nn.Module)``) is refused when
saving: save its ``state_dict()`` and load that into a new ``Net()``.
"""
import importlib
import weakref

from dagrad.autograd import Tensor

from .module import Module
from .parameter import Parameter

MARK = "__dagrad_module__"
_TABLES = ("_parameters", "_buffers", "_modules")
_SKIPPED = ("_owner", "_path_cache")        # rebuilt: parent links and path caches
_PLAIN = (type(None), bool, int, float, str)


def module_to_tree(module, where="<root>"):
    """``module`` as nested dicts of plain values and Tensors (``nn.save`` encodes those)."""
    cls = type(module)
    if not cls.__module__.startswith("dagrad."):
        raise TypeError(
            f"save: '{where}' is a {cls.__qualname__} defined in {cls.__module__}; whole "
            f"modules can be saved only for dagrad's own classes (loading never runs code "
            f"from a file, so it cannot rebuild a class it does not know). Save "
            f"model.state_dict() and load it into a new {cls.__qualname__}() instead.")
    if any(type(p).__name__ == "UninitializedParameter" for p in module._parameters.values()):
        raise TypeError(f"save: '{where}' is a lazy layer that has not seen an input yet; call "
                        f"the model on a batch first, so its parameters exist")
    if module._forward_hooks or module._forward_pre_hooks:
        raise TypeError(f"save: '{where}' has forward hooks, which are code; remove them or "
                        f"save the state_dict()")
    attrs = {}
    for key, value in vars(module).items():
        if key in _SKIPPED or key in ("_forward_hooks", "_forward_pre_hooks"):
            continue
        if key in _TABLES:
            attrs[key] = {name: _entry(v, f"{where}.{name}") for name, v in value.items()}
        else:
            attrs[key] = _plain(value, f"{where}.{key}")
    frozen = [name for name, p in module._parameters.items()
              if p is not None and not p.requires_grad]
    return {MARK: f"{cls.__module__}:{cls.__qualname__}", "attrs": attrs, "frozen": frozen}


def _entry(value, where):
    if isinstance(value, Module):
        return module_to_tree(value, where)
    if value is None or isinstance(value, Tensor):
        return value if value is None else value.detach()
    raise TypeError(f"save: '{where}' is a {type(value).__name__}, not a tensor or module")


def _plain(value, where):
    if isinstance(value, _PLAIN) or isinstance(value, Tensor):
        return value
    if isinstance(value, (tuple, list)):
        return type(value)(_plain(v, f"{where}.{i}") for i, v in enumerate(value))
    if isinstance(value, dict) and all(isinstance(k, str) for k in value):
        return {k: _plain(v, f"{where}.{k}") for k, v in value.items()}
    raise TypeError(f"save: attribute '{where}' is a {type(value).__name__}, which a saved "
                    f"module cannot hold (only numbers, strings, tuples, tensors and "
                    f"modules); save the state_dict() instead")


def is_module_tree(node):
    return isinstance(node, dict) and MARK in node


def tree_to_module(tree):
    """Rebuild the module ``module_to_tree`` described (a dagrad class, no ``__init__`` run)."""
    cls = _dagrad_module_class(tree[MARK])
    module = cls.__new__(cls)
    state = module.__dict__
    for key, value in tree["attrs"].items():
        if key == "_parameters":
            value = {n: None if p is None else Parameter(p, requires_grad=n not in tree["frozen"])
                     for n, p in value.items()}
        elif key == "_modules":
            value = {n: None if m is None else tree_to_module(m) for n, m in value.items()}
            for child in value.values():
                if child is not None:
                    child.__dict__["_owner"] = weakref.ref(module)
        state[key] = dict(value) if isinstance(value, dict) else value
    for key in ("_forward_hooks", "_forward_pre_hooks"):
        state[key] = {}
    return module


def _dagrad_module_class(name):
    if not isinstance(name, str) or ":" not in name:
        raise ValueError(f"load: {name!r} does not name a module class")
    module_name, qualname = name.split(":", 1)
    if not module_name.startswith("dagrad."):
        raise ValueError(f"load: refusing to build {qualname} from {module_name}: a saved "
                         f"module may only use dagrad's own classes")
    obj = importlib.import_module(module_name)
    for part in qualname.split("."):
        obj = getattr(obj, part)
    if not (isinstance(obj, type) and issubclass(obj, Module)):
        raise ValueError(f"load: {name} is not a Module class")
    return obj
