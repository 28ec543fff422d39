"""``Module``: the base class of every layer and model.

A module owns parameters (``Parameter``), buffers (Tensors that are state but not learned, such
as batch norm's running statistics) and child modules. All three are registered simply by
assigning them to attributes, and are kept in insertion order::

    class TwoLayer(Module):
        def __init__(self):
            super().__init__()
            self.hidden = Linear(4, 8)      # a child module: its parameters become ours
            self.out = Linear(8, 1)

        def forward(self, x):
            return self.out(self.hidden(x).relu())

A module only defines ``forward`` as a composition of autograd operations; the engine derives
the backward pass. Calling the module (``model(x)``) runs ``forward`` and records, on every
graph node created inside it, the dotted path of the module that created it (e.g.
``hidden`` or ``encoder.layers.0.self_attn``), which ``viz`` uses to group nodes.

Paths are relative to the outermost module being called: that module's own path is ``None``
(nodes it creates directly, like nodes created outside any module, carry ``module=None``), its
children are ``"hidden"``, ``"out"``, their children ``"hidden.0"`` and so on. A module called
from a module it is not registered under gets its class name as the last path component; a
registered module called while no module runs (``model.hidden(x)`` from a model method that is
not ``forward``) gets its registered path under its outermost owner.
"""
import functools
import inspect
import threading
import weakref
from collections import OrderedDict, namedtuple

import numpy as np

from dagrad.autograd import Tensor, no_grad
from dagrad.autograd.device import check_device, parse_to_args
from dagrad.autograd.anomaly import hook_name, is_finite
from dagrad.autograd.grad_mode import STATE
from dagrad.autograd.versions import mark_written

from .parameter import Parameter

IncompatibleKeys = namedtuple("IncompatibleKeys", ["missing_keys", "unexpected_keys"])


# Bumped whenever a child module is added or removed anywhere, so cached path tables are
# rebuilt lazily after the module tree changes (normally only while models are built).
_tree_version = 0


def _tree_changed():
    global _tree_version
    _tree_version += 1


def _path_in(parent, child, parent_path):
    """The dotted path of ``child`` when called while ``parent`` (at ``parent_path``) runs."""
    if child is parent:
        return parent_path
    relative = _relative_name(parent, child)
    if relative is None:
        relative = type(child).__name__
    return relative if parent_path is None else parent_path + "." + relative


def _owner_path(module):
    """The path of a module called while no module runs (e.g. ``model.encoder(x)`` inside a
    model method other than forward): its place under the outermost module that registered
    it, so its nodes are named as when the model itself is called. None for a true root.
    The chain of owners is followed iteratively and stops at a module seen before (a cycle)."""
    chain, seen, m = [], {id(module)}, module
    while True:
        ref = m.__dict__.get("_owner")
        owner = ref() if ref is not None else None
        if owner is None or id(owner) in seen or _relative_name(owner, m) is None:
            break                       # unowned, a cycle, or a deep copy
        chain.append((owner, m))
        seen.add(id(owner))
        m = owner
    path = None
    for owner, child in reversed(chain):
        path = _path_in(owner, child, path)
    return path


def _relative_name(parent, child):
    """The dotted name of descendant ``child`` below ``parent``, or None if it is not one."""
    cache = parent.__dict__.get("_path_cache")
    # keyed by the tree version and by the parent itself (a deep copy carries the cache along)
    if cache is None or cache[0] != _tree_version or cache[1] != id(parent):
        table = {}
        for name, m in parent.named_modules():
            if name:
                table.setdefault(id(m), name)
        cache = (_tree_version, id(parent), table)
        object.__setattr__(parent, "_path_cache", cache)
    return cache[2].get(id(child))


def _registered(module, name):
    """``module``'s parameter, buffer or child module called ``name``, or _MISSING."""
    d = module.__dict__
    for store in ("_parameters", "_buffers", "_modules"):
        items = d.get(store)
        if items is not None and name in items:
            return items[name]
    return _MISSING


class _Registered:
    """What ``_expose`` puts on a Module class: ``module.name`` read from the module's
    parameters, buffers or child modules directly.

    ``Module.__getattr__`` finds them too, but only after the ordinary lookup has failed, and
    on CPython 3.11 failing builds and discards an AttributeError: 1.5 µs for a Linear's
    ``self.weight`` and ``self.bias`` together, where a parameter's own cost is a dictionary
    read. A non-data descriptor (no ``__set__``), so an instance's plain attribute of the same
    name still comes first; where the name is not registered on this instance it raises
    AttributeError, and Python asks ``__getattr__``, which gives the usual error."""
    __slots__ = ("name",)

    def __init__(self, name):
        self.name = name

    def __get__(self, module, cls=None):
        if module is not None:
            found = _registered(module, self.name)
            if found is not _MISSING:
                return found
        raise AttributeError(self.name)


def _expose(cls, name):
    """Let instances of ``cls`` find registered ``name`` through a ``_Registered``, unless a
    class in its MRO already defines the name (then that attribute wins, as in PyTorch)."""
    if not any(name in vars(k) for k in cls.__mro__):
        setattr(cls, name, _Registered(name))


def _run_module_hook(kind, hook, *args):
    """Call a user's module hook; under ``detect_anomaly`` a NaN or inf it makes (by an
    operation inside it, or in the value it returns) is reported as the hook's."""
    if not STATE.anomaly:
        return hook(*args)
    label = f"{kind} '{hook_name(hook)}'"
    previous, STATE.hook = STATE.hook, label
    try:
        result = hook(*args)
    finally:
        STATE.hook = previous
    if result is not None and not is_finite(result):
        raise RuntimeError(f"detect_anomaly: the {label} of module '{STATE.frame.path}' returned "
                           f"NaN or inf; check what the hook computes.")
    return result


class _Handle:
    """Returned by ``register_forward_hook`` and friends; ``remove()`` unregisters the hook."""

    def __init__(self, hooks, key):
        self._hooks, self._key = hooks, key

    def remove(self):
        self._hooks.pop(self._key, None)


def factory_arguments(init):
    """``init`` taking PyTorch's factory arguments ``device`` and ``dtype`` as PyTorch's layer
    of that name does: by keyword (``nn.Linear(2, 3, device="cpu")``) or by position, where
    PyTorch puts them (``super().__init__(n_in, n_out, bias, device, dtype)`` in a subclass:
    dagrad's ``dtype`` parameter stands where PyTorch has ``device``, ``dtype`` after it).
    ``device`` must name the CPU. Layers without a ``dtype`` parameter (no parameters to
    create) are returned as they are, as PyTorch's take neither argument."""
    parameters = list(inspect.signature(init).parameters)[1:]
    if "dtype" not in parameters or "device" in parameters:
        return init
    position = parameters.index("dtype")

    @functools.wraps(init)
    def __init__(self, *args, device=None, **kwargs):
        if len(args) > position:        # PyTorch's order: ..., device, dtype
            device, rest = args[position], args[position + 1:]
            if len(rest) > 1:
                raise TypeError(f"{type(self).__name__}() takes at most {position + 2} "
                                f"positional arguments ({len(args)} given)")
            args = args[:position] + rest
        check_device(device, f"{type(self).__name__}(device=...)")
        init(self, *args, **kwargs)

    return __init__


class Module:
    """Base class for all layers and models. Subclasses call ``super().__init__()`` first,
    assign parameters, buffers and submodules as attributes, and define ``forward``."""

    training = True

    def __init_subclass__(cls, **kwargs):
        """dagrad's layers that take ``dtype`` also take PyTorch's ``device`` (see
        ``factory_arguments``); a program's own subclasses are left as written."""
        super().__init_subclass__(**kwargs)
        if cls.__module__.startswith("dagrad.") and "__init__" in vars(cls):
            cls.__init__ = factory_arguments(cls.__init__)

    def __init__(self):
        d = self.__dict__
        d["training"] = True
        d["_parameters"] = {}
        d["_buffers"] = {}
        d["_non_persistent"] = {}
        d["_modules"] = {}
        d["_forward_pre_hooks"] = {}
        d["_forward_hooks"] = {}

    # ----------------------------------------------------------------------- forward
    def forward(self, *args, **kwargs):
        raise NotImplementedError(f"{type(self).__name__} does not define forward(); every "
                                  f"Module subclass must implement it")

    def __call__(self, *args, **kwargs):
        """Run ``forward`` (with hooks), recording this module's path on the new graph nodes."""
        frame = STATE.frame
        parent, previous = frame.module, frame.path
        frame.module = self
        frame.path = _owner_path(self) if parent is None else _path_in(parent, self, previous)
        try:
            if self._forward_pre_hooks:
                for hook in list(self._forward_pre_hooks.values()):
                    result = _run_module_hook("forward pre-hook", hook, self, args)
                    if result is not None:
                        args = result if isinstance(result, tuple) else (result,)
            out = self.forward(*args, **kwargs)
            if self._forward_hooks:
                for hook in list(self._forward_hooks.values()):
                    result = _run_module_hook("forward hook", hook, self, args, out)
                    if result is not None:
                        out = result
            return out
        finally:
            frame.module, frame.path = parent, previous

    def register_forward_pre_hook(self, hook):
        """``hook(module, args)`` runs before ``forward``; it may return new args."""
        return self._add_hook(self._forward_pre_hooks, hook)

    def register_forward_hook(self, hook):
        """``hook(module, args, output)`` runs after ``forward``; it may return a new output."""
        return self._add_hook(self._forward_hooks, hook)

    @staticmethod
    def _add_hook(hooks, hook):
        key = max(hooks, default=-1) + 1
        hooks[key] = hook
        return _Handle(hooks, key)

    # ----------------------------------------------------------------- registration
    def __setattr__(self, name, value):
        d = self.__dict__
        params, modules = d.get("_parameters"), d.get("_modules")
        if isinstance(value, (Parameter, Module)) and params is None:
            raise AttributeError(f"cannot assign {type(value).__name__} '{name}' before "
                                 f"Module.__init__() is called: call super().__init__() first "
                                 f"in {type(self).__name__}.__init__")
        if isinstance(value, Parameter):
            self.register_parameter(name, value)
        elif params is not None and name in params:
            if value is not None:
                raise TypeError(f"cannot assign {type(value).__name__} as parameter '{name}' of "
                                f"{type(self).__name__} (nn.Parameter or None expected); to "
                                f"change its values use `with ag.no_grad(): "
                                f"module.{name}.copy_(value)`")
            params[name] = None
        elif isinstance(value, Module):
            self.add_module(name, value)
        elif modules is not None and name in modules:
            if value is not None:
                raise TypeError(f"cannot assign {type(value).__name__} as child module "
                                f"'{name}' of {type(self).__name__} (Module or None expected)")
            modules[name] = None
            _tree_changed()
        elif name in d.get("_buffers", ()):
            if value is not None and not isinstance(value, Tensor):
                raise TypeError(f"cannot assign {type(value).__name__} as buffer '{name}' of "
                                f"{type(self).__name__} (Tensor or None expected)")
            d["_buffers"][name] = value
        else:
            object.__setattr__(self, name, value)

    def __getattr__(self, name):
        # Only called when normal lookup fails: parameters, buffers and modules live in dicts.
        found = _registered(self, name)
        if found is _MISSING:
            raise AttributeError(f"'{type(self).__name__}' object has no attribute '{name}'")
        return found

    def __delattr__(self, name):
        if name in self._modules:
            _tree_changed()
        if not self._forget(name):
            object.__delattr__(self, name)

    def _forget(self, name):
        """Remove ``name`` from every registry and the instance dict; True if it was there."""
        found = False
        for store in ("_parameters", "_buffers", "_modules"):
            if self.__dict__[store].pop(name, _MISSING) is not _MISSING:
                found = True
        self._non_persistent.pop(name, None)
        if name in self.__dict__:
            del self.__dict__[name]
            found = True
        return found

    def register_parameter(self, name, param):
        """Register ``param`` (a Parameter or None) under ``name``."""
        self._check_name(name, "parameter")
        if param is not None and not isinstance(param, Parameter):
            raise TypeError(f"register_parameter: '{name}' must be an nn.Parameter or None, got "
                            f"{type(param).__name__}; wrap it: nn.Parameter(tensor)")
        self._forget(name)
        self._parameters[name] = param
        _expose(type(self), name)
        if param is not None and param.name is None:
            param.name = name       # pictures label it "weight" inside its module's box

    def register_buffer(self, name, tensor, persistent=True):
        """Register ``tensor`` (a Tensor or None) as a buffer: state that is saved in
        ``state_dict`` (unless ``persistent=False``) but is not a parameter."""
        self._check_name(name, "buffer")
        if tensor is not None and not isinstance(tensor, Tensor):
            tensor = Tensor(np.asarray(tensor))
        self._forget(name)
        self._buffers[name] = tensor
        _expose(type(self), name)
        if not persistent:
            self._non_persistent[name] = True

    def add_module(self, name, module):
        """Register ``module`` (a Module or None) as a child called ``name``."""
        self._check_name(name, "module")
        if module is not None and not isinstance(module, Module):
            raise TypeError(f"add_module: '{name}' must be a Module or None, got "
                            f"{type(module).__name__}")
        self._forget(name)
        self._modules[name] = module
        _expose(type(self), name)
        if module is not None:
            module.__dict__["_owner"] = weakref.ref(self)
        _tree_changed()

    register_module = add_module

    def _check_name(self, name, kind):
        if "_parameters" not in self.__dict__:
            raise AttributeError(f"cannot register a {kind} before Module.__init__() is called")
        if not isinstance(name, str) or not name or "." in name:
            raise KeyError(f"{kind} name must be a non-empty string without '.', got {name!r}")

    # --------------------------------------------------------------------- traversal
    def named_modules(self, memo=None, prefix="", remove_duplicate=True):
        """(path, module) for this module and every descendant, depth first, each once.
        With ``remove_duplicate=False`` a module shared by two parents comes once per path,
        and a module that contains itself raises (see ``_walk``)."""
        return self._walk(None if remove_duplicate else "named_modules", prefix,
                          remove_duplicate, memo)

    def _walk(self, who, prefix="", remove_duplicate=True, memo=None, children=None,
              post_order=False):
        """(path, module) for this module and its descendants, depth first, children in
        registration order (``children(m)`` gives a module's (name, child) pairs; all of its
        children by default); parents before children, or after them with ``post_order``.

        A module met again below itself (a cycle: ``m.add_module("me", m)``) is skipped when
        ``who`` is None, as PyTorch's ``named_modules`` skips what its memo has seen; any other
        walk would never end (PyTorch recurses until RecursionError), so it raises a
        RuntimeError naming ``who`` and both paths of the module. O(modules + children),
        iterative.

        Fast path: a walk that yields each module once in pre-order needs no list of
        ancestors, since a module met again is skipped whether it is shared or an ancestor;
        only when one was met again does a second walk tell the two apart (for ``who``).
        Keeping the ancestors on every walk made ``parameters()`` and ``named_modules()`` of a
        68-module GPT 1.3-1.6x as slow; with this path ``train()`` costs 1.01 M instructions
        (callgrind), against 1.00 M before any cycle check."""
        if remove_duplicate and children is None and not post_order:
            met_again = yield from _walk_once(self, prefix, memo)
            if met_again and who is not None:
                for _ in _walk_paths(self, who, prefix, True, set(), None, False):
                    pass
            return
        yield from _walk_paths(self, who, prefix, remove_duplicate, memo, children, post_order)

    def modules(self):
        for _, m in self.named_modules():
            yield m

    def named_children(self):
        """(name, module) for the direct children, in registration order."""
        seen = set()
        for name, m in self._modules.items():
            if m is not None and id(m) not in seen:
                seen.add(id(m))
                yield name, m

    def children(self):
        for _, m in self.named_children():
            yield m

    def _named_members(self, store, prefix, recurse, remove_duplicate=True, who=None):
        seen = set()
        modules = (self._walk(who if not remove_duplicate else None, prefix, remove_duplicate)
                   if recurse else [(prefix, self)])
        for path, m in modules:
            for name, value in m.__dict__[store].items():
                if value is None or (remove_duplicate and id(value) in seen):
                    continue
                seen.add(id(value))
                yield (path + "." + name if path else name), value

    def named_parameters(self, prefix="", recurse=True, remove_duplicate=True):
        """(dotted name, Parameter) pairs: own parameters first, then each child's, in
        registration order; a parameter shared by two modules is listed once."""
        return self._named_members("_parameters", prefix, recurse, remove_duplicate,
                                   "named_parameters")

    def parameters(self, recurse=True):
        """All parameters (see ``named_parameters``); pass to an optimizer."""
        for _, p in self.named_parameters(recurse=recurse):
            yield p

    def named_buffers(self, prefix="", recurse=True, remove_duplicate=True):
        return self._named_members("_buffers", prefix, recurse, remove_duplicate,
                                   "named_buffers")

    def buffers(self, recurse=True):
        for _, b in self.named_buffers(recurse=recurse):
            yield b

    def get_submodule(self, target):
        """The descendant at dotted path ``target`` ("" is this module)."""
        m = self
        for part in target.split(".") if target else []:
            if part not in m._modules or m._modules[part] is None:
                raise AttributeError(f"{type(m).__name__} has no submodule '{part}' (looking "
                                     f"up '{target}')")
            m = m._modules[part]
        return m

    # ----------------------------------------------------------------- modes and state
    def train(self, mode=True):
        """Set training mode (``mode=True``) or evaluation mode on this module and all
        descendants; layers such as Dropout and BatchNorm behave differently in each."""
        if not isinstance(mode, bool):
            raise ValueError(f"train(mode): mode must be True or False, got {mode!r}")
        for _, m in list(self._walk("train" if mode else "eval")):    # all, or none on error
            m.training = mode
        return self

    def eval(self):
        """Evaluation mode: the same as ``train(False)``."""
        return self.train(False)

    def requires_grad_(self, requires_grad=True):
        """Turn gradient tracking on or off for every parameter (e.g. to freeze a layer)."""
        for p in self.parameters():
            p.requires_grad_(requires_grad)
        return self

    def zero_grad(self, set_to_none=True):
        """Reset every parameter's ``.grad``: to None (default) or to zeros in place."""
        for p in self.parameters():
            if p.grad is None:
                continue
            if set_to_none:
                p.grad = None
            else:
                p.grad = Tensor(np.zeros_like(p._data))

    def apply(self, fn):
        """Call ``fn(m)`` on every descendant (children first) and then on this module, e.g.
        for custom initialisation: ``model.apply(init_weights)``. Returns self."""
        for _, m in list(self._walk("apply", remove_duplicate=False,
                                    children=Module.named_children, post_order=True)):
            fn(m)
        return self

    def to(self, *args, **kwargs):
        """Cast floating-point parameters and buffers to a dtype (``to(ag.float64)``,
        ``to(dtype=...)``, ``to(device, dtype)``), as PyTorch's ``Module.to``. The device must be
        the CPU (``"cpu"``, ``ag.device("cpu")``); a GPU raises a RuntimeError saying dagrad
        runs on the CPU. Integer buffers (e.g. ``num_batches_tracked``) keep their dtype.
        Returns self."""
        dtype, _ = parse_to_args(args, kwargs, "Module.to")
        if dtype is None:
            return self
        dtype = np.dtype(dtype)
        if not np.issubdtype(dtype, np.floating):
            raise TypeError(f"to(): only floating-point dtypes are supported for a module's "
                            f"parameters, got {dtype}")
        for _, m in list(self._walk("to")):           # all, or none on error
            for t in list(m._parameters.values()) + list(m._buffers.values()):
                if t is not None and np.issubdtype(t.dtype, np.floating) and t.dtype != dtype:
                    mark_written(t)       # a graph that saved the old values can't backward
                    t._data = t._data.astype(dtype)
                    if t.grad is not None:
                        t.grad._data = t.grad._data.astype(dtype)
        return self

    def cpu(self):
        """This module (its parameters are on the CPU already)."""
        return self

    def cuda(self, device=None):
        """Raises: dagrad has no GPU (the error says what to do instead)."""
        return self.to("cuda" if device is None else device if isinstance(device, str)
                       else f"cuda:{device}")

    def float(self):
        """Cast floating-point parameters and buffers to float32."""
        return self.to(np.float32)

    def double(self):
        """Cast floating-point parameters and buffers to float64 (e.g. for gradcheck)."""
        return self.to(np.float64)

    def half(self):
        return self.to(np.float16)

    # ------------------------------------------------------------------- state dicts
    def state_dict(self, destination=None, prefix="", keep_vars=False):
        """An ordered dict of every parameter and persistent buffer by dotted name, as in
        PyTorch (``"0.weight"``, ``"bn.running_mean"``, ...). Values are detached Tensors
        sharing memory with the module (the Parameters themselves with ``keep_vars=True``)."""
        out = OrderedDict() if destination is None else destination
        for path, m in self._walk("state_dict", prefix.rstrip("."), remove_duplicate=False):
            base = path + "." if path else ""
            for name, p in m._parameters.items():
                if p is not None:
                    out[base + name] = p if keep_vars else p.detach()
            for name, b in m._buffers.items():
                if b is not None and name not in m._non_persistent:
                    out[base + name] = b if keep_vars else b.detach()
        return out

    def _take_sizes_from(self, prefix, state_dict):
        """Before ``load_state_dict``: a module whose sizes are not known yet takes them from
        its entries (names starting with ``prefix``). Nothing to do here; ``LazyModule``
        overrides it."""

    def load_state_dict(self, state_dict, strict=True):
        """Copy values from ``state_dict`` (name -> Tensor, ndarray or anything NumPy can
        convert, e.g. a PyTorch state_dict with ``.numpy()`` values) into the parameters and
        buffers, in place.

        Raises RuntimeError naming every mis-shaped key, and with ``strict=True`` also every
        missing and unexpected key; nothing is modified when it raises. Returns
        ``(missing_keys, unexpected_keys)``.
        """
        if not hasattr(state_dict, "items"):
            raise TypeError(f"load_state_dict: expected a dict of name -> array, got "
                            f"{type(state_dict).__name__}")
        for path, module in list(self._walk("load_state_dict")):
            module._take_sizes_from(path + "." if path else "", state_dict)
        own = self.state_dict(keep_vars=True)
        missing = [k for k in own if k not in state_dict]
        unexpected = [k for k in state_dict if k not in own]
        mismatched, updates = [], []
        for key, target in own.items():
            if key not in state_dict:
                continue
            value = _checked_state_array(state_dict[key], key)
            if value.shape != target.shape:
                mismatched.append(f"size mismatch for {key}: copying a param with shape "
                                  f"{value.shape} from checkpoint, the shape in current model "
                                  f"is {tuple(target.shape)}.")
            else:
                updates.append((target, value))
        if mismatched or (strict and (missing or unexpected)):
            lines = []
            if missing:
                lines.append("Missing key(s) in state_dict: " + ", ".join(map(repr, missing)))
            if unexpected:
                lines.append("Unexpected key(s) in state_dict: "
                             + ", ".join(map(repr, unexpected)))
            lines += mismatched
            raise RuntimeError(f"Error(s) in loading state_dict for {type(self).__name__}:\n\t"
                               + "\n\t".join(lines))
        with no_grad():
            for target, value in updates:
                target.copy_(value)
        return IncompatibleKeys(missing, unexpected)

    # --------------------------------------------------------------------------- repr
    def extra_repr(self):
        """The text inside this module's parentheses in ``repr`` (its hyper-parameters)."""
        return ""

    def __repr__(self):
        if not _REPR.active:                # the outermost repr: the tree must end
            for _ in self._walk("repr"):
                pass
        _REPR.active += 1
        try:
            return self._repr_tree()
        finally:
            _REPR.active -= 1

    def _repr_tree(self):
        lines = [line for line in self.extra_repr().split("\n") if line]
        for names, child, count in _fold_repeats(self._modules):
            text = _indent(repr(child), 2)
            label = names[0] if count == 1 else f"{names[0]}-{names[-1]}"
            lines.append(f"({label}): " + (text if count == 1 else f"{count} x {text}"))
        if not self._modules and len(lines) <= 1:
            return f"{type(self).__name__}({lines[0] if lines else ''})"
        return type(self).__name__ + "(\n  " + "\n  ".join(lines) + "\n)"

    def __dir__(self):
        return sorted(set(super().__dir__()) | set(self._parameters) | set(self._buffers)
                      | set(self._modules))


_MISSING = object()


def _walk_once(root, prefix, memo):
    """``Module._walk``'s fast path: (path, module) in pre-order, each module once (``memo``:
    ids seen). Returns whether a module was met again (shared, or in a cycle)."""
    stack = [(prefix, root)]
    memo = set() if memo is None else memo
    met_again = False
    while stack:
        path, m = stack.pop()
        if id(m) in memo:
            met_again = True
            continue
        memo.add(id(m))
        yield path, m
        children = [(path + "." + name if path else name, child)
                    for name, child in m._modules.items() if child is not None]
        stack.extend(reversed(children))
    return met_again


def _walk_paths(root, who, prefix, remove_duplicate, memo, children, post_order):
    """``Module._walk`` keeping the list of ancestors, so that a module met again below itself
    is told apart from one shared by two parents."""
    memo = set() if memo is None else memo
    ancestors, on_path = [], set()          # (path, module) from the root to the parent
    stack = [(prefix, root, 0, False)]
    while stack:
        path, m, depth, finished = stack.pop()
        if finished:
            yield path, m
            continue
        while len(ancestors) > depth:
            on_path.discard(id(ancestors.pop()[1]))
        if id(m) in on_path:
            if who is None:
                continue
            raise _cycle_error(who, path, m, ancestors)
        if remove_duplicate:
            if id(m) in memo:
                continue
            memo.add(id(m))
        if post_order:
            stack.append((path, m, depth, True))
        else:
            yield path, m
        ancestors.append((path, m))
        on_path.add(id(m))
        pairs = m._modules.items() if children is None else children(m)
        stack.extend((path + "." + name if path else name, child, depth + 1, False)
                     for name, child in reversed(list(pairs)) if child is not None)


class _Repr(threading.local):
    """Per-thread: how many module reprs are running (the outermost checks for cycles)."""
    active = 0


_REPR = _Repr()


def _cycle_error(who, path, module, ancestors):
    """The error for a walk that met ``module`` at ``path`` while inside it (``ancestors``:
    (path, module) from the root down to its parent)."""
    outer = next(p for p, m in ancestors if m is module)
    return RuntimeError(
        f"{who}: the module tree has a cycle: the {type(module).__name__} at "
        f"'{outer or '<root>'}' contains itself again at '{path}' (as after "
        f"m.add_module('me', m)), so this walk would never end (PyTorch recurses until "
        f"RecursionError). Remove the back reference (del parent.name), or register the "
        f"module only once")


def _checked_state_array(value, key):
    """A state-dict value as an ndarray (Tensor, ndarray, number, or anything array-like)."""
    if isinstance(value, Tensor):
        return value._data
    try:
        arr = np.asarray(value)
    except Exception as e:  # e.g. a torch tensor that still requires grad
        raise TypeError(f"load_state_dict: cannot convert the value for '{key}' "
                        f"({type(value).__name__}) to an array: {e}. Convert it first, e.g. "
                        f"v.detach().numpy()") from None
    if arr.dtype.kind not in "biuf":    # checked for every key before anything is written
        kind = "an object array" if arr.dtype.hasobject else f"of dtype {arr.dtype}"
        raise TypeError(f"load_state_dict: the value for '{key}' is {kind}; expected real "
                        f"numbers (nothing was loaded)")
    return arr


def _fold_repeats(modules):
    """Group consecutive children with integer names and identical repr: yields
    (names, child, count), as PyTorch prints '(0-11): 12 x Block(...)'."""
    groups = []
    for name, child in modules.items():
        if child is None:
            continue
        text = repr(child)
        if (groups and name.isdigit() and groups[-1][0][-1].isdigit()
                and int(name) == int(groups[-1][0][-1]) + 1 and groups[-1][2] == text):
            groups[-1][0].append(name)
        else:
            groups.append([[name], child, text])
    return [(names, child, len(names)) for names, child, _ in groups]


def _indent(text, spaces):
    lines = text.split("\n")
    return lines[0] + "".join("\n" + " " * spaces + line for line in lines[1:])
