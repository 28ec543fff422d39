"""Containers: ``Sequential`` (a pipeline), ``ModuleList`` and ``ModuleDict`` (registered
collections of modules, so their parameters belong to the owning model)."""
import operator
from collections import OrderedDict

from .module import Module


class _ModuleSequence(Module):
    """Children named "0", "1", ... in order: length, iteration, append/extend/insert and
    deletion (which renumbers the rest), shared by Sequential and ModuleList."""

    def __len__(self):
        return len(self._modules)

    def __iter__(self):
        return iter(self._modules.values())

    def _renumber(self, modules):
        for key in list(self._modules):
            delattr(self, key)
        for i, m in enumerate(modules):
            self.add_module(str(i), m)

    def __delitem__(self, idx):
        keys = list(self._modules)
        doomed = keys[idx] if isinstance(idx, slice) else [keys[_index(idx, len(keys),
                                                                       type(self).__name__)]]
        for key in doomed:
            delattr(self, key)
        if all(k.isdigit() for k in keys):       # keep the numbering contiguous, as PyTorch
            self._renumber(list(self._modules.values()))

    def append(self, module):
        self.add_module(str(len(self)), module)
        return self

    def extend(self, modules):
        for m in modules:
            self.append(m)
        return self

    def insert(self, index, module):
        modules = list(self._modules.values())
        modules.insert(index, module)
        self._renumber(modules)
        return self


class Sequential(_ModuleSequence):
    """Modules applied one after the other: ``y = mₙ(...m₂(m₁(x)))``.

    ``Sequential(m1, m2, ...)`` names the children "0", "1", ...; ``Sequential(OrderedDict(
    [("fc", m1), ("act", m2)]))`` uses the given names. Indexing gives a child, slicing a new
    Sequential sharing the children.
    """

    def __init__(self, *args):
        super().__init__()
        if len(args) == 1 and isinstance(args[0], (dict, OrderedDict)):
            for name, m in args[0].items():
                self.add_module(name, m)
        else:
            for i, m in enumerate(args):
                self.add_module(str(i), m)

    def forward(self, x):
        for m in self._modules.values():
            x = m(x)
        return x

    def __getitem__(self, idx):
        if isinstance(idx, slice):
            return Sequential(OrderedDict(list(self._modules.items())[idx]))
        return list(self._modules.values())[_index(idx, len(self), "Sequential")]

    def __setitem__(self, idx, module):
        key = list(self._modules)[_index(idx, len(self), "Sequential")]
        self.add_module(key, module)


class ModuleList(_ModuleSequence):
    """A list of modules whose parameters belong to the owner (a plain Python list would hide
    them from ``parameters()``). Children are named "0", "1", ... It has no ``forward``:
    iterate over it in the owner's forward."""

    def __init__(self, modules=None):
        super().__init__()
        if modules is not None:
            self.extend(modules)

    def __getitem__(self, idx):
        if isinstance(idx, slice):
            return ModuleList(list(self._modules.values())[idx])
        return self._modules[str(_index(idx, len(self), "ModuleList"))]

    def __setitem__(self, idx, module):
        self.add_module(str(_index(idx, len(self), "ModuleList")), module)

    def __iadd__(self, modules):
        return self.extend(modules)

    def __add__(self, other):
        return ModuleList(list(self) + list(other))

    def forward(self, *args, **kwargs):
        raise NotImplementedError("ModuleList has no forward(): iterate over it "
                                  "(for layer in self.layers: x = layer(x)) or use Sequential")


class ModuleDict(Module):
    """A dict of modules (insertion-ordered) whose parameters belong to the owner."""

    def __init__(self, modules=None):
        super().__init__()
        if modules is not None:
            self.update(modules)

    def __getitem__(self, key):
        return self._modules[key]

    def __setitem__(self, key, module):
        self.add_module(key, module)

    def __delitem__(self, key):
        delattr(self, key)

    def __len__(self):
        return len(self._modules)

    def __iter__(self):
        return iter(self._modules)

    def __contains__(self, key):
        return key in self._modules

    def keys(self):
        return self._modules.keys()

    def values(self):
        return self._modules.values()

    def items(self):
        return self._modules.items()

    def update(self, modules):
        items = modules.items() if hasattr(modules, "items") else modules
        for key, m in items:
            self.add_module(key, m)

    def pop(self, key):
        m = self._modules[key]
        del self[key]
        return m

    def clear(self):
        for key in list(self._modules):
            del self[key]

    def forward(self, *args, **kwargs):
        raise NotImplementedError("ModuleDict has no forward(): look modules up by key")


def _index(idx, n, what):
    """``idx`` as a non-negative position in a container of length ``n``."""
    i = operator.index(idx)
    if not -n <= i < n:
        raise IndexError(f"{what} index {idx} is out of range for length {n}")
    return i % n
