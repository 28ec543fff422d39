"""``trace``: the compute graph behind a tensor, as plain data that the renderers draw.

Vertices of the graph are

* ``op``     -- a recorded operation (a ``Function`` node: ``Mul``, ``Linear``, ...);
* ``param``  -- a leaf that is a model parameter (an ``nn.Parameter``, or named in ``params``);
* ``input``  -- any other leaf that requires a gradient (``x`` in ``y = x * x``), and data: a
  leaf with more than one element that needs no gradient (a batch of images, labels);
* ``const``  -- a scalar or a literal that needs no gradient (``2`` in ``2 * x``);
* ``output`` -- the root tensor itself.

There is one edge per *use* of a tensor: ``z = a * a`` has two edges from ``a`` into ``Mul``.
An edge carries the tensor flowing along it (shape, dtype, value) and, with ``grads=True``, the
gradient that this one consumer sends back, δ_e = ∂L/∂(tensor) through this use only. The
producer's total is the sum over its out-edges (multiple use: sum the incoming δ's).

Where the values come from. The graph does not keep every intermediate tensor, only what the
operations saved for backward, so a value is taken from the first of: the recorded output
(graphs built inside ``viz.record()`` keep every output), the root tensor, a leaf's array,
the output an operation saved for its backward, or the input a consumer saved for its backward.
When none has it (e.g. the output of an ``Add`` feeding another ``Add``, outside
``viz.record()``), the edge shows its shape only (known from its gradient when ``grads=True``).
Nothing is recomputed, so every value shown is the one the forward pass produced.
"""
import contextlib
import gc
import sys

import numpy as np

from dagrad.autograd import Tensor
from dagrad.autograd.function import Function
from dagrad.autograd.graph import post_order
from dagrad.autograd.recording import noted
from dagrad.autograd.versions import written_since

from .gradients import edge_gradients

KINDS = ("op", "param", "input", "const", "output")


class Node:
    """One vertex. ``value`` is the tensor it produces (None when unknown), ``grad`` the total
    gradient ∂L/∂(that tensor) (None without ``grads=True``), ``module`` the dotted path of the
    ``nn.Module`` it belongs to (None outside any module). ``output`` is the name of the tensor
    an operation produces (``h_1``, ``Q``), when the code gave it one: a ``name`` set on the
    tensor inside ``record()``, or an entry of ``names``."""

    __slots__ = ("id", "kind", "name", "module", "obj", "value", "shape", "dtype", "grad",
                 "output")

    def __init__(self, id, kind, name, module=None, obj=None, value=None, shape=None,
                 dtype=None):
        self.id, self.kind, self.name, self.module, self.obj = id, kind, name, module, obj
        self.value, self.shape, self.dtype, self.grad = value, shape, dtype, None
        self.output = None

    @property
    def formula(self):
        """The operation's formula (first line of its docstring), e.g.
        ``z = a * b;   dz/da = b,   dz/db = a``; empty for non-operations."""
        if self.kind != "op":
            return ""
        doc = (type(self.obj).__doc__ or "").strip().replace("``", "")
        return " ".join(doc.split("\n\n")[0].split())

    def __repr__(self):
        where = f" in {self.module}" if self.module else ""
        return f"<{self.kind} {self.name} {tuple(self.shape)}{where}>"


class Edge:
    """One use of a tensor: ``src`` (producer id) -> ``dst`` (consumer id), at input position
    ``slot`` of the consumer. ``value``/``shape``/``dtype`` describe the tensor, ``grad`` is the
    gradient this use sends back (None without ``grads=True`` or when none flows)."""

    __slots__ = ("src", "dst", "slot", "value", "shape", "dtype", "grad")

    def __init__(self, src, dst, slot, value, shape, dtype, grad=None):
        self.src, self.dst, self.slot = src, dst, slot
        self.value, self.shape, self.dtype, self.grad = value, shape, dtype, grad

    def __repr__(self):
        return f"<edge {self.src}->{self.dst}[{self.slot}] {tuple(self.shape)}>"


class Graph:
    """The traced graph. ``nodes`` are in forward (topological) order: every node comes after
    the nodes it reads; ``edges`` follow their consumer's order. ``root`` is the output node's
    id; ``has_grads`` says whether gradients were computed."""

    def __init__(self, nodes, edges, root, has_grads):
        self.nodes, self.edges, self.root, self.has_grads = nodes, edges, root, has_grads
        self.by_id = {n.id: n for n in nodes}

    def __getitem__(self, node_id):
        return self.by_id[node_id]

    def __len__(self):
        return len(self.nodes)

    @property
    def ops(self):
        """The operation nodes in forward order."""
        return [n for n in self.nodes if n.kind == "op"]

    def edges_from(self, node_id):
        return [e for e in self.edges if e.src == node_id]

    def edges_into(self, node_id):
        return [e for e in self.edges if e.dst == node_id]

    def find(self, name):
        """The nodes called ``name`` (an operation name such as ``"Mul"`` or a tensor name)."""
        return [n for n in self.nodes if n.name == name]

    @property
    def missing_values(self):
        """Number of edges whose value the graph did not keep (see the module docstring)."""
        return sum(e.value is None for e in self.edges)

    def __repr__(self):
        counts = {k: sum(n.kind == k for n in self.nodes) for k in KINDS}
        body = ", ".join(f"{v} {k}" for k, v in counts.items() if v)
        return f"<viz.Graph: {body}; {len(self.edges)} edges{'; grads' if self.has_grads else ''}>"


def trace(root, grads=False, params=None, gradient=None, names=None, check=None):
    """The graph behind tensor ``root``.

    Args:
        root: the Tensor to trace back from (e.g. a loss), or a value of another engine
            that follows ``viz.foreign``'s protocol (micrograd's ``Value``: ``data``,
            ``grad``, ``_prev``, ``_op``), drawn with the gradients its backward left.
        grads: also compute the gradient on every edge. Runs the backward engine with an edge
            observer on a retained graph: no tensor's ``.grad`` changes and ``root.backward()``
            still works afterwards. The seed is ∂L/∂root = ``gradient``, or ones (for a
            non-scalar root that means L = root.sum()).
        params: names for parameter leaves: an ``nn.Module`` (its ``named_parameters()``), a
            dict ``{name: tensor}`` or an iterable of ``(name, tensor)`` pairs. Unnamed leaves use
            ``Tensor.name``.
        names: ``{name: tensor}`` naming any tensors, e.g. ``names=locals()`` (entries that are
            not Tensors, and names starting with ``_``, are ignored); a name from ``params`` or
            ``Tensor.name`` wins.
        check: called with the graph before any gradient is computed (its nodes and edges,
            no δ yet); it raises to refuse the graph. ``draw`` and ``steps`` count the boxes
            of the picture there, so a picture too large to draw costs no backward pass.

    Returns a :class:`Graph`. The traversal is iterative, so graphs of any depth work.
    """
    if not isinstance(root, Tensor):
        from . import foreign     # here, not above: foreign builds on this module's Graph
        if foreign.follows_protocol(root):
            return foreign.trace(root, grads, names)
        raise TypeError(f"viz.trace: expected a Tensor, or a value of another engine with "
                        f"data, grad, _prev and _op (docs/viz.md, foreign graphs), got "
                        f"{type(root).__name__}")
    with _gc_paused():
        return _trace(root, grads, _param_names(params), gradient, _variable_names(names),
                      _output_names(names), check)


@contextlib.contextmanager
def _gc_paused():
    """Pause Python's cycle collector: tracing allocates an object per vertex and edge, and
    each automatic collection would rescan the whole (large, acyclic) graph."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


def _trace(root, grads, names, gradient, variables, outputs, check):
    root_vertex = root.grad_fn if root.grad_fn is not None else root
    order = post_order([root_vertex])
    graph, vertex_of, use_of = _structure(root, root_vertex, order, names, variables, outputs)
    _complete(graph.nodes, graph.edges)
    if check is not None:
        check(graph)               # before any gradient: a refused picture costs no backward
    if grads:
        edge_grads, totals = edge_gradients(root, order, gradient)
        seed = totals.get(root_vertex)
        for node in graph.nodes:
            vertex = vertex_of.get(node.id)
            node.grad = seed if node.id == graph.root else totals.get(vertex)
        for e, use in zip(graph.edges, use_of):
            e.grad = seed if use is None else edge_grads.get(use)
            if e.shape is None and e.grad is not None:     # a value the graph did not keep
                e.shape, e.dtype = e.grad.shape, e.grad.dtype
        graph.has_grads = True
        _complete(graph.nodes, graph.edges)
    return graph


def _structure(root, root_vertex, order, names, variables, outputs):
    """The graph without gradients, with ``{node id: vertex}`` and, for each edge, the
    ``(operation, input slot)`` it stands for (None for the edge into the output node)."""
    consumers = _consumers(order)
    known = _known_values(order, consumers, root)
    nodes, edges, ids, vertex_of, use_of = [], [], {}, {}, []

    def add(kind, name, module=None, obj=None, value=None):
        node = Node(f"n{len(nodes)}", kind, name, module, obj, value,
                    *_shape_dtype(value))
        nodes.append(node)
        return node

    for v in order:
        if not isinstance(v, Function):
            ids[v] = _leaf_node(add, v, names, variables)
            vertex_of[ids[v].id] = v
            continue
        note = noted(v)
        inputs = v.inputs if note is None else note.inputs
        sources = []
        for slot, p in enumerate(v.parents):
            if p is not None:
                sources.append((slot, ids[p]))
                named = slot < len(inputs) and isinstance(inputs[slot], Tensor) and inputs[slot].name
                if named and isinstance(p, Function):        # recorded, named, made by an operation
                    ids[p].output = ids[p].output or inputs[slot].name
                continue
            kept = slot < len(inputs)                       # an input that needs no gradient
            if kept and inputs[slot] is None:               # an optional input left out
                continue
            sources.append((slot, _const_node(add, inputs[slot] if kept else None, v.module,
                                              ids, variables)))
        node = ids[v] = add("op", v.name, v.module, v, known.get(v))
        vertex_of[node.id] = v
        node.output = outputs.get(id(v))
        for slot, src in sources:
            edges.append(Edge(src.id, node.id, slot, src.value, *_shape_dtype(src.value, None, src)))
            use_of.append((v, slot))

    # the root tensor itself, as an output node fed by its producer
    out = add("output", root.name or variables.get(id(root)) or "output", None, root,
              root._data)
    src = ids.get(root_vertex)
    if src is not None:
        edges.append(Edge(src.id, out.id, 0, root._data, root.shape, root.dtype))
        use_of.append(None)
    return Graph(nodes, edges, out.id, False), vertex_of, use_of


def _complete(nodes, edges):
    """Fill in what the edges tell about their producers: the shape of a tensor whose value is
    unknown (from the gradient that flowed back along it), and the module of a leaf tensor that
    is not named by a module path, when all its consumers ran in the same module."""
    consumer_modules = {}
    by_id = {n.id: n for n in nodes}
    for e in edges:
        n = by_id[e.src]
        if n.shape is None and e.shape is not None:
            n.shape, n.dtype = e.shape, e.dtype
        consumer_modules.setdefault(e.src, set()).add(by_id[e.dst].module)
    for e in edges:
        if e.shape is None:
            n = by_id[e.src]
            e.shape, e.dtype = n.shape, n.dtype
    for n in nodes:
        if n.kind in ("param", "input", "const") and n.module is None and n.obj is not None:
            mods = consumer_modules.get(n.id, ())
            if len(mods) == 1:
                n.module = next(iter(mods))


def _consumers(order):
    """{vertex: [(consumer node, slot)]}, to find saved input values."""
    consumers = {}
    for v in order:
        if isinstance(v, Function):
            for slot, p in enumerate(v.parents):
                if p is not None:
                    consumers.setdefault(p, []).append((v, slot))
    return consumers


def _known_values(order, consumers, root):
    """The output value of every operation vertex the graph still knows (module docstring)."""
    known = {}
    for v in order:
        if not isinstance(v, Function):
            continue
        note = noted(v)
        if note is not None:
            known[v] = note.value
        elif v is root.grad_fn:
            known[v] = root._data
        elif v.saves_output and v.saved:
            known[v] = v.saved[-1]
        else:
            for consumer, slot in consumers.get(v, ()):
                x = _saved_input(consumer, slot)
                if x is not None:
                    known[v] = x
                    break
    return known


def _saved_input(node, slot):
    """The value of input ``slot`` of ``node`` if the node kept it (as a tensor, or as the
    array of an operation's output) and it is unchanged."""
    note = noted(node)
    inputs, tick = (node.inputs, node.tick) if note is None else (note.inputs, note.tick)
    if slot >= len(inputs):
        return None
    value = inputs[slot]._data if isinstance(inputs[slot], Tensor) else inputs[slot]
    if not isinstance(value, np.ndarray) or written_since(value, tick):
        return None
    return value


def _leaf_node(add, t, names, variables):
    """The node of a leaf tensor: a parameter (an nn.Parameter or named in ``params``, whose
    module is the name's prefix: ``0.weight`` is in module ``0``), an input, or a constant."""
    named = id(t) in names
    name = names.get(id(t)) or t.name or variables.get(id(t))
    if not t.requires_grad:
        kind = "input" if t._data.size > 1 else "const"
    elif named or _is_parameter(t):
        kind = "param"
    else:
        kind = "input"
    module = (name.rpartition(".")[0] or None) if named else None
    return add(kind, name or ("param" if kind == "param" else "leaf"), module, t, t._data)


def _const_node(add, x, module, ids, variables):
    """The node for an input that needs no gradient: one per tensor (shared between its uses;
    data with more than one element is an input, a scalar a constant), or a fresh constant in
    the consumer's ``module`` for a number or array, or when the consumer did not keep its
    inputs (the value is then unknown)."""
    if isinstance(x, Tensor) and x in ids:
        return ids[x]
    if isinstance(x, Tensor):       # its module, if any, comes from its uses (_complete)
        kind = "input" if x._data.size > 1 else "const"
        name = x.name or variables.get(id(x)) or ("input" if kind == "input" else "const")
        node = add(kind, name, None, x, x._data)
        ids[x] = node
        return node
    value = None if x is None else np.asarray(x)
    label = _number_label(value) if value is not None else "const"
    node = add("const", label, module, None, value)
    if isinstance(x, (int, float, bool)):
        node.dtype = None          # a Python number takes the dtype of the other operand
    return node


def _number_label(value):
    if value.size == 1:
        return f"{value.item():.4g}"
    return "const"


def _shape_dtype(value, grad=None, node=None):
    """(shape, dtype) of a tensor, from its value, else from a gradient flowing along it."""
    if value is not None:
        value = np.asarray(value)
        return value.shape, value.dtype
    if grad is not None:
        return grad.shape, grad.dtype
    if node is not None:
        return node.shape, node.dtype
    return None, None


def _param_names(params):
    """{id(tensor): name} from a Module, a dict or (name, tensor) pairs."""
    if params is None:
        return {}
    if hasattr(params, "named_parameters"):
        params = params.named_parameters()
    items = params.items() if isinstance(params, dict) else params
    names = {}
    for name, t in items:
        if not isinstance(t, Tensor):
            raise TypeError(f"viz: params must map names to Tensors; '{name}' is "
                            f"{type(t).__name__}")
        names.setdefault(id(t), name)
    return names


def _variable_names(names):
    """{id(tensor): name} from ``{name: tensor}`` such as ``locals()``."""
    if names is None:
        return {}
    return {id(t): name for name, t in names.items()
            if isinstance(t, Tensor) and not name.startswith("_")}


def _output_names(names):
    """{id(operation): name} for the tensors of ``{name: tensor}`` that an operation produced:
    the edges leaving that operation carry the name."""
    if names is None:
        return {}
    return {id(t.grad_fn): name for name, t in names.items()
            if isinstance(t, Tensor) and t.grad_fn is not None and not name.startswith("_")}


def _is_parameter(t):
    """True for ``nn.Parameter`` leaves. ``nn`` is not imported for this: if it has not been
    imported, no Parameter exists."""
    parameter = getattr(sys.modules.get("dagrad.nn"), "Parameter", None)
    return parameter is not None and isinstance(t, parameter)
