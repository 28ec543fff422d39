"""The one log of in-place writes, and the one check that backward makes against it.

A node that saved values for its backward must not see them change before that backward runs.
The values can change through the tensor that was saved, but also through any other tensor
sharing its memory: the operation's output (``tanh``, ``exp``, ``sigmoid`` save their result),
a ``detach()``-ed copy, a view (a slice, ``reshape``, ``.T``), the base of a saved view. PyTorch
shares one version counter among all of them; here every in-place write logs the *root*
ndarray it changed (the array owning the memory, reached through ``.base``) with the tick of a
clock, and a node that saved arrays checks at backward that none of their roots was written
after the node was recorded (at tick ``t``):

    stale(node) = ∃ s ∈ node.saved:  last_write(root(s)) > t

Every writer calls :func:`mark_written`: the Tensor in-place methods (``add_``, ``x[i] = v``,
...), the optimizers' updates, ``Module.to``, batch norm's running statistics, ``nn.init``.
Writes through ``.data`` are not logged, as in PyTorch (``p.data.add_(...)`` is the escape
hatch). Nothing is logged on the forward hot path but one integer per node that saves.
"""
import weakref

import numpy as np


class _Writes:
    """The clock and, per root array written in place, (weakref to it, tick of the write)."""

    __slots__ = ("tick", "log")

    def __init__(self):
        self.tick = 0
        self.log = {}


WRITES = _Writes()


def root(array):
    """The ndarray that owns ``array``'s memory (itself when it is not a view)."""
    while isinstance(array.base, np.ndarray):
        array = array.base
    return array


def mark_written(tensor):
    """Record that ``tensor``'s values are being changed in place now (call it before or
    after the write, never skip it). Bumps ``_version``, PyTorch's counter, which a base and
    its views share (a view reads its base's: ``views.py``), and stamps the memory's root with
    the clock; a ``.data`` alias (``_version`` None), and a view of one, is not logged."""
    base = tensor if tensor._base is None else tensor._base
    if base._version is None:
        return
    base._version += 1
    _stamp(tensor._data)


def _stamp(array):
    if not isinstance(array, np.ndarray):
        return
    writes = WRITES
    writes.tick += 1
    owner = array
    while isinstance(owner.base, np.ndarray):     # root(array), inline: optimizers stamp
        owner = owner.base                        # every parameter at every step
    key = id(owner)
    entry = writes.log.get(key)
    if entry is not None and entry[0]() is owner:
        entry[1] = writes.tick
        return

    def forget(ref, key=key, log=writes.log):
        current = log.get(key)
        if current is not None and current[0] is ref:
            del log[key]
    writes.log[key] = [weakref.ref(owner, forget), writes.tick]


def written_since(array, tick):
    """True when ``array``'s memory was written in place after clock tick ``tick``."""
    if not isinstance(array, np.ndarray):
        return False
    owner = root(array)
    entry = WRITES.log.get(id(owner))
    return entry is not None and entry[0]() is owner and entry[1] > tick


def check_unchanged(node, arrays):
    """Raise PyTorch's error if one of ``arrays`` (what ``node`` saved) was written in place
    after ``node`` was recorded."""
    if WRITES.tick <= node.tick:      # nothing at all was written since the forward
        return
    for s in arrays:
        if written_since(s, node.tick):
            raise RuntimeError(
                f"one of the variables needed for gradient computation has been modified by "
                f"an inplace operation: '{node.name}' saved an array of shape {tuple(s.shape)} "
                f"({s.dtype}) for its backward, and it was modified in place after the forward "
                f"pass (directly, or through a tensor sharing its memory: a view, the "
                f"operation's output, a detach()-ed copy, an optimizer step). Use an "
                f"out-of-place operation, or clone() the tensor before changing it.")
