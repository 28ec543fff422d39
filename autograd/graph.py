"""Walking the recorded graph: the traversals the engine, viz and ONNX export share.

Vertices are the recorded operations (``Function`` nodes) and the leaf tensors that require a
gradient; a node's ``parents`` are the other ends of its input edges (None for an input that
needs no gradient). Both walks are iterative, so a graph a million nodes deep is fine, and
visit every vertex and every edge once: O(vertices + edges).
"""
from .function import Function


def consumers(roots):
    """For every vertex reachable from ``roots``: the number of edges that enter it, i.e. how
    many gradients it will receive in backward (a root no other root leads to has none)."""
    counts = dict.fromkeys(roots, 0)
    stack = [r for r in counts if isinstance(r, Function)]
    while stack:
        node = stack.pop()
        for p in node.parents:
            if p is None:
                continue
            if p in counts:
                counts[p] += 1
            else:               # first seen: count the edges below it too
                counts[p] = 1
                if isinstance(p, Function):
                    stack.append(p)
    return counts


def post_order(roots):
    """The vertices reachable from ``roots``, every one after its parents: the order a
    recursive evaluator would finish them (roots in order, inputs left to right), computed
    without recursion. Forward order, for pictures and export."""
    order, seen = [], set()
    for root in roots:
        if root in seen:
            continue
        seen.add(root)
        stack = [(root, 0)]
        while stack:
            vertex, i = stack[-1]
            parents = vertex.parents if isinstance(vertex, Function) else ()
            if i < len(parents):
                stack[-1] = (vertex, i + 1)
                p = parents[i]
                if p is not None and p not in seen:
                    seen.add(p)
                    stack.append((p, 0))
            else:
                stack.pop()
                order.append(vertex)
    return order
