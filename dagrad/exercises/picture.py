"""The picture of ``check_grads``: the compute graph (``viz``) with each checked tensor marked
in words: right, or wrong with the student's value in its box, its box and the edges whose δ's
add up to its gradient drawn in red (the place to look for the mistake). Before the reveal the
picture carries no δ the student could copy: the edges show the forward values only; revealed,
every edge has its δ and each wrong box the right value beside the student's."""
import copy
import itertools

from .compare import fmt_full

RED = "#d50000"
AMBER = "#9c5700"         # a δ that only follows from a wrong one (dark enough for 10 px text)
GREEN = "#1b5e20"
GREY = "#555555"
SHORT = 8                   # values of at most this many elements are written in full
MAX_BOXES = 150             # larger graphs get no picture (dot takes seconds, nobody reads it)
_COUNTER = itertools.count()
CAPTION = ("Red: the tensors whose gradient is wrong (your value in the box) and the edges "
           "whose δ's add up to it; the mistake is in one of those δ's or in their sum. "
           "Amber: a gradient that only follows from a wrong one nearer the loss (right for "
           "the δ's it was computed from). Hover a box or an edge for every element.")
CAPTION_REVEALED = ("Every edge carries its δ; a wrong box shows your value beside the right "
                    "one.")


def grads_graph(loss, tensors):
    """The traced graph of ``loss`` with every edge's gradient (``viz.trace``), its tensors
    labelled by the answer keys. Traced when the check is set up, so the picture shows the
    graph as it was then."""
    from dagrad.viz import trace
    return trace(loss, grads=True, names=dict(tensors))


def grads_svg(graph, tensors, verdicts, revealed=False, labels=None):
    """SVG text (for inlining in HTML) of ``graph`` with the ``verdicts`` marked; a
    ValueError for a graph of more than ``MAX_BOXES`` boxes."""
    from dagrad.viz import svgview
    from dagrad.viz.draw import Options, render
    from dagrad.viz.render import svg
    if len(graph.nodes) > MAX_BOXES:
        raise ValueError(f"the graph has {len(graph.nodes)} boxes, too many to read in a "
                         f"picture here (at most {MAX_BOXES}); the table says which gradients "
                         f"are wrong")
    shown = graph if revealed else without_gradients(graph)
    labels = labels or {k: f"∂L/∂{k}" for k in tensors}
    # rankdir None: chosen from the graph's shape, as viz.draw does (a deep graph top to
    # bottom: left to right it is wider than a notebook)
    dot = render(shown, Options(rankdir=None),
                 emphasis=_emphasis(graph, tensors, verdicts, revealed, labels))
    inline = svgview.inline(svg(dot), f"vz-check-{next(_COUNTER)}")
    caption = CAPTION_REVEALED if revealed else CAPTION
    return f'{inline}<div style="color: {GREY}; font-size: 12px;">{caption}</div>'


def without_gradients(graph):
    """A copy of ``graph`` with no δ anywhere (edges, totals): what the picture may show
    before the student has the right values."""
    from dagrad.viz.trace import Graph
    nodes = [copy.copy(n) for n in graph.nodes]
    edges = [copy.copy(e) for e in graph.edges]
    for item in nodes + edges:
        item.grad = None
    return Graph(nodes, edges, graph.root, False)


def _emphasis(graph, tensors, verdicts, revealed, labels):
    from dagrad.viz import labels as text
    from dagrad.viz.draw import Emphasis
    from dagrad.viz.markup import tooltip
    node_of = {id(n.obj): n for n in graph.nodes if n.obj is not None}
    nodes, edges = {}, {}
    for key, t in tensors.items():
        node = node_of.get(id(t.grad_fn if t.grad_fn is not None else t))
        verdict = verdicts.get(key)
        if node is None or verdict is None:
            continue
        what = labels.get(key, f"∂L/∂{key}")
        if verdict.ok:
            nodes[node.id] = ({"color": GREEN, "penwidth": "2"},
                              [_font(f"✓ {what} right", GREEN, bold=True)])
            continue
        if verdict.tag == "not_answered":
            nodes[node.id] = ({}, [_font(f"? {what} not answered", GREY, bold=True)])
            continue
        yours = "not a number" if verdict.answer is None else \
            text.array(verdict.answer, SHORT)
        if getattr(verdict, "inherited", None) and not revealed:
            origins = ", ".join(labels.get(u, u) for u in verdict.inherited)
            nodes[node.id] = ({"color": AMBER, "penwidth": "2", "tooltip": tooltip(
                [f"{key}: {what} is right for the δ's it is computed from, but follows from "
                 f"your {origins}"])},
                [_font(f"✗ {what} follows from {origins}", AMBER, bold=True),
                 _font(f"yours {yours}", AMBER)])
            continue
        rows = [_font(f"✗ {what} wrong", RED, bold=True), _font(f"yours {yours}", RED)]
        tip = [f"{key}: {what} is wrong" + (f" ({verdict.tag})" if verdict.tag != "value"
                                            else "")]
        if verdict.answer is not None:
            tip.append(f"yours {fmt_full(verdict.answer)}")
        if revealed:
            rows.append(_font(f"right {text.array(verdict.right, SHORT)}", GREEN))
            tip.append(f"right {fmt_full(verdict.right)}")
        nodes[node.id] = ({"color": RED, "penwidth": "3",
                           "tooltip": tooltip(tip)}, rows)
        for i, e in enumerate(graph.edges):
            if e.src == node.id and e.grad is not None:
                edge_tip = [f"this δ is one of the terms of {what} (wrong in your answer)"]
                if revealed:
                    edge_tip.append(f"δ {fmt_full(e.grad)}")
                edges[i] = ({"color": RED, "penwidth": "3", "tooltip": tooltip(edge_tip)},
                            [_font(f"a term of {what}", RED)])
    return Emphasis(nodes, edges)


def _font(text, colour, bold=False):
    from dagrad.viz.markup import label
    text = f"<B>{label(text)}</B>" if bold else label(text)
    return f'<FONT COLOR="{colour}" POINT-SIZE="10">{text}</FONT>'
