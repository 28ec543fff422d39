"""The lessons' exercises, defined apart from the cells the student runs: the expected value,
the ``why`` that spells out the solution and the misconceptions live with the exercise's
definition (``dagrad.exercises.lessons.lesson_NN``), and the check cell reads

    check("02.3", relu_d_z, relu_d_W1, dead_unit)

with nothing in it that computes or states the answer (as nbgrader's and otter-grader's
tests are kept apart from the notebook). A lesson cell that builds what an exercise is about
hands it over once, ``given("02.3", z=z_relu, W1=layer1.weight, loss=loss_relu)``: the exercise
keeps these objects (and computes what it needs from their graph right then), so going back
to a check after later cells reused the names or ran backward() judges the same thing.

An exercise is a list of parts, each judging some of the answers:

* ``Value(answer, expected, ...)``: a number or an array (or a function of an array, ``at=``;
  or a piece of code the check runs, ``run=``);
* ``Shape(answer, expected)``, ``Choice(answer, expected, options=...)``;
* ``Grads({answer: tensor}, loss=...)``: hand-computed gradients, against the engine's;
* ``Backward(answer, inputs=...)``: an operation the student wrote.

``expected``, ``inputs``, ``terms`` and ``sizes`` may be functions of the given objects (a
``Given``: ``g.x``, ``g.array("x")``); misconceptions are ``detectors.Misconception``.
"""
import importlib

from .backward import judge_backward
from .compare import NotANumber, answer_array
from .detectors import swapped
from .explain import render_rule
from .given import Given, NotGiven
from .grads import judge_grads, prepare
from .ladder import finish
from .result import NOT_ANSWERED, CheckResult, is_blank
from .values import judge_choice, judge_shape, judge_value

REGISTRY = {}       # exercise id -> Exercise
GIVEN = {}          # exercise id -> Given, set by ``given``
PROGRESS = {}       # progress map key -> {answer name: the student's last answer}


class Part:
    """Judges some of an exercise's answers. ``answers``: their names, in the order the check
    cell passes them."""

    answers = ()

    def prepare(self, given):
        """Compute, when the exercise is set up, what later cells could take away."""

    def judge(self, ident, values, given):
        raise NotImplementedError


def _value(spec, given):
    """``spec``, or ``spec(given)`` when it is a function."""
    return spec(given) if callable(spec) else spec


class Value(Part):
    """A number or an array answer. ``at``: the answer is a function, judged by its values at
    these points (``coords`` then names them by default, "x = 2.5"). ``run``: the answer is a
    piece of code (a function, a class), judged by the numbers ``run(given, answer)`` computes
    with it (a misconception then gives the numbers a flawed piece computes)."""

    def __init__(self, answer, expected, *, name=None, tol=1e-6, at=None, run=None,
                 coords=None, misconceptions=(), rule=None, why=None, sizes=None, terms=None):
        self.answers, self.expected, self.name, self.tol = (answer,), expected, name, tol
        self.at, self.run, self.coords, self.misconceptions = at, run, coords, misconceptions
        self.rule, self.why, self.sizes, self.terms = rule, why, sizes, terms

    def judge(self, ident, values, given):
        answer = values[self.answers[0]]
        name = self.name or self.answers[0]
        if not is_blank(answer) and (self.at is not None or self.run is not None):
            answer = self._evaluate(answer, given, name)
            if isinstance(answer, CheckResult):
                answer.exercise = ident
                return answer
        result = judge_value(answer, _value(self.expected, given), self.tol, name=name,
                             why=self.why, exercise=ident, coords=self.coords,
                             misconceptions=self.misconceptions, given=given, rule=self.rule,
                             sizes=_value(self.sizes, given), terms=_value(self.terms, given),
                             answers=values)
        result.compared = (answer, _value(self.expected, given), name)
        return result

    def _evaluate(self, fn, given, name):
        if self.run is not None:
            return self._run(fn, given, name)
        points = _value(self.at, given)
        if not callable(fn):
            return CheckResult(False, f"{name} should be a function of x (e.g. lambda x: ...), "
                               f"which the check calls on an array of points; yours is a "
                               f"{type(fn).__name__}.", "type")
        try:
            return fn(points.copy())
        except Exception as e:          # the student's function: report it, never crash
            return CheckResult(False, f"Your {name} raised {type(e).__name__} on an array of "
                               f"points: {e}.", "error")

    def _run(self, piece, given, name):
        what = self.answers[0]
        if not callable(piece):
            return CheckResult(False, f"{what} should be a function (def ...), which the check "
                               f"runs; yours is a {type(piece).__name__}.", "type")
        try:
            return self.run(given, piece)
        except NotGiven:
            raise
        except Exception as e:          # the student's code: report it, never crash
            return CheckResult(False, f"Your {what} raised {type(e).__name__} when the check "
                               f"ran it: {e}.", "error")


class Shape(Part):
    def __init__(self, answer, expected, *, name=None, misconceptions=(), rule=None, why=None):
        self.answers, self.expected, self.name = (answer,), expected, name
        self.misconceptions, self.rule, self.why = misconceptions, rule, why

    def judge(self, ident, values, given):
        result = judge_shape(values[self.answers[0]], _value(self.expected, given),
                             name=self.name or self.answers[0], why=self.why, exercise=ident,
                             misconceptions=self.misconceptions, given=given)
        return _with_rule(result, self.rule, given, values)


class Choice(Part):
    def __init__(self, answer, expected, *, options=None, misconceptions=(), rule=None,
                 why=None):
        self.answers, self.expected, self.options = (answer,), expected, options
        self.misconceptions, self.rule, self.why = misconceptions, rule, why

    def judge(self, ident, values, given):
        result = judge_choice(values[self.answers[0]], _value(self.expected, given),
                              options=_value(self.options, given), why=self.why,
                              exercise=ident, misconceptions=self.misconceptions, given=given,
                              name=self.answers[0])
        return _with_rule(result, self.rule, given, values)


def _with_rule(result, rule, given, values):
    """``result`` with the second hint ``rule`` (``explain.render_rule``) when wrong."""
    if not result.ok and rule is not None:
        result.stronger = render_rule(rule, given, values)
    return result


class Grads(Part):
    """Hand-computed gradients: ``answers`` maps each answer name to the name of the tensor
    (among the given objects) it is the gradient of; ``loss`` names the loss. ``labels``
    (answer -> words, default "δ_<tensor>"), ``coords`` (answer -> the lesson's names for the
    elements), ``rules`` (answer -> the second hint), ``misconceptions`` (each computing
    {answer: wrong gradient}; ``g.delta("x")`` there is the student's own δ of tensor x where
    they gave one, the right δ otherwise: a buggy rule applied to the student's own δ's),
    ``sizes``.

    ``progress_map``: a key shared by the exercises that together write one backward pass by
    hand (each given the same graph). Each check then also knows the student's last answers
    to the others: a δ here that only follows from a wrong δ of an earlier exercise says so,
    and the picture is the whole pass with every δ answered so far, wrong ones red."""

    def __init__(self, answers, *, loss="loss", labels=None, coords=None, misconceptions=(),
                 rules=None, sizes=None, why=None, tol=1e-5, progress_map=None):
        self.tensors, self.answers, self.loss = dict(answers), tuple(answers), loss
        self.labels = {a: (labels or {}).get(a, f"δ_{t}") for a, t in self.tensors.items()}
        self.coords, self.misconceptions, self.rules = coords or {}, misconceptions, rules
        self.sizes, self.why, self.tol = sizes, why, tol
        self.progress_map = progress_map

    def _map(self):
        """{answer: (tensor name, label, exercise id)} of this part and of every part
        sharing its progress map (this part's first)."""
        found = {a: (t, self.labels[a], None) for a, t in self.tensors.items()}
        if self.progress_map is None:
            return found
        for ident, ex in REGISTRY.items():
            for part in ex.parts:
                if isinstance(part, Grads) and part.progress_map == self.progress_map:
                    for a, t in part.tensors.items():
                        found.setdefault(a, (t, part.labels[a], ident))
        return found

    def prepare(self, given):
        known = self._map()
        tensors = {a: given[t] for a, (t, _, _) in known.items()}
        names = {t: given[t] for t, _, _ in known.values()}          # the picture's names
        given.cache[id(self)] = prepare(given[self.loss], tensors, names)

    def judge(self, ident, values, given):
        if id(self) not in given.cache:
            self.prepare(given)
        mine = {a: values[a] for a in self.answers}
        context = {}
        if self.progress_map is not None:
            answered = PROGRESS.setdefault(self.progress_map, {})
            answered.update(mine)
            context = {a: v for a, v in answered.items() if a not in mine and not is_blank(v)}
        if all(is_blank(v) for v in mine.values()):
            return CheckResult(False, NOT_ANSWERED, "not_answered", ident)
        known = self._map()
        prepared = given.cache[id(self)]
        given.deltas = _deltas(known, prepared, {**context, **mine})
        try:
            return judge_grads(mine, prepared, self.tol, exercise=ident,
                               labels={a: label for a, (_, label, _) in known.items()},
                               coords=self.coords, misconceptions=self.misconceptions,
                               given=given, rules=self.rules, sizes=_value(self.sizes, given),
                               why=self.why, context=context,
                               origin={a: ex for a, (_, _, ex) in known.items() if ex})
        finally:
            given.deltas = None


def _deltas(known, prepared, answers):
    """{tensor name: the student's δ where they gave one of the right shape, else the right
    δ}: what ``Given.delta`` reads while a check runs."""
    deltas = {}
    for a, (t, _, _) in known.items():
        right = prepared.right[a]
        try:
            mine = None if is_blank(answers.get(a)) else answer_array(answers[a])
        except NotANumber:
            mine = None
        if mine is not None and mine.shape != right.shape and mine.size == right.size == 1:
            mine = mine.reshape(right.shape)
        deltas[t] = mine if mine is not None and mine.shape == right.shape else right
    return deltas


class Backward(Part):
    """An operation the student wrote (``check_backward``), checked at ``inputs`` (arrays, or
    a function of the given objects returning them). With ``forward`` (a function of the
    given objects returning a NumPy forward, e.g. the lesson's own), the answer is only the
    backward that goes with it, ``backward(grad_out, *inputs)``."""

    def __init__(self, answer, inputs, *, expected_shapes=None, misconceptions=(), rule=None,
                 why=None, tol=1e-5, gradgrad=True, attrs=None, coords=None, forward=None):
        self.answers, self.inputs, self.expected_shapes = (answer,), inputs, expected_shapes
        self.misconceptions, self.rule, self.why, self.tol = misconceptions, rule, why, tol
        self.gradgrad, self.attrs, self.coords = gradgrad, attrs, coords
        self.forward = forward

    def judge(self, ident, values, given):
        inputs = _value(self.inputs, given)
        answer = values[self.answers[0]]
        if self.forward is not None and callable(answer):
            answer = (self.forward(given), answer)
        return judge_backward(answer, *inputs,
                              expected_shapes=self.expected_shapes, exercise=ident,
                              tol=self.tol, gradgrad=self.gradgrad, attrs=self.attrs,
                              why=self.why, misconceptions=self.misconceptions, given=given,
                              rule=self.rule, coords=self.coords)


class Exercise:
    """One exercise: its id ("02.3") and its parts. The check cell passes the answers in the
    order of ``answer_names`` (the parts' answers, in order). ``builds_on``: the exercises
    whose answers this one's answer uses (a student's engine built piece by piece); when it is
    wrong and one of theirs, as the notebook holds it now, is wrong too, the check says to fix
    that one first."""

    def __init__(self, ident, *parts, builds_on=()):
        self.ident, self.parts, self.builds_on = ident, parts, tuple(builds_on)
        self.answer_names = tuple(a for p in parts for a in p.answers)
        if len(set(self.answer_names)) != len(self.answer_names):
            raise ValueError(f"exercise {ident}: an answer name appears twice in "
                             f"{self.answer_names}")


def define(*exercises):
    """Register a lesson's exercises (a lesson module calls it at import)."""
    for ex in exercises:
        REGISTRY[ex.ident] = ex


def exercise(ident):
    """The Exercise ``ident``, importing its lesson's definitions when needed."""
    if ident not in REGISTRY:
        lesson = str(ident).split(".")[0]
        try:
            importlib.import_module(f"{__package__}.lessons.lesson_{lesson}")
        except ModuleNotFoundError as e:
            if e.name != f"{__package__}.lessons.lesson_{lesson}":
                raise
    if ident not in REGISTRY:
        known = ", ".join(sorted(REGISTRY)) or "none"
        raise ValueError(f"no exercise {ident!r} is defined (dagrad.exercises.lessons; "
                         f"defined: {known})")
    return REGISTRY[ident]


def given(ident, **objects):
    """Set up exercise ``ident`` with ``objects`` (the tensors, arrays and numbers its check
    judges against), kept by the exercise: later cells may reuse the names or run
    ``backward()``. What a part needs from a graph is computed now."""
    ex = exercise(ident)
    g = Given(objects)
    for part in ex.parts:
        try:
            part.prepare(g)
        except NotGiven as e:
            raise TypeError(f"given({ident!r}, ...): {e}") from None
    GIVEN[ident] = g


def check(ident, *answers, **named):
    """Judge the answers to exercise ``ident``: positionally in the order its definition
    lists them (``exercise(ident).answer_names``), or by name. Returns one ``CheckResult``
    for all its parts, shown in the cell (in Jupyter) and logged like every check."""
    values = answer_values(ident, answers, named)
    return finish(judge(ident, values), [values[n] for n in exercise(ident).answer_names])


def answer_values(ident, answers, named):
    """{answer name: value} of a check call's answers (positional, in the definition's order,
    or named)."""
    ex = exercise(ident)
    names = ex.answer_names
    if len(answers) > len(names):
        raise TypeError(f"check({ident!r}, ...) takes {len(names)} answer"
                        f"{'s' if len(names) != 1 else ''} ({', '.join(names)}), got "
                        f"{len(answers)}")
    values = dict(zip(names, answers))
    for key, v in named.items():
        if key not in names:
            raise TypeError(f"check({ident!r}, ...): no answer called {key!r}; its answers are "
                            f"{', '.join(names)}")
        values[key] = v
    missing = [n for n in names if n not in values]
    if missing:
        raise TypeError(f"check({ident!r}, ...) needs the answers {', '.join(names)} in this "
                        f"order; missing: {', '.join(missing)}")
    return values


def judge(ident, values):
    """The verdict on ``values`` ({answer name: value}) against exercise ``ident`` as set up
    by ``given``, not counted, logged or shown (``check`` does that). ``result.parts`` holds
    each part's own verdict, in the order of the definition."""
    ex = exercise(ident)
    if all(is_blank(values[n]) for n in ex.answer_names):
        return CheckResult(False, NOT_ANSWERED, "not_answered", ident)
    g = GIVEN.get(ident, Given())
    try:
        results = [part.judge(ident, values, g) for part in ex.parts]
    except NotGiven:
        return CheckResult(False, f"Exercise {ident} is not set up yet: run the cells above "
                           f"it first (the one that ends with given({ident!r}, ...)), then "
                           f"this one.", "not_set_up", ident)
    result = combine(ident, ex.parts, results)
    if not result.ok and ex.builds_on:
        _blame_earlier(result, earlier_not_right(ex))
    return result


def earlier_not_right(ex):
    """The exercises ``ex`` builds on whose answers, as the notebook holds them now, are not
    right (judged quietly: no attempt counted, nothing shown or logged). A blank answer is
    not counted: the lesson then runs with its own stand-in."""
    from .ladder import _ipython
    ip = _ipython()
    namespace = ip.user_ns if ip is not None else {}
    wrong = []
    for ident in ex.builds_on:
        earlier = exercise(ident)
        values = {n: namespace.get(n) for n in earlier.answer_names}
        if all(is_blank(v) for v in values.values()):
            continue
        try:
            results = [p.judge(ident, values, GIVEN.get(ident, Given()))
                       for p in earlier.parts]
        except Exception:             # not set up, or not judged here: not blamed
            continue
        if not all(r.ok for r in results):
            wrong.append(ident)
    return wrong


def _blame_earlier(result, wrong):
    """Name the earlier exercises in ``wrong`` first in ``result``'s hint."""
    if not wrong:
        return
    many = len(wrong) > 1
    listed = ", ".join(wrong[:-1]) + (" and " if many else "") + wrong[-1]
    result.hint = (f"This exercise builds on exercise{'s' if many else ''} {listed}, whose "
                   f"answer{'s are' if many else ' is'} not right yet: fix "
                   f"{'them' if many else 'it'} first (run {'their' if many else 'its'} "
                   f"check{'s' if many else ''} again to see what is wrong), then check this "
                   f"one again. " + result.hint)
    result.diagnosis = "earlier_exercise"
    result.diagnoses = ["earlier_exercise"] + [d for d in result.diagnoses if d]


def combine(ident, parts, results):
    """One result for the parts of an exercise: every part's verdict in the message (none can
    hide another's), the first wrong part's diagnosis, all of them in ``diagnoses``."""
    for r in results:
        r.exercise = ident
    _swapped_parts(results)
    if len(results) == 1:
        results[0].parts = [results[0]]
        return results[0]
    ok = all(r.ok for r in results)
    wrong = [r for r in results if not r.ok and r.diagnosis != "not_answered"]
    blank = [r for r in results if r.diagnosis == "not_answered"]
    lines = []
    for part, r in zip(parts, results):
        mark = "✓" if r.ok else "…" if r.diagnosis == "not_answered" else "✗"
        what = ", ".join(part.answers)
        text = f"{what}: not answered yet" if r.diagnosis == "not_answered" else r.hint
        lines.append(f"{mark} {text}")
    diagnosis = None if ok else wrong[0].diagnosis if wrong else "not_answered"
    if blank and not wrong:
        lines.append(NOT_ANSWERED)

    def joined(attr):
        texts = [getattr(r, attr) for r in wrong if getattr(r, attr)]
        return "\n".join(texts) or None
    table = next((r.table for r in results if r.table), None)
    picture = next((r.picture for r in results if r.picture is not None), None)
    result = CheckResult(ok, "\n".join(lines), diagnosis, ident, table, picture,
                         stronger=joined("stronger"), right=joined("right"), why=joined("why"),
                         secrets=[s for r in wrong for s in r.secrets],
                         diagnoses=[d for r in wrong for d in r.diagnoses],
                         yours=[s for r in results for s in r.yours])
    result.parts = results
    return result


def _swapped_parts(results):
    """Two value answers each equal to the other's right value: both say so."""
    compared = {k: r for k, r in enumerate(results)
                if not r.ok and getattr(r, "compared", None) is not None}
    if len(compared) < 2:
        return
    arrays, rights, names = {}, {}, {}
    for k, r in compared.items():
        answer, expected, name = r.compared
        try:
            arrays[k], rights[k] = answer_array(answer), answer_array(expected)
        except NotANumber:
            continue
        names[k] = name
    found = swapped(arrays, rights, 1e-6, names)
    if found:
        a, b, _ = found
        for k, other in ((a, b), (b, a)):
            r = results[k]
            r.diagnosis, r.diagnoses = "swapped", ["swapped"]
            r.hint = (f"{names[k]} is wrong: it is the right value of {names[other]}, and the "
                      f"other way round: the two are swapped.")
