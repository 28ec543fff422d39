"""``draw``: the traced graph as a ``graphviz.Digraph``, one box per operation and one edge per
use of a tensor, labelled with the tensor (shape, value) and the gradient δ it carries back.

Reading the picture:

* operations are white rounded boxes; parameters orange, inputs that require a gradient blue,
  constants grey and dashed, the output green; a collapsed module is a purple 3-D box;
* an edge's label is the tensor flowing forward (shape; values in full when they are few, else
  their root mean square) and, with ``grads=True``, the gradient δ flowing back along
  that one edge; a tensor used twice has two edges with their own δ, and its node shows their
  sum Σδ (multiple use: sum the incoming δ's);
* edge colour and width follow the root mean square of δ, √mean(δ²), on a log scale (legend
  at the bottom; the seed δ = 1 into the output does not set the range): vanishing gradients
  are dark purple and thin, large ones green and thick, zero ones grey and dashed.

Labels stay short: a tensor of at most 16 elements and at most 8 numbers a line (a matrix is
written one line per row) is written in full, a larger one as its shape and one number (its root
mean square, the statistic of the colour scale); the full values are in each box's and edge's
tooltip (hover).
"""
import warnings

from . import colors
from . import labels
from . import markup
from .columns import has_time_steps
from .render import digraph
from .trace import Graph, trace

MAX_NODES = 400
WARN_NODES = 3000          # beyond this, a picture is neither fast to lay out nor readable
# Above FAST_LAYOUT boxes dot ranks with its newer ranking and places boxes without network
# simplex iterations: on a 10,000-operation chain the default placement alone took 64 s and
# this takes 2.4 s, at the price of less compact rows.
FAST_LAYOUT = 1000
FAST_LAYOUT_ATTRS = {"newrank": "true", "nslimit": "0", "searchsize": "10"}
FILL = {"op": "#ffffff", "param": "#ffd8a8", "input": "#cfe8fc", "data": "#f2f2f2",
        "const": "#f2f2f2", "output": "#c8f0d0", "box": "#e6dcf5"}
KIND_NAMES = {"op": "operation", "param": "parameter", "input": "input (needs δ)",
              "data": "data (no δ)", "const": "constant", "output": "output",
              "box": "module (collapsed)"}
SHORT = 16                 # edge and box labels write tensors of at most this many elements
                           # in full (a matrix one line per row, at most labels.ROW numbers a
                           # line), larger ones as their rms


class Options:
    """What to show; see ``draw``."""

    def __init__(self, values=True, shapes=True, modules="cluster", depth=None, rankdir="LR",
                 max_nodes=MAX_NODES, legend=True, module_types=None, fold=True):
        if modules not in ("cluster", "label", None):
            raise ValueError(f"viz.draw: modules must be 'cluster', 'label' or None, got "
                             f"{modules!r}")
        if depth is not None and (not isinstance(depth, int) or depth < 1):
            raise ValueError(f"viz.draw: depth must be a positive integer (1 draws each "
                             f"top-level module as one box) or None, got {depth!r}")
        if rankdir not in ("LR", "RL", "TB", "BT", None):
            raise ValueError(f"viz.draw: rankdir must be 'LR', 'RL', 'TB', 'BT' or None "
                             f"(chosen from the graph's shape), got {rankdir!r}")
        self.values, self.shapes, self.modules, self.depth = values, shapes, modules, depth
        self.rankdir, self.max_nodes, self.legend = rankdir, max_nodes, legend
        self.module_types, self.fold = module_types or {}, fold


class Timeline:
    """When each piece of a step-through picture (``viz.steps``) becomes known, as frame
    numbers (0-based; forward frames first, then backward ones): ``value_at[node id]`` the
    frame computing that node's output, ``sent_at[edge index]`` the frame sending the gradient
    along that edge, ``total_at[node id]`` the frame at which the node's total gradient is
    complete, ``highlight[node id]`` the frames evaluating that operation. The picture is laid
    out once with everything in it; the player hides what a frame does not know yet."""

    def __init__(self, value_at, sent_at, total_at, highlight):
        self.value_at, self.sent_at, self.total_at = value_at, sent_at, total_at
        self.highlight = highlight


def draw(root, grads=False, values=True, shapes=True, modules="cluster", depth=None,
         rankdir=None, max_nodes=MAX_NODES, params=None, gradient=None, legend=True, fold=True,
         names=None):
    """Draw the compute graph behind ``root`` (a Tensor, or a ``viz.Graph`` from ``trace``).

    Args:
        grads: compute and show the gradient δ_e = ∂L/∂(tensor on e) through each edge e
            (no ``.grad`` changes; no need to call backward first).
        values, shapes: show tensor values / shapes on the edges and leaves.
        modules: ``"cluster"`` groups the operations of each ``nn.Module`` in a box (nested
            like the module tree), ``"label"`` writes the module path in each node, None
            ignores modules.
        depth: collapse every module at that level of the module tree (levels of the dotted
            path, as in ``named_modules()``) into one box with all its operations and
            parameters; 1 draws each top-level module as a box.
        fold: with ``depth``, draw a run of identical sibling modules (``layers.0``,
            ``layers.1``, ... with the same operations and parameter shapes) as one box marked
            ×N; ``fold=False`` keeps one box each (to compare gradients between them).
        rankdir: layout direction, ``"LR"`` (left to right) or ``"TB"`` (top to bottom); None
            chooses from the graph's shape (top to bottom when the longest path has more than
            2 operations, so a deep graph fits a notebook's width).
        max_nodes: refuse (ValueError) to draw more boxes than this; pass ``depth``.
        params: an ``nn.Module`` or ``{name: tensor}`` naming the parameters (``0.weight``).
        gradient: the seed ∂L/∂root for ``grads=True`` (default ones).
        legend: draw the colour and node-kind legend.
        names: ``{name: tensor}`` labelling tensors by name, e.g. ``names=locals()`` (entries
            that are not Tensors are ignored).

    Returns a ``graphviz.Digraph``: in Jupyter a pan-and-zoom view at a readable size (drag,
    mouse wheel, "fit"), ``.source`` for the DOT text, ``viz.save(d, "g.svg")`` (or ``.html``
    for the pan-and-zoom page) to write a file.
    """
    options = Options(values, shapes, modules, depth, rankdir, max_nodes, legend,
                      module_types(params), fold)
    if max_nodes > WARN_NODES:
        warnings.warn(f"viz.draw: max_nodes={max_nodes}: Graphviz lays out a few thousand "
                      f"boxes in minutes and the picture is unreadable; depth=1 collapses "
                      f"modules", stacklevel=2)
    if not isinstance(root, Graph):        # boxes are counted before any gradient is computed
        root = trace(root, grads=grads, params=params, gradient=gradient, names=names,
                     check=lambda graph: checked_layout(graph, options))
    # a graph may carry its own marks (viz.foreign: a .grad that disagrees with its edges)
    return render(root, options, emphasis=getattr(root, "emphasis", None))


def render(graph, options, timeline=None, emphasis=None):
    """The Digraph for a traced ``graph``. Every box and edge has a stable SVG id (``vz_n3``,
    ``vz_e7``); with a ``timeline`` (a step-through), ``dot.vz_marks`` records for each id when
    each of its text rows, its gradient colour and its highlight appear (see ``viz.steps``).
    ``emphasis`` marks chosen boxes and edges (``Emphasis``)."""
    layout = checked_layout(graph, options)
    edges = _merged_edges(graph, layout)
    output = graph.root
    scale = colors.LogScale([colors.magnitude(g) for s, d, g, group in edges
                             if g is not None and not _is_seed(group, graph, output)])
    rankdir = options.rankdir or _auto_rankdir(graph)
    graph_attr = {"rankdir": rankdir, "fontname": "Helvetica", "fontsize": "10",
                  "nodesep": "0.25", "ranksep": "0.4", "labelloc": "b", "labeljust": "l"}
    if len(layout.items) > FAST_LAYOUT:
        graph_attr.update(FAST_LAYOUT_ATTRS)
    dot = digraph(name="dagrad", graph_attr=graph_attr,
        node_attr={"fontname": "Helvetica", "fontsize": "11", "shape": "box",
                   "style": "rounded,filled", "fillcolor": "white", "color": "#555555",
                   "margin": "0.12,0.06"},
        edge_attr={"fontname": "Helvetica", "fontsize": "9", "arrowsize": "0.7"})
    marks = {}
    clusters = {}
    for item in layout.items:
        target = _cluster(dot, clusters, item.cluster, options) if item.cluster else dot
        attrs, rows = _node_attrs(item, graph, options, timeline, layout)
        tip = attrs.pop("vz_tip", None)
        if emphasis is not None and item.node is not None:
            attrs, rows = _emphasised(attrs, rows, emphasis.nodes.get(item.node.id))
        attrs["id"] = f"vz_{item.key}"
        if timeline is not None:
            marks[attrs["id"]] = (rows, None, timeline.highlight.get(item.key), tip)
        target.node(item.key, **attrs)
    fan_in = {}
    for s, d, *_ in edges:
        fan_in[d] = fan_in.get(d, 0) + 1
    boxes = {item.key: item for item in layout.items}
    for k, (src, dst, g, group) in enumerate(edges):
        attrs, rows = _edge_attrs(graph, g, group, scale, options, timeline)
        tip = attrs.pop("vz_tip", None)
        if emphasis is not None:
            attrs, rows = _emphasised(attrs, rows, emphasis.edge(group))
        attrs["id"] = f"vz_e{k}"
        if "label" in attrs and _enters_a_cluster_from_a_leaf(boxes[src], boxes[dst]):
            attrs["xlabel"] = attrs.pop("label")
        elif fan_in[dst] > 1 and "label" in attrs:
            attrs["decorate"] = "true"        # a line ties each label to its own edge
        if timeline is not None:
            sent = max((timeline.sent_at.get(i, 0) for i in group), default=0)
            marks[attrs["id"]] = (rows, sent, None, tip)
        dot.edge(src, dst, **attrs)
    dot.vz_marks = marks
    for prefix in sorted(clusters, key=lambda p: -p.count(".")):
        parent = prefix.rpartition(".")[0]
        (clusters[parent] if parent in clusters else dot).subgraph(clusters[prefix])
    if options.legend:
        legend = _legend(graph, layout, scale if graph.has_grads else None, options)
        if legend:
            dot.attr(label=legend)
    return dot


def _enters_a_cluster_from_a_leaf(src, dst):
    """Does this edge run from a leaf outside the destination's cluster into it (a weight
    shared by the columns of ``viz.time_step``, or by several modules)? Such an edge often
    crosses the cluster's own edges on its way in, and a label that takes a place in the
    layout (Graphviz puts it on a node of its own in the gap between ranks) can land beside
    one of those instead of its own edge. Its label is then an ``xlabel``, placed beside the
    edge once the edge is routed (tests/viz/edge_geometry.py), and not decorated: the line
    that ties a label to its edge would cross the label here."""
    leaf = src.node is not None and src.node.kind in ("param", "input", "const")
    return leaf and dst.cluster is not None and src.cluster != dst.cluster


class Emphasis:
    """Extra marks on chosen parts of a picture (``exercises.check_grads`` uses it to draw a
    student's wrong gradients in red): ``nodes[node id]`` and ``edges[edge index]`` are
    ``(attributes, rows)``: Graphviz attributes that replace the usual ones (colour, pen
    width, a tooltip made by ``markup.tooltip``) and label rows (HTML-like text whose words
    went through ``markup.label``) added under the usual ones."""

    def __init__(self, nodes=None, edges=None):
        self.nodes, self.edges = nodes or {}, edges or {}

    def edge(self, group):
        """The marks of a drawn edge standing for graph edges ``group`` (the first marked)."""
        return next((self.edges[i] for i in group if i in self.edges), None)


def _emphasised(attrs, rows, marks):
    if marks is None:
        return attrs, rows
    more_attrs, more_rows = marks
    rows = rows + [(r, None) for r in more_rows]
    attrs = {**attrs, **more_attrs}
    if rows:
        attrs["label"] = "<" + "<BR/>".join(r for r, _ in rows) + ">"
    return attrs, rows


# ----------------------------------------------------------------------------------- layout
def checked_layout(graph, options):
    """The boxes of the picture of ``graph``; a ValueError when there are more than
    ``options.max_nodes`` (it needs only the graph's nodes, not its gradients)."""
    layout = _Layout(graph, options)
    if len(layout.items) > options.max_nodes:
        raise ValueError(too_many(len(layout.items), graph, options))
    return layout


class _Item:
    """One box of the picture: a graph node, or a collapsed module holding many."""

    def __init__(self, key, node=None, prefix=None, cluster=None):
        self.key, self.node, self.prefix, self.cluster = key, node, prefix, cluster
        self.members = []
        self.repeat, self.prefix_last = 1, prefix    # a fold of `repeat` identical modules


class _Layout:
    """Which box each node goes into (itself, or its module's box when collapsed by
    ``depth``), and which module cluster each box sits in."""

    def __init__(self, graph, options):
        self.items, self.item_of, self.uses = [], {}, {}
        for e in graph.edges:
            self.uses[e.src] = self.uses.get(e.src, 0) + 1
        boxes = {}
        depth, clustered = options.depth, options.modules == "cluster"
        for n in graph.nodes:
            parts = n.module.split(".") if n.module else []
            if depth is not None and len(parts) >= depth:
                prefix = ".".join(parts[:depth])
                box = boxes.get(prefix)
                if box is None:
                    parent = ".".join(parts[:depth - 1]) if clustered else ""
                    box = boxes[prefix] = _Item(f"m{len(boxes)}", prefix=prefix,
                                                cluster=parent or None)
                    self.items.append(box)
                box.members.append(n)
                self.item_of[n.id] = box
            else:
                item = _Item(n.id, node=n, cluster=(n.module or None) if clustered else None)
                self.items.append(item)
                self.item_of[n.id] = item
        if depth is not None and options.fold:
            self._fold(list(boxes.values()), options.module_types)

    def _fold(self, boxes, types):
        """Fold runs of identical sibling modules with consecutive indices (``layers.0``,
        ``layers.1``, ...: same class, same operations, same parameter shapes) into one box
        marked ×N. Edges between them disappear; edges into any of them merge."""
        runs = []
        for box in boxes:
            parent, _, index = box.prefix.rpartition(".")
            if not index.isdigit():
                continue
            signature = (parent, types.get(box.prefix), _signature(box.members))
            last = runs[-1] if runs else None
            if last and last[0] == signature and last[1] + 1 == int(index):
                last[1] = int(index)
                last[2].append(box)
            else:
                runs.append([signature, int(index), [box]])
        for _, _, run in runs:
            if len(run) < 2:
                continue
            first = run[0]
            first.repeat = len(run)
            first.prefix_last = run[-1].prefix
            for box in run[1:]:
                first.members.extend(box.members)
                for n in box.members:
                    self.item_of[n.id] = first
                self.items.remove(box)


def _signature(members):
    """What makes two collapsed modules identical: their operations and parameter shapes."""
    return (tuple(sorted(n.name for n in members if n.kind == "op")),
            tuple(sorted(n.shape for n in members if n.kind == "param" and n.shape)))


def _merged_edges(graph, layout):
    """Edges between boxes: ``(src key, dst key, gradient, edge indices)``. Edges inside a
    collapsed module disappear; the uses of one tensor inside one collapsed module merge into
    one edge whose gradient is their sum (that module's total contribution)."""
    groups = {}
    for i, e in enumerate(graph.edges):
        s, d = layout.item_of[e.src], layout.item_of[e.dst]
        if s is d:
            continue
        key = (s.key, d.key, e.src) if d.node is None else i
        groups.setdefault(key, (s.key, d.key, []))[2].append(i)
    return [(s, d, _sum([graph.edges[i].grad for i in group]), group)
            for s, d, group in groups.values()]


def _is_seed(group, graph, output):
    """True for the edge into the output: its δ is the seed ∂L/∂L = 1, not a gradient."""
    return all(graph.edges[i].dst == output for i in group)


def _auto_rankdir(graph):
    """Left to right for time steps (``viz.time_step``: one column per step); otherwise top to
    bottom when the longest chain has 3 operations or more (a deep graph laid out left to right
    is wider than a notebook), else left to right."""
    if has_time_steps(graph):
        return "LR"
    depth = {}
    for e in graph.edges:          # edges come in topological order of their consumers
        depth[e.dst] = max(depth.get(e.dst, 0), depth.get(e.src, 0) + 1)
    return "TB" if max(depth.values(), default=0) > 3 else "LR"


def _cluster(dot, clusters, prefix, options):
    """The subgraph for module ``prefix`` (and, empty for now, for its ancestors)."""
    parts = prefix.split(".")
    for k in range(1, len(parts) + 1):
        p = ".".join(parts[:k])
        if p not in clusters:
            kind = options.module_types.get(p)
            title = f"{p}: {kind}" if kind else p
            c = digraph(name=f"cluster_{len(clusters)}")
            c.attr(label=markup.label(title), style="rounded,filled", color="#b8b8cc",
                   fillcolor="#f7f7fc", fontcolor="#44446a", fontsize="10", labeljust="l")
            clusters[p] = c
    return clusters[prefix]


# ----------------------------------------------------------------------------------- labels
def _node_attrs(item, graph, options, timeline, layout):
    """Graphviz attributes of a box, and its label's rows as ``(text, frame it appears at)``
    (frame None: always shown)."""
    if item.node is None:
        return _box_attrs(item, options), []
    n = item.node
    uses = layout.uses.get(n.id, 0)
    rows = [(f"<B>{markup.label(n.name)}</B>", None)]
    if n.kind == "op":
        if options.modules == "label" and n.module:
            rows.append((_font(markup.label(n.module), "#666666", 9), None))
    else:
        detail = []
        if options.shapes and n.shape:
            detail.append(labels.shape(n.shape))
        if labels.dtype(n.dtype):
            detail.append(labels.dtype(n.dtype))
        if detail:
            rows.append((_font(" ".join(detail), "#555555", 9), None))
        named_by_value = n.kind == "const" and n.obj is None and n.value is not None \
            and n.value.size == 1                        # a Python number: its name is its value
        if options.values and n.value is not None and not named_by_value:
            at = None if timeline is None else timeline.value_at.get(n.id)
            rows += [(_font(markup.label(line), None, 10), at)
                     for line in labels.lines(n.value, SHORT)]
    if graph.has_grads and n.grad is not None and (n.kind != "op" or uses > 1):
        at = None if timeline is None else timeline.total_at.get(n.id)
        sign = "δ seed" if n.kind == "output" else "Σδ" if uses > 1 else "δ"
        rows += [(_font(markup.label(line), GRAD_TEXT, 10), at)
                 for line in labels.lines(n.grad, SHORT, prefix=f"{sign} ")]
    tip = _tooltip(n, timeline)
    attrs = {"label": "<" + "<BR/>".join(r for r, _ in rows) + ">", "fillcolor": FILL[_style_kind(n)],
             "tooltip": _tooltip_text(tip)}
    if timeline is not None:
        attrs["vz_tip"] = tip
    if n.kind == "param":
        attrs["style"] = "filled"
    elif n.kind == "const":
        attrs.update(style="dashed,filled", fontcolor="#555555", color="#9e9e9e")
    elif n.kind == "output":
        attrs["style"] = "rounded,filled,bold"
    return attrs, rows


def _style_kind(n):
    """The kind a node is drawn as: an input tensor that needs no gradient is "data", grey like
    a constant whatever its size; one that needs a gradient stays a blue "input", even a
    scalar. The fill says whether backward computes a δ for the tensor, not how big it is."""
    if n.kind == "input" and getattr(n.obj, "requires_grad", True) is False:
        return "data"
    return n.kind


def _box_attrs(item, options):
    k = item.repeat
    ops = sum(1 for n in item.members if n.kind == "op") // k
    params = [n for n in item.members if n.kind == "param"]
    kind = options.module_types.get(item.prefix)
    name = item.prefix if k == 1 else f"{item.prefix} … {item.prefix_last}"
    rows = [f"<B>{markup.label(name)}</B>" + (f"  <B>×{k}</B>" if k > 1 else "")]
    if kind:
        rows.append(markup.label(kind))
    summary = f"{ops} op{'s' if ops != 1 else ''}"
    if params:
        count = sum(int(n.value.size) for n in params if n.value is not None) // k
        summary += f", {len(params) // k} params ({count:,} values)"
    rows.append(_font(summary + (" each" if k > 1 else ""), "#555555", 9))
    what = (f"module {name}" if k == 1 else f"{k} identical modules {name}") + \
        " (collapsed by depth)"
    return {"label": "<" + "<BR/>".join(rows) + ">", "shape": "box3d", "style": "filled",
            "fillcolor": FILL["box"], "tooltip": markup.tooltip([what])}


def _edge_attrs(graph, g, group, scale, options, timeline):
    """Graphviz attributes of an edge, and its label's rows as ``(text, frame it appears
    at)``."""
    first = graph.edges[group[0]]
    src = graph[first.src]
    rows = []
    detail = []
    tensor_shown_by_node = src.kind in ("param", "input", "const")   # a leaf's box shows it
    if options.shapes and first.shape and not tensor_shown_by_node:
        detail.append(labels.shape(first.shape))
    if labels.dtype(first.dtype) and not tensor_shown_by_node:
        detail.append(labels.dtype(first.dtype))
    if detail:
        rows.append((_font(" ".join(detail), "#555555", None), None))
    if options.values and first.value is not None and not tensor_shown_by_node:
        at = None if timeline is None else timeline.value_at.get(first.src)
        rows += [(_font(markup.label(line), None, None), at)
                 for line in labels.lines(first.value, SHORT)]
    if graph.has_grads and g is not None:
        at = None if timeline is None else max(timeline.sent_at.get(i, 0) for i in group)
        rows += [(_font(markup.label(line), GRAD_TEXT, None), at)
                 for line in labels.lines(g, SHORT, prefix="δ ")]
    if len(group) > 1:
        rows.append((_font(f"×{len(group)} uses", "#555555", None), None))
    if src.kind == "op" and src.output:                  # the tensor's own name, first
        rows.insert(0, (f"<B>{markup.label(src.output)}</B>", None))
    head = f"{src.name} → {graph[first.dst].name} (input {first.slot})"
    if src.kind == "op" and src.output:
        head = f"{src.output}: {head}"
    tip = [(head, None)]
    if first.value is not None:
        at = None if timeline is None else timeline.value_at.get(first.src)
        tip.append((f"value {labels.array(first.value, TOOLTIP_FULL)}", at))
    if g is not None:
        at = None if timeline is None else max(timeline.sent_at.get(i, 0) for i in group)
        tip.append((labels.gradient(g, TOOLTIP_FULL), at))
    attrs = {"tooltip": _tooltip_text(tip)}
    if timeline is not None:
        attrs["vz_tip"] = tip
    if rows:
        attrs["label"] = "<" + "<BR/>".join(r for r, _ in rows) + ">"
    if g is not None:
        m = colors.magnitude(g)
        if _is_seed(group, graph, graph.root):
            attrs.update(color=colors.NONE, penwidth="1.5")
        else:
            attrs.update(color=scale.color(m), penwidth=f"{scale.width(m):.2f}")
        if m == 0:
            attrs["style"] = "dashed"
    return attrs, rows


GRAD_TEXT = "#b71c1c"      # gradient text: dark red, readable on white and on the node fills
TOOLTIP_FULL = 64          # tooltips write tensors of at most this many elements in full


def _sum(arrays):
    arrays = [a for a in arrays if a is not None]
    if not arrays:
        return None
    total = arrays[0]
    for a in arrays[1:]:
        total = total + a
    return total


def _font(text, colour=None, size=None):
    attrs = (f' COLOR="{colour}"' if colour else "") + (f' POINT-SIZE="{size}"' if size else "")
    return f"<FONT{attrs}>{text}</FONT>" if attrs else text


def _tooltip(n, timeline):
    """A box's tooltip as lines ``(text, frame it appears at)``, like its label's rows."""
    if n.kind == "op":
        where = f" (module {n.module})" if n.module else ""
        return [(f"{n.name}{where}: {n.formula}" if n.formula else n.name + where, None)]
    tip = [(f"{KIND_NAMES[n.kind]} {n.name} {labels.shape(n.shape)}", None)]
    if n.value is not None:
        at = None if timeline is None else timeline.value_at.get(n.id)
        tip.append((f"value {labels.array(n.value, TOOLTIP_FULL)}", at))
    if n.grad is not None:
        at = None if timeline is None else timeline.total_at.get(n.id)
        tip.append((labels.gradient(n.grad, TOOLTIP_FULL), at))
    return tip


def _tooltip_text(lines):
    """The whole tooltip (every line, whenever it becomes known) as a DOT string."""
    return markup.tooltip(text for text, _ in lines)


# ----------------------------------------------------------------------------------- legend
def _legend(graph, layout, scale, options):
    """An HTML table under the graph: node kinds present, the gradient colour scale, and a note
    when some values were not kept."""
    kinds = []
    for item in layout.items:
        kind = "box" if item.node is None else _style_kind(item.node)
        if kind not in kinds:
            kinds.append(kind)
    rows = []
    cells = "".join(_legend_cell(KIND_NAMES[k], FILL[k]) for k in kinds)
    rows.append(f'<TR><TD BORDER="0"><TABLE BORDER="0" CELLBORDER="1" CELLSPACING="2">'
                f'<TR>{cells}</TR></TABLE></TD></TR>')
    if scale is not None:
        ticks = "".join(
            f'<TD BGCOLOR="{scale.color(t)}"><FONT COLOR="white">{labels.number(t)}</FONT></TD>'
            for t in scale.ticks())
        rows.append('<TR><TD BORDER="0" ALIGN="LEFT">edge colour and width: rms of δ '
                    '= √mean(δ²) (the number written for large tensors), log scale; '
                    'grey dashed: δ = 0</TD></TR>')
        rows.append(f'<TR><TD BORDER="0"><TABLE BORDER="0" CELLBORDER="0" CELLSPACING="0" '
                    f'CELLPADDING="3"><TR>{ticks}</TR></TABLE></TD></TR>')
    if options.values and graph.missing_values:
        rows.append('<TR><TD BORDER="0" ALIGN="LEFT"><FONT COLOR="#777777">Some values were '
                    'not kept by the graph (only shapes shown): build it inside '
                    '`with viz.record():` to see every value.</FONT></TD></TR>')
    return '<<TABLE BORDER="0" CELLSPACING="2">' + "".join(rows) + "</TABLE>>"


def _legend_cell(text, fill):
    return f'<TD BGCOLOR="{fill}"><FONT POINT-SIZE="9">{markup.label(text)}</FONT></TD>'


# ------------------------------------------------------------------------------------ misc
def module_types(params):
    """{module path: class name} when ``params`` is a Module, for cluster titles."""
    named = getattr(params, "named_modules", None)
    if named is None:
        return {}
    return {path: type(m).__name__ for path, m in named() if path}


def too_many(count, graph, options):
    levels = max((n.module.count(".") + 1 for n in graph.nodes if n.module), default=0)
    if not levels:
        hint = ("Its operations ran outside any nn.Module, so depth cannot group them: draw a "
                "smaller piece (e.g. one batch element or one layer)")
    elif options.depth is None:
        hint = ("Pass depth=1 (or 2, ... up to " + str(levels) + ") to collapse each module at "
                "that level of the module tree into one box")
    else:
        hint = f"Pass a smaller depth than {options.depth} (1 is the coarsest)"
    return (f"viz.draw: the picture would have {count} boxes, more than max_nodes="
            f"{options.max_nodes}. {hint}, or raise max_nodes.")
