"""One statement of each derivative: an operation's local rule per input, in the lessons'
notation. The quiz (``viz/quiz.py``), the rules of foreign graphs (``viz/foreign.py``) and the
factors ``check_backward`` knows read it here instead of keeping tables of their own.

Each operation class states its rules beside its backward, one per input, keyed by forward's
parameter name (``*xs`` for all inputs of a variadic operation)::

    class Mul(Function):
        rules = {"a": "δ_a = δ_out · b", "b": "δ_b = δ_out · a"}

A statement reads ``δ_<input> = <formula>``, optionally followed by ``, <words>`` (a note for
the reader, e.g. "copied to every element that was summed"), where δ is ∂L/∂(·): ``δ_out`` is
the gradient arriving at the operation's output, ``δ_a`` the one it sends to input ``a``. A
formula is written with

* names: ``δ_out``, ``out`` (the output), the inputs, forward's keyword arguments (``alpha``),
  ``n`` (how many elements a reduction combined) and ``π``;
* numbers, ``+ − · /``, powers ``a^(b − 1)``, ``x²``, ``x³``, the matrix product ``@`` and ``ᵀ``
  after a name (its last two axes swapped);
* ``[condition]``, 1 where it holds and 0 elsewhere, with ``< > ≤ ≥ = ≠`` (chained:
  ``[lo ≤ x ≤ hi]``), ``and``, ``or``, ``not``;
* the functions ``exp log sqrt sin cos tanh σ sign erf floor Φ φ`` (Φ and φ the standard
  normal distribution and density) and ``Σ``, a sum along the operation's ``axis``; an
  argument is always in parentheses.

``local_rule(op, input)`` returns a statement; ``evaluate(statement, values)`` computes its
formula with NumPy (``values`` maps the names to arrays). With ``δ_out = 1`` an elementwise
rule gives the local derivative ∂out/∂input.
"""
import ast
import inspect
import math
import re

import numpy as np

from .function import Function


def local_rule(op, input):
    """The statement of ``op``'s local rule for ``input``, or None when ``op`` states none.

    ``op``: an operation class, one of its nodes, or its name (``"Mul"``); ``input``: forward's
    parameter name (``"a"``) or the input's position (0, 1, ...)."""
    cls = op if isinstance(op, type) else type(op) if isinstance(op, Function) else _named(op)
    if cls is None or not cls.rules:
        return None
    if isinstance(input, str):
        return cls.rules.get(input)
    names, variadic = _input_names(cls)
    if input < len(names):
        return cls.rules.get(names[input])
    return cls.rules.get(variadic) if variadic else None


def split(statement):
    """(input name, formula, note) of a statement ``δ_a = δ_out · b, a note``."""
    match = _STATEMENT.fullmatch(statement)
    if match is None:
        raise ValueError(f"not a rule statement 'δ_<input> = <formula>[, <note>]': "
                         f"{statement!r}")
    name, rest = match.groups()
    depth = 0
    for i, ch in enumerate(rest):
        if ch in "([":
            depth += 1
        elif ch in ")]":
            depth -= 1
        elif ch == "," and depth == 0:          # a comma outside brackets starts the note
            return name, rest[:i].strip(), rest[i + 1:].strip()
    return name, rest.strip(), ""


def evaluate(statement, values):
    """The formula of ``statement`` computed with NumPy; ``values`` maps its names (``δ_out``,
    ``out``, the inputs, keyword arguments, ``n``, ``axis`` for ``Σ``) to numbers or arrays."""
    tree = ast.parse(_as_python(split(statement)[1]), mode="eval")
    return np.asarray(_Evaluator(values).visit(tree.body), dtype=np.float64)


_STATEMENT = re.compile(r"δ_(\w+) = (.+)", re.S)
_SYMBOLS = [("·", "*"), ("−", "-"), ("^", "**"), ("²", "**2"), ("³", "**3"), ("≤", "<="),
            ("≥", ">="), ("≠", "!="), ("[", "("), ("]", ")")]


def _as_python(formula):
    """The formula in Python's syntax (``·`` to ``*``, ``bᵀ`` to ``_T(b)``, ``=`` to ``==``)."""
    for symbol, python in _SYMBOLS:
        formula = formula.replace(symbol, python)
    formula = re.sub(r"(?<![<>!=])=(?!=)", "==", formula)
    return re.sub(r"(\w+)ᵀ", r"_T(\1)", formula)


def _phi(x):
    return np.exp(-0.5 * np.square(x)) / math.sqrt(2 * math.pi)


_erf = np.frompyfunc(math.erf, 1, 1)

_FUNCTIONS = {
    "exp": np.exp, "log": np.log, "sqrt": np.sqrt, "sin": np.sin, "cos": np.cos,
    "tanh": np.tanh, "σ": lambda x: 1 / (1 + np.exp(-x)), "sign": np.sign, "floor": np.floor,
    "erf": lambda x: _erf(x).astype(np.float64),
    "Φ": lambda x: 0.5 * (1 + _erf(np.asarray(x) / math.sqrt(2)).astype(np.float64)),
    "φ": _phi, "_T": lambda x: np.swapaxes(x, -1, -2),
}
_OPERATORS = {ast.Add: np.add, ast.Sub: np.subtract, ast.Mult: np.multiply,
              ast.Div: np.divide, ast.Pow: np.power, ast.MatMult: np.matmul}
_COMPARISONS = {ast.Lt: np.less, ast.LtE: np.less_equal, ast.Gt: np.greater,
                ast.GtE: np.greater_equal, ast.Eq: np.equal, ast.NotEq: np.not_equal}


class _Evaluator(ast.NodeVisitor):
    """Computes the small language of the formulas; any other Python raises."""

    def __init__(self, values):
        self.values = {"π": math.pi, **values}

    def generic_visit(self, node):
        raise ValueError(f"a rule's formula cannot contain {ast.unparse(node)!r}")

    def visit_Constant(self, node):
        return node.value

    def visit_Name(self, node):
        if node.id not in self.values:
            raise KeyError(f"the formula needs a value for {node.id!r}")
        return np.asarray(self.values[node.id])

    def visit_BinOp(self, node):
        return _OPERATORS[type(node.op)](self.visit(node.left), self.visit(node.right))

    def visit_UnaryOp(self, node):
        value = self.visit(node.operand)
        return np.logical_not(value) if isinstance(node.op, ast.Not) else (
            -value if isinstance(node.op, ast.USub) else +value)

    def visit_BoolOp(self, node):
        combine = np.logical_and if isinstance(node.op, ast.And) else np.logical_or
        result = self.visit(node.values[0])
        for value in node.values[1:]:
            result = combine(result, self.visit(value))
        return result

    def visit_Compare(self, node):
        left, result = self.visit(node.left), True
        for op, right in zip(node.ops, node.comparators):
            right = self.visit(right)
            result = np.logical_and(result, _COMPARISONS[type(op)](left, right))
            left = right
        return result.astype(np.float64)

    def visit_Call(self, node):
        name = getattr(node.func, "id", None)
        args = [self.visit(a) for a in node.args]
        if name == "Σ":
            return np.sum(*args, axis=self.values.get("axis"), keepdims=True)
        if name not in _FUNCTIONS:
            raise ValueError(f"a rule's formula cannot call {ast.unparse(node.func)!r}")
        return _FUNCTIONS[name](*args)


def _named(name):
    """The operation class of autograd's ops called ``name``, or None."""
    pending, prefix = [Function], __name__.rpartition(".")[0] + ".ops."
    while pending:
        cls = pending.pop()
        if cls.__name__ == name and cls.__module__.startswith(prefix):
            return cls
        pending.extend(cls.__subclasses__())
    return None


def _input_names(cls):
    """forward's positional parameter names after ``ctx``, and its ``*args`` name or None."""
    names, variadic = [], None
    for p in list(inspect.signature(cls.forward).parameters.values())[1:]:
        if p.kind is p.VAR_POSITIONAL:
            variadic = p.name
        elif p.kind is p.POSITIONAL_OR_KEYWORD:
            names.append(p.name)
    return names, variadic
