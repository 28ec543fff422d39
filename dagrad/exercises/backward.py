"""``check_backward``: an operation the student wrote, gradchecked, with the usual mistakes
named from the numbers.

The reference is numerical: for a fixed random upstream gradient G (the shape of the output),
the gradient of L = Σ G ⊙ forward(x) with respect to each element of each input, by central
differences (L(x + ε) − L(x − ε)) / 2ε in float64. The student's backward gets the same G.
"""
import numpy as np

from .compare import (all_close, fmt_array, fmt_number, fmt_shape, largest_error, relation)
from .operations import StudentError, as_form
from .result import CheckResult, finish, is_blank, not_answered

# Local-derivative factors a backward commonly leaves out, as functions of the input x and
# the output y (elementwise operations).
KNOWN_FACTORS = (
    ("1 - y²", lambda x, y: 1 - y * y),
    ("y (1 - y)", lambda x, y: y * (1 - y)),
    ("1 - y", lambda x, y: 1 - y),
    ("y", lambda x, y: y),
    ("x", lambda x, y: x),
    ("2x", lambda x, y: 2 * x),
    ("1/x", lambda x, y: 1 / x),
)


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
            differentiated (in float64), others (indices, masks) are constants.
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
    "factor" (off by a constant factor), "missing_broadcast_sum", "wrong_saved_value" (right
    once another value, e.g. the output instead of the input, takes the saved one's place),
    "gradgrad" (first derivatives right, second wrong), "value".
    """
    if is_blank(fn_or_function):
        return not_answered(exercise)
    form = as_form(fn_or_function, attrs or {})
    arrays = [_input_array(x) for x in inputs]
    checked = [k for k, a in enumerate(arrays) if a.dtype.kind == "f"]
    if not checked:
        raise ValueError("check_backward: no floating-point input to differentiate")
    try:
        out = form.forward(arrays)
        upstream = np.random.default_rng(seed).standard_normal(out.shape)
        numeric = {k: numerical_gradient(form.forward, arrays, k, upstream, eps)
                   for k in checked}
        raw = form.backward(arrays, upstream)
    except NotImplementedError:
        return not_answered(exercise)
    except StudentError as e:
        return finish(CheckResult(False, f"{e}." + _because(why), "error", exercise))
    if all(raw[k] is None for k in checked):
        return not_answered(exercise, "your backward returns None")
    wanted = _wanted_shapes(expected_shapes, arrays)
    verdicts = {k: judge(k, raw[k], numeric[k], arrays[k], out, upstream, wanted[k], tol)
                for k in checked}
    wrong = [v for v in verdicts.values() if not v.ok]
    saved = None
    if wrong and all(v.tag in ("value", "factor", "sign") for v in wrong):
        saved = _wrong_saved_value(form, arrays, upstream, numeric, checked, wanted, tol)
    second = {}
    if not wrong and gradgrad and form.second_order:
        second = second_order(form, arrays, checked, upstream, eps, tol, seed)
    rows = [("input", "shape", "gradient", "largest error", "second order")]
    for k in checked:
        v = verdicts[k]
        rows.append((f"input {k}", fmt_shape(arrays[k].shape), v.cell, v.error,
                     second[k][1] if k in second else "-"))
    if saved is not None:
        was, now = saved
        if hasattr(form, "cls"):
            message = (f"{form.name}'s forward saves {was}, but its backward uses that value as "
                       f"{now}: with {now} saved, every gradient is right. Save what the "
                       f"formula is written with (ctx.save(output=y) keeps the output).")
        else:
            message = (f"{form.name}'s backward uses {was} where its formula needs {now}: with "
                       f"{now} in that place, every gradient is right.")
        return finish(CheckResult(False, message + _because(why), "wrong_saved_value",
                                  exercise, rows))
    if wrong:
        if len(verdicts) == 1:
            lines = [f"{form.name}'s backward gives a wrong gradient:"]
        else:
            lines = [f"{len(wrong)} of {len(verdicts)} gradients of {form.name}'s backward "
                     f"{'are' if len(wrong) > 1 else 'is'} wrong:"]
        lines += [f"  input {v.index}: {v.explanation}" for v in wrong]
        at = ", ".join(f"input {k} = {fmt_array(arrays[k])}" for k in checked)
        lines.append(f"(Checked at {at}, with the upstream gradient grad = "
                     f"{fmt_array(upstream)}, drawn at random.)")
        tags = {v.tag for v in wrong}
        diagnosis = tags.pop() if len(tags) == 1 else wrong[0].tag
        return finish(CheckResult(False, "\n".join(lines) + _because(why), diagnosis,
                                  exercise, rows))
    failed = [k for k, (ok, _, _) in second.items() if not ok]
    if failed:
        lines = [f"{form.name}'s first derivatives are right, but its second derivatives "
                 f"(backward run with create_graph=True) are not:"]
        lines += [f"  input {k}: {second[k][2]}" for k in failed]
        lines.append("Write backward with operators and ctx.xp functions, never NumPy calls on "
                     "grad or on saved inputs, so that the engine can record it.")
        return finish(CheckResult(False, "\n".join(lines), "gradgrad", exercise, rows))
    order = "first and second order" if second else "first order"
    message = (f"{form.name}'s backward matches the numerical derivatives of its forward for "
               f"every input ({order}).")
    return finish(CheckResult(True, message, None, exercise, rows))


class InputVerdict:
    def __init__(self, index, ok, tag, cell, error, explanation=""):
        self.index, self.ok, self.tag, self.cell = index, ok, tag, cell
        self.error, self.explanation = error, explanation


def judge(k, raw, numeric, x, out, upstream, wanted, tol):
    """The verdict on input ``k``'s gradient ``raw`` (as the backward returned it) against the
    ``numeric`` one; ``wanted`` is the shape the exercise asks for, or None."""
    def wrong(tag, text, error=""):
        cell = "✗ " + (tag.replace("_", " ") if tag != "value" else "wrong")
        return InputVerdict(k, False, tag, cell, error, text)

    if raw is None:
        if all_close(np.zeros_like(numeric), numeric, tol):
            return InputVerdict(k, True, None, "✓ right (none)", "0")
        return wrong("value", "your backward returns None (no gradient), but the gradient is "
                     f"{fmt_array(numeric)}")
    g = raw
    if g.shape != numeric.shape:
        summed = _unbroadcast(g, numeric.shape)
        if summed is not None and all_close(summed, numeric, tol):
            if wanted is None:
                return InputVerdict(k, True, None, "✓ right (summed)", "0")
            axes = _broadcast_axes(g.shape, numeric.shape)
            return wrong("missing_broadcast_sum",
                         f"your gradient has shape {fmt_shape(g.shape)}, the output's, but "
                         f"input {k} has shape {fmt_shape(numeric.shape)}: it was broadcast, so "
                         f"its gradient is the sum over the broadcast axes (sum over axis "
                         f"{axes}{', keepdims=True' if len(numeric.shape) == len(g.shape) else ''})")
        tag, hint = relation(g, numeric, tol)
        if tag == "transposed":
            return wrong("transposed", f"your gradient has shape {fmt_shape(g.shape)}, the "
                         f"transpose of input {k}'s {fmt_shape(numeric.shape)}, and is the "
                         f"transpose of the right gradient")
        if summed is None:
            return wrong("shape", f"your gradient has shape {fmt_shape(g.shape)}, but input {k} "
                         f"has shape {fmt_shape(numeric.shape)} (a gradient has the shape of "
                         f"its input)")
        g = summed
    elif wanted is not None and tuple(wanted) != g.shape:
        return wrong("shape", f"the gradient should have shape {fmt_shape(wanted)}")
    err, index = largest_error(g, numeric)
    if all_close(g, numeric, tol):
        return InputVerdict(k, True, None, "✓ right", fmt_number(err))
    e = fmt_number(err)
    where = f" (largest difference {e} at index {index})" if g.ndim else ""
    base = f"should be {fmt_array(numeric)}, yours is {fmt_array(g)}{where}"
    tag, hint = relation(g, numeric, tol)
    if tag in ("transposed", "sign"):
        return wrong(tag, f"{base}; {hint}", e)
    passed = _unbroadcast(upstream, numeric.shape)
    if passed is not None and all_close(g, passed, tol) and not all_close(passed, numeric, tol):
        return wrong("missing_local_derivative",
                     f"{base}; it is the upstream gradient passed through unchanged: multiply "
                     f"it by the local derivative ∂out/∂(input {k}) (the chain rule)", e)
    if out.shape == numeric.shape:            # an elementwise operation's local derivative
        local = numeric / upstream
        if all_close(g, local, tol):
            return wrong("missing_upstream",
                         f"{base}; it is the local derivative alone: multiply it by the "
                         f"upstream gradient grad (the chain rule)", e)
        xs = np.broadcast_to(x, out.shape).astype(np.float64)
        for name, factor in KNOWN_FACTORS:
            with np.errstate(all="ignore"):
                c = factor(xs, out)
            if np.all(np.isfinite(c)) and np.all(np.abs(c) > 1e-3) and \
                    all_close(g * c, numeric, tol):
                return wrong("missing_local_derivative",
                             f"{base}; it lacks the factor {name} of the local derivative "
                             f"(x is the input, y the output)", e)
    if tag == "factor":
        return wrong("factor", f"{base}; {hint}", e)
    return wrong("value", base, e)


def numerical_gradient(forward, arrays, k, upstream, eps):
    """∂/∂(input k) of Σ upstream ⊙ forward(arrays), by central differences."""
    x = arrays[k].astype(np.float64)
    grad = np.zeros_like(x)
    flat, g = x.reshape(-1), grad.reshape(-1)
    args = list(arrays)
    args[k] = x
    for i in range(flat.size):
        orig = flat[i]
        flat[i] = orig + eps
        plus = float(np.sum(upstream * forward(args)))
        flat[i] = orig - eps
        minus = float(np.sum(upstream * forward(args)))
        flat[i] = orig
        g[i] = (plus - minus) / (2 * eps)
    return grad


def second_order(form, arrays, checked, upstream, eps, tol, seed):
    """{input: (ok, table cell, explanation)}: the gradient of S = Σ_k ⟨V_k, ∂L/∂x_k⟩ (random
    V_k) through the backward run with create_graph=True, against central differences of S
    computed from the first derivatives."""
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
        if total is None or not total.requires_grad:
            analytic = [np.zeros(arrays[k].shape) for k in checked]
        else:
            got = autograd_grad(total, floats, allow_unused=True)
            analytic = [np.zeros(arrays[k].shape) if g is None else g.numpy()
                        for k, g in zip(checked, got)]

        def s_number(args):
            _, t = s_value(args, True)
            return np.array(0.0 if t is None else float(t.item()))
        numeric = [numerical_gradient(s_number, arrays, k, np.array(1.0), eps)
                   for k in checked]
    except Exception as e:                     # the student's backward under create_graph
        text = f"backward with create_graph=True raised {type(e).__name__}: {e}"
        return {k: (False, "✗ raised", text) for k in checked}
    result = {}
    for k, a, n in zip(checked, analytic, numeric):
        if all_close(a, n, max(tol, 1e-4)):
            result[k] = (True, "✓ right", "")
        else:
            err, _ = largest_error(a, n)
            result[k] = (False, "✗ wrong", f"second derivatives should be {fmt_array(n)}, "
                         f"the recorded backward gives {fmt_array(a)} (largest difference "
                         f"{fmt_number(err)})")
    return result


def _wrong_saved_value(form, arrays, upstream, numeric, checked, wanted, tol):
    """(what was used, what is needed) when replacing one saved value by another makes every
    gradient right, else None."""
    try:
        for was, now, raw in form.with_other_saves(arrays, upstream):
            if all(_is_right(raw[k], numeric[k], wanted[k], tol) for k in checked):
                return was, now
    except (StudentError, NotImplementedError):
        return None
    return None


def _is_right(g, numeric, wanted, tol):
    if g is None:
        return all_close(np.zeros_like(numeric), numeric, tol)
    if g.shape != numeric.shape:
        if wanted is not None:
            return False
        g = _unbroadcast(g, numeric.shape)
    return g is not None and all_close(g, numeric, tol)


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


def _because(why):
    return f" Why: {why}" if why else ""
