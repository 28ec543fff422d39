"""Where a verdict goes once judged: the attempt it is (counted per exercise in this kernel),
the cell's output (a check made in IPython shows itself, so no verdict of a cell is lost), and
one JSON line in the file ``DAGRAD_EXERCISES_LOG`` names (the tests read it)."""
import hashlib
import json
import os
import warnings

import numpy as np

from .result import NOT_ANSWERED, QUIET, CheckResult

LOG_VARIABLE = "DAGRAD_EXERCISES_LOG"

# exercise id -> {"wrong": wrong attempts so far, "run": the cell run that made the last one,
#                 "answer": a fingerprint of its answer}
ATTEMPTS = {}
LAST = {}                 # exercise id -> its last result (``reveal(id)``)


def finish(result, answer=None):
    """Count the attempt, log ``result``, show it (in IPython) and return it. ``answer`` (the
    answer judged) tells a repeated answer from a new one."""
    count_attempt(result, _fingerprint(answer))
    if result.exercise is not None:
        LAST[result.exercise] = result
    _log(result)
    show(result)
    return result


def count_attempt(result, fingerprint=None):
    """Set ``result.attempt``: wrong checks of one exercise count 1, 2, 3, ...; checks of one
    exercise in one cell run are one attempt (a cell may check several parts)."""
    if result.ok or result.diagnosis in QUIET:
        return
    if result.exercise is None:
        result.attempt = 1
        return
    state = ATTEMPTS.setdefault(result.exercise, {"wrong": 0, "run": None, "answer": None})
    run = _cell_run()
    if run is None or run != state["run"]:
        state["wrong"] += 1
        result.repeated = fingerprint is not None and fingerprint == state["answer"]
        state["run"], state["answer"] = run, fingerprint
    result.attempt = state["wrong"]


def reveal(exercise):
    """The last result of ``exercise`` (e.g. "02.3") with its right value and why shown."""
    if exercise not in LAST:
        raise ValueError(f"reveal: exercise {exercise!r} has not been checked yet in this "
                         f"kernel; run its check cell first")
    return LAST[exercise].reveal()


def not_answered(exercise, what=None):
    """The result for a blank answer (``None`` or ``...``)."""
    message = NOT_ANSWERED if what is None else f"{NOT_ANSWERED} (Still blank: {what}.)"
    return finish(CheckResult(False, message, "not_answered", exercise))


# --------------------------------------------------------------------------- the log
_warned = set()


def _log(result):
    path = os.environ.get(LOG_VARIABLE)
    if not path:
        return
    try:
        with open(path, "a", encoding="utf-8") as f:
            f.write(json.dumps(result.as_dict(), ensure_ascii=False) + "\n")
    except OSError as e:
        if path not in _warned:           # the verdict still reaches the student
            _warned.add(path)
            warnings.warn(f"dagrad.exercises: cannot write the log file {path!r} named by "
                          f"{LOG_VARIABLE} ({e.strerror or e}); the checks' verdicts are "
                          f"shown but not logged. Create its folder, or unset {LOG_VARIABLE}.",
                          RuntimeWarning, stacklevel=4)


# --------------------------------------------------------------------------- showing it
def _ipython():
    try:
        from IPython import get_ipython
    except ImportError:
        return None
    return get_ipython()


def _cell_run():
    """The execution count of the IPython cell running now, or None outside IPython."""
    ip = _ipython()
    return None if ip is None else getattr(ip, "execution_count", None)


def show(result):
    """Display ``result`` in the IPython cell running now, once per cell (a check shows itself
    as it runs; the result returned as the cell's value, or passed to ``display``, is then not
    shown twice). Outside IPython: nothing (``print(result)`` writes it)."""
    ip = _ipython()
    if ip is None:
        return
    run = getattr(ip, "execution_count", None)
    if result._shown_in is not None and result._shown_in == run:
        return
    result._shown_in = run
    from IPython.display import display
    display(result._repr_mimebundle_(), raw=True)


def _fingerprint(answer):
    """A digest of an answer's numbers (None when it has none to compare)."""
    try:
        parts = answer if isinstance(answer, (tuple, list)) else (answer,)
        digest = hashlib.sha256()
        for a in parts:
            if hasattr(a, "numpy") and callable(a.numpy):
                a = a.numpy()
            arr = np.asarray(a)
            if arr.dtype == object:
                return None
            digest.update(repr(arr.shape).encode() + arr.tobytes())
        return digest.hexdigest()
    except Exception:            # an answer that is a function or a class: no fingerprint
        return None
