"""``Given``: the objects an exercise is set up with (``given("02.3", z=z_relu, ...)``), kept
by the exercise itself: a later cell that reuses a name, or a backward() that releases a graph,
does not change what the check judges against. NumPy arrays are copied; tensors are kept, and
what a check needs from a tensor's graph is computed when the exercise is set up."""
import numpy as np


class NotGiven(AttributeError):
    """An object the exercise was not given (the cell that sets it up has not run)."""


class Given:
    """The exercise's objects: ``g.x`` or ``g["x"]``; ``g.array("x")`` as a float64 array;
    ``g.cache`` holds what the exercise's parts computed from them when set up."""

    def __init__(self, objects=None):
        self.objects = {k: (v.copy() if isinstance(v, np.ndarray) else v)
                        for k, v in (objects or {}).items()}
        self.cache = {}
        self.deltas = None

    def delta(self, name):
        """While a check of hand-computed gradients runs: the student's δ of the tensor
        ``name`` where they answered it (in this exercise or another of the same progress
        map), else the engine's. A misconception written with it applies the wrong rule to
        the student's own δ's, so it is recognised after a mistake further down the chain."""
        if not self.deltas or name not in self.deltas:
            raise NotGiven(f"no δ of {name!r} is known here (Given.delta is read while a "
                           f"check of gradients runs)")
        return self.deltas[name]

    def __getattr__(self, name):
        objects = self.__dict__.get("objects", {})
        if name in objects:
            return objects[name]
        raise NotGiven(f"the exercise was given no object called {name!r} (it has "
                             f"{', '.join(sorted(objects)) or 'none'})")

    def __getitem__(self, name):
        return self.__getattr__(name)

    def __contains__(self, name):
        return name in self.objects

    def array(self, name):
        """The object ``name`` as a float64 NumPy array (a tensor's value)."""
        from .compare import answer_array
        return answer_array(self[name], name)

    def __repr__(self):
        return f"<Given {', '.join(sorted(self.objects))}>"
