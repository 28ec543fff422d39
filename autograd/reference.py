"""The reference engine: reverse-mode differentiation in one screen. Read this file first.

A graph is recorded as ``Function`` nodes (``function.py``): each knows its ``parents`` (where
each input's gradient goes: the node that produced the input, the leaf tensor itself, or None)
and its ``backward`` (one gradient per input, given the gradient of its output). Backward is
the chain rule applied along every edge, consumers before producers:

1. count, for every vertex, the edges that enter it from the root's side (its consumers);
2. Kahn's algorithm: a vertex is ready once every consumer has sent its gradient. Take a ready
   node, call ``backward`` on the sum it received, send each result to the parent, summed
   down to that input's shape where the forward broadcast it (``unbroadcast``).

A leaf's gradient is the sum it received (unless it is a view taken under ``no_grad``, which
collects none: ``views.collects_gradient``, the question ``engine.py`` asks too). That is all ``engine.py`` does too; it adds hooks, ``.grad`` accumulation, anomaly mode,
freeing saved values and its fast paths, each a named step. The operation table's tests check
that the two agree on every operation, first and second order.
"""
from .function import Function, create_graph_backward, unbroadcast
from .grad_mode import set_grad_enabled
from .views import collects_gradient


def grad(output, inputs, seed, create_graph=False):
    """d⟨seed, output⟩/d(inputs): one gradient per input tensor (None when unused).

    ``seed`` has the output's shape (an ndarray, or a Tensor with ``create_graph``). With
    ``create_graph=True`` backward runs on Tensors and is itself recorded, so the gradients
    can be differentiated again."""
    root = output.grad_fn or output
    consumers = count_consumers(root)
    grads = {root: seed}
    ready = [root]
    with set_grad_enabled(create_graph):
        while ready:
            node = ready.pop()
            if not isinstance(node, Function):      # a leaf: its sum is its gradient
                continue
            g = grads.get(node)
            if g is None:                           # no consumer sent anything
                in_grads = (None,) * len(node.parents)
            else:
                in_grads = (create_graph_backward(node, g) if create_graph
                            else node.backward(g))
            if not isinstance(in_grads, tuple):
                in_grads = (in_grads,)
            for parent, g, shape in zip(node.parents, in_grads, node.input_shapes):
                if parent is None:
                    continue
                if g is not None:
                    g = unbroadcast(g, shape)
                    grads[parent] = grads[parent] + g if parent in grads else g
                consumers[parent] -= 1
                if consumers[parent] == 0:
                    ready.append(parent)
    return [grads.get(x.grad_fn or x) if collects_gradient(x) else None for x in inputs]


def count_consumers(root):
    """For every vertex below ``root``: the number of edges entering it (step 1)."""
    consumers = {root: 0}
    stack = [root]
    while stack:
        node = stack.pop()
        for parent in (node.parents if isinstance(node, Function) else ()):
            if parent is None:
                continue
            if parent not in consumers:
                consumers[parent] = 0
                stack.append(parent)
            consumers[parent] += 1
    return consumers
