"""``viz.time_step(t)``: the operations run inside belong to time step ``t`` and are drawn in
one column labelled ``t = 1``, ``t = 2``, ... An unrolled recurrence then reads left to right,
one column per step, whatever the length of each step's chain of operations.

    with viz.record():
        for t, x in enumerate(xs, 1):
            with viz.time_step(t):
                h = (w * x + u * h + b).tanh()

It reuses the module path that ``nn.Module`` calls record for viz (columns are drawn as module
clusters); operations inside an ``nn.Module`` called within a step keep that module's path.
"""
from dagrad.autograd.grad_mode import STATE

PREFIX = "t = "


class time_step:
    """Context manager: operations recorded inside are drawn in the column of step ``t``."""

    def __init__(self, t):
        self.label = f"{PREFIX}{t}"

    def __enter__(self):
        frame = STATE.frame
        self.previous = frame.path
        frame.path = self.label if self.previous is None else f"{self.previous}.{self.label}"
        return self

    def __exit__(self, *exc):
        STATE.frame.path = self.previous
        return False


def has_time_steps(graph):
    """Does the graph hold operations recorded inside ``viz.time_step``?"""
    return any(n.module and n.module.rpartition(".")[2].startswith(PREFIX) for n in graph.nodes)
