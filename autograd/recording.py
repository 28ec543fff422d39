"""What ``record()`` keeps of a graph for pictures and export, beside the graph itself.

A node keeps what its backward needs and frees it after backward. Inside ``with record():``
every operation recorded into the graph is also *noted*: its output array (``value``), its
inputs as they were passed (Tensors and constants, ``inputs``), the forward's keyword arguments
(``attrs``) and the clock of in-place writes (``tick``, to tell whether a noted array changed
since). viz shows the value of every intermediate tensor from the notes, and ONNX export reads
the operations' attributes. A note lives as long as its node (a table with weak keys), so a
graph drawn after ``backward()`` still shows its values.

Off by default: it keeps every intermediate activation alive as long as the graph lives.
"""
import weakref

from .grad_mode import _Switch
from .versions import WRITES


class Note:
    """What ``record()`` noted of one operation: ``value`` (its output array), ``inputs`` (as
    passed to ``apply``), ``attrs`` (keyword arguments of its forward), ``tick``."""

    __slots__ = ("value", "inputs", "attrs", "tick")

    def __init__(self, value, inputs, attrs):
        self.value, self.inputs, self.attrs, self.tick = value, inputs, attrs, WRITES.tick


_NOTES = weakref.WeakKeyDictionary()     # node -> Note


def note_values(node, inputs, value, attrs):
    """Note ``node``'s output ``value``, ``inputs`` and ``attrs`` (``Function.apply`` calls it
    inside ``record()``)."""
    _NOTES[node] = Note(value, tuple(inputs), attrs)


def noted(node):
    """The :class:`Note` of ``node``, or None when it was not recorded inside ``record()``."""
    return _NOTES.get(node)


class record(_Switch):
    """Note the output array, the inputs and the attributes of every operation recorded inside
    the block (see the module docstring), so that ``viz`` can show the value of every
    intermediate tensor, not only those the operations saved for backward, and export can read
    every operation's attributes."""
    field = "values"

    def __init__(self, mode=True):
        super().__init__(bool(mode))
