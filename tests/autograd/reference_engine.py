"""A reference engine, short enough to check by reading, that the real one must agree with.

It orders the graph with a depth-first post-order instead of dependency counts, keeps every
gradient as a fresh ndarray (no buffers, no lazy gradients, no hooks, nothing freed) and calls
each node's fast-path ``backward`` in reverse order: the chain rule and nothing else.
"""
import numpy as np

from dagrad.autograd.function import Function, LazyGrad, unbroadcast


def reference_grad(output, inputs, seed):
    """d⟨seed, output⟩/d(inputs), one ndarray (or None when unused) per input."""
    root = output.grad_fn or output               # an operation may return its input itself
    order, seen = [], set()
    stack = [(root, False)] if isinstance(root, Function) else []
    while stack:                                  # post-order: a node after all its inputs
        node, expanded = stack.pop()
        if expanded:
            order.append(node)
            continue
        if node in seen:                          # reached again through another consumer
            continue
        seen.add(node)
        stack.append((node, True))
        for p in node.parents:
            if isinstance(p, Function) and p not in seen:
                stack.append((p, False))
    grads = {root: np.asarray(seed)}
    for node in reversed(order):                  # every consumer before what it consumes
        grad = grads.pop(node, None)
        if grad is None:
            continue
        in_grads = node.backward(grad)
        in_grads = in_grads if isinstance(in_grads, tuple) else (in_grads,)
        for parent, g, shape in zip(node.parents, in_grads, node.input_shapes):
            if parent is None or g is None:
                continue
            g = unbroadcast(g.dense() if isinstance(g, LazyGrad) else np.asarray(g), shape)
            grads[parent] = grads[parent] + g if parent in grads else g
    return [grads.get(x) for x in inputs]
