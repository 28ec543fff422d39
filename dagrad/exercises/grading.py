"""The checks as an autograder's tests (nbgrader: docs/teaching.md).

A lesson's check cell stays the student's tutor, ``check("01.3", J_softmax, vjp)``: it shows
the verdict, the hints and check_grads' picture, and never raises. After it, the course has
one graded cell per part of the exercise:

    grade("01.3", "J_softmax")

passes when that part of the exercise's last check was right and raises an AssertionError
whose text is the check's own words otherwise (a blank answer too), so each part scores on its
own: partial credit. A hidden test sets the exercise up at inputs the student never saw, runs
the student's answer cell again there and judges that part once more:

    grade_at_other_inputs("01.4", "d_W4", SETUP, globals())

An answer typed in as numbers copied from a run does not follow the new inputs, and fails.
"""
import ast
import contextlib
import io
import warnings

from .ladder import LAST
from .tutor import GIVEN, PROGRESS, exercise, judge


def part_of(ident, answer):
    """The index of the part of exercise ``ident`` that judges the answer named ``answer``."""
    ex = exercise(ident)
    for k, part in enumerate(ex.parts):
        if answer in part.answers:
            return k
    raise ValueError(f"exercise {ident} has no answer called {answer!r}; its answers are "
                     f"{', '.join(ex.answer_names)}")


def part_verdict(result, ident, answer):
    """(ok, words) of the part judging ``answer`` in ``result``, an exercise's verdict."""
    k = part_of(ident, answer)
    names = ", ".join(exercise(ident).parts[k].answers)
    if result.parts is None:             # blank, or not set up: every part shares the words
        return False, f"Exercise {ident} ({names}): {result.hint}"
    part = result.parts[k]
    return part.ok, f"Exercise {ident} ({names}): {part.hint}"


def grade(ident, answer):
    """Pass when the part of exercise ``ident`` that judges ``answer`` was right at the
    exercise's last check in this kernel; otherwise raise an AssertionError with the check's
    words (what is wrong and where, never the right value)."""
    result = LAST.get(ident)
    if result is None:
        raise AssertionError(f"Exercise {ident} was not checked: its check cell did not run "
                             f"(or stopped with an error, shown above it).")
    ok, words = part_verdict(result, ident, answer)
    if not ok:
        raise AssertionError(words)


def grade_at_other_inputs(ident, answer, setup, namespace):
    """A hidden test: in a copy of the notebook's ``namespace``, run ``setup`` (the lesson's
    code that builds the exercise at other inputs and ends with ``given(ident, ...)``), then
    the student's answer cell again (the last cell run that sets one of the exercise's
    answers), and judge the part that judges ``answer``. The notebook's names, the exercise's
    set-up, its last verdict and the answers on its progress map are left as they were;
    nothing is shown or logged."""
    names = exercise(ident).answer_names
    source = answer_cell(namespace, names)
    if source is None:
        raise AssertionError(f"Exercise {ident}: no cell that sets {', '.join(names)} was run.")
    progress = {key: dict(answers) for key, answers in PROGRESS.items()}
    saved = GIVEN.get(ident), LAST.get(ident)
    scope = dict(namespace)
    try:
        with _quiet():
            exec(compile(setup, f"<hidden test {ident}>", "exec"), scope)
            try:
                exec(compile(source, f"<your answer to {ident}>", "exec"), scope)
            except Exception as e:      # the student's code: a verdict, never a crash
                raise AssertionError(f"Exercise {ident}: at other inputs (a hidden test) your "
                                     f"answer cell raised {type(e).__name__}: {e}") from None
            result = judge(ident, {n: scope.get(n) for n in names})
    finally:
        _restore(GIVEN, ident, saved[0])
        _restore(LAST, ident, saved[1])
        PROGRESS.clear()
        PROGRESS.update(progress)
    ok, words = part_verdict(result, ident, answer)
    if not ok:
        raise AssertionError(f"At other inputs (a hidden test), which your answer must follow: "
                             f"{words}")


def answer_cell(namespace, names):
    """The source of the last cell run (IPython's ``In``) that sets one of ``names`` at its top
    level, without IPython's magics; None when there is none."""
    transform = getattr(namespace.get("get_ipython", lambda: None)(), "transform_cell", None)
    for source in reversed(namespace.get("In", [])[:-1]):
        source = transform(source) if transform else source
        if set(names) & bound_names(source):
            return source
    return None


def bound_names(source):
    """The names a cell's top-level statements bind (assignments, functions, classes)."""
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return set()
    bound = set()
    for statement in tree.body:
        if isinstance(statement, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            bound.add(statement.name)
        targets = statement.targets if isinstance(statement, ast.Assign) else \
            [statement.target] if isinstance(statement, (ast.AnnAssign, ast.AugAssign)) else []
        for target in targets:
            bound |= {n.id for n in ast.walk(target) if isinstance(n, ast.Name)}
    return bound


@contextlib.contextmanager
def _quiet():
    """No prints and no warnings: nbgrader scores a graded cell that writes to stderr 0."""
    with warnings.catch_warnings(), contextlib.redirect_stdout(io.StringIO()):
        warnings.simplefilter("ignore")
        yield


def _restore(table, key, value):
    if value is None:
        table.pop(key, None)
    else:
        table[key] = value
