"""``steps``: the forward pass then the backward pass, one frame per operation.

Forward frames follow a topological order (each operation after the operations it reads):
frame k evaluates operation k, whose output value appears on its out-edges. Backward frames
take the operations in the reverse order: when an operation's turn comes, every consumer of its
output has sent its δ, so its total ∂L/∂(output) is complete; it multiplies by its local
derivative and sends one δ along each input edge. A leaf's total Σδ appears once all its uses
have sent theirs. Every frame uses the same layout (unknown text is drawn transparent), so
stepping through looks like one picture filling in.
"""
import re

from .draw import Options, View, module_types, render
from .render import svg
from .trace import trace


class Frame:
    """One step: ``phase`` ("forward" or "backward"), ``node`` (the operation being evaluated),
    ``title`` and ``formula`` (the operation's rule for this phase), and the picture
    (``digraph``, shown inline in Jupyter)."""

    def __init__(self, phase, number, count, node, graph, options, view):
        self.phase, self.number, self.count, self.node = phase, number, count, node
        self.graph, self.options, self.view = graph, options, view
        where = f" (module {node.module})" if node.module else ""
        self.title = f"{phase.capitalize()} {number}/{count}: {node.name}{where}"
        self.formula = _formula_part(node.formula, phase)
        self._digraph = None

    @property
    def digraph(self):
        """The picture at this step, as a ``graphviz.Digraph``."""
        if self._digraph is None:
            self._digraph = render(self.graph, self.options, self.view)
        return self._digraph

    def svg(self):
        """The picture as SVG text (needs Graphviz's ``dot``)."""
        return svg(self.digraph)

    def _repr_mimebundle_(self, include=None, exclude=None):
        return self.digraph._repr_mimebundle_(include=include, exclude=exclude)

    def __repr__(self):
        return f"<viz.Frame {self.title}>"


def steps(root, values=True, shapes=True, modules="cluster", rankdir="LR", max_nodes=150,
          params=None, gradient=None):
    """Frames of the forward pass (one per operation, topological order) then of the backward
    pass (one per operation, reverse order) of the graph behind ``root``.

    Each frame highlights the operation being evaluated and shows the values (forward) and
    gradients (backward) known so far. Gradients are computed as in ``viz.trace(grads=True)``:
    no ``.grad`` changes. Values of intermediate tensors show only when the graph kept them:
    build it inside ``with viz.record():`` to see them all. Pass the frames to ``viz.player``.
    The other arguments are those of ``viz.draw``.
    """
    graph = trace(root, grads=True, params=params, gradient=gradient)
    options = Options(values, shapes, modules, None, rankdir, max_nodes,
                      module_types=module_types(params))
    ops = graph.ops
    output = graph[graph.root]
    out_edges, in_edges = {}, {}
    for i, e in enumerate(graph.edges):
        out_edges.setdefault(e.src, []).append(i)
        in_edges.setdefault(e.dst, []).append(i)
    root_producer = graph.edges[in_edges[output.id][0]].src if output.id in in_edges else None

    frames = []
    known = {n.id for n in graph.nodes if n.kind in ("param", "input", "const")}
    for k, op in enumerate(ops, 1):
        known.add(op.id)
        if op.id == root_producer:
            known.add(output.id)
        view = View(frozenset(known), frozenset(), frozenset(), op.id)
        frames.append(Frame("forward", k, len(ops), op, graph, options, view))

    sent = set(in_edges.get(output.id, ()))          # the seed ∂L/∂root arrives first
    complete = {output.id}
    for k, op in enumerate(reversed(ops), 1):
        complete.add(op.id)
        inputs = in_edges.get(op.id, ())
        sent.update(inputs)
        for i in inputs:
            src = graph.edges[i].src
            if all(j in sent for j in out_edges[src]):
                complete.add(src)
        view = View(frozenset(known), frozenset(sent), frozenset(complete), op.id)
        frames.append(Frame("backward", k, len(ops), op, graph, options, view))
    return frames



_DERIVATIVE = re.compile(r"\bd\w*/d|∂")


def _formula_part(formula, phase):
    """The forward rule (``z = a * b``) or the derivative rule (``dz/da = b, dz/db = a``) of
    an operation's formula ``z = a * b;   dz/da = b,   dz/db = a``."""
    m = _DERIVATIVE.search(formula)
    if m is None:
        return formula
    part = formula[:m.start()] if phase == "forward" else formula[m.start():]
    return part.strip().rstrip(";,").strip() or formula
