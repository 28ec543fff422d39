"""``check_backward``: an operation the student wrote, gradchecked, with the usual mistakes
named from the numbers.

The reference is numerical: for a fixed random upstream gradient G (the shape of the output),
the gradient of L = Σ G ⊙ forward(x) with respect to each element of each input, by central
differences (L(x + ε) − L(x − ε)) / 2ε in float64. The student's backward gets the same G.
Each element costs two runs of the forward, so inputs of more than ``FULL_CHECK`` elements are
checked at ``SAMPLE`` elements per input drawn at random, and the message says so: the cost
stays linear in the input's size.
"""
import numpy as np

from .compare import all_close, fmt_array, fmt_pair, fmt_shape, largest_error, relation
from .detectors import normalisation
from .explain import Coordinates, render_rule, where_wrong
from .factors import factor_values, known_factors
from .ladder import finish
from .operations import StudentError, as_form
from .result import NOT_ANSWERED, CheckResult, is_blank

FULL_CHECK = 2_000        # inputs of at most this many elements (in all) are checked everywhere
SAMPLE = 200              # else this many elements of each input, drawn at random

def check_backward(fn_or_function, *inputs, expected_shapes=None, exercise=None, tol=1e-5,
                   eps=1e-6, gradgrad=True, attrs=None, why=None, seed=0):
    """Check a backward the student wrote: gradcheck and gradgradcheck per input, and name the
    mistake.

    Args:
        fn_or_function: an ``ag.Function`` subclass, an ``ag.CustomFunction`` subclass, or a
            pair ``(forward, backward)`` of NumPy functions: ``forward(*arrays) -> out``,
            ``backward(grad_out, *arrays) -> one gradient per input`` (or
            ``backward(grad_out, *arrays, out)`` to receive the output too).
        inputs: the arrays (or numbers, or Tensors) to check at; floating-point ones are
            differentiated (in float64), others (indices, masks) are constants. Inputs of more
            than 2,000 elements are checked at 200 elements each, drawn at random.
        expected_shapes: None lets a gradient come back in the output's shape (dagrad's
            engine sums it over broadcast axes, so an ``ag.Function`` may); True (or the list
            of input shapes) asks for input-shaped gradients, and a gradient that is right but
            not summed over the broadcast axes is the mistake "missing_broadcast_sum".
        tol: an element is right when |yours − numerical| ≤ tol · (1 + |numerical|).
        gradgrad: also check second derivatives (``create_graph=True``), for Function
            subclasses whose first derivatives are right; a NumPy pair has none.
        attrs: keyword arguments for the forward (e.g. ``{"axis": 0}``).

    Diagnoses: "not_answered" (None, ``...``, a backward that raises NotImplementedError or
    returns only None), "error" (the code raised, or returned the wrong number of
    gradients), "shape", "transposed", "sign", "missing_local_derivative" (the upstream
    gradient passed through unchanged, or a known factor such as the 1 − y² of tanh left
    out), "missing_upstream" (the local derivative not multiplied by the upstream gradient),
    "factor" (off by a constant factor), "missing_broadcast_sum", "rows_mixed" (right on
    each row alone, wrong on the batch), "wrong_saved_value" (right once another value, e.g.
    the output instead of the input, takes the saved one's place), "gradgrad" (first
    derivatives right, second wrong), "value".
    """
    result = judge_backward(fn_or_function, *inputs, expected_shapes=expected_shapes,
                            exercise=exercise, tol=tol, eps=eps, gradgrad=gradgrad,
                            attrs=attrs, why=why, seed=seed)
    return finish(result)


def judge_backward(fn_or_function, *inputs, expected_shapes=None, exercise=None, tol=1e-5,
                   eps=1e-6, gradgrad=True, attrs=None, why=None, seed=0, misconceptions=(),
                   given=None, rule=None, coords=None):
    """The verdict of ``check_backward``, with what an exercise definition adds:
    ``misconceptions`` (each computing a NumPy backward ``(grad_out, *inputs, out) ->
    gradients`` that makes the named mistake), ``rule`` (the second hint) and ``coords`` (the
    lesson's names for the elements of input 0)."""
    if is_blank(fn_or_function):
        return CheckResult(False, NOT_ANSWERED, "not_answered", exercise)
    form = as_form(fn_or_function, attrs or {})
    arrays = [_input_array(x) for x in inputs]
    checked = [k for k, a in enumerate(arrays) if a.dtype.kind == "f"]
    if not checked:
        raise ValueError("check_backward: no floating-point input to differentiate")
    rng = np.random.default_rng(seed)
    sample = _sample(arrays, checked, rng)
    try:
        out = form.forward(arrays)
        upstream = rng.standard_normal(out.shape)
        numeric = {k: numerical_gradient(form.forward, arrays, k, upstream, eps, sample[k])
                   for k in checked}
        raw = form.backward(arrays, upstream)
    except NotImplementedError:
        return CheckResult(False, NOT_ANSWERED, "not_answered", exercise)
    except StudentError as e:
        return CheckResult(False, f"{e}.", "error", exercise, why=why)
    if all(raw[k] is None for k in checked):
        return CheckResult(False, f"{NOT_ANSWERED} (Still blank: your backward returns None.)",
                           "not_answered", exercise)
    wanted = _wanted_shapes(expected_shapes, arrays)
    place = {k: Place(arrays[k], out, upstream, sample[k]) for k in checked}
    verdicts = {k: judge(k, raw[k], numeric[k], place[k], wanted[k], tol,
                         coords if k == 0 else None) for k in checked}
    wrong = [v for v in verdicts.values() if not v.ok]
    rows = [("input", "shape", "gradient", "second order")]
    note = _sample_note(arrays, sample)
    if wrong:
        named = _named(form, arrays, out, upstream, raw, numeric, checked, wanted, tol, place,
                       misconceptions, given, verdicts)
        for k in checked:
            rows.append((f"input {k}", fmt_shape(arrays[k].shape), verdicts[k].cell, "-"))
        return _wrong_result(form, arrays, checked, verdicts, wrong, named, upstream, note,
                             rows, exercise, why, given, rule)
    second = {}
    if gradgrad and form.second_order:
        second = second_order(form, arrays, checked, upstream, eps, tol, seed, sample)
    for k in checked:
        rows.append((f"input {k}", fmt_shape(arrays[k].shape), verdicts[k].cell,
                     second[k].cell if k in second else "-"))
    failed = [k for k, s in second.items() if not s.ok]
    if failed:
        lines = [f"{form.name}'s first derivatives are right, but its second derivatives "
                 f"(backward run with create_graph=True) are not:"]
        lines += [f"  input {k}: {second[k].explanation}" for k in failed]
        saves_output = getattr(form, "saves_output_positionally", None)
        lines.append(SAVED_OUTPUT if saves_output and saves_output(arrays) else
                     second[failed[0]].advice)
        right = "\n".join(f"input {k}: second derivatives {second[k].right}" for k in failed
                          if second[k].right)
        return CheckResult(False, "\n".join(lines) + note, "gradgrad", exercise, rows,
                           right=right or None, why=why)
    order = "first and second order" if second else "first order"
    message = (f"{form.name}'s backward matches the numerical derivatives of its forward for "
               f"every input ({order}).{note}")
    return CheckResult(True, message, None, exercise, rows)


class Place:
    """Where input k's gradient is checked: the input, the output and the upstream gradient,
    and ``sample`` (flat indices, or None for every element)."""

    def __init__(self, x, out, upstream, sample):
        self.x, self.out, self.upstream, self.sample = x, out, upstream, sample

    def pick(self, a):
        """``a`` (of the input's shape) at the checked elements."""
        return a if self.sample is None else a.reshape(-1)[self.sample]


def _wrong_result(form, arrays, checked, verdicts, wrong, named, upstream, note, rows,
                  exercise, why, given, rule):
    right = "\n".join(f"input {v.index}: the gradient should be {v.right_text}"
                      for v in wrong if v.right_text)
    secrets = [s for v in wrong for s in v.secrets]
    stronger = render_rule(rule, given, {})
    if named is not None:
        tag, message = named
        return CheckResult(False, message + note, tag, exercise, rows, stronger=stronger,
                           right=right or None, why=why, secrets=secrets)
    if len(verdicts) == 1:
        lines = [f"{form.name}'s backward gives a wrong gradient: {wrong[0].explanation}."]
    else:
        lines = [f"{len(wrong)} of {len(verdicts)} gradients of {form.name}'s backward "
                 f"{'are' if len(wrong) > 1 else 'is'} wrong:"]
        lines += [f"  input {v.index}: {v.explanation}." for v in wrong]
    at = ", ".join(f"input {k} = {fmt_array(arrays[k])}" for k in checked)
    lines.append(f"(Checked at {at}, with the upstream gradient grad = "
                 f"{fmt_array(upstream)}, drawn at random.)")
    tags = {v.tag for v in wrong}
    diagnosis = tags.pop() if len(tags) == 1 else wrong[0].tag
    return CheckResult(False, "\n".join(lines) + note, diagnosis, exercise, rows,
                       stronger=stronger, right=right or None, why=why, secrets=secrets)


def _named(form, arrays, out, upstream, raw, numeric, checked, wanted, tol, place,
           misconceptions, given, verdicts):
    """(diagnosis, message) when the wrong gradients are a listed misconception, rows mixed,
    or a wrong saved value; else None."""
    for m in misconceptions or ():
        wrong_backward = m.value(given)
        if not callable(wrong_backward):
            continue
        try:
            grads = wrong_backward(upstream, *arrays, out)
        except Exception:
            continue
        grads = grads if isinstance(grads, (tuple, list)) else (grads,)
        if len(grads) == len(arrays) and all(
                _same_gradient(raw[k], grads[k], place[k], tol) for k in checked):
            return m.tag, f"{form.name}'s backward: {m.sentence}."
    mixed = _rows_mixed(form, arrays, out, raw, numeric, checked, tol, place)
    if mixed:
        return "rows_mixed", mixed
    if all(v.tag in ("value", "factor", "sign") for v in verdicts.values() if not v.ok):
        saved = _wrong_saved_value(form, arrays, upstream, numeric, checked, wanted, tol, place)
        if saved is not None:
            was, now = saved
            if hasattr(form, "cls"):
                return "wrong_saved_value", (
                    f"{form.name}'s forward saves {was}, but its backward uses that value as "
                    f"{now}: with {now} saved, every gradient is right. Save what the formula "
                    f"is written with (ctx.save(output=y) keeps the output).")
            return "wrong_saved_value", (
                f"{form.name}'s backward uses {was} where its formula needs {now}: with {now} "
                f"in that place, every gradient is right.")
    return None


def _same_gradient(g, w, place, tol):
    if g is None or w is None:
        return g is None and w is None
    w = np.asarray(w, dtype=np.float64)
    if g.shape != w.shape:
        return False
    if place.sample is not None and g.shape == place.x.shape:
        return all_close(place.pick(g), place.pick(w), tol)
    return all_close(g, w, tol)


def _rows_mixed(form, arrays, out, raw, numeric, checked, tol, place):
    """A row-wise operation (each row of the output depends on the same row of the inputs
    only) whose backward is right on every row alone but wrong on the batch: it mixes rows."""
    rows = arrays[checked[0]].shape[0] if arrays[checked[0]].ndim >= 2 else 0
    if rows < 2 or any(a.ndim < 1 or a.shape[0] != rows for a in arrays) or \
            out.ndim < 2 or out.shape[0] != rows:
        return None
    try:
        for i in range(min(rows, 4)):
            part = [a[i:i + 1] for a in arrays]
            if not all_close(form.forward(part), out[i:i + 1], 1e-9):
                return None                        # not row-wise
            upstream = np.random.default_rng(i).standard_normal(out[i:i + 1].shape)
            mine = form.backward(part, upstream)
            for k in checked:
                right = numerical_gradient(form.forward, part, k, upstream, 1e-6, None)
                if mine[k] is None or not _is_right(mine[k], right, None, tol,
                                                    Place(part[k], out[i:i + 1], upstream,
                                                          None)):
                    return None
    except (StudentError, NotImplementedError):
        return None
    return (f"{form.name}'s backward is right on each row of the input alone, but wrong on the "
            f"batch of {rows} rows: it mixes rows. A sum (or max, or mean) over the whole "
            f"array where it should be over each row: axis=-1, keepdims=True.")


class InputVerdict:
    def __init__(self, index, ok, tag, cell, explanation="", right_text="", secrets=()):
        self.index, self.ok, self.tag, self.cell = index, ok, tag, cell
        self.explanation, self.right_text, self.secrets = explanation, right_text, list(secrets)


def judge(k, raw, numeric, place, wanted, tol, coords=None):
    """The verdict on input ``k``'s gradient ``raw`` (as the backward returned it) against the
    ``numeric`` one (at ``place.sample`` only, when sampled); ``wanted`` is the shape the
    exercise asks for, or None."""
    shape = place.x.shape

    def wrong(tag, text, right_text="", secrets=()):
        cell = "✗ " + (tag.replace("_", " ") if tag != "value" else "wrong")
        return InputVerdict(k, False, tag, cell, text, right_text, secrets)

    if raw is None:
        if all_close(np.zeros_like(numeric), numeric, tol):
            return InputVerdict(k, True, None, "✓ right (none)")
        return wrong("value", "your backward returns None (no gradient), but input "
                     f"{k} has one", _reveal_text(numeric, numeric, place))
    g = raw
    if g.shape != shape:
        summed = _unbroadcast(g, shape)
        if summed is not None and _close(summed, numeric, tol, place):
            if wanted is None:
                return InputVerdict(k, True, None, "✓ right (summed)")
            axes = _broadcast_axes(g.shape, shape)
            return wrong("missing_broadcast_sum",
                         f"your gradient has shape {fmt_shape(g.shape)}, the output's, but "
                         f"input {k} has shape {fmt_shape(shape)}: it was broadcast, so "
                         f"its gradient is the sum over the broadcast axes (sum over axis "
                         f"{axes}{', keepdims=True' if len(shape) == len(g.shape) else ''})")
        if g.ndim >= 2 and g.shape == shape[::-1] and _close(g.T, numeric, tol, place):
            return wrong("transposed", f"your gradient has shape {fmt_shape(g.shape)}, the "
                         f"transpose of input {k}'s {fmt_shape(shape)}, and is the "
                         f"transpose of the right gradient")
        if summed is None:
            return wrong("shape", f"your gradient has shape {fmt_shape(g.shape)}, but input {k} "
                         f"has shape {fmt_shape(shape)} (a gradient has the shape of its "
                         f"input)")
        g = summed
    elif wanted is not None and tuple(wanted) != g.shape:
        return wrong("shape", f"the gradient should have shape {fmt_shape(wanted)}")
    mine = place.pick(g)
    if all_close(mine, numeric, tol):
        return InputVerdict(k, True, None, "✓ right")
    right_text = _reveal_text(numeric, mine, place)
    secrets = [right_text, fmt_array(numeric)]
    if place.sample is None:
        where = where_wrong(g, numeric, tol, Coordinates.of(coords))
    else:
        where = where_wrong(mine, numeric, tol, None).replace("elements", "checked elements")
    tag, hint = relation(mine, numeric, tol)
    if tag in ("transposed", "sign"):
        return wrong(tag, hint, right_text, secrets)
    upstream_here = _unbroadcast(place.upstream, shape)
    if upstream_here is not None:
        passed = place.pick(upstream_here)
        if all_close(mine, passed, tol) and not all_close(passed, numeric, tol):
            return wrong("missing_local_derivative",
                         f"it is the upstream gradient passed through unchanged: multiply it "
                         f"by the local derivative ∂out/∂(input {k}) (the chain rule)",
                         right_text, secrets)
    if place.out.shape == shape:            # an elementwise operation's local derivative
        up = place.pick(place.upstream)
        with np.errstate(all="ignore"):
            local = numeric / up
        if np.all(np.isfinite(local)) and all_close(mine, local, tol):
            return wrong("missing_upstream",
                         "it is the local derivative alone: multiply it by the upstream "
                         "gradient grad (the chain rule)", right_text, secrets)
        xs = place.pick(np.broadcast_to(place.x, place.out.shape).astype(np.float64))
        ys = place.pick(place.out)
        for words, formula, constants in known_factors():
            with np.errstate(all="ignore"):
                c = factor_values(formula, constants, xs, ys)
            if c is not None and np.all(np.isfinite(c)) and np.all(np.abs(c) > 1e-3) and \
                    all_close(mine * c, numeric, tol):
                return wrong("missing_local_derivative",
                             f"it lacks the factor {words} of the local derivative (x is the "
                             f"input, out the output)", right_text, secrets)
    if tag == "factor":
        return wrong("factor", hint + (f"; {where}" if where else ""), right_text, secrets)
    extra = normalisation(g, numeric, tol) if place.sample is None else None
    text = where + (f"; {extra[1]}" if extra else "")
    return wrong("value", text or "it differs from the numerical derivative", right_text,
                 secrets)


def _reveal_text(numeric, mine, place):
    shown, _ = fmt_pair(numeric, mine) if np.shape(numeric) == np.shape(mine) else \
        (fmt_array(numeric), None)
    return shown + ("" if place.sample is None else " (at the checked elements)")


def _close(g, numeric, tol, place):
    return all_close(place.pick(g), numeric, tol)


def _sample(arrays, checked, rng):
    """{input: flat indices to check, or None for all}: every element when the inputs have
    at most ``FULL_CHECK`` in all, else ``SAMPLE`` per input drawn at random."""
    total = sum(arrays[k].size for k in checked)
    if total <= FULL_CHECK:
        return {k: None for k in checked}
    return {k: (None if arrays[k].size <= SAMPLE else
                np.sort(rng.choice(arrays[k].size, SAMPLE, replace=False)))
            for k in checked}


def _sample_note(arrays, sample):
    parts = [f"input {k}: {len(s):,} of its {arrays[k].size:,} elements"
             for k, s in sample.items() if s is not None]
    if not parts:
        return ""
    return (f"\n(Checked at elements drawn at random, {'; '.join(parts)}: a numerical "
            f"derivative costs two runs of the forward per element, so large inputs are "
            f"sampled.)")


def numerical_gradient(forward, arrays, k, upstream, eps, indices=None):
    """∂/∂(input k) of Σ upstream ⊙ forward(arrays), by central differences: every element
    (an array of input k's shape), or the flat ``indices`` only (a 1-D array)."""
    x = arrays[k].astype(np.float64)
    flat = x.reshape(-1)
    args = list(arrays)
    args[k] = x
    where = range(flat.size) if indices is None else indices
    values = np.zeros(len(where))
    for j, i in enumerate(where):
        orig = flat[i]
        flat[i] = orig + eps
        plus = float(np.sum(upstream * forward(args)))
        flat[i] = orig - eps
        minus = float(np.sum(upstream * forward(args)))
        flat[i] = orig
        values[j] = (plus - minus) / (2 * eps)
    return values.reshape(x.shape) if indices is None else values


class SecondOrder:
    def __init__(self, ok, cell, explanation="", right="", advice=""):
        self.ok, self.cell, self.explanation = ok, cell, explanation
        self.right, self.advice = right, advice


SAVED_OUTPUT = ("Its forward saves its own output before another value: the output is known as "
                "the last positional save, so here the engine treats y as a constant and cannot "
                "differentiate through it. Save the output last, ctx.save(x, y), or by its "
                "name, ctx.save(x, output=y) (PyTorch: save_for_backward(output)).")
UNRECORDED = ("The engine recorded nothing it can differentiate: backward uses a NumPy "
              "function on grad or on a saved value (write it with operators and ctx.xp "
              "functions, so that the engine can record it), or reads a saved value the "
              "engine cannot follow back to the input.")
RECORDED_WRONG = ("The recorded backward differentiates to other values: a saved value it "
                  "treats as a constant depends on the input (compute it from the inputs in "
                  "backward, with operators and ctx.xp), or a NumPy function hides part of the "
                  "formula.")


def second_order(form, arrays, checked, upstream, eps, tol, seed, sample):
    """{input: SecondOrder}: the gradient of S = Σ_k ⟨V_k, ∂L/∂x_k⟩ (random V_k) through the
    backward run with create_graph=True, against central differences of S computed from the
    first derivatives (at the sampled elements for large inputs)."""
    from dagrad.autograd import grad as autograd_grad, tensor
    rng = np.random.default_rng(seed + 1)
    weights = {k: rng.standard_normal(arrays[k].shape) for k in checked}

    def s_value(args, requires_grad):
        ts = [tensor(a, requires_grad=requires_grad and a.dtype.kind == "f") for a in args]
        floats, grads = form.first_order(ts, upstream)
        total = None
        for k, g in zip(checked, grads):
            if g is None:
                continue
            term = (g * tensor(weights[k])).sum()
            total = term if total is None else total + term
        return floats, total

    try:
        floats, total = s_value(arrays, True)
        recorded = total is not None and total.requires_grad
        if not recorded:
            analytic = [np.zeros(arrays[k].shape) for k in checked]
        else:
            got = autograd_grad(total, floats, allow_unused=True)
            analytic = [np.zeros(arrays[k].shape) if g is None else g.numpy()
                        for k, g in zip(checked, got)]

        def s_number(args):
            _, t = s_value(args, True)
            return np.array(0.0 if t is None else float(t.item()))
        numeric = [numerical_gradient(s_number, arrays, k, np.array(1.0), eps, sample[k])
                   for k in checked]
    except Exception as e:                     # the student's backward under create_graph
        text = f"backward with create_graph=True raised {type(e).__name__}: {e}"
        return {k: SecondOrder(False, "✗ raised", text, advice=UNRECORDED) for k in checked}
    result = {}
    for k, a, n in zip(checked, analytic, numeric):
        a = a if sample[k] is None else np.asarray(a).reshape(-1)[sample[k]]
        if all_close(a, n, max(tol, 1e-4)):
            result[k] = SecondOrder(True, "✓ right")
            continue
        err, index = largest_error(a, n)
        where = f" (the largest difference at index {index})" if np.ndim(a) else ""
        result[k] = SecondOrder(False, "✗ wrong",
                                f"the recorded backward gives other second derivatives than "
                                f"the numerical ones{where}",
                                right=f"should be {fmt_array(n)}, the recorded backward gives "
                                      f"{fmt_array(a)}",
                                advice=RECORDED_WRONG if recorded else UNRECORDED)
    return result


def _wrong_saved_value(form, arrays, upstream, numeric, checked, wanted, tol, place):
    """(what was used, what is needed) when replacing one saved value by another makes every
    gradient right, else None."""
    try:
        for was, now, raw in form.with_other_saves(arrays, upstream):
            if all(_is_right(raw[k], numeric[k], wanted[k], tol, place[k]) for k in checked):
                return was, now
    except (StudentError, NotImplementedError):
        return None
    return None


def _is_right(g, numeric, wanted, tol, place):
    if g is None:
        return all_close(np.zeros_like(numeric), numeric, tol)
    shape = place.x.shape
    if g.shape != shape:
        if wanted is not None:
            return False
        g = _unbroadcast(g, shape)
    return g is not None and all_close(place.pick(g), numeric, tol)


def _input_array(x):
    from dagrad.autograd import Tensor
    if isinstance(x, Tensor):
        x = x.numpy()
    a = np.array(x)
    if a.dtype.kind in "fc" or a.dtype == object:
        a = a.astype(np.float64)
    elif a.dtype.kind in "iu" and a.ndim == 0:
        a = a.astype(np.float64)            # a plain number: differentiate it
    return a


def _wanted_shapes(expected, arrays):
    if expected is None or expected is False:
        return [None] * len(arrays)
    if expected is True:
        return [a.shape for a in arrays]
    expected = list(expected)
    if len(expected) != len(arrays):
        raise ValueError(f"check_backward: expected_shapes has {len(expected)} shapes for "
                         f"{len(arrays)} inputs")
    return [None if s is None else tuple(s) for s in expected]


def _unbroadcast(g, shape):
    """``g`` summed down to ``shape`` when ``shape`` broadcasts to ``g``'s shape, else None."""
    try:
        if np.broadcast_shapes(tuple(shape), g.shape) != g.shape:
            return None
    except ValueError:
        return None
    from dagrad.autograd import unbroadcast
    return np.asarray(unbroadcast(g, tuple(shape)))


def _broadcast_axes(big, small):
    lead = len(big) - len(small)
    axes = list(range(lead)) + [lead + i for i, n in enumerate(small)
                                if n == 1 and big[lead + i] != 1]
    return axes[0] if len(axes) == 1 else tuple(axes)
