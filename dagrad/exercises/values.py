"""``check_value``, ``check_shape``, ``check_choice``: numeric, shape and multiple-choice
questions."""
import numpy as np

from .compare import (NotANumber, all_close, answer_array, fmt_array, fmt_number, fmt_shape,
                      largest_error, relation)
from .result import CheckResult, finish, is_blank, not_answered


def check_value(answer, expected, tol=1e-6, *, name=None, why=None, exercise=None):
    """Is ``answer`` (a number, list, array or Tensor) equal to ``expected`` within ``tol``?

    Elementwise |answer − expected| ≤ tol · (1 + |expected|), both compared as float64 arrays
    of the same shape (one-element arrays also match a number). ``name`` says what the number
    is ("∂L/∂w"), ``why`` is the reasoning shown when the answer is wrong ("the chain rule
    multiplies the local derivatives along the path").

    Diagnoses: "not_answered" (``None`` or ``...``), "type" (not a number), "shape",
    "value"; a wrong value's message also says when it is the negative, the transpose or a
    constant multiple of the right one.
    """
    if is_blank(answer):
        return not_answered(exercise)
    what = name or "the answer"
    subject = name or "The answer"
    e = answer_array(expected, "expected")
    try:
        a = answer_array(answer, what)
    except NotANumber as err:
        return finish(CheckResult(False, _sentence(str(err)) + _because(why), "type", exercise))
    if a.shape != e.shape and a.size == 1 and e.size == 1:
        a = a.reshape(e.shape)
    if a.shape != e.shape:
        kind, hint = relation(a, e, tol)
        message = (f"{subject} should have shape {fmt_shape(e.shape)}, but yours has shape "
                   f"{fmt_shape(a.shape)}." + (f" ({_cap(hint)}.)" if hint else ""))
        return finish(CheckResult(False, message + _because(why), "shape", exercise))
    if all_close(a, e, tol):
        return finish(CheckResult(True, f"{subject} is {fmt_array(e)}.", None, exercise))
    err, index = largest_error(a, e)
    message = f"{subject} should be {fmt_array(e)}, but yours is {fmt_array(a)}"
    if a.ndim:
        message += f" (the largest difference, {fmt_number(err)}, is at index {index})"
    message += "."
    kind, hint = relation(a, e, tol)
    if hint:
        message += f" {_cap(hint)}."
    return finish(CheckResult(False, message + _because(why), "value", exercise))


def check_shape(answer, expected, *, name=None, why=None, exercise=None):
    """Is ``answer`` the shape ``expected``? Either may be a tuple or list of ints, a single
    int n (meaning (n,)), or an array/Tensor (its shape). Diagnoses: "not_answered", "type",
    "shape" (the message says when the dimensions are the right ones in another order)."""
    if is_blank(answer):
        return not_answered(exercise)
    what = name or "the shape"
    subject = name or "The shape"
    e = _shape_of(expected)
    a = _shape_of(answer)
    if e is None:
        raise TypeError(f"check_shape: expected must be a shape (a tuple of ints), got "
                        f"{expected!r}")
    if a is None:
        message = (f"{subject} should be a shape, a tuple of whole numbers such as "
                   f"{fmt_shape(e)}; yours is {answer!r}.")
        return finish(CheckResult(False, message + _because(why), "type", exercise))
    if a == e:
        return finish(CheckResult(True, f"{subject} is {fmt_shape(e)}.", None, exercise))
    message = f"{subject} should be {fmt_shape(e)}, but yours is {fmt_shape(a)}."
    if sorted(a) == sorted(e) and len(a) > 1:
        message += " The sizes are right but in another order."
    elif len(a) != len(e):
        message += f" It should have {len(e)} dimension{'s' if len(e) != 1 else ''}, not {len(a)}."
    return finish(CheckResult(False, message + _because(why), "shape", exercise))


def check_choice(answer, expected, *, options=None, why=None, exercise=None):
    """Multiple choice: is ``answer`` the ``expected`` option? ``expected`` is one value, or a
    set (or frozenset) of values that are all right. Strings are compared without case and
    surrounding spaces, numbers as numbers. With ``options`` (the list of choices, or a dict
    {choice: its text}), an answer that is none of them gets diagnosis "not_an_option";
    a wrong one gets "choice"."""
    if is_blank(answer):
        return not_answered(exercise)
    right = list(expected) if isinstance(expected, (set, frozenset)) else [expected]
    keys = [_choice_key(r) for r in right]
    shown = " or ".join(_show(r) for r in right)
    key = _choice_key(answer)
    if options is not None:
        choices = list(options)
        if key not in [_choice_key(o) for o in choices]:
            listed = ", ".join(_show(o) + (f" ({options[o]})" if isinstance(options, dict)
                                           else "") for o in choices)
            message = f"{_show(answer)} is not one of the choices: {listed}."
            return finish(CheckResult(False, message, "not_an_option", exercise))
    if key in keys:
        return finish(CheckResult(True, f"The answer is {shown}.", None, exercise))
    message = f"The answer is {shown}, not {_show(answer)}."
    return finish(CheckResult(False, message + _because(why), "choice", exercise))


def _choice_key(x):
    if isinstance(x, str):
        return ("text", " ".join(x.split()).lower())
    if isinstance(x, (bool, np.bool_)):
        return ("bool", bool(x))
    try:
        return ("number", round(float(x), 9))
    except (TypeError, ValueError):
        return ("other", repr(x))


def _show(x):
    return repr(x.strip()) if isinstance(x, str) else str(x)


def _shape_of(x):
    if hasattr(x, "shape") and not isinstance(x, type):
        return tuple(int(n) for n in x.shape)
    if isinstance(x, (int, np.integer)) and not isinstance(x, bool):
        return (int(x),)
    if isinstance(x, (tuple, list)) and all(isinstance(n, (int, np.integer))
                                            and not isinstance(n, bool) for n in x):
        return tuple(int(n) for n in x)
    return None


def _because(why):
    return f" Why: {why}" if why else ""


def _sentence(text):
    return _cap(text) + ("" if text.endswith(".") else ".")


def _cap(text):
    return text[:1].upper() + text[1:]
