"""The factors of a local derivative that a backward commonly leaves out, read from the
operations' own rule statements (``autograd/rules.py``), not kept in a table of their own.

An elementwise rule ``δ_x = δ_out · out · (1 − out)`` (the sigmoid's) offers its whole factor
``out · (1 − out)`` and each part, ``out`` and ``(1 − out)``; ``δ_x = δ_out / x`` (log) offers
``1 / x``; the square (``Pow`` with b = 2) offers ``2 · x`` and ``x``. ``check_backward`` names
the one whose product with the student's gradient gives the right one: "it lacks the factor
(1 − out²) of the local derivative".
"""
import functools
import re

from dagrad.autograd.rules import evaluate, local_rule, split

# elementwise operations whose rules a student's own operation most often repeats, and the
# constants that make a rule elementwise in x alone (the square: b = 2)
OPERATIONS = (("Tanh", {}), ("Sigmoid", {}), ("Exp", {}), ("Log", {}), ("Sqrt", {}),
              ("Sin", {}), ("Cos", {}), ("Pow", {"b": 2.0}))


@functools.lru_cache(maxsize=None)
def known_factors():
    """[(words, formula, constants)]: each factor of the operations' local derivatives, as
    it reads in their statements (the input called x, the output out)."""
    found = {}
    for name, constants in OPERATIONS:
        param, formula, _ = split(local_rule(name, 0))
        for factor in _factors(formula):
            words = _as_x(factor, param)
            for k, v in constants.items():
                words = re.sub(rf"(?<![\w]){k}(?![\w])", f"{v:g}", words)
            found.setdefault(words, (words, _as_x(factor, param), tuple(constants.items())))
    return list(found.values())


def _factors(formula):
    """The factor of δ_out in ``formula`` and its parts (top-level ``·`` products)."""
    sign = ""
    if formula.startswith("−δ_out"):
        sign, formula = "−", formula[1:]
    if formula.startswith("δ_out / "):
        return [f"{sign}1 / {formula[len('δ_out / '):]}"]
    if not formula.startswith("δ_out · "):
        return []
    rest = formula[len("δ_out · "):]
    parts = _top_level(rest)
    if len(parts) == 1:
        return [f"{sign}{rest}"]
    return [f"−({rest})" if sign else rest] + [f"{sign}{p}" for p in parts
                                                 if not _constant(p)]


def _constant(text):
    """A factor that is a bare number or constant name (a constant factor is another
    mistake: ``relation``'s "factor")."""
    return re.fullmatch(r"[\d.]+|b", text) is not None


def _top_level(text):
    """``text`` split at its ``·`` outside brackets."""
    parts, depth, start = [], 0, 0
    for i, ch in enumerate(text):
        if ch in "([":
            depth += 1
        elif ch in ")]":
            depth -= 1
        elif ch == "·" and depth == 0:
            parts.append(text[start:i].strip())
            start = i + 1
    parts.append(text[start:].strip())
    return parts


def _as_x(formula, param):
    """The formula with the operation's input called x (so one set of values serves all)."""
    return re.sub(rf"(?<![\w]){re.escape(param)}(?![\w])", "x", formula) if param != "x" \
        else formula


def factor_values(formula, constants, x, y):
    """The factor's values for inputs ``x`` and outputs ``y``, or None where it needs more."""
    try:
        return evaluate(f"δ_x = {formula}", {"x": x, "out": y, **dict(constants)})
    except (KeyError, ValueError, TypeError, ZeroDivisionError):
        return None
