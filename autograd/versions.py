"""In-place writes seen through any alias of the memory they change.

Every Tensor counts its own in-place changes (``Tensor._version``); a node compares the counts of
its inputs at backward with those it recorded. But the memory a node saved can also be reached
through other tensors: its output (``tanh``, ``exp``, ``sigmoid`` save their result), a
``detach()``-ed copy, a view (a slice, ``reshape``, ``.T``) of the saved array, or the base
array of a saved view. PyTorch shares one counter among all of them; here every in-place write
through a Tensor records the *root* ndarray it changed (the array owning the memory, reached
through ``.base``) with the tick of a clock, and a node that saved arrays checks at backward
that none of their roots was written after the node was recorded (tick ``t`` at forward):

    stale(node) = ∃ s ∈ node.saved:  last_write(root(s)) > t

Nothing is recorded on the forward hot path but one integer per node that saves something.
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


def record_write(array):
    """Note that ``array``'s memory is being written in place now."""
    if not isinstance(array, np.ndarray):
        return
    writes = WRITES
    writes.tick += 1
    owner = root(array)
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
