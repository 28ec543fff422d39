"""Numbers from answers, and what the difference between an answer and the right value says.

Tolerance everywhere: an element is right when |answer − expected| ≤ tol · (1 + |expected|),
absolute for small values and relative for large ones.
"""
import numpy as np

SIMPLE_FACTORS = (2.0, 3.0, 4.0, 0.5, 1 / 3, 0.25)


class NotANumber(TypeError):
    """An answer that cannot be read as numbers; the message says what it was."""


def answer_array(x, what="the answer"):
    """``x`` (a number, nested list, ndarray, dagrad or PyTorch tensor, or an object with a
    numeric ``.data`` such as a micrograd ``Value``) as a float64 ndarray."""
    from dagrad.autograd import Tensor
    if isinstance(x, Tensor):
        return np.array(x.numpy(), dtype=np.float64)
    if all(callable(getattr(x, m, None)) for m in ("detach", "cpu", "numpy")):
        # a PyTorch tensor: NumPy cannot read one that requires grad or lives on a GPU
        x = x.detach().cpu().numpy()
    if isinstance(x, (str, bytes)):
        raise NotANumber(f"{what} is the text {x!r}; write a number (without quotes)")
    if not isinstance(x, (np.ndarray, list, tuple, int, float, np.number, bool, np.bool_)):
        try:
            data = x.data                 # a micrograd-style Value: its number
        except AttributeError:
            data = None
        if isinstance(data, (int, float, np.number, np.ndarray)):
            return np.array(data, dtype=np.float64)
    try:
        a = np.array(x, dtype=np.float64)
    except (TypeError, ValueError):
        raise NotANumber(f"{what} is a {type(x).__name__}, which is not a number or an array "
                         f"of numbers") from None
    return a


def close(answer, expected, tol):
    """Elementwise: is ``answer`` within the tolerance of ``expected`` (same shapes)?"""
    return np.abs(answer - expected) <= tol * (1 + np.abs(expected))


def all_close(answer, expected, tol):
    return answer.shape == expected.shape and bool(np.all(close(answer, expected, tol)))


def largest_error(answer, expected):
    """(largest |answer − expected|, its index) for arrays of one shape."""
    diff = np.abs(answer - expected)
    if diff.size == 0:
        return 0.0, ()
    k = np.unravel_index(int(np.nanargmax(np.where(np.isnan(diff), np.inf, diff))), diff.shape)
    return float(diff[k]), tuple(int(i) for i in k)


def relation(answer, expected, tol):
    """What a wrong ``answer`` is, as ``(tag, sentence)``: "transposed" (the transpose of the
    right value), "sign" (its negative), "factor" (a constant multiple of it), or
    ("value", None) when none of these holds. Shapes may differ only for "transposed"."""
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
        if abs(c) < 1:
            return "factor", (f"it is {fmt_number(c)} times the right value: a factor of "
                              f"{fmt_number(1 / c)} is missing")
        return "factor", (f"it is {fmt_number(c)} times the right value: a factor of "
                          f"{fmt_number(c)} too many")
    return "value", None


def factor(answer, expected, tol):
    """The constant c with answer = c · expected, if there is one (and c is not ±1 or 0). For
    a single number any wrong answer is a multiple of the right one, so there c must be a
    simple factor (2, 3, 4, 1/2, 1/3, 1/4 or their negatives)."""
    nonzero = np.abs(expected) > tol
    if not np.any(nonzero) or not np.all(np.isfinite(answer)):
        return None
    ratios = answer[nonzero] / expected[nonzero]
    c = float(np.median(ratios))
    if abs(c) < 1e-12 or abs(abs(c) - 1) <= 1e-3 or not all_close(answer, c * expected, tol):
        return None
    if np.count_nonzero(nonzero) < 2 and not any(abs(abs(c) - f) <= 1e-3 * f
                                                 for f in SIMPLE_FACTORS):
        return None
    return c


def fmt_number(x):
    text = f"{float(x):.4g}"
    return "0" if text == "-0" else text


def fmt_array(a, limit=12):
    """A short text for an array: in full when it has at most ``limit`` elements."""
    a = np.asarray(a)
    if a.ndim == 0:
        return fmt_number(a)
    if a.size <= limit:
        return _nested(a)
    return f"an array of shape {fmt_shape(a.shape)} (rms {fmt_number(np.sqrt(np.mean(a * a)))})"


def _nested(a):
    if a.ndim == 0:
        return fmt_number(a)
    return "[" + ", ".join(_nested(x) for x in a) + "]"


def fmt_full(a):
    """Every element, for tooltips."""
    return np.array2string(np.asarray(a), precision=6, separator=", ", threshold=10_000,
                           max_line_width=100)


def fmt_shape(shape):
    return "(" + ", ".join(str(n) for n in shape) + ("," if len(shape) == 1 else "") + ")"
