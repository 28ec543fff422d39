"""The local rule of an operation, written with the graph's own names and numbers:

    δ_w = δ_out · x = (-1.997) · 0.5

for the edge from ``w`` into ``z = w * x``. One rule per input edge (a fused operation such as
``Linear`` has three: δ_x, δ_W, δ_b), with δ for gradients; an input is called by its tensor's
name in the graph (a leaf's name, or the name given to an operation's output), or by a letter
that no tensor of the graph uses, said in words ("u: the output of Sub").

``RULES`` holds the rule of each operation as one template per input: ``{0}``, ``{1}``, ...
stand for the inputs, ``{out}`` for the output, ``{n}`` for the number of input elements per
output element, and ``δ_out`` is the gradient arriving at the output; a remark after ``; `` is
said once, after the numbers. The quiz asks with them (``viz.quiz``), the backward frames of a step-through show them
with their results (``viz.steps``).
"""
import re

import numpy as np

from . import labels

RULES = {
    "Add": ("δ_{0} = δ_out", "δ_{1} = δ_out"),
    "Sub": ("δ_{0} = δ_out", "δ_{1} = −δ_out"),
    "Mul": ("δ_{0} = δ_out · {1}", "δ_{1} = δ_out · {0}"),
    "Div": ("δ_{0} = δ_out / {1}", "δ_{1} = −δ_out · {0} / {1}²"),
    "Neg": ("δ_{0} = −δ_out",),
    "Pow": ("δ_{0} = δ_out · {1} · {0}^({1} − 1)", "δ_{1} = δ_out · {out} · log {0}"),
    "Exp": ("δ_{0} = δ_out · {out}",),
    "Log": ("δ_{0} = δ_out / {0}",),
    "Sqrt": ("δ_{0} = δ_out / (2 · {out})",),
    "Abs": ("δ_{0} = δ_out · sign({0})",),
    "Sin": ("δ_{0} = δ_out · cos {0}",),
    "Cos": ("δ_{0} = −δ_out · sin {0}",),
    "Tanh": ("δ_{0} = δ_out · (1 − {out}²)",),
    "Sigmoid": ("δ_{0} = δ_out · {out} · (1 − {out})",),
    "Relu": ("δ_{0} = δ_out · [{0} > 0]",),
    "Sum": ("δ_{0} = δ_out; copied to every element that was summed",),
    "Mean": ("δ_{0} = δ_out / {n}; copied to each of the {n} elements averaged",),
    "MatMul": ("δ_{0} = δ_out @ {1}ᵀ", "δ_{1} = {0}ᵀ @ δ_out"),
    "Linear": ("δ_{0} = δ_out @ {1}", "δ_{1} = δ_outᵀ @ {0}",
               "δ_{2} = Σ δ_out; summed over the batch's rows"),
}
# the operation names of other engines (viz.foreign, micrograd's Value) with a rule above
FOREIGN_NAMES = {"+": "Add", "add": "Add", "*": "Mul", "mul": "Mul", "-": "Sub", "sub": "Sub",
                 "/": "Div", "div": "Div", "neg": "Neg", "tanh": "Tanh", "exp": "Exp",
                 "log": "Log", "relu": "Relu", "sigmoid": "Sigmoid"}
SPARE = ("u", "v", "p", "q", "r", "s")        # letters for inputs the graph gives no name
LONGEST_NAME = 12                              # a longer name is called by a letter instead
SHOWN = labels.FULL                            # values of at most this many elements in full


def templates(op):
    """The rule templates of operation node ``op`` (one per input), or None."""
    name = op.name
    found = RULES.get(name) or RULES.get(FOREIGN_NAMES.get(name.lower(), ""))
    if found is None and name.startswith("**"):                 # micrograd's power x ** k
        found = (f"δ_{{0}} = δ_out · {name[2:]} · {{0}}^({name[2:]} − 1)",)
    return found


def tensor_name(graph, node):
    """The name the graph gives the tensor ``node`` produces, or None: a leaf's name (a
    constant tensor's too, ``x_1``), an operation's output name; a Python number has none."""
    if node.kind == "op":
        return node.output
    if node.kind == "const" and node.obj is None:
        return None
    return node.name


class Symbols:
    """What to call the inputs and the output of operation ``op`` in its rule: the graph's
    names, or spare letters with a note saying what they stand for."""

    def __init__(self, graph, op):
        inputs = sorted(graph.edges_into(op.id), key=lambda e: e.slot)
        taken = {n.name for n in graph.nodes} | {n.output for n in graph.nodes if n.output}
        spare = [s for s in SPARE if s not in taken]
        self.names, self.notes, self.edges = {}, [], {e.slot: e for e in inputs}
        given = {}
        for e in inputs:
            src = graph[e.src]
            name = tensor_name(graph, src)
            if name is None and src.kind == "const" and e.value is not None \
                    and np.size(e.value) == 1:                  # a Python number: its value
                name = labels.number(np.asarray(e.value).reshape(()))
            if name and len(name) <= LONGEST_NAME:
                self.names[e.slot] = name
            elif e.src in given:                 # the same tensor used twice (x * x)
                self.names[e.slot] = given[e.src]
            else:
                letter = spare.pop(0) if spare else f"in{e.slot}"
                self.names[e.slot] = letter
                what = f"the output of {src.name}" if src.kind == "op" else src.name
                self.notes.append(f"{letter}: {what}")
            given.setdefault(e.src, self.names[e.slot])
        self.out = op.output if op.output and len(op.output) <= LONGEST_NAME else "out"

    def of(self, slot):
        return self.names.get(slot, f"in{slot}")


def named_rules(graph, op):
    """Every rule of operation ``op`` in the graph's names, one per input that receives a δ
    (``δ_h = δ_out @ W;   δ_W = δ_outᵀ @ h;   δ_b = Σ δ_out``), or None when it has none."""
    rules = templates(op)
    symbols = Symbols(graph, op)
    count = max(symbols.edges, default=-1) + 1
    if rules is None or len(rules) < count:
        return None
    names = [symbols.of(k) for k in range(len(rules))]
    shown = []
    for slot, e in sorted(symbols.edges.items()):
        if e.grad is None:
            continue
        template, _, remark = rules[slot].partition("; ")
        n = _per_output(e, op)
        text = template.format(*names, out=symbols.out, n=n)
        shown.append(text + (f" ({remark.format(n=n)})" if remark else ""))
    text = ";   ".join(dict.fromkeys(shown))
    return (text + _notes(symbols, text)) if shown else None


def rule_text(graph, op, edge):
    """The local rule that gives the δ on ``edge`` (into operation ``op``), in the graph's
    names, then with the numbers: ``δ_w = δ_out · x = (-1.997) · 0.5``. The result is left out:
    it is what the quiz asks for."""
    symbols = Symbols(graph, op)
    rules = templates(op)
    count = max(symbols.edges, default=-1) + 1
    me = symbols.of(edge.slot)
    if rules is None or edge.slot >= len(rules) or len(rules) < count:
        part = labels.formula_part(op.formula, "backward") if op.formula else ""
        rule = f"δ_{me} = δ_out · ∂{symbols.out}/∂{me}" + (f" ({part})" if part else "")
        numbers = f"δ_out = {_value(op.grad)}" if op.grad is not None else ""
        rule += f", with {numbers}" if numbers else ""
        return rule + _notes(symbols, rule)
    template, _, remark = rules[edge.slot].partition("; ")
    n = _per_output(edge, op)
    named = template.format(*[symbols.of(k) for k in range(len(rules))], out=symbols.out, n=n)
    rhs = template.split("=", 1)[1]
    values = [_value(symbols.edges[k].value) if k in symbols.edges else "?"
              for k in range(len(rules))]
    upstream = _value(op.grad)
    with_numbers = rhs.format(*values, out=_value(op.value), n=n).replace("δ_out", upstream)
    text = f"{named} ={with_numbers}" if "?" not in values and upstream != "?" else named
    if remark:
        text += f" ({remark.format(n=n)})"
    if _broadcast(edge, op):
        text += f" (summed over the axes {me} was broadcast along)"
    return text + _notes(symbols, text)


def _per_output(edge, op):
    """Input elements per output element (the n of a mean), or "?"."""
    if edge.shape is None or op.grad is None:
        return "?"
    return str(int(round(np.prod(edge.shape) / max(1, np.size(op.grad)))))


def _notes(symbols, text):
    """What the letters ``text`` uses stand for."""
    used = [n for n in symbols.notes
            if re.search(rf"(?<![A-Za-z0-9.]){re.escape(n.split(':')[0])}(?![\w.])", text)]
    return f"  ({'; '.join(used)})" if used else ""


def _broadcast(edge, op):
    return (edge.shape is not None and op.grad is not None and op.name not in
            ("Sum", "Mean", "MatMul", "Linear")
            and tuple(edge.shape) != tuple(np.shape(op.grad)))


def _value(a):
    """A value as it goes into a rule: in full when small, a negative number in brackets."""
    if a is None:
        return "?"
    a = np.asarray(a)
    text = labels.array(a, SHOWN)
    if a.size > SHOWN:
        return f"({text})"
    return f"({text})" if re.match(r"-", text) and a.ndim == 0 else text
