"""Grad mode: whether operations are recorded into the graph.

The switches are thread-local, like PyTorch's: turning recording off in one thread never affects
another. Each switch works as a context manager and as a decorator.
"""
import functools
import threading


class Frame:
    """Per-thread: the nn.Module whose ``forward`` is running (``module``, None outside every
    module) and its dotted path (``path``, e.g. "encoder.layers.0"; None for a root module),
    which the operations it runs keep on their nodes for viz and error messages. A module call
    swaps both fields; plain attributes, so that costs a tenth of writing thread-locals."""
    __slots__ = ("module", "path")

    def __init__(self):
        self.module = self.path = None


class _State(threading.local):
    """Per-thread switches read by every operation."""

    def __init__(self):     # runs once in each thread, on its first use of STATE
        d = self.__dict__   # (this thread's own dictionary)
        d["enabled"] = True         # record operations for backward?
        d["anomaly"] = False        # check every forward/backward result for NaN/inf?
        d["values"] = False         # note every recorded operation's values (recording.record)?
        d["hook"] = None            # the user hook running ("forward hook 'clip'"), for anomaly
        d["frame"] = Frame()        # the module running
        # What an operation has to do besides computing, in one switch, so that it reads one
        # thread-local instead of four (each read costs ~40 ns, a tenth of a small
        # operation's bookkeeping): the frame: record it and keep the frame's module path on
        # its node; False: the general path (grad mode off, anomaly mode, values to note).
        # Kept up to date by every assignment below.
        d["fast"] = d["frame"]

    def __setattr__(self, name, value):
        # through the thread's dictionary: one thread-local lookup instead of six
        d = self.__dict__
        d[name] = value
        d["fast"] = d["frame"] if d["enabled"] and not d["anomaly"] and not d["values"] else False


STATE = _State()


def is_grad_enabled():
    """True when new operations are recorded into the graph (the default)."""
    return STATE.enabled


class _Switch:
    """Base for a context manager that sets one field of STATE and restores it on exit."""
    field = ""

    def __init__(self, value):
        self.value = value

    def __enter__(self):
        self.previous = getattr(STATE, self.field)
        setattr(STATE, self.field, self.value)
        return self

    def __exit__(self, *exc):
        setattr(STATE, self.field, self.previous)
        return False

    def __call__(self, fn):
        """Use as a decorator: the whole call runs under this switch."""
        @functools.wraps(fn)
        def wrapper(*args, **kwargs):
            with self.__class__(*self._args()):
                return fn(*args, **kwargs)
        return wrapper

    def _args(self):
        return (self.value,)


class set_grad_enabled(_Switch):
    """``with set_grad_enabled(False): ...`` turns graph recording off (or on) inside the block."""
    field = "enabled"

    def __init__(self, mode):
        super().__init__(bool(mode))


class _Fixed(set_grad_enabled):
    """A switch without arguments, which also decorates without parentheses: ``@no_grad`` is
    ``@no_grad()``, as in PyTorch."""

    def __new__(cls, func=None):
        switch = super().__new__(cls)
        if func is None:
            return switch
        switch.__init__()
        return switch(func)

    def _args(self):
        return ()


class no_grad(_Fixed):
    """Do not record operations: results have ``requires_grad=False``. Use for evaluation and
    for parameter updates, which must not become part of the graph."""

    def __init__(self):
        super().__init__(False)


class enable_grad(_Fixed):
    """Record operations again inside a ``no_grad`` block."""

    def __init__(self):
        super().__init__(True)


class detect_anomaly(_Switch):
    """Check every forward result and every backward gradient for NaN/inf.

    The first operation that produces one raises a RuntimeError naming the operation and, when
    it ran inside an ``nn.Module``, the module path. Slow: use it to debug, not to train.
    """
    field = "anomaly"

    def __init__(self, mode=True):
        super().__init__(bool(mode))
