"""The local rule of an operation, written with the graph's own names and numbers:

    δ_w = δ_out · x = (-1.997) · 0.5

for the edge from ``w`` into ``z = w * x``. One rule per input edge (a fused operation such as
``Linear`` has three: δ_x, δ_weight, δ_bias), with δ for gradients; an input is called by its
tensor's name in the graph (a leaf's name, or the name given to an operation's output), or by
a letter that no tensor of the graph uses, said in words ("u: the output of Sub").

The rules themselves are the operations' own statements (``autograd/rules.py``: ``rules =
{"a": "δ_a = δ_out · b", ...}`` beside each backward), with the inputs called by forward's
parameter names, ``out`` the output, ``n`` the elements a reduction combined and ``δ_out`` the
gradient arriving at the output; here those names are swapped for the graph's names, then for
the numbers. Operations of other engines (``viz.foreign``, micrograd's ``Value``) are read as
the dagrad operation of the same name. The quiz asks with them (``viz.quiz``), the backward
frames of a step-through state them and show them with their results (``viz.steps``).
"""
import re

import numpy as np

from dagrad.autograd.function import Function
from dagrad.autograd.rules import local_rule, split

from . import labels

# the operation names of other engines (viz.foreign, micrograd's Value) and dagrad's
FOREIGN_NAMES = {"+": "Add", "add": "Add", "*": "Mul", "mul": "Mul", "-": "Sub", "sub": "Sub",
                 "/": "Div", "div": "Div", "truediv": "Div", "neg": "Neg", "tanh": "Tanh",
                 "exp": "Exp", "log": "Log", "relu": "Relu", "sigmoid": "Sigmoid"}
SPARE = ("u", "v", "p", "q", "r", "s")        # letters for inputs the graph gives no name
LONGEST_NAME = 12                              # a longer name is called by a letter instead
SHOWN = labels.FULL                            # values of at most this many elements in full
MOST_INPUTS = 8
FUNCTIONS = {"exp", "log", "sqrt", "sin", "cos", "tanh", "σ", "sign", "erf", "floor", "Φ", "φ",
             "Σ", "and", "or", "not", "π"}
_NAME = re.compile(r"δ_out|[^\W\d²³ᵀ][^\W²³ᵀ]*")


def statements(op):
    """The rule statements of operation node ``op``, one per input slot, as ``(input name,
    formula, note)``, and the constants a foreign operation's name fixes (``**2``: b = 2);
    ``(None, {})`` when the operation states no rule."""
    target, fixed = op.obj if isinstance(op.obj, Function) else None, {}
    if target is None:
        name = op.name
        if name.startswith("**") and _number(name[2:]) is not None:     # micrograd's x ** k
            target, fixed = "Pow", {"b": _number(name[2:])}
        else:
            target = FOREIGN_NAMES.get(name.lower(), name)
    found = []
    for k in range(MOST_INPUTS):
        statement = local_rule(target, k)
        if statement is None:
            break
        found.append(split(statement))
    return (found or None), fixed


def _number(text):
    try:
        return float(text)
    except ValueError:
        return None


def tensor_name(graph, node):
    """The name the graph gives the tensor ``node`` produces, or None: a leaf's name (a
    constant tensor's too, ``x_1``), an operation's output name; a Python number has none."""
    if node.kind == "op":
        return node.output
    if node.kind == "const" and node.obj is None:
        return None
    return node.name


def _taken_names(graph):
    """Every name ``graph`` shows (its tensors' and its operations' outputs), found once per
    graph: per operation it made viz.steps quadratic (3,000 operations took 25x 300)."""
    taken = graph.__dict__.get("_taken_names")
    if taken is None:
        taken = {n.name for n in graph.nodes} | {n.output for n in graph.nodes if n.output}
        graph._taken_names = taken
    return taken


class Symbols:
    """What to call the inputs and the output of operation ``op`` in its rule: the graph's
    names, or spare letters with a note saying what they stand for."""

    def __init__(self, graph, op):
        inputs = sorted(graph.edges_into(op.id), key=lambda e: e.slot)
        taken = _taken_names(graph)
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
    (``δ_h = δ_out @ weight;   δ_weight = δ_outᵀ @ h, summed over the batch; ...``), or
    None when it states none."""
    rules, fixed = statements(op)
    symbols = Symbols(graph, op)
    if rules is None or len(rules) < len(symbols.edges):
        return None
    shown = []
    for slot, e in sorted(symbols.edges.items()):
        if e.grad is not None:
            shown.append(_statement(rules, slot, _names(rules, symbols, fixed, e, op)))
    text = ";   ".join(dict.fromkeys(shown))
    return (text + _notes(symbols, text)) if shown else None


def rule_text(graph, op, edge):
    """The local rule that gives the δ on ``edge`` (into operation ``op``), in the graph's
    names, then with the numbers: ``δ_w = δ_out · x = (-1.997) · 0.5``. The result is left out:
    it is what the quiz asks for."""
    rules, fixed = statements(op)
    symbols = Symbols(graph, op)
    me = symbols.of(edge.slot)
    if rules is None or edge.slot >= len(rules) or len(rules) < len(symbols.edges):
        part = labels.formula_part(op.formula, "backward") if op.formula else ""
        rule = f"δ_{me} = δ_out · ∂{symbols.out}/∂{me}" + (f" ({part})" if part else "")
        rule += f", with δ_out = {_value(op.grad)}" if op.grad is not None else ""
        return rule + _notes(symbols, rule)
    names = _names(rules, symbols, fixed, edge, op)
    _, formula, note = rules[edge.slot]
    text = f"δ_{me} = {_substitute(formula, names)}"
    values = _numbers(rules, symbols, fixed, edge, op)
    if values is not None:
        text += f" = {_substitute(formula, values)}"
    if note:
        text += f", {note}"
    if _broadcast(edge, op):
        text += f" (summed over the axes {me} was broadcast along)"
    return text + _notes(symbols, text)


def _statement(rules, slot, names):
    _, formula, note = rules[slot]
    return f"δ_{names[rules[slot][0]]} = {_substitute(formula, names)}" + \
        (f", {note}" if note else "")


def _names(rules, symbols, fixed, edge, op):
    """forward's parameter names (and out, n, the constants of a foreign name) -> the graph's
    names for them."""
    names = {param: symbols.of(k) for k, (param, _, _) in enumerate(rules)}
    names.update({k: labels.number(v) for k, v in fixed.items()})
    names["out"] = symbols.out
    return names


def _numbers(rules, symbols, fixed, edge, op):
    """The same names -> their values as text (δ_out too), or None when one is unknown."""
    values = {}
    for k, (param, _, _) in enumerate(rules):
        e = symbols.edges.get(k)
        if e is not None:
            values[param] = _value(e.value) if e.value is not None else None
    values.update({k: labels.number(v) for k, v in fixed.items()})
    values["out"] = _value(op.value) if op.value is not None else None
    values["δ_out"] = _value(op.grad) if op.grad is not None else None
    values["n"] = _per_output(edge, op)
    needed = set(_NAME.findall(rules[edge.slot][1])) - FUNCTIONS
    if any(values.get(k, "") is None for k in needed) or values["δ_out"] is None:
        return None
    for k in needed - set(values):              # a keyword argument: the operation's value
        attr = getattr(op.obj, k, None)
        if isinstance(attr, (int, float)) and not isinstance(attr, bool):
            values[k] = labels.number(attr)
    return values


def _substitute(formula, names):
    """``formula`` with each of its names replaced by ``names[name]`` where given."""
    return _NAME.sub(lambda m: str(names.get(m.group(0), m.group(0))), formula)


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
