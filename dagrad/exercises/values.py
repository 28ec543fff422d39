"""``check_value``, ``check_shape``, ``check_choice``: numeric, shape and multiple-choice
questions. Each ``judge_*`` makes the verdict; the ``check_*`` function counts the attempt,
logs and shows it (``ladder.finish``)."""
import math

import numpy as np

from .compare import (REVEAL_LIMIT, NotANumber, all_close, answer_array, fmt_array, fmt_pair,
                      fmt_shape, relation)
from .detectors import normalisation
from .explain import diagnose, render_rule, where_wrong
from .ladder import finish
from .result import NOT_ANSWERED, CheckResult, is_blank


def check_value(answer, expected, tol=1e-6, *, name=None, why=None, exercise=None):
    """Is ``answer`` (a number, list, array or Tensor) equal to ``expected`` within ``tol``?

    Elementwise |answer − expected| ≤ tol · (1 + |expected|), both compared as float64 arrays
    of the same shape (one-element arrays also match a number; inf matches inf and NaN NaN).
    ``name`` says what the number is ("∂L/∂w"), ``why`` is the reasoning that gives it, shown
    with the right value (on ``reveal()`` or after a few wrong attempts).

    Diagnoses: "not_answered" (``None`` or ``...``), "type" (not a number, text, complex),
    "shape", "value" (the message says where, and when it is the negative, the transpose or
    a constant multiple of the right one), "accumulation" (exactly k times the right value,
    read from a ``.grad`` that backward() filled k times).
    """
    return finish(judge_value(answer, expected, tol, name=name, why=why, exercise=exercise),
                  answer)


def judge_value(answer, expected, tol=1e-6, *, name=None, why=None, exercise=None,
                coords=None, misconceptions=(), given=None, rule=None, sizes=None, terms=None,
                answers=None):
    """The verdict of ``check_value``, with what an exercise definition adds: ``coords`` (the
    lesson's names for the elements, ``explain.Coordinates``), ``misconceptions`` and
    ``given`` (``detectors.Misconception``), ``rule`` (the second hint, ``render_rule``),
    ``sizes`` ({"the batch size B": 4}) and ``terms`` ([(label, array)] summing to the right
    value)."""
    _validate(tol, expected, "check_value")
    if is_blank(answer):
        return CheckResult(False, NOT_ANSWERED, "not_answered", exercise)
    subject = name or "The answer"
    e = answer_array(expected, "expected")
    try:
        a = answer_array(answer, name or "the answer")
    except NotANumber as err:
        return CheckResult(False, _sentence(str(err)), "type", exercise, why=why)
    if a.shape != e.shape and a.size == 1 and e.size == 1:
        a = a.reshape(e.shape)
    if a.shape != e.shape:
        _, hint = relation(a, e, tol)
        message = (f"{subject} should have shape {fmt_shape(e.shape)}, but yours has shape "
                   f"{fmt_shape(a.shape)}." + (f" ({_cap(hint)}.)" if hint else ""))
        return CheckResult(False, message, "shape", exercise, why=why,
                           right=f"{subject} should be {fmt_array(e, REVEAL_LIMIT)}.",
                           secrets=[fmt_array(e), fmt_array(e, REVEAL_LIMIT)],
                           yours=[fmt_array(a)])
    if all_close(a, e, tol):
        return CheckResult(True, f"{subject} is right: {fmt_array(e)}.", None, exercise)
    tag, sentence = diagnose(a, e, tol, answer_object=answer, given=given,
                             misconceptions=misconceptions, sizes=sizes, terms=terms)
    diagnosis = tag if tag not in ("sign", "transposed", "factor") else "value"
    mine, right = fmt_pair(a, e)
    head = f"{subject} is wrong" + (f": yours is {mine}" if a.size == 1 else "")
    lines = [head + (f"; {sentence}." if sentence else ".")]
    where = where_wrong(a, e, tol, coords)
    if where and tag in ("value", "factor"):
        lines.append(_cap(where) + ".")
    if tag == "value":
        hint = normalisation(a, e, tol)
        if hint:
            lines.append(_cap(hint[1]) + ".")
    return CheckResult(False, " ".join(lines), diagnosis, exercise,
                       stronger=render_rule(rule, given, answers),
                       right=f"{subject} should be {right}.", why=why,
                       secrets=_secrets(e, right), yours=[mine, fmt_array(a)])


def _secrets(expected, shown):
    """Texts of the right value a first attempt must not show: as printed in the reveal, and
    with the default digits."""
    return list(dict.fromkeys([shown, fmt_array(expected)]))


def check_shape(answer, expected, *, name=None, why=None, exercise=None):
    """Is ``answer`` the shape ``expected``? Either may be a tuple or list of ints, a single
    int n (meaning (n,); also NumPy's integers), or an array/Tensor (its shape). Diagnoses:
    "not_answered", "type", "shape" (the message says when the dimensions are the right ones
    in another order)."""
    return finish(judge_shape(answer, expected, name=name, why=why, exercise=exercise), answer)


def judge_shape(answer, expected, *, name=None, why=None, exercise=None, misconceptions=(),
                given=None):
    """The verdict of ``check_shape``; a listed misconception is a shape (or a function of
    ``given`` returning one)."""
    if expected is None:
        raise ValueError("check_shape: expected is None; the exercise must give the right "
                         "shape (a tuple of ints)")
    if is_blank(answer):
        return CheckResult(False, NOT_ANSWERED, "not_answered", exercise)
    subject = name or "The shape"
    e = _shape_of(expected)
    a = _shape_of(answer)
    if e is None:
        raise TypeError(f"check_shape: expected must be a shape (a tuple of ints), got "
                        f"{expected!r}")
    if a is None:
        message = (f"{subject} should be a shape, a tuple of whole numbers such as (2, 3); "
                   f"yours is {answer!r}.")
        return CheckResult(False, message, "type", exercise, why=why)
    if a == e:
        return CheckResult(True, f"{subject} is right: {fmt_shape(e)}.", None, exercise)
    for m in misconceptions or ():
        if _shape_of(m.value(given)) == a:
            return CheckResult(False, f"{subject} is wrong: yours is {fmt_shape(a)}; "
                               f"{m.sentence}.", m.tag, exercise, why=why,
                               right=f"{subject} should be {fmt_shape(e)}.",
                               secrets=[fmt_shape(e)], yours=[fmt_shape(a)])
    message = f"{subject} is wrong: yours is {fmt_shape(a)}."
    if sorted(a) == sorted(e) and len(a) > 1:
        message += " The sizes are right but in another order."
    elif len(a) != len(e):
        message += (f" It should have {len(e)} dimension{'s' if len(e) != 1 else ''}, "
                    f"not {len(a)}.")
    else:
        wrong = [k for k, (x, y) in enumerate(zip(a, e)) if x != y]
        message += (f" Dimension{'s' if len(wrong) > 1 else ''} "
                    f"{', '.join(map(str, wrong))} of {len(e)} "
                    f"{'are' if len(wrong) > 1 else 'is'} wrong.")
    return CheckResult(False, message, "shape", exercise, why=why,
                       right=f"{subject} should be {fmt_shape(e)}.", secrets=[fmt_shape(e)],
                       yours=[fmt_shape(a)])


def check_choice(answer, expected, *, options=None, why=None, exercise=None):
    """Multiple choice: is ``answer`` the ``expected`` option? ``expected`` is one value, or a
    set (or frozenset) of values that are all right. Text is compared without case, spaces,
    hyphens and underscores ("One hot" is "one-hot"); numbers as numbers, and a number written
    as text ("2") is read as the number, with a word saying so. With ``options`` (the list of
    choices, or a dict {choice: its text}) an unambiguous start of an option's text stands
    for it, and an answer that is none of them gets diagnosis "not_an_option"; a wrong one
    gets "choice"."""
    return finish(judge_choice(answer, expected, options=options, why=why, exercise=exercise),
                  None)


def judge_choice(answer, expected, *, options=None, why=None, exercise=None,
                 misconceptions=(), given=None, name=None):
    """The verdict of ``check_choice``; a listed misconception is a wrong option (or a function
    of ``given`` returning it) with the sentence that names the thinking behind it."""
    if expected is None:
        raise ValueError("check_choice: expected is None; the exercise must give the right "
                         "option")
    if is_blank(answer):
        return CheckResult(False, NOT_ANSWERED, "not_answered", exercise)
    right = list(expected) if isinstance(expected, (set, frozenset)) else [expected]
    choices = list(options) if options is not None else None
    chosen, note = _read_choice(answer, choices, right)
    if chosen is None:
        listed = ", ".join(_show(o) + (f" ({options[o]})" if isinstance(options, dict)
                                       else "") for o in choices)
        reason = note or f"{_show(answer)} is not one of the choices"
        return CheckResult(False, f"{reason}: {listed}.", "not_an_option", exercise, why=why)
    shown = " or ".join(_show(r) for r in right)
    if _choice_key(chosen) in [_choice_key(r) for r in right]:
        return CheckResult(True, f"{shown} is right.{note and ' ' + note}", None, exercise)
    subject = f"{name} = {_show(chosen)}" if name else _show(chosen)
    message = f"{subject} is wrong.{note and ' ' + note}"
    diagnosis = "choice"
    for m in misconceptions or ():
        if _choice_key(m.value(given)) == _choice_key(chosen):
            message += f" {_cap(m.sentence)}."
            diagnosis = m.tag
            break
    secret = [] if choices is not None and all(
        _choice_key(r) in [_choice_key(o) for o in choices] for r in right) else [shown]
    return CheckResult(False, message, diagnosis, exercise, why=why,
                       right=f"The answer is {shown}.", secrets=secret, yours=[_show(chosen)])


def _read_choice(answer, choices, right):
    """(the option ``answer`` stands for, a note on how it was read); (None, reason) when it
    stands for none."""
    candidates = choices if choices is not None else right
    key = _choice_key(answer)
    by_key = {_choice_key(o): o for o in candidates}
    if key in by_key:
        return by_key[key], ""
    if isinstance(answer, str):
        number = _number_in(answer)
        if number is not None and ("number", round(number, 9)) in by_key:
            return by_key[("number", round(number, 9))], \
                f"(Your text {answer.strip()!r} is read as the number {_show(number)}.)"
        if choices is not None and key[1]:
            starts = [o for o in choices if isinstance(o, str)
                      and _choice_key(o)[1].startswith(key[1])]
            if len(starts) == 1:
                return starts[0], f"(Read as {_show(starts[0])}.)"
            if len(starts) > 1:
                return None, (f"{_show(answer)} starts {len(starts)} of the choices; write "
                              f"more of the one you mean")
    if choices is None:
        return answer, ""
    if not isinstance(answer, str) and ("text", _number_text(answer)) in by_key:
        return by_key[("text", _number_text(answer))], ""
    return None, ""


def _choice_key(x):
    if isinstance(x, str):
        text = x.lower().replace("-", " ").replace("_", " ").replace("–", " ")
        return ("text", " ".join(text.split()))
    if isinstance(x, (bool, np.bool_)):
        return ("bool", bool(x))
    try:
        return ("number", round(float(x), 9))
    except (TypeError, ValueError):
        return ("other", repr(x))


def _number_in(text):
    try:
        value = float(text.strip())
    except ValueError:
        return None
    return value if math.isfinite(value) else None


def _number_text(x):
    try:
        return _choice_key(_show(x))[1]
    except Exception:
        return None


def _show(x):
    if isinstance(x, str):
        return repr(x.strip())
    if isinstance(x, float) and x.is_integer() and abs(x) < 1e15:
        return str(int(x))
    return str(x)


def _shape_of(x):
    if isinstance(x, (bool, np.bool_)):
        return None
    if isinstance(x, (int, np.integer)):
        return (int(x),)
    if hasattr(x, "shape") and not isinstance(x, type):
        return tuple(int(n) for n in x.shape)
    if isinstance(x, (tuple, list)) and all(isinstance(n, (int, np.integer))
                                            and not isinstance(n, (bool, np.bool_)) for n in x):
        return tuple(int(n) for n in x)
    return None


def _validate(tol, expected, check):
    if expected is None:
        raise ValueError(f"{check}: expected is None; the exercise must give the right value")
    number = isinstance(tol, (int, float, np.integer, np.floating)) and \
        not isinstance(tol, (bool, np.bool_))
    bad = not number or not (math.isfinite(float(tol)) and float(tol) >= 0)
    if bad:
        raise ValueError(f"{check}: tol must be a finite number ≥ 0 (an element is right when "
                         f"|answer − expected| ≤ tol · (1 + |expected|)), got {tol!r}")


def _sentence(text):
    return _cap(text) + ("" if text.endswith(".") else ".")


def _cap(text):
    return text[:1].upper() + text[1:]
