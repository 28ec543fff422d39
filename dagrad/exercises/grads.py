"""``check_grads``: gradients a student computed by hand, against the engine's.

What the engine knows is computed once, when the exercise is set up (``prepare``): the right
gradients, the traced graph for the picture, and a copy of the graph's nodes that carries the
student's own δ's back (``carry.py``), so a check can tell where a chain of hand-computed δ's
goes wrong from the δ's that merely follow from a wrong one, and judge each mistake against
what the chain rule gives from the student's own δ's.
"""
import contextlib

import numpy as np

from .compare import (NotANumber, all_close, answer_array, fmt_array, fmt_pair, fmt_shape,
                      relation)
from .detectors import normalisation, swapped
from .explain import Coordinates, diagnose, render_rule, where_wrong
from .ladder import finish
from .carry import Snapshot
from .picture import grads_graph, grads_svg
from .result import NOT_ANSWERED, CheckResult, is_blank


def check_grads(answers, loss, names=None, tol=1e-5, *, exercise=None):
    """Compare hand-computed gradients with the engine's.

    ``answers`` maps a name to the student's ∂L/∂(tensor of that name) (a number, array or
    Tensor; ``None`` or ``...`` while not answered). ``loss`` is a one-element Tensor.
    ``names`` maps names to Tensors (``names=locals()`` works; other entries are ignored);
    without it the tensors are found in ``loss``'s graph by their ``.name``. An element is
    right when |answer − ∂L/∂x| ≤ tol · (1 + |∂L/∂x|).

    The engine's gradients are computed with ``ag.grad`` on a retained graph, with the
    tensors' hooks set aside: no ``.grad`` changes, no hook runs, and ``loss.backward()``
    still works afterwards. The result says which gradient is wrong first (the others may
    only follow from it), where (the worst elements), and how (sign, factor, transpose,
    swapped, passed through unchanged); it has a table and, in Jupyter, the graph with the
    wrong tensors and the edges whose δ's add up to their gradient drawn in red, the
    student's value in the box (the right one on ``reveal()``).

    Diagnoses: "not_answered" (some answer blank), "shape", "transposed", "sign", "factor",
    "swapped", "missing_local_derivative", "accumulation", else "value".
    """
    if is_blank(answers) or (isinstance(answers, dict) and answers
                             and all(is_blank(v) for v in answers.values())):
        return finish(CheckResult(False, NOT_ANSWERED, "not_answered", exercise))
    _validate_answers(answers)
    tensors = find_tensors(list(answers), _checked_loss(loss), names)
    prepared = prepare(loss, tensors)
    return finish(judge_grads(answers, prepared, tol, exercise=exercise),
                  list(answers.values()))


def _validate_answers(answers):
    if not isinstance(answers, dict) or not answers:
        raise TypeError("check_grads: answers must be a dict {name: your gradient}, e.g. "
                        "{'w': dw, 'b': db}")


def _checked_loss(loss):
    from dagrad.autograd import Tensor
    if not isinstance(loss, Tensor):
        raise TypeError(f"check_grads: loss must be a dagrad Tensor, got {type(loss).__name__}")
    if loss.numel() != 1:
        raise ValueError(f"check_grads: loss must have one element (a scalar), but it has "
                         f"shape {tuple(loss.shape)}; reduce it with .sum() or .mean()")
    return loss


class Prepared:
    """What the engine knows about ``loss`` and ``tensors`` (answer name -> Tensor), computed
    once: ``right`` (name -> ∂L/∂tensor), ``graph`` (traced, with every edge's δ; its tensors
    named by ``names``, {name: Tensor}, default the answer names), ``snapshot`` (the graph's
    nodes, to carry the student's δ's back: ``carry.py``)."""

    def __init__(self, loss, tensors, names=None):
        with hooks_set_aside(loss):
            self.right = engine_gradients(loss, tensors)
            self.graph = grads_graph(loss, names or tensors)
        self.snapshot = Snapshot(loss, tensors)
        self.tensors = tensors
        self.shapes = {k: tuple(t.shape) for k, t in tensors.items()}

    def carry(self, mine):
        """``Snapshot.carry`` of the student's δ's (name -> array), or ({}, {}) when the graph
        cannot be walked (it was freed before the exercise was set up)."""
        try:
            return self.snapshot.carry(mine)
        except Exception:              # an operation whose copy cannot run backward again
            return {}, {}


def prepare(loss, tensors, names=None):
    return Prepared(_checked_loss(loss), tensors, names)


def judge_grads(answers, prepared, tol=1e-5, *, exercise=None, labels=None, coords=None,
                misconceptions=(), given=None, rules=None, sizes=None, why=None,
                context=None, origin=None):
    """The verdict on ``answers`` (answer name -> the student's gradient) against
    ``prepared``, whose tensors have the same names. ``labels`` (name -> words, default
    "∂L/∂name"), ``coords`` (name -> ``explain.Coordinates`` spec), ``misconceptions`` (each
    computing {name: wrong gradient}), ``rules`` (name -> the second hint, see
    ``explain.render_rule``) and ``sizes`` come from an exercise's definition.

    ``context`` (name -> the student's gradient, from other exercises of the same backward
    pass; ``origin`` names each one's exercise) is not judged here: it is carried back like
    the answers (a δ here that only follows from a wrong δ there says so) and drawn in the
    picture, the progress map of the whole pass."""
    context, origin = dict(context or {}), origin or {}
    labels = {k: (labels or {}).get(k, f"∂L/∂{k}")
              for k in dict.fromkeys([*answers, *context, *prepared.tensors])}
    coords = coords or {}
    verdicts = {k: _judge_one(k, answers[k], prepared.right[k], tol, labels[k],
                              coords.get(k), given, sizes) for k in answers}
    others = {k: _judge_one(k, v, prepared.right[k], tol, labels[k], None, given, sizes)
              for k, v in context.items() if k in prepared.right and k not in answers}
    wrong = [v for v in verdicts.values() if not v.ok]

    def table():
        return [("tensor", "shape", "")] + [(labels[k], fmt_shape(prepared.shapes[k]), v.cell)
                                            for k, v in verdicts.items()]

    def picture(revealed):
        shown = {k: Verdict(k, False, "not_answered", "") for k in prepared.tensors}
        shown.update(others)
        shown.update(verdicts)
        return grads_svg(prepared.graph, prepared.tensors, shown, revealed, labels)
    if not wrong:
        message = (f"All {len(verdicts)} gradients are right." if len(verdicts) > 1
                   else f"{next(iter(labels.values()))} is right.")
        return CheckResult(True, message, None, exercise, table(), picture)
    blank = [labels[v.name] for v in wrong if v.tag == "not_answered"]
    judged = [v for v in wrong if v.tag != "not_answered"]
    lines, diagnosis, diagnoses = [], None, []
    if judged:
        named = {**labels, **{k: f"{labels[k]} (exercise {origin[k]})" for k in others
                              if k in origin}}
        diagnosis, lines, diagnoses = _explain(verdicts, others, judged, prepared, tol, named,
                                               misconceptions, given, coords, sizes)
    if blank:
        lines.append(f"Not answered yet: {', '.join(blank)}. Write your answer in the cell "
                     f"above, then run this cell again.")
        diagnosis = "not_answered" if not judged else diagnosis
    entry = [v for v in judged if not v.inherited]
    stronger = [render_rule((rules or {}).get(v.name), given, answers) for v in entry]
    right = [f"{labels[v.name]} should be {v.right_text}." for v in judged]
    return CheckResult(False, "\n".join(lines), diagnosis, exercise, table(), picture,
                       stronger="\n".join(s for s in stronger if s) or None,
                       right="\n".join(right), why=why,
                       secrets=[s for v in judged for s in v.secrets],
                       yours=[s for v in verdicts.values() for s in v.yours],
                       diagnoses=diagnoses or [diagnosis])


def _explain(verdicts, others, judged, prepared, tol, labels, misconceptions, given, coords,
             sizes):
    """(diagnosis, lines, every diagnosis) for the wrong gradients: where each mistake enters
    (judged against what the chain rule gives from the student's own δ's) and which wrong δ's
    only follow from it, the misconceptions the answers match, swapped answers."""
    _locate(verdicts, others, judged + [v for v in others.values() if not v.ok],
            prepared, tol, labels, given, coords, sizes)
    mine = {v.name: v.answer for v in verdicts.values() if v.answer is not None}
    entry = [v for v in judged if not v.inherited]
    followers = [v for v in judged if v.inherited]
    count = len(judged)
    lines = [] if count == 1 else [f"{count} of {len(verdicts)} gradients are wrong."]
    matched = {}
    for m in misconceptions or ():
        wrong = m.value(given)
        if isinstance(wrong, dict) and wrong and all(
                k in mine and _matches(mine[k], wrong[k], tol) for k in wrong) and \
                not any(k in matched for k in wrong):
            for k in wrong:
                matched[k] = m
                verdicts[k].tag = m.tag
                verdicts[k].cell = f"✗ {m.tag.replace('_', ' ')}"
    if not matched:
        pair = swapped(mine, prepared.right, tol, labels)
        if pair:
            a, b, sentence = pair
            for k in (a, b):
                verdicts[k].tag = "swapped"
            lines.append(_cap(sentence) + ".")
            return "swapped", lines, ["swapped"]
    lines += _entry_lines(entry, followers, labels, matched)
    if not entry:
        return "inherited", lines, ["inherited"]
    tags = list(dict.fromkeys(v.tag for v in entry))
    diagnosis = next((m.tag for m in matched.values()), None) or \
        (tags[0] if len(tags) == 1 else "value")
    return diagnosis, lines, tags


def _entry_lines(entry, followers, labels, matched=None):
    """A line per place a mistake enters, in the order of the answers (a matched
    misconception's sentence once, for all the δ's it covers), then one line for the δ's that
    only follow from them, naming where their mistakes came from."""
    lines, said = [], set()
    shared = {}                  # one sentence for the δ's wrong in the same way
    for v in entry:
        if v.name not in (matched or {}) and v.sentence and v.tag != "value":
            shared.setdefault((v.tag, v.sentence), []).append(v)
    shared = {key: group for key, group in shared.items() if len(group) > 1}
    for v in entry:
        m = (matched or {}).get(v.name)
        if m is not None:
            if id(m) not in said:
                said.add(id(m))
                lines.append(_cap(m.sentence) + ".")
            continue
        group = shared.get((v.tag, v.sentence))
        if group is not None:
            if id(group) not in said:
                said.add(id(group))
                names = ", ".join(labels[u.name] for u in group[:-1]) + \
                    f" and {labels[group[-1].name]}"
                each = v.sentence[3:] if v.sentence.startswith("it ") else v.sentence
                lines.append(f"{names} are wrong: each {each}.")
            continue
        if followers:
            text = f"The mistake enters at {labels[v.name]}: {v.explanation}"
        else:
            text = f"{labels[v.name]} is wrong: {v.explanation}"
        lines.append(text.rstrip() + ("" if text.endswith(".") else "."))
    if followers:
        names = ", ".join(labels[v.name] for v in followers)
        origins = [u for v in followers for u in v.inherited]
        sources = " and ".join(labels[u] for u in dict.fromkeys(origins))
        lines.append(f"{names} {'follow' if len(followers) > 1 else 'follows'} from your "
                     f"{sources} by the chain rule (each is right for the δ it is computed "
                     f"from): fix {sources} first.")
    return lines


def _matches(answer, wrong, tol):
    try:
        w = answer_array(wrong)
    except NotANumber:
        return False
    if w.shape != answer.shape and w.size == answer.size == 1:
        w = w.reshape(answer.shape)
    return w.shape == answer.shape and all_close(answer, w, tol)


def _locate(verdicts, others, judged, prepared, tol, labels, given, coords, sizes):
    """Carry the student's δ's back (``carry.py``) and judge each wrong δ_T by what the
    chain rule gives from them: equal to it, δ_T only follows from the wrong δ's it was
    computed from (``v.inherited``, their names); else the mistake enters at T. A δ_T that is
    some δ_U passed on unchanged where the chain rule changes it is a missing local
    derivative; a δ_T whose difference from the right value has no name (the mistakes of
    the δ's it was computed from mixed with its own) is judged against the carried value,
    which isolates its own."""
    every = {**others, **verdicts}
    mine = {k: v.answer for k, v in every.items()
            if v.answer is not None and v.answer.shape == prepared.right[k].shape}
    carried, came_from = prepared.carry(mine)
    for v in judged:
        c = carried.get(v.name)
        if c is None or v.answer is None:
            continue
        wrong_sources = sorted((u for u in came_from[v.name] if not every[u].ok),
                               key=list(every).index)
        if v.name not in mine:         # the wrong shape: the transpose of the carried value?
            if wrong_sources and v.tag == "shape":
                here = _judge_one(v.name, v.answer, c, tol, labels[v.name], None, given, sizes)
                if here.tag == "transposed":
                    v.tag, v.cell, v.explanation = here.tag, here.cell, here.explanation
                    v.sentence = here.sentence
            continue
        if all_close(v.answer, c, tol):
            if wrong_sources:
                v.inherited = wrong_sources
            continue
        passed = [u for u in came_from[v.name] if mine[u].shape == v.answer.shape
                  and all_close(v.answer, mine[u], tol) and not all_close(c, mine[u], tol)]
        if passed:
            v.tag, v.sentence = "missing_local_derivative", None
            v.cell = "✗ wrong (missing local derivative)"
            v.explanation = (f"it is your {labels[passed[0]]} passed on unchanged, but the "
                             f"local derivative between them is not 1: multiply by it (the "
                             f"chain rule)")
        elif wrong_sources and v.tag == "value":
            mistaken = " and ".join(labels[u] for u in wrong_sources)
            here = _judge_one(v.name, v.answer, c, tol, labels[v.name], coords.get(v.name),
                              given, sizes)
            v.tag, v.where, v.cell, v.sentence = here.tag, here.where, here.cell, None
            v.explanation = (f"{here.explanation} (compared with what the chain rule gives "
                             f"from your own {mistaken}, which is wrong too)")
    _trace_to_entries(every, list(every), labels)


def _trace_to_entries(verdicts, order, labels):
    """A δ that follows from δ's that themselves only follow from others is said to follow
    from where the mistakes enter (or from an earlier exercise's δ)."""
    def entries(name):
        v = verdicts.get(name)
        if v is None or not v.inherited:
            return {name}
        return set().union(*(entries(u) for u in v.inherited))
    for v in verdicts.values():
        if v.inherited:
            v.inherited = sorted(entries(v.name), key=order.index)
            v.cell = f"✗ follows from {', '.join(labels[u] for u in v.inherited)}"


class Verdict:
    """One tensor's judgement: ``cell`` for the table, ``explanation`` (what is wrong),
    ``where`` (the worst elements), ``right_text`` and ``secrets`` for the reveal."""

    def __init__(self, name, ok, tag, cell, explanation="", answer=None, right=None,
                 where="", right_text="", secrets=()):
        self.name, self.ok, self.tag, self.cell = name, ok, tag, cell
        self.explanation, self.answer, self.right = explanation, answer, right
        self.where, self.right_text, self.secrets = where, right_text, list(secrets)
        self.inherited, self.sentence = None, None
        from dagrad.viz.labels import array as label_text      # as the picture writes it
        self.yours = [] if answer is None else [fmt_array(answer), label_text(answer, 8)]
        if answer is not None and right is not None and np.shape(answer) == np.shape(right):
            self.yours.append(fmt_pair(answer, right)[0])

    @property
    def table_cell(self):
        return self.cell


def _judge_one(name, answer, right, tol, label, coords, given, sizes):
    if is_blank(answer):
        return Verdict(name, False, "not_answered", "… not answered", right=right)
    try:
        a = answer_array(answer, f"your {label}")
    except NotANumber as err:
        return Verdict(name, False, "type", "✗ not a number", str(err), right=right)
    if a.shape != right.shape and a.size == 1 and right.size == 1:
        a = a.reshape(right.shape)
    mine_text, right_text = fmt_pair(a, right) if a.shape == right.shape else \
        (fmt_array(a), fmt_array(right))
    secrets = list(dict.fromkeys([right_text, fmt_array(right)]))
    if a.shape != right.shape:
        tag, hint = relation(a, right, tol)
        tag = "transposed" if tag == "transposed" else "shape"
        text = (f"yours has shape {fmt_shape(a.shape)}, but the tensor has shape "
                f"{fmt_shape(right.shape)} (a gradient has the shape of its tensor)")
        cell = "✗ transposed" if tag == "transposed" else f"✗ shape {fmt_shape(a.shape)}"
        return Verdict(name, False, tag, cell, text + (f"; {hint}" if tag == "transposed"
                                                       else ""),
                       a, right, right_text=right_text, secrets=secrets)
    if all_close(a, right, tol):
        return Verdict(name, True, None, "✓ right", "", a, right)
    tag, sentence = diagnose(a, right, tol, answer_object=answer, given=given, sizes=sizes)
    where = where_wrong(a, right, tol, Coordinates.of(coords, name=label))
    parts = [f"yours is {mine_text}" if a.size == 1 else ""]
    if sentence:
        parts.append(sentence)
    elif where:
        parts.append(where)
    if tag == "value":
        hint = normalisation(a, right, tol)
        if hint:
            parts.append(hint[1])
    text = "; ".join(p for p in parts if p)
    cell = "✗ wrong" + (f" ({tag.replace('_', ' ')})" if tag != "value" else "")
    verdict = Verdict(name, False, tag, cell, text, a, right, where=where,
                      right_text=right_text, secrets=secrets)
    verdict.sentence = sentence
    return verdict


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


@contextlib.contextmanager
def hooks_set_aside(loss):
    """The hooks of every tensor in ``loss``'s graph removed for the duration, then put back:
    a check computes gradients without running the student's hooks."""
    from dagrad.autograd.function import Function
    from dagrad.autograd.graph import post_order
    root = loss.grad_fn if loss.grad_fn is not None else loss
    kept = []
    for v in post_order([root]):
        if isinstance(v, Function):
            if v.hooks:
                kept.append((v, "hooks", v.hooks))
                v.hooks = None
        elif v.__dict__.get("_hooks"):
            kept.append((v, "_hooks", v._hooks))
            v._hooks = None
    try:
        yield
    finally:
        for obj, attr, hooks in kept:
            setattr(obj, attr, hooks)


def _cap(text):
    return text[:1].upper() + text[1:]
