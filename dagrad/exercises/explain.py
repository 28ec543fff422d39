"""Where an array answer is wrong, in the lesson's own coordinates ("at x = −4", "at hidden
unit 2, input 0", "at step t = 1"), by its worst elements: never an rms that two different
arrays share, and never the right value (the student's own numbers and a direction)."""
import numpy as np

from .compare import close, fmt_distinct, fmt_number


class Coordinates:
    """How a lesson names the elements of an array, one entry per axis:

    * ``"hidden unit"``: the axis is counted, "hidden unit 2";
    * ``("x", values)``: the axis runs over ``values``, "x = 2.5";
    * ``("t", values, "step")``: "step t = 1";
    * a function of the index along that axis, returning the words;
    * None: the plain index.

    ``Coordinates.of(spec)`` accepts a Coordinates, a tuple of such entries, one entry (a
    single axis), or None (``name[i, j]``).
    """

    def __init__(self, *axes, name=None):
        self.axes, self.name = axes, name

    @classmethod
    def of(cls, spec, name=None):
        if isinstance(spec, Coordinates):
            return spec
        if spec is None:
            return cls(name=name)
        if isinstance(spec, str) or callable(spec) or (isinstance(spec, tuple) and spec
                                                        and isinstance(spec[0], str)
                                                        and len(spec) in (2, 3)
                                                        and not isinstance(spec[1], str)):
            return cls(spec, name=name)
        return cls(*spec, name=name)

    def at(self, index):
        """The words for element ``index`` (a tuple): "at x = 2.5", "at row 1, column 0"."""
        if not index:
            return ""
        if len(self.axes) != len(index) or all(a is None for a in self.axes):
            inside = ", ".join(str(i) for i in index)
            if self.name:
                return f"at {self.name}[{inside}]"
            return f"at index {inside}" if len(index) == 1 else f"at index ({inside})"
        words = []
        for axis, i in zip(self.axes, index):
            if axis is None:
                words.append(f"index {i}")
            elif isinstance(axis, str):
                words.append(f"{axis} {i}")
            elif callable(axis):
                words.append(str(axis(i)))
            else:
                label, values = axis[0], axis[1]
                word = f"{label} = {fmt_number(np.asarray(values).reshape(-1)[i])}"
                words.append(f"{axis[2]} {word}" if len(axis) > 2 else word)
        return "at " + ", ".join(words)


def where_wrong(answer, expected, tol, coords, limit=3):
    """A sentence naming the worst elements of a wrong answer (same shape as ``expected``):
    how many are wrong, and at the worst ones the student's value and whether it is too large
    or too small. Empty for a single number."""
    if answer.ndim == 0 or answer.size == 1:
        return ""
    coords = Coordinates.of(coords)
    bad = ~close(answer, expected, tol)
    count = int(np.count_nonzero(bad))
    if count == 0:
        return ""
    with np.errstate(invalid="ignore"):
        diff = np.abs(answer - expected)
    diff = np.where(bad, np.nan_to_num(diff, nan=np.inf, posinf=np.inf), -1.0)
    order = np.argsort(-diff, axis=None, kind="stable")[:min(limit, count)]
    spots = []
    for flat in order:
        index = tuple(int(i) for i in np.unravel_index(int(flat), answer.shape))
        a, e = float(answer[index]), float(expected[index])
        mine, _ = fmt_distinct(a, e)
        spots.append(f"{coords.at(index)} (yours {mine}, {_direction(a, e)})")
    total = answer.size
    head = ("every element is wrong" if count == total else
            f"{count} of {total} elements are wrong" if count > 1 else
            f"1 of {total} elements is wrong")
    if count == 1:
        return f"{head}, {spots[0]}"
    return f"{head}; the worst " + "; ".join(spots)


def _direction(a, e):
    if np.isnan(a):
        return "not a number"
    if np.isnan(e) or np.isinf(e):
        return "it should not be finite"
    if np.isinf(a):
        return "it should be finite"
    if np.sign(a) != np.sign(e) and e != 0 and a != 0:
        return "the wrong sign"
    return "too large" if a > e else "too small"


def diagnose(answer, expected, tol, *, answer_object=None, given=None, misconceptions=(),
             sizes=None, terms=None, to_array=None):
    """What a wrong array answer (same shape as ``expected``) is, as ``(tag, sentence)``: the
    first of a listed misconception, accumulation in ``.grad``, a size of the problem as a
    factor, a missing term of a sum, the transpose, the sign or a constant factor; then
    ("value", None). ``normalisation`` is a separate hint (``detectors.normalisation``)."""
    from . import detectors
    from .compare import answer_array, relation
    found = (detectors.matching(misconceptions, answer, given, tol, to_array or answer_array)
             or detectors.accumulation(answer_object, answer, expected, tol, given)
             or detectors.size_factor(answer, expected, tol, sizes)
             or detectors.missing_term(answer, terms, tol))
    if found:
        return found
    return relation(answer, expected, tol)


def render_rule(rule, given=None, answers=None):
    """The second rung of the ladder: ``rule``, a text whose ``{name}`` fields are filled with
    the student's answers and the exercise's given values ("δ_w = δ_z · x = {d_z} · {x}"), or
    a function of (given, answers) returning the text. None when there is no rule or a name
    it uses has no value."""
    if rule is None:
        return None
    if callable(rule):
        try:
            return rule(given, answers or {})
        except Exception:
            return None
    return rule.format_map(_Numbers(given, answers or {}))


class _Numbers(dict):
    """``{name}`` -> the value of an answer or a given object, as short text."""

    def __init__(self, given, answers):
        super().__init__()
        self.given, self.answers = given, answers

    def __missing__(self, key):
        from .compare import NotANumber, answer_array, fmt_array
        value = self.answers.get(key, None)
        if value is None and self.given is not None:
            value = self.given.objects.get(key)
        if value is None:
            return "{" + key + "}"
        try:
            a = answer_array(value)
        except NotANumber:
            return str(value)
        text = fmt_array(a, limit=8)
        return f"({text})" if a.ndim == 0 and text.startswith("-") else text
