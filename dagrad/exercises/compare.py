"""Numbers from answers, and what the difference between an answer and the right value says.

Tolerance everywhere: an element is right when |answer − expected| ≤ tol · (1 + |expected|),
absolute for small values and relative for large ones; inf equals inf of the same sign and NaN
equals NaN (an answer is judged as a value, whatever it is).
"""
import numpy as np

# ratio -> the words for "yours is <ratio> times the right value"
FACTOR_WORDS = {2.0: "twice", 3.0: "three times", 4.0: "four times", 0.5: "half",
                1 / 3: "a third of", 0.25: "a quarter of"}
SIMPLE_FACTORS = tuple(FACTOR_WORDS)
ABOUT = 0.02            # a ratio within 2% of a simple one is "about" it


class NotANumber(TypeError):
    """An answer that cannot be read as numbers; the message says what it was."""


def answer_array(x, what="the answer"):
    """``x`` (a number, nested list, ndarray, dagrad or PyTorch tensor, or an object with a
    numeric ``.data`` such as a micrograd ``Value``) as a float64 ndarray. Text, nested or
    not, and complex numbers are refused with a sentence saying what was found."""
    from dagrad.autograd import Tensor
    if isinstance(x, Tensor):
        x = x.numpy()
    elif all(callable(getattr(x, m, None)) for m in ("detach", "cpu", "numpy")):
        # a PyTorch tensor: NumPy cannot read one that requires grad or lives on a GPU
        x = x.detach().cpu().numpy()
    text = _text_inside(x)
    if text is not None:
        where = "" if text is x else " inside a list"
        raise NotANumber(f"{what} is the text {text!r}{where}; write a number (without quotes)")
    if not isinstance(x, (np.ndarray, list, tuple, int, float, complex, np.number, bool,
                          np.bool_)):
        data = getattr(x, "data", None)        # a micrograd-style Value: its number
        if isinstance(data, (int, float, np.number, np.ndarray)):
            x = data
    try:
        a = np.array(x)
    except (TypeError, ValueError):
        a = None
    if a is None or a.dtype == object or a.dtype.kind not in "biufc":
        raise NotANumber(f"{what} is a {type(x).__name__}, which is not a number or an array "
                         f"of numbers (or its rows have different lengths)")
    if a.dtype.kind == "c":
        raise NotANumber(f"{what} is complex, {_first_complex(a)}; the answer is a real "
                         f"number: take the real part only if you mean to")
    return a.astype(np.float64)


def _text_inside(x, depth=0):
    """The first string in ``x`` (itself, or an element of nested lists/tuples), else None."""
    if isinstance(x, (str, bytes)):
        return x
    if isinstance(x, np.ndarray) and x.dtype.kind in "USO":
        x = x.tolist()
    if isinstance(x, (list, tuple)) and depth < 32:
        for item in x:
            found = _text_inside(item, depth + 1)
            if found is not None:
                return found
    return None


def _first_complex(a):
    flat = a.reshape(-1)
    k = int(np.argmax(flat.imag != 0)) if np.any(flat.imag != 0) else 0
    return str(complex(flat[k]))


def close(answer, expected, tol):
    """Elementwise: is ``answer`` within the tolerance of ``expected`` (same shapes)? Equal
    infinities and NaN against NaN count as close."""
    with np.errstate(invalid="ignore", over="ignore"):
        near = np.isfinite(answer) & np.isfinite(expected) & \
            (np.abs(answer - expected) <= tol * (1 + np.abs(expected)))
    same = (answer == expected) | (np.isnan(answer) & np.isnan(expected))
    return near | same


def all_close(answer, expected, tol):
    return answer.shape == expected.shape and bool(np.all(close(answer, expected, tol)))


def largest_error(answer, expected):
    """(largest |answer − expected|, its index) for arrays of one shape; a NaN or an inf
    where the other is finite counts as the largest."""
    with np.errstate(invalid="ignore"):
        diff = np.abs(answer - expected)
    diff = np.where(close(answer, expected, 0.0), 0.0, diff)
    if diff.size == 0:
        return 0.0, ()
    k = np.unravel_index(int(np.argmax(np.where(np.isnan(diff), np.inf, diff))), diff.shape)
    return float(diff[k]), tuple(int(i) for i in k)


def relation(answer, expected, tol):
    """What a wrong ``answer`` is, as ``(tag, sentence)``: "transposed" (the transpose of the
    right value), "sign" (its negative), "factor" (a constant multiple of it), or
    ("value", None) when none of these holds. Shapes may differ only for "transposed". The
    sentences never state the right value."""
    if answer.shape != expected.shape:
        if answer.ndim >= 2 and answer.shape == expected.shape[::-1] \
                and all_close(answer.T, expected, tol):
            return "transposed", "it is the transpose of the right value"
        return "value", None
    if expected.ndim >= 2 and expected.shape[0] == expected.shape[-1] and \
            not all_close(expected.T, expected, tol) and all_close(answer.T, expected, tol):
        return "transposed", "it is the transpose of the right value"
    if np.any(np.abs(expected) > tol) and all_close(-answer, expected, tol):
        return "sign", "it is the negative of the right value: check the sign"
    c = factor(answer, expected, tol)
    if c is not None:
        return "factor", factor_sentence(c)
    return "value", None


def factor(answer, expected, tol):
    """The constant c with answer = c · expected, if there is one (and c is not ±1 or 0). For
    a single number any wrong answer is a multiple of the right one, so there c must be about
    a simple factor (2, 3, 4, 1/2, 1/3, 1/4 or their negatives)."""
    nonzero = np.abs(expected) > tol
    if not np.any(nonzero) or not np.all(np.isfinite(answer)) \
            or not np.all(np.isfinite(expected)):
        return None
    ratios = answer[nonzero] / expected[nonzero]
    c = float(np.median(ratios))
    if abs(c) < 1e-12 or abs(abs(c) - 1) <= 1e-3:
        return None
    if np.count_nonzero(nonzero) < 2:
        return c if simple_factor(abs(c)) is not None else None
    return c if all_close(answer, c * expected, tol) else None


def simple_factor(c):
    """The simple factor (2, 3, 4, 1/2, 1/3, 1/4) within 2% of ``c`` > 0, else None."""
    return next((f for f in SIMPLE_FACTORS if abs(c - f) <= ABOUT * f), None)


def exact_integer(c, tol=1e-6):
    """``c`` as an int when it is one (2, 3, ...), else None."""
    k = round(c)
    return int(k) if k >= 2 and abs(c - k) <= tol * k else None


def factor_sentence(c):
    """"it is about half the right value: a factor of 2 is missing", in words a student
    reads: "exactly" or "about" a simple factor, else the ratio with 3 digits."""
    sign = "minus " if c < 0 else ""
    m = abs(c)
    f = simple_factor(m)
    if f is not None:
        how = "exactly" if abs(m - f) <= 1e-6 * f else "about"
        words = FACTOR_WORDS[f]
        which = (f"a factor of {_ratio(1 / f)} is missing" if f < 1 else
                 f"a factor of {_ratio(f)} too many")
        return f"it is {how} {sign}{words} the right value: {which}"
    if m >= 1:
        return f"it is {sign}{fmt_number(m, 3)} times the right value: a factor too many"
    return (f"it is {sign}{fmt_number(m, 3)} times the right value (a factor of "
            f"{fmt_number(1 / m, 3)} is missing)")


def _ratio(f):
    k = round(f)
    return str(int(k)) if abs(f - k) < 1e-9 else fmt_number(f, 3)


def fmt_number(x, digits=4):
    """A number with ``digits`` significant digits: 0.25, -1.5, 3, 1.235e-05, inf, nan."""
    text = f"{float(x):.{digits}g}"
    return "0" if text == "-0" else text


def fmt_distinct(a, b, digits=4):
    """Texts for two numbers with enough digits to differ when the numbers do ("1.0004" and
    "1" rather than "1" and "1")."""
    a, b = float(a), float(b)
    for d in range(digits, 17):
        ta, tb = fmt_number(a, d), fmt_number(b, d)
        if ta != tb or a == b or (np.isnan(a) and np.isnan(b)):
            return ta, tb
    return fmt_number(a, 17), fmt_number(b, 17)


def fmt_array(a, limit=12, digits=4):
    """A short text for an array: in full when it has at most ``limit`` elements, else its
    shape and a few of its elements."""
    a = np.asarray(a)
    if a.ndim == 0:
        return fmt_number(a, digits)
    if a.size <= limit:
        return _nested(a, digits)
    flat = a.reshape(-1)
    head = ", ".join(fmt_number(v, digits) for v in flat[:3])
    return f"an array of shape {fmt_shape(a.shape)} ({head}, … in reading order)"


REVEAL_LIMIT = 64        # a revealed right value is written in full up to this many elements


def fmt_pair(a, b, limit=REVEAL_LIMIT):
    """(text of ``a``, text of ``b``) for two arrays of one shape, printed with enough
    digits that the elements which differ read differently."""
    a, b = np.asarray(a, dtype=np.float64), np.asarray(b, dtype=np.float64)
    digits = 4
    if a.shape == b.shape and a.size:
        for x, y in zip(a.reshape(-1), b.reshape(-1)):
            for text in fmt_distinct(x, y):
                mantissa = text.lstrip("-").split("e")[0].replace(".", "").lstrip("0")
                digits = max(digits, len(mantissa))
    digits = min(digits, 12)
    return fmt_array(a, limit, digits), fmt_array(b, limit, digits)


def _nested(a, digits=4):
    if a.ndim == 0:
        return fmt_number(a, digits)
    return "[" + ", ".join(_nested(x, digits) for x in a) + "]"


TOOLTIP_ELEMENTS = 400     # Graphviz refuses a quoted string of more than 16,384 characters


def fmt_full(a):
    """Every element, for tooltips: up to ``TOOLTIP_ELEMENTS``; a larger array as NumPy
    prints one (its first and last rows and columns)."""
    return np.array2string(np.asarray(a), precision=6, separator=", ",
                           threshold=TOOLTIP_ELEMENTS, edgeitems=4, max_line_width=100)


def fmt_shape(shape):
    return "(" + ", ".join(str(n) for n in shape) + ("," if len(shape) == 1 else "") + ")"
