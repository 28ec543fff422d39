"""``steps``: the forward pass then the backward pass, one frame per operation.

Forward frames follow a topological order (each operation after the operations it reads):
frame k evaluates operation k, whose output value appears on its out-edges. Backward frames
take the operations in the reverse order: when an operation's turn comes, every consumer of its
output has sent its δ, so its total ∂L/∂(output) is complete; it multiplies by its local
derivative and sends one δ along each input edge. A leaf's total Σδ appears once all its uses
have sent theirs.

The graph is laid out once (one ``dot`` run, in ``Picture``) with everything in it; a frame is
a state of that one picture (what is shown, what is highlighted), so the layout never moves
and nothing a frame does not know yet is visible. Building the frames is linear in the size of
the graph: each piece of the picture records the one frame at which it appears.
"""

import numpy as np

from . import labels
from .draw import Options, Timeline, module_types, render, too_many
from .rules import named_rules, rule_text, statements
from .render import svg as render_svg
from .svgview import annotate, hold_legend, state_svg
from .trace import trace


class Picture:
    """The one laid-out picture of a step-through, with ``data-at`` marks (``svgview``)."""

    def __init__(self, graph, options, timeline):
        self.graph, self.options, self.timeline = graph, options, timeline
        self._digraph = self._svg = None

    @property
    def digraph(self):
        """The Digraph with every value and gradient in it."""
        if self._digraph is None:
            self._digraph = render(self.graph, self.options, self.timeline)
        return self._digraph

    def svg(self):
        """The annotated SVG (rendered once, by Graphviz's ``dot``)."""
        if self._svg is None:
            svg = annotate(render_svg(self.digraph), self.digraph.vz_marks)
            self._svg = hold_legend(svg, len(self.graph.ops))
        return self._svg


class Frame:
    """One step: ``phase`` ("forward" or "backward"), ``index`` (0-based over all frames),
    ``node`` (the operation being evaluated), ``title`` and ``formula`` (the operation's rule
    for this phase: in a backward frame one rule per input in the graph's names, δ_w = δ_out ·
    x, where ``viz.rules`` knows the operation), and ``picture``, shared by all frames. ``svg()`` is the picture as this
    frame shows it (shown inline in Jupyter)."""

    def __init__(self, phase, index, number, count, node, picture):
        self.phase, self.index, self.number, self.count = phase, index, number, count
        self.node, self.picture = node, picture
        where = f" (module {node.module})" if node.module else ""
        self.title = f"{phase.capitalize()} {number}/{count}: {node.name}{where}"
        rules = named_rules(picture.graph, node) if phase == "backward" else None
        self.formula = rules or labels.formula_part(node.formula, phase)
        self.numbers = _numbers(picture.graph, node) if phase == "backward" else ""

    def svg(self):
        """This frame's picture as SVG text: unknown values and gradients are not in it."""
        return state_svg(self.picture.svg(), self.index)

    def _repr_mimebundle_(self, include=None, exclude=None):
        return {"image/svg+xml": self.svg()}

    def __repr__(self):
        return f"<viz.Frame {self.title}>"


def steps(root, values=True, shapes=True, modules="cluster", rankdir=None, max_nodes=150,
          params=None, gradient=None, names=None):
    """Frames of the forward pass (one per operation, topological order) then of the backward
    pass (one per operation, reverse order) of the graph behind ``root``.

    Each frame highlights the operation being evaluated and shows the values (forward) and
    gradients (backward) known so far. Gradients are computed as in ``viz.trace(grads=True)``:
    no ``.grad`` changes. Values of intermediate tensors show only when the graph kept them:
    build it inside ``with viz.record():`` to see them all. Pass the frames to ``viz.player``.
    The other arguments are those of ``viz.draw``; ``max_nodes`` is checked before any
    picture is made.
    """
    options = Options(values, shapes, modules, None, rankdir, max_nodes,
                      module_types=module_types(params))

    def refuse_too_many(graph):            # before any gradient is computed
        if len(graph.nodes) > max_nodes:
            raise ValueError(too_many(len(graph.nodes), graph, options).replace(
                "viz.draw", "viz.steps"))
    graph = trace(root, grads=True, params=params, gradient=gradient, names=names,
                  check=refuse_too_many)
    ops = graph.ops
    picture = Picture(graph, options, _timeline(graph, ops))
    count = len(ops)
    return ([Frame("forward", k, k + 1, count, op, picture) for k, op in enumerate(ops)] +
            [Frame("backward", count + k, k + 1, count, op, picture)
             for k, op in enumerate(reversed(ops))])


def _timeline(graph, ops):
    """When each value, edge gradient and total gradient becomes known (``draw.Timeline``)."""
    count = len(ops)
    output = graph.root
    forward = {op.id: k for k, op in enumerate(ops)}
    backward = {op.id: count + k for k, op in enumerate(reversed(ops))}
    value_at = dict(forward)
    for e in graph.edges:
        if e.dst == output:
            value_at[output] = forward.get(e.src, 0)
    sent_at = {i: backward.get(e.dst, count) for i, e in enumerate(graph.edges)}
    total_at = {output: count}
    for i, e in enumerate(graph.edges):   # complete once the last of its uses has sent δ
        total_at[e.src] = max(total_at.get(e.src, 0), sent_at[i])
    total_at.update(backward)
    highlight = {op.id: (forward[op.id], backward[op.id]) for op in ops}
    return Timeline(value_at, sent_at, total_at, highlight)


NUMBERS_UP_TO = 16          # δ's with at most this many elements are written out in a frame


def _numbers(graph, op):
    """What a backward frame of ``op`` computes, in numbers: for each input, the local rule
    δ_in = δ_out × ∂out/∂in with the values it uses, and the δ it gives (one line per input;
    δ's of more than NUMBERS_UP_TO elements are left to the picture)."""
    lines = []
    for e in sorted(graph.edges_into(op.id), key=lambda e: e.slot):
        if e.grad is None or np.size(e.grad) > NUMBERS_UP_TO:
            continue
        # an operation with no rule of its own: the formula above the picture says it
        rule = rule_text(graph, op, e) if statements(op)[0] else ""
        lines.append(f"to {graph[e.src].name}: {rule + '  →  ' if rule else ''}"
                     f"δ = {labels.array(e.grad, NUMBERS_UP_TO)}")
    return "\n".join(lines)


