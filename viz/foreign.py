"""Graphs of other engines: any object that follows a small protocol is traced like a Tensor,
so a student's own scalar engine, or micrograd's ``Value`` as it is, gets the same picture.

The protocol (micrograd's attribute names; the second name of each pair is accepted too):

* ``data``  -- the value, a number or an array;
* ``grad``  -- ∂L/∂(this value) as the engine's own backward left it (a number or array);
* ``_prev`` or ``inputs`` -- the values this one was computed from (a set or a sequence;
  empty for a leaf);
* ``_op`` or ``op`` -- the name of the operation that made it (``""`` for a leaf);
* optionally ``label`` or ``name`` -- a name to show (else the name in ``names=``, else the
  leaf's value).

What is drawn on an edge from input u into the value v made by an operation: the gradient this
one use sends back, δ_e = v.grad · ∂v/∂u (the consumer's local contribution). Such an engine
keeps only a total ``.grad`` per value, so viz computes ∂v/∂u from the operation's name and
the values, with the rule the dagrad operation of that name states (``autograd/rules.py``:
+, *, **k, -, /, neg, tanh, exp, log, relu, sigmoid). For an
operation it does not know, the edge shows u.grad when that edge is u's only use (then all of
u's gradient came along it), and no δ otherwise. Nothing is recomputed: the totals are the
engine's, so a wrong backward in the engine shows as a node whose Σδ differs from the δ's on
its edges.
"""
import numpy as np

from dagrad.autograd.rules import evaluate

from . import labels
from . import markup
from .draw import Emphasis
from .rules import statements
from .trace import Edge, Graph, Node


def follows_protocol(obj):
    """True for an object viz can trace as a foreign value (see the module docstring)."""
    return (hasattr(obj, "data") and hasattr(obj, "grad")
            and (hasattr(obj, "_prev") or hasattr(obj, "inputs"))
            and (hasattr(obj, "_op") or hasattr(obj, "op")))


def inputs_of(v):
    prev = v._prev if hasattr(v, "_prev") else v.inputs
    return list(prev or ())


def op_of(v):
    op = v._op if hasattr(v, "_op") else v.op
    return str(op or "")


def _float64(x):
    """A foreign engine's number or list as a float64 array (None stays None)."""
    return None if x is None else np.asarray(x, dtype=np.float64)


def _python_number(x):
    return isinstance(x, (int, float)) and not isinstance(x, bool)


# ------------------------------------------------------------------------- local derivatives
def local_derivatives(op, inputs, out):
    """∂out/∂input for each of ``inputs`` (arrays, in the engine's order, without repeats when
    the engine keeps a set) of an operation named ``op``, or None when the rule is unknown:
    the dagrad operation of the same name's stated rule (``autograd/rules.py``) computed with
    δ_out = 1.

    ``x * x`` and ``x + x`` have one distinct input in an engine that keeps a set: the local
    derivative is then that of both uses together (2x and 2)."""
    rules, fixed = statements(Node("", "op", op))
    if rules is None:
        return None
    free = [k for k, (param, _, _) in enumerate(rules) if param not in fixed]
    values = {"δ_out": 1.0, "out": out, **fixed}
    if len(inputs) == len(free):
        values.update({rules[k][0]: x for k, x in zip(free, inputs)})
        groups = [[k] for k in free]
    elif len(inputs) == 1 and len(free) == 2:   # one distinct input used by both slots
        values.update({rules[k][0]: inputs[0] for k in free})
        groups = [free]
    else:
        return None
    try:
        return [sum(np.broadcast_to(evaluate(_formula(rules[k]), values), np.shape(out))
                    for k in group) for group in groups]
    except (KeyError, ValueError, TypeError):
        return None


def _formula(rule):
    param, formula, _ = rule
    return f"δ_{param} = {formula}"


# the forward formula of each operation of other engines (its derivative is dagrad's rule)
FORWARD = {
    "+": "z = a + b", "*": "z = a * b", "-": "z = a - b", "/": "z = a / b",
    "**": "y = x ** k", "neg": "y = -x", "tanh": "y = tanh x", "exp": "y = exp(x)",
    "log": "y = log(x)", "relu": "y = max(x, 0)", "sigmoid": "y = σ(x)",
}
ALIASES = {"add": "+", "mul": "*", "sub": "-", "div": "/", "truediv": "/"}
_OPERATION_TYPES = {}


def operation(op):
    """A stand-in for the operation that made a foreign value: ``viz.Node.formula`` reads the
    formula from its class's docstring, as it does for dagrad's operations."""
    key = op.lower()
    key = "**" if key.startswith("**") else ALIASES.get(key, key)
    cls = _OPERATION_TYPES.get(key)
    if cls is None:
        cls = _OPERATION_TYPES[key] = type(f"Foreign_{len(_OPERATION_TYPES)}", (),
                                           {"__doc__": FORWARD.get(key, "")})
    return cls()


# ------------------------------------------------------------------------------------ trace
def post_order(root):
    """Foreign values reachable from ``root``, each after its inputs, without recursion."""
    order, seen, stack = [], {id(root)}, [(root, inputs_of(root), 0)]
    while stack:
        v, ins, i = stack[-1]
        if i < len(ins):
            stack[-1] = (v, ins, i + 1)
            u = ins[i]
            if id(u) not in seen:
                seen.add(id(u))
                stack.append((u, inputs_of(u), 0))
        else:
            stack.pop()
            order.append(v)
    return order


def trace(root, grads=False, names=None):
    """The ``viz.Graph`` of a foreign value ``root`` (see the module docstring). With
    ``grads=True`` the engine's ``.grad`` must have been filled by its backward."""
    variables = {id(v): k for k, v in (names or {}).items()
                 if not k.startswith("_") and follows_protocol(v)}
    order = post_order(root)
    if grads:
        seed = _float64(root.grad)
        if seed is None or not np.any(seed):
            raise ValueError("viz: grads=True draws the gradients your engine computed, but the "
                             f"root's .grad is {root.grad!r}: call its backward() first (viz "
                             "cannot run another engine's backward)")
    uses = {}
    for v in order:
        for u in inputs_of(v):
            uses[id(u)] = uses.get(id(u), 0) + 1
    nodes, edges, ids = [], [], {}

    def add(kind, name, obj, value, grad):
        a = _float64(value)
        node = Node(f"n{len(nodes)}", kind, name, None, obj, a,
                    None if a is None else a.shape,
                    None if _python_number(value) or a is None else a.dtype)
        node.grad = _float64(grad) if grads else None
        nodes.append(node)
        return node

    for v in order:
        ins = inputs_of(v)
        name = _name(v, variables)
        if not ins:
            ids[id(v)] = add("input", name or _number(v.data), v, v.data, v.grad)
            continue
        op = op_of(v) or "op"
        node = ids[id(v)] = add("op", op, operation(op), v.data, v.grad)
        local = None
        if grads:
            out = _float64(v.data)
            local = local_derivatives(op, [_float64(u.data) for u in ins], out)
        for slot, u in enumerate(ins):
            g = None
            if grads:
                if local is not None:
                    g = _float64(v.grad) * local[slot]
                elif uses[id(u)] == 1:
                    g = _float64(u.grad)
            src = ids[id(u)]
            edges.append(Edge(src.id, node.id, slot, src.value, src.shape, src.dtype, g))
    out = add("output", _name(root, variables) or "output", root, root.data, root.grad)
    src = ids[id(root)]
    if src.kind == "op":
        edges.append(Edge(src.id, out.id, 0, out.value, out.shape, out.dtype,
                          out.grad if grads else None))
    graph = Graph(nodes, edges, out.id, bool(grads))
    if grads:
        graph.disagreements = disagreements(graph)
        graph.emphasis = _emphasis(graph, graph.disagreements)
    return graph


def disagreements(graph, rtol=1e-6, atol=1e-9):
    """{node id: Σ of the δ's on its out-edges} for every value whose ``.grad`` (as the engine
    computed it) differs from that sum: the engine's backward went wrong there, or before.
    Values with an edge of unknown δ are not judged."""
    sums, unknown = {}, set()
    for e in graph.edges:
        if e.grad is None:
            unknown.add(e.src)
        else:
            sums[e.src] = sums.get(e.src, 0.0) + e.grad
    found = {}
    for n in graph.nodes:
        if n.id in sums and n.id not in unknown and n.grad is not None and \
                not np.allclose(n.grad, sums[n.id], rtol=rtol, atol=atol):
            found[n.id] = sums[n.id]
    return found


def _emphasis(graph, found):
    """Marks, in words, for the values whose ``.grad`` disagrees with their edges."""
    if not found:
        return None
    marks = {}
    for node_id, total in found.items():
        text = markup.label(f"⚠ .grad is {labels.array(graph[node_id].grad, 3)}, but its "
                             f"edges' δ's add up to {labels.array(total, 3)}")
        marks[node_id] = ({"color": "#d50000", "penwidth": "2.5", "style": "rounded,filled,dashed"},
                          [f'<FONT COLOR="#d50000" POINT-SIZE="10">{text}</FONT>'])
    return Emphasis(marks)


def _name(v, variables):
    for attr in ("label", "name"):
        text = getattr(v, attr, None)
        if isinstance(text, str) and text:
            return text
    return variables.get(id(v))


def _number(x):
    a = np.asarray(x)
    return f"{a.item():.4g}" if a.size == 1 else "leaf"
