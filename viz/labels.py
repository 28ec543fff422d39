"""Text for labels: numbers, arrays (in full when small, else shape with mean and norm)."""
import re

import numpy as np

FULL = 8          # tensors with at most this many elements are shown in full
ROW = 8           # ... and a label line in full holds at most this many numbers: a (10,) bias
                  # written out is a line as wide as a screen


def number(x):
    """A number with 4 significant digits: 0.25, -1.5, 3, 1.235e-05, nan."""
    x = x.item() if hasattr(x, "item") else x
    if isinstance(x, (bool, np.bool_)):
        return str(bool(x))
    if isinstance(x, (int, np.integer)):
        return str(int(x))
    text = f"{float(x):.4g}"
    return "0" if text == "-0" else text


def shape(shape):
    """``(3, 4)``; ``()`` for a scalar; ``?`` when unknown."""
    if shape is None:
        return "?"
    return "(" + ", ".join(str(n) for n in shape) + ("," if len(shape) == 1 else "") + ")"


def array(a, full=FULL):
    """Small arrays in full (``[0.25, 1]``, nested for matrices), larger ones as one number:
    ``rms r``, the root mean square √mean(a²) (the statistic of viz's colour scale)."""
    a = np.asarray(a)
    return _nested(a) if a.size <= full else summary(a)


def summary(a):
    """``rms r``: the root mean square √mean(a²) of ``a``."""
    af = np.asarray(a).astype(np.float64)
    return f"rms {number(np.sqrt(np.mean(af * af)))}"


def _nested(a):
    if a.ndim == 0:
        return number(a)
    return "[" + ", ".join(_nested(x) for x in a) + "]"


def lines(a, full=FULL, prefix=""):
    """``array(a, full)`` as label lines: a matrix shown in full gets one line per row (leading
    axes of size 1 dropped), so a 4 x 4 tensor reads as a 4 x 4 block; everything else is one
    line. A tensor whose line would hold more than ``ROW`` numbers is summarised (``rms r``)
    whatever ``full`` says. ``prefix`` (e.g. ``"δ "``) starts the first line."""
    a = np.asarray(a)
    squeezed = a.reshape([n for n in a.shape if n != 1] or [])
    as_rows = squeezed.ndim == 2 and squeezed.shape[0] > 1 and a.size > 3
    widest = squeezed.shape[-1] if as_rows else a.size        # numbers on the longest line
    if a.size > full or widest > ROW:
        return [prefix + summary(a)]
    if not as_rows:
        return [prefix + _nested(a)]
    rows = [_nested(row) for row in squeezed]
    return [prefix + "[" + rows[0]] + rows[1:-1] + [rows[-1] + "]"]


def gradient(g, full=FULL):
    """A gradient: ``δ 0.25`` in full when small, else ``δ rms r``."""
    return "δ " + array(g, full)


def dtype(dt):
    """The dtype's name, or '' for float32 (the default, not worth the space)."""
    if dt is None or np.dtype(dt) == np.float32:
        return ""
    return np.dtype(dt).name


_DERIVATIVE = re.compile(r"\bd\w*/d|∂")


def formula_part(formula, phase):
    """The forward rule (``z = a * b``) or the derivative rule (``dz/da = b, dz/db = a``) of
    an operation's formula ``z = a * b;   dz/da = b,   dz/db = a``."""
    m = _DERIVATIVE.search(formula)
    if m is None:
        return formula
    part = formula[:m.start()] if phase == "forward" else formula[m.start():]
    return part.strip().rstrip(";,").strip() or formula
