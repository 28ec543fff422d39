"""``check_grads``: gradients a student computed by hand, against the engine's."""
import numpy as np

from .compare import (NotANumber, all_close, answer_array, fmt_array, fmt_number, fmt_shape,
                      largest_error, relation)
from .picture import grads_graph, grads_svg
from .result import CheckResult, finish, is_blank, not_answered


def check_grads(answers, loss, names=None, tol=1e-5, *, exercise=None):
    """Compare hand-computed gradients with the engine's.

    ``answers`` maps a name to the student's ∂L/∂(tensor of that name) (a number, array or
    Tensor; ``None`` or ``...`` while not answered). ``loss`` is a one-element Tensor.
    ``names`` maps names to Tensors (``names=locals()`` works; other entries are ignored);
    without it the tensors are found in ``loss``'s graph by their ``.name``. An element is
    right when |answer − ∂L/∂x| ≤ tol · (1 + |∂L/∂x|).

    The engine's gradients are computed with ``ag.grad`` on a retained graph: no ``.grad``
    changes and ``loss.backward()`` still works afterwards. The result has a table (per
    tensor: shape, largest error, right or wrong and why) and, in Jupyter, the graph with the
    wrong tensors and the edges whose δ's add up to their gradient drawn in red, the student's
    value beside the right one.

    Diagnoses: "not_answered" (some answer blank), "shape", "transposed", "sign", "factor"
    (when every wrong gradient is wrong in that way), else "value".
    """
    from dagrad.autograd import Tensor
    if is_blank(answers) or (isinstance(answers, dict) and answers
                             and all(is_blank(v) for v in answers.values())):
        return not_answered(exercise)
    if not isinstance(answers, dict) or not answers:
        raise TypeError("check_grads: answers must be a dict {name: your gradient}, e.g. "
                        "{'w': dw, 'b': db}")
    if not isinstance(loss, Tensor):
        raise TypeError(f"check_grads: loss must be a dagrad Tensor, got {type(loss).__name__}")
    if loss.numel() != 1:
        raise ValueError(f"check_grads: loss must have one element (a scalar), but it has "
                         f"shape {tuple(loss.shape)}; reduce it with .sum() or .mean()")
    tensors = find_tensors(list(answers), loss, names)
    right = engine_gradients(loss, tensors)
    rows, verdicts = [("tensor", "shape", "largest error", "")], {}
    for key, answer in answers.items():
        verdicts[key] = verdict = _judge(key, answer, right[key], tol)
        rows.append((key, fmt_shape(right[key].shape), verdict.error, verdict.cell))
    graph = grads_graph(loss, tensors)

    def picture():
        return grads_svg(graph, tensors, verdicts)
    wrong = [v for v in verdicts.values() if not v.ok]
    if not wrong:
        message = (f"All {len(verdicts)} gradients match the engine's." if len(verdicts) > 1
                   else f"∂L/∂{next(iter(verdicts))} matches the engine's gradient.")
        return finish(CheckResult(True, message, None, exercise, rows, picture))
    blank = [v.name for v in wrong if v.tag == "not_answered"]
    judged = [v for v in wrong if v.tag != "not_answered"]
    lines = []
    if judged:
        lines.append(f"{len(judged)} of {len(verdicts)} gradients "
                     f"{'are' if len(judged) > 1 else 'is'} wrong:")
        lines += [f"  ∂L/∂{v.name}: {v.explanation}" for v in judged]
    if blank:
        lines.append(f"Not answered yet: {', '.join(blank)}. Write your answer in the cell "
                     f"above, then run this cell again.")
    tags = {v.tag for v in wrong}
    diagnosis = "not_answered" if blank else tags.pop() if len(tags) == 1 else "value"
    return finish(CheckResult(False, "\n".join(lines), diagnosis, exercise, rows, picture))


class Verdict:
    """One tensor's line of the table."""

    def __init__(self, name, ok, tag, error, cell, explanation, answer, right):
        self.name, self.ok, self.tag, self.error = name, ok, tag, error
        self.cell, self.explanation, self.answer, self.right = cell, explanation, answer, right


def _judge(name, answer, right, tol):
    if is_blank(answer):
        return Verdict(name, False, "not_answered", "", "… not answered", "", None, right)
    try:
        a = answer_array(answer, f"your ∂L/∂{name}")
    except NotANumber as err:
        return Verdict(name, False, "type", "", "✗ not a number", str(err), None, right)
    if a.shape != right.shape and a.size == 1 and right.size == 1:
        a = a.reshape(right.shape)
    if a.shape != right.shape:
        tag, hint = relation(a, right, tol)
        tag = "transposed" if tag == "transposed" else "shape"
        text = (f"has shape {fmt_shape(a.shape)}, but {name} has shape "
                f"{fmt_shape(right.shape)} (a gradient has the shape of its tensor)")
        cell = "✗ transposed" if tag == "transposed" else f"✗ shape {fmt_shape(a.shape)}"
        return Verdict(name, False, tag, "", cell,
                       text + (f"; {hint}" if tag == "transposed" else ""), a, right)
    err, index = largest_error(a, right)
    if all_close(a, right, tol):
        return Verdict(name, True, None, fmt_number(err), "✓ right", "", a, right)
    tag, hint = relation(a, right, tol)
    where = f" at index {index}" if a.ndim else ""
    text = f"should be {fmt_array(right)}, yours is {fmt_array(a)}"
    if a.ndim:
        text += f" (largest difference {fmt_number(err)}{where})"
    if hint:
        text += f"; {hint}"
    cell = "✗ wrong" + (f" ({tag})" if tag != "value" else "")
    return Verdict(name, False, tag, fmt_number(err), cell, text, a, right)


def find_tensors(keys, loss, names):
    """{key: Tensor} for the answer keys, from ``names`` or from the graph's ``.name``s."""
    from dagrad.autograd import Tensor
    found = {}
    if names is not None:
        for key in keys:
            t = names.get(key)
            if isinstance(t, Tensor):
                found[key] = t
    missing = [k for k in keys if k not in found]
    if missing:
        by_name = _named_leaves(loss)
        for key in missing:
            if key in by_name:
                found[key] = by_name[key]
    missing = [k for k in keys if k not in found]
    if missing:
        raise ValueError(f"check_grads: no tensor called {', '.join(map(repr, missing))}: pass "
                         f"names=locals() (or a dict name -> Tensor), or set the tensors' "
                         f".name")
    for key, t in found.items():
        if not t.requires_grad:
            raise ValueError(f"check_grads: tensor {key!r} does not require a gradient; create "
                             f"it with requires_grad=True")
    return found


def _named_leaves(loss):
    """{name: tensor} for every tensor with a ``.name`` in ``loss``'s graph (an iterative
    walk over the recorded operations)."""
    from dagrad.autograd import Tensor
    found = {}
    if loss.name:
        found[loss.name] = loss
    start = loss.grad_fn
    stack, seen = ([start] if start is not None else []), set()
    while stack:
        node = stack.pop()
        if id(node) in seen:
            continue
        seen.add(id(node))
        for p in getattr(node, "parents", ()):
            if isinstance(p, Tensor):
                if p.name:
                    found.setdefault(p.name, p)
            elif p is not None:
                stack.append(p)
    return found


def engine_gradients(loss, tensors):
    """{key: ∂L/∂tensor as a float64 array}; zeros for a tensor the loss does not use."""
    from dagrad.autograd import grad
    keys = list(tensors)
    values = grad(loss, [tensors[k] for k in keys], retain_graph=True, allow_unused=True)
    return {k: (np.zeros(tensors[k].shape) if g is None else
                np.array(g.numpy(), dtype=np.float64)) for k, g in zip(keys, values)}
