"""Run a teaching notebook as a student would: blank, with the solutions typed in, or with
each exercise answered wrong first and then right, and read back what every exercise check
said: the verdicts the check cells displayed (what the student sees) and the log.

The exercise protocol (docs/notebooks.md, "Exercises"): the cell where the student answers
exercise `08.3` is tagged `exercise:08.3`, the cell that judges it `check:08.3`, and each check
appends one JSON line {"exercise", "ok", "diagnosis", "diagnoses", "message", "attempt",
"secrets"} to the file named by the environment variable DAGRAD_EXERCISES_LOG ("secrets": the
right value as a reveal would print it, which the displayed outputs must not hold before the
reveal). Answers to inject are plain Python files in the "percent" format: a line
`# %% exercise 08.3` starts the text that replaces that cell's source; a wrong answer may open
with `# expect: <diagnosis> ...`, the diagnoses its check must give.
"""
import copy
import html
import json
import os
import pathlib
import re

from dagrad.exercises.answers import (TAG, cell_tag, exercise_ids, inject,  # noqa: F401
                                     read_sections, tagged_cells)

from tests.stages import refuse_in_quick_run
from website.build import notebook_client

ROOT = pathlib.Path(__file__).resolve().parents[2]
NOTEBOOK_DIR = ROOT / "notebooks"
SOLUTIONS_DIR = NOTEBOOK_DIR / "solutions"
WRONG_ANSWERS_DIR = ROOT / "tests" / "notebooks" / "wrong_answers"

# The kernels run in a student's default environment: the thread settings the test run gives
# its own processes are removed, so NumPy's BLAS starts with a thread per core, and dagrad's
# thread policy (autograd/blas.py) must keep the notebooks fast with two kernels on two cores.
THREAD_SETTINGS = {"OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"}
LOG_VARIABLE = "DAGRAD_EXERCISES_LOG"

EXPECT = re.compile(r"\A\s*# expect: *(\w+(?: +\w+)*)[ \t]*$", re.M)


def read_notebook(path):
    """The notebook as an nbformat node (version 4), ready to execute."""
    import nbformat
    return nbformat.read(str(path), as_version=4)


def notebook_json(path):
    """The notebook as plain JSON (enough to read its cells and tags)."""
    with open(path, encoding="utf-8") as f:
        return json.load(f)


def expected_diagnosis(source):
    """The diagnoses named by a wrong answer's `# expect: ...` first line (one, or several
    separated by spaces for an exercise of several parts), or None."""
    match = EXPECT.match(source)
    return match.group(1).split() if match else None


def through_last_check(nb):
    """A copy of `nb` that ends with its last check cell: the cells after it (the lesson's own
    checks, sections without exercises) cannot change what an exercise check says, and the
    blank run executes them anyway."""
    nb = copy.deepcopy(nb)
    last = max((k for k, cell in enumerate(nb["cells"])
                if any(TAG.match(t) and t.startswith("check:")
                       for t in cell.get("metadata", {}).get("tags", []))), default=None)
    if last is not None:
        nb["cells"] = nb["cells"][:last + 1]
    return nb


WRONG_THEN_RIGHT = "answered"          # the cell metadata key naming a copy's answer


def mark_attempt(kind, like):
    """A code cell (a copy of the code cell ``like``, so of its type) that logs
    ``{"answered": kind}``, so the records after it are read as ``kind``'s."""
    cell = copy.deepcopy(like)
    cell["source"] = ("import json as _json, os as _os\n"
                      f"with open(_os.environ[{LOG_VARIABLE!r}], 'a') as _log:\n"
                      f"    _log.write(_json.dumps({{{WRONG_THEN_RIGHT!r}: {kind!r}}}) + '\\n')")
    cell["outputs"] = []
    cell["metadata"].clear()
    cell["metadata"][WRONG_THEN_RIGHT] = kind
    return cell


def wrong_then_right(nb, wrong, right):
    """A copy of ``nb`` (through its last check cell) answered as a student who types each
    exercise's mistake, reads the check, then types the fix: each exercise's cells, from its
    answer cell to its last check cell, appear twice, answered from ``wrong`` and then from
    ``right`` (each copy's cells carry ``metadata.answered``), behind a cell marking the log.
    One kernel run then judges both answers, every wrong one as a first attempt."""
    nb = through_last_check(nb)
    spans = {}
    for k, cell in enumerate(nb["cells"]):
        tag = cell_tag(cell)
        if tag:
            spans.setdefault(tag[1], []).append(k)
    starts = {min(ks): (ident, max(ks)) for ident, ks in spans.items()}
    cells, k = [], 0
    while k < len(nb["cells"]):
        if k not in starts:
            cells.append(nb["cells"][k])
            k += 1
            continue
        ident, last = starts[k]
        span = nb["cells"][k:last + 1]
        inner = {cell_tag(c)[1] for c in span if cell_tag(c)} - {ident}
        assert not inner, f"exercise {ident}'s cells enclose those of {sorted(inner)}"
        for kind, sections in (("wrong", wrong), ("right", right)):
            cells.append(mark_attempt(kind, span[0]))
            for cell in copy.deepcopy(span):
                if cell_tag(cell) == ("exercise", ident):
                    cell["source"] = sections[ident]
                cell["metadata"][WRONG_THEN_RIGHT] = kind
                cells.append(cell)
        k = last + 1
    nb["cells"] = cells
    return nb


def split_attempts(records, nb):
    """{"wrong": (records by exercise, displayed check outputs by exercise), "right": ...} of a
    :func:`wrong_then_right` notebook after its run: each record belongs to the answer marked
    last before it in the log, each check cell's outputs to its copy's answer."""
    logged = {"wrong": [], "right": []}
    kind = None
    for record in records:
        if WRONG_THEN_RIGHT in record:
            kind = record[WRONG_THEN_RIGHT]
        else:
            assert kind is not None, f"a check logged before the first exercise: {record}"
            logged[kind].append(record)
    split = {}
    for kind in logged:
        copies = {"cells": [c for c in nb["cells"]
                            if c.get("metadata", {}).get(WRONG_THEN_RIGHT) == kind]}
        split[kind] = (by_exercise(logged[kind]), displayed_checks(copies))
    return split


def execute(nb, log_path, folder=NOTEBOOK_DIR, env=None):
    """Run `nb` top to bottom in a fresh kernel from `folder` (the notebooks folder unless
    given; the book's data is at ``../data`` from there), with the checks logging to
    `log_path` and the variables `env` added to the kernel's environment; return the logged
    records, in order. Raises nbclient's CellExecutionError (naming the cell and its
    traceback) if any cell fails."""
    refuse_in_quick_run("lesson", "runs a lesson in a kernel")
    log_path = pathlib.Path(log_path)
    log_path.write_text("", encoding="utf-8")
    kernel_env = {k: v for k, v in os.environ.items() if k not in THREAD_SETTINGS}
    kernel_env.update(env or {})
    kernel_env[LOG_VARIABLE] = str(log_path)
    notebook_client(nb, folder).execute(env=kernel_env)   # a hung cell fails after 300 s
    return [json.loads(line) for line in log_path.read_text(encoding="utf-8").splitlines()
            if line.strip()]


REVEAL_BLOCK = re.compile(r'<details class="dagrad-reveal".*?</details>', re.S)
TAGS = re.compile(r"<[^>]+>")
HIDDEN = re.compile(r"<(title|style|script)\b.*?</\1>", re.S)


def visible_text(output):
    """What a student sees of one cell output: its text, or its HTML without the markup, the
    tooltips and the collapsed "show the right value" block."""
    data = output.get("data", {})
    if "text/html" in data:
        page = "".join(data["text/html"]) if isinstance(data["text/html"], list) \
            else data["text/html"]
        page = HIDDEN.sub(" ", REVEAL_BLOCK.sub(" ", page))
        return html.unescape(TAGS.sub(" ", page))
    text = data.get("text/plain", output.get("text", ""))
    return "".join(text) if isinstance(text, list) else text


def displayed_checks(nb):
    """{exercise id: [the visible text of each output of its check cells]} of an executed
    notebook."""
    shown = {}
    for ident, cells in tagged_cells(nb, "check").items():
        shown[ident] = [visible_text(o) for cell in cells for o in cell.get("outputs", [])]
    return shown


def by_exercise(records):
    """{exercise id: [record, ...]} of logged check results."""
    grouped = {}
    for record in records:
        grouped.setdefault(record["exercise"], []).append(record)
    return grouped


def solutions_path(notebook):
    return SOLUTIONS_DIR / (pathlib.Path(notebook).stem + ".py")


def wrong_answers_path(notebook):
    return WRONG_ANSWERS_DIR / (pathlib.Path(notebook).stem + ".py")
