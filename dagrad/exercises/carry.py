"""The δ's a student's own answers imply: where a chain of hand-computed gradients goes wrong.

A backward pass written by hand is a chain: δ_h is computed from δ_logits, δ_W1 from δ_hprebn,
and one wrong δ makes every δ after it wrong too. Judged against the engine's values alone,
every one of them is "wrong", which says nothing about where the mistake is. So each answered
tensor T is also judged against what the chain rule gives *from the student's own δ's*:

    carried_T = Σ over the paths from T to the nearest answered tensors U:  J_{U←T}ᵀ · (your δ_U)

(with the engine's δ where no answered tensor lies on a path). A δ_T equal to carried_T but
not to the right value only follows from a wrong δ_U ("fix δ_U first"); a δ_T that differs
from carried_T is where a mistake enters, and is judged against carried_T ("given your δ_U,
yours is the transpose").

One backward walk computes every carried δ at once: the reference engine's loop (Kahn's
algorithm, ``autograd/reference.py``) over the graph's nodes, except that at an answered
tensor it records the sum it received and sends on the student's δ instead. The nodes are
shallow copies taken when the exercise is set up (``snapshot``), holding the values their
backward reads: a later ``backward()`` that frees the graph, or a cell that reuses the names,
changes nothing. Cost: one pass over the graph per check, O(nodes + edges), whatever the
tensors' sizes.
"""
import copy

import numpy as np


class Snapshot:
    """The graph below ``loss`` as copies of its nodes (consumers before producers), and the
    vertex (the node that produced it, or the leaf itself) of each tensor in ``tensors``
    (name -> Tensor)."""

    def __init__(self, loss, tensors):
        from dagrad.autograd.function import Function
        from dagrad.autograd.graph import post_order
        self.root = loss.grad_fn if loss.grad_fn is not None else loss
        order = post_order([self.root])
        self.copies = {v: copy.copy(v) for v in order if isinstance(v, Function)}
        self.order = order[::-1]
        self.loss_shape = tuple(loss.shape)
        self.vertex = {name: (t.grad_fn if t.grad_fn is not None else t)
                       for name, t in tensors.items()}

    def carry(self, mine):
        """({name: carried δ}, {name: the answered names whose δ's it was computed from}) for
        every tensor the loss reaches, given ``mine`` (name -> the student's δ as a float64
        array of the tensor's shape; other names are not sent on)."""
        from dagrad.autograd.function import Function, unbroadcast
        names = {}
        for name, vertex in self.vertex.items():
            names.setdefault(vertex, []).append(name)
        grads = {self.root: np.ones(self.loss_shape)}
        sources = {self.root: frozenset()}
        carried, came_from = {}, {}
        for vertex in self.order:
            g = grads.pop(vertex, None)
            if g is None:
                continue
            g = np.asarray(g, dtype=np.float64)
            src = sources.pop(vertex, frozenset())
            for name in names.get(vertex, ()):
                carried[name], came_from[name] = g, src
                if mine.get(name) is not None and mine[name].shape == g.shape:
                    g, src = mine[name].copy(), frozenset([name])
            if not isinstance(vertex, Function):
                continue
            node = self.copies[vertex]
            out = node.backward(g.copy())
            out = out if isinstance(out, tuple) else (out,)
            for parent, delta, shape in zip(node.parents, out, node.input_shapes):
                if parent is None or delta is None:
                    continue
                delta = unbroadcast(delta, shape)
                grads[parent] = grads[parent] + delta if parent in grads else delta
                sources[parent] = sources.get(parent, frozenset()) | src
        return carried, came_from
