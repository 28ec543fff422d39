"""The backward engine: reverse-mode differentiation over the recorded graph.

Vertices are the recorded operations (``Function`` nodes) and the leaf tensors that require a
gradient. ``run`` works in two passes, both iterative (no recursion, so a graph a million nodes
deep is fine):

1. Count, for every vertex, how many edges lead into it from the part of the graph we start at
   (how many consumers will send it a gradient).
2. Kahn's algorithm: a vertex is *ready* once all its consumers have sent their gradient. Take a
   ready node, sum of incoming gradients = dL/d(its output), call its ``backward`` to get one
   gradient per input (the chain rule along each edge), send each to the input's vertex and
   decrement that vertex's count. Leaves receive their total in ``.grad``.

Every vertex is visited once and every edge once: O(vertices + edges).
"""
import itertools
import threading

import numpy as np

from .anomaly import check_finite, hook_name, is_finite
from .convert import as_array
from .function import RELEASED, Function, create_graph_backward, unbroadcast
from .grad_mode import STATE, set_grad_enabled
from .graph import consumers
from .lazy_grads import LazyGrad
from .tensor import make_tensor, Tensor
from .versions import WRITES, check_unchanged
from .views import collects_gradient
from .ops.cast import cast


def backward(tensors, grad_tensors=None, retain_graph=False, create_graph=False, inputs=None):
    """Accumulate d(tensors)/d(leaf) into ``leaf.grad`` for every leaf (or only ``inputs``)."""
    roots, seeds = _seed(tensors, grad_tensors, create_graph, "backward")
    only = None if inputs is None else {_vertex(t) for t in _as_list(inputs)}
    run(roots, seeds, retain_graph or create_graph, create_graph, accumulate=True, only=only)


def grad(outputs, inputs, grad_outputs=None, retain_graph=None, create_graph=False,
         allow_unused=False):
    """Return d(outputs)/d(inputs) as a tuple, without touching any ``.grad``.

    ``grad_outputs`` weights the outputs (the vector of a vector-Jacobian product); it may be
    omitted for one-element outputs. With ``create_graph=True`` the results are differentiable.
    """
    inputs_list = _as_list(inputs)
    for t in inputs_list:
        if not isinstance(t, Tensor) or not t.requires_grad:
            raise RuntimeError("grad: every input must be a Tensor with requires_grad=True")
    roots, seeds = _seed(outputs, grad_outputs, create_graph, "grad")
    if retain_graph is None:
        retain_graph = create_graph
    targets = [_vertex(t) for t in inputs_list]
    captured = run(roots, seeds, retain_graph, create_graph, accumulate=False,
                   capture=set(targets))
    result = []
    for t, v in zip(inputs_list, targets):
        g = captured.get(v)
        if g is None and not allow_unused:
            raise RuntimeError("grad: one of the inputs was not used to compute the outputs "
                               "(its gradient would be None); pass allow_unused=True to get "
                               "None for it")
        result.append(g if g is None or isinstance(g, Tensor) else make_tensor(g, None))
    return tuple(result)


def run(roots, seeds, retain_graph, create_graph, accumulate=True, capture=None, only=None,
        observer=None):
    """The engine: ``autograd/reference.py``'s loop, with hooks, anomaly mode and the fast
    paths inside its named steps.

    ``roots``/``seeds``: vertices to start from and their gradients. ``accumulate``: add leaf
    gradients to ``.grad`` (only those in ``only`` if given). ``capture``: vertices whose total
    to return, as a dict vertex -> gradient (``ag.grad``). ``observer(node, i, grad)``: sees
    every edge's gradient (viz).
    """
    step = BackwardPass(retain_graph, create_graph, accumulate, capture, only, observer)
    ready = step.start(roots, seeds)
    with set_grad_enabled(create_graph):
        while ready:
            vertex = ready.pop()
            if isinstance(vertex, Function):
                step.propagate(vertex, ready)
            else:
                step.finish_leaf(vertex)
    return step.captured


_NO_GRADIENTS = itertools.repeat(None)   # what a node that received no gradient sends


class BackwardPass:
    """The state of one ``run`` and its named steps: the running gradient totals, the count of
    gradients each vertex still waits for, the arrays the engine owns, what it captured.

    The fast path lives inside ``propagate``, marked by ``plain``: a pass that only accumulates
    (no ``create_graph``, capture, anomaly mode or observer) calls a node's formula directly
    when the node has nothing to check or keep, and keeps an input's first gradient of its
    shape as it is; a lazy gradient reaches such a node's formula as it is when the operation
    takes one (``takes_lazy_grad``: ReLU before max pooling). (One step per node, not one per
    check: a call costs ~0.1 µs of a small operation's ~2 µs backward.)"""

    def __init__(self, retain_graph, create_graph, accumulate, capture, only, observer):
        self.retain_graph, self.create_graph = retain_graph, create_graph
        self.accumulate, self.capture, self.only = accumulate, capture, only
        self.observer = observer
        self.totals = {}     # vertex -> Σ of the gradients received so far
        self.waiting = {}    # vertex -> number of consumers yet to send it a gradient
        self.owned = set()   # vertices whose total is a buffer the engine allocated
        self.handed = set()  # ids of arrays already given to a .grad (never give one out twice)
        self.captured = {}
        self.anomaly = STATE.anomaly
        self.plain = not (capture is not None or self.anomaly or create_graph
                          or observer is not None)

    def start(self, roots, seeds):
        """Count every vertex's consumers and seed the roots; returns the vertices ready now
        (the roots no other root leads to)."""
        self.waiting = consumers(roots)
        for root, seed in zip(roots, seeds):
            add_gradient(self.totals, self.owned, root, seed, self.create_graph)
        return [root for root in dict.fromkeys(roots) if self.waiting[root] == 0]

    def propagate(self, node, ready):
        """The chain rule at one node: call its backward on the total it received (one
        gradient per input), free what it saved (unless ``retain_graph``), send each input's
        gradient to its parent and put the parents that now have all theirs in ``ready``."""
        totals = self.totals
        grad = totals.pop(node, None)
        saves = node.saved or node.saved_names
        if grad is None:
            in_grads = _NO_GRADIENTS           # no consumer sent anything: nor does it
        else:
            fast = self.plain and not node.watched and not (saves and node.tick < WRITES.tick)
            if type(grad) is not np.ndarray and isinstance(grad, LazyGrad) and not (
                    fast and node.takes_lazy_grad):
                grad = grad.dense()
            if fast:
                in_grads = node.backward(grad)                     # the fast path
                if type(in_grads) is not tuple:
                    in_grads = (in_grads,)
            else:
                in_grads = self.checked_backward(node, grad, saves)
        if saves and not self.retain_graph:                  # free what it saved
            node.saved, node.inputs, node.watched = RELEASED, (), True
            if node.saved_names:
                _release_names(node)
        waiting = self.waiting
        for parent, grad, shape in zip(node.parents, in_grads, node.input_shapes):
            if parent is None:
                continue
            if grad is not None:
                if parent not in totals and grad.shape == shape:
                    totals[parent] = grad           # the first gradient is kept as it is
                else:
                    self.send(parent, grad, shape, node)
            count = waiting[parent] - 1
            waiting[parent] = count
            if count == 0:
                ready.append(parent)

    def send(self, parent, grad, shape, node=None):
        """Add ``grad`` to ``parent``'s total, first summing it down to ``shape``, the input's,
        where the forward broadcast it (the one place this is undone). A gradient that no
        broadcast of the input could give is ``node``'s mistake: PyTorch's error, named."""
        if grad.shape != shape:
            if not _broadcasts_to(shape, grad.shape):
                slot = next((k for k, p in enumerate(node.parents) if p is parent), "?") \
                    if node is not None else "?"
                raise RuntimeError(
                    f"Function {getattr(node, 'name', '?')}Backward returned an invalid "
                    f"gradient at index {slot} - got {list(grad.shape)} but expected shape "
                    f"compatible with {list(shape)} (the input's shape, or a shape it was "
                    f"broadcast to); its backward must return one gradient per input, shaped "
                    f"like that input")
            grad = unbroadcast(grad, shape)
        add_gradient(self.totals, self.owned, parent, grad, self.create_graph)

    def finish_leaf(self, leaf):
        """A leaf's total is known: run its hooks, capture it, add it to ``.grad``. (A view
        taken under ``no_grad()`` requires grad but, as in PyTorch, collects none.)"""
        grad = self.totals.pop(leaf, None)
        if grad is None or not collects_gradient(leaf):
            return
        if type(grad) is not np.ndarray and isinstance(grad, LazyGrad):
            grad = grad.dense()
        if leaf._hooks:
            grad = _run_hooks(leaf._hooks, grad, self.anomaly)
        if self.capture is not None and leaf in self.capture:
            self.captured[leaf] = grad
        if self.accumulate and (self.only is None or leaf in self.only):
            _accumulate_grad(leaf, grad, self.create_graph, self.handed)

    def checked_backward(self, node, grad, saves):
        """``propagate``'s call of the formula when there is more to do than call it: the
        output tensor's hooks, ``retain_grad``, capture, the second-backward and in-place
        checks, ``create_graph``, anomaly mode, the observer."""
        if node.hooks:
            grad = _run_hooks(node.hooks, grad, self.anomaly)
        if self.accumulate and node.retained is not None:
            t = node.retained()
            if t is not None:
                _accumulate_grad(t, grad, self.create_graph, self.handed)
        if self.capture is not None and node in self.capture:
            self.captured[node] = grad
        if node.released:
            raise RuntimeError(
                f"Trying to backward through the graph a second time: operation '{node.name}' "
                f"already released the values it saved for backward. Pass retain_graph=True to "
                f"the first backward() (or ag.grad) if you need to backward through it again.")
        if saves and node.tick < WRITES.tick:
            check_unchanged(node, _saved_arrays(node))     # something was written since forward
        if self.create_graph:
            in_grads = create_graph_backward(node, grad)
        else:
            in_grads = node.backward(grad)
        if type(in_grads) is not tuple:
            in_grads = (in_grads,)
        if self.anomaly:
            check_finite(node, in_grads, "backward")
        if self.observer is not None:
            self.observe(node, in_grads)
        return in_grads

    def observe(self, node, in_grads):
        """Show the observer every edge's gradient, summed down to its input's shape."""
        for i, (parent, g, shape) in enumerate(zip(node.parents, in_grads, node.input_shapes)):
            if parent is not None and g is not None:
                if g.shape != shape:
                    g = unbroadcast(g, shape)
                self.observer(node, i, g.dense() if isinstance(g, LazyGrad) else g)


def add_gradient(totals, owned, vertex, grad, create_graph):
    """``totals[vertex] += grad``: the engine's one accumulation policy.

    * the first gradient a vertex receives is kept as it is (no copy);
    * with ``create_graph`` the sum is a recorded addition;
    * lazy gradients (``LazyGrad``) merge when they combine (``ProductGrad``s join their
      factors), else are added in place into an ndarray buffer;
    * ndarrays: the second gradient allocates a new buffer the engine owns (the first may be an
      operation's output or another tensor's memory); later ones are added into it in place.
    """
    prev = totals.get(vertex)
    if prev is None:
        totals[vertex] = grad
    elif create_graph:
        totals[vertex] = prev + grad
    elif isinstance(prev, LazyGrad) or isinstance(grad, LazyGrad):
        if isinstance(prev, LazyGrad):
            merged = prev.merge(grad) if isinstance(grad, LazyGrad) else None
            if merged is not None:
                totals[vertex] = merged
                return
            prev, grad = grad, prev               # grad is lazy from here on
        if isinstance(prev, LazyGrad):
            buffer = prev.dense()
        elif vertex in owned and type(prev) is np.ndarray:
            buffer = prev
        else:
            buffer = np.array(prev, dtype=np.result_type(prev, grad.dtype))
        grad.add_to(buffer)
        totals[vertex] = buffer
        owned.add(vertex)
    elif vertex in owned and type(prev) is np.ndarray:
        prev += grad
    else:
        totals[vertex] = prev + grad
        owned.add(vertex)


def _broadcasts_to(shape, target):
    """Whether an input of ``shape`` broadcasts to ``target``."""
    lead = len(target) - len(shape)
    return lead >= 0 and all(n == 1 or n == m for n, m in zip(shape, target[lead:]))


def _saved_arrays(node):
    """What ``node``'s backward will read of what it saved, for the in-place check: its
    positional values (only those the needed gradients read, when the operation says which:
    ``Function.saves_read_by``), then its named constants."""
    saved = node.saved
    read_by = node.saves_read_by
    if read_by is not None:
        need_a, need_b = node.needs_input_grad
        if not (need_a and need_b):
            saved = tuple(saved[k] for k in read_by[0 if need_a else 1])
    if not node.saved_names:
        return saved
    return saved + tuple(getattr(node, name) for name in node.saved_names)


def _release_names(node):
    """Free the named constants a node saved (``ctx.save(mask=m)``) once backward ran."""
    for name in node.saved_names:
        setattr(node, name, None)


def _run_hooks(hooks, g, anomaly=False):
    """Call tensor hooks in order; a hook returning a value replaces the gradient. With
    ``anomaly`` (detect_anomaly), a hook that returns NaN or inf is named."""
    if not hooks:
        return g
    for hook in list(hooks):
        wrapped = g if isinstance(g, Tensor) else make_tensor(g, None)
        if anomaly:     # an operation inside the hook that makes a NaN names the hook
            previous, STATE.hook = STATE.hook, f"tensor hook '{hook_name(hook)}'"
            try:
                result = hook(wrapped)
            finally:
                STATE.hook = previous
        else:
            result = hook(wrapped)
        if result is not None:
            _check_hook_result(hook, result, g)
            g = result if isinstance(g, Tensor) else as_array(result)
            if anomaly and not is_finite(g):
                raise RuntimeError(f"detect_anomaly: the tensor hook '{hook_name(hook)}' "
                                   f"returned a gradient holding NaN or inf (shape "
                                   f"{np.shape(g)}); check what the hook computes.")
    return g


def _check_hook_result(hook, result, g):
    """What PyTorch checks of a hook's return value: a Tensor (here also an ndarray) of the
    gradient's shape."""
    if not isinstance(result, (Tensor, np.ndarray)):
        raise TypeError(f"expected Tensor, but hook returned '{type(result).__name__}': the "
                        f"tensor hook '{hook_name(hook)}' must return None (keep the gradient) "
                        f"or a Tensor of the gradient's shape {tuple(np.shape(g))}")
    if result.shape != np.shape(g):
        raise RuntimeError(f"hook '{hook_name(hook)}' has changed the size of value: it got a "
                           f"gradient of shape {tuple(np.shape(g))} and returned one of shape "
                           f"{tuple(result.shape)}; a tensor hook must return a gradient of "
                           f"the tensor's shape (or None)")


# Threads may run backward into the same leaves at once (e.g. data-parallel workers sharing a
# model): the read-add-write of ``.grad`` must not interleave, or contributions are lost.
_GRAD_LOCK = threading.Lock()


def _accumulate_grad(t, g, create_graph, handed):
    """``t.grad += g`` atomically; ``.grad`` keeps t's dtype (a gradient of another dtype is
    cast, never the accumulated sum upcast) and never shares an array with another tensor."""
    dtype = t._data.dtype
    if create_graph:
        gt = g if isinstance(g, Tensor) else make_tensor(g, None)
        if gt.dtype != dtype:
            gt = cast(gt, dtype)
        with _GRAD_LOCK:
            t._grad = gt if t._grad is None else t._grad + gt
        return
    if type(g) is not np.ndarray:
        g = np.asarray(g)       # NumPy reductions return scalars for 0-d results
    if g.shape != t._data.shape:
        raise RuntimeError(f"internal error: gradient of shape "
                           f"{tuple(g.shape)} for a tensor of shape "
                           f"{tuple(t._data.shape)}")
    with _GRAD_LOCK:
        if t._grad is None:
            if g.dtype != dtype or not g.flags.writeable or id(g) in handed:
                g = g.astype(dtype, copy=True)
            handed.add(id(g))
            t._grad = make_tensor(g, None)
        else:
            old = t._grad._data
            t._grad._data = np.add(old, g, dtype=old.dtype) if g.dtype != old.dtype else old + g


def _vertex(t):
    """The graph vertex a tensor's gradient is collected at: its node, or itself if a leaf."""
    return t.grad_fn if t.grad_fn is not None else t


def _as_list(x):
    return list(x) if isinstance(x, (list, tuple)) else [x]


def _seed(tensors, grad_tensors, create_graph, op):
    """Check the starting tensors and build their seed gradients (1 for scalars)."""
    tensors = _as_list(tensors)
    grad_list = [None] * len(tensors) if grad_tensors is None else _as_list(grad_tensors)
    if len(grad_list) != len(tensors):
        raise ValueError(f"{op}: got {len(grad_list)} gradients for {len(tensors)} tensors")
    roots, seeds = [], []
    for t, g in zip(tensors, grad_list):
        if not t.requires_grad:
            raise RuntimeError(
                f"{op}: this tensor does not require grad and has no grad_fn, so there is "
                f"nothing to differentiate. Create the inputs with requires_grad=True (and do "
                f"not compute it under no_grad()).")
        if g is None:
            if t._data.size != 1:
                raise RuntimeError(
                    f"{op}: grad can be implicitly created only for scalar outputs, but this "
                    f"tensor has shape {tuple(t._data.shape)}. Pass gradient=<tensor of shape "
                    f"{tuple(t._data.shape)}> "
                    f"or reduce it first, e.g. y.sum().backward().")
            g = np.empty(t._data.shape, t._data.dtype)    # ones (np.ones: twice the cost)
            g.fill(1)
        else:
            g = _given_seed(t, g, create_graph, op)
        roots.append(_vertex(t))
        seeds.append(make_tensor(g, None) if create_graph and not isinstance(g, Tensor)
                     else g)
    return roots, seeds


def _given_seed(t, g, create_graph, op):
    """A gradient passed for ``t``, checked: an array of t's dtype, or with ``create_graph``
    a Tensor kept as it is (the result may be differentiated with respect to it: jvp)."""
    if not (create_graph and isinstance(g, Tensor)):
        if isinstance(g, (str, bytes)) or (
                not isinstance(g, (Tensor, np.ndarray, list, tuple, int, float, np.number))):
            raise TypeError(f"{op}: gradients can be either Tensors or None, but got "
                            f"{type(g).__name__} {g!r:.40}; pass dL/d(output) as a tensor of "
                            f"shape {tuple(t.shape)} (ones for a plain sum)")
        g = as_array(g, t.dtype)
    if g.shape != t.shape:
        raise RuntimeError(f"{op}: gradient has shape {tuple(g.shape)} but the tensor has "
                           f"shape {tuple(t.shape)}; they must match")
    return g
