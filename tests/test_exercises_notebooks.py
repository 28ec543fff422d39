"""The lessons' exercise checks can tell a right answer from a wrong one, and show it.

Every notebook with exercises runs once as a student who first types the mistake a student
makes (tests/notebooks/wrong_answers/<stem>.py), reads the check, then types the fix (the worked
solutions, notebooks/solutions/<stem>.py); tests/notebooks/harness.py wrong_then_right. Each
wrong answer, judged as a first attempt, must show ✗ (read from the cell's displayed outputs, as
the student sees them) without the right value (a first attempt gets hints, not the answer),
with the diagnosis its `# expect:` line names; each fix must show ✓ alone and log right. The run
stops after the last check cell; the blank run, tests/test_notebooks.py::test_notebook_runs,
runs it all. Every answer cell has a solution and a wrong answer.

And a check cell neither computes nor states its answer: it reads `check("NN.k", answer, ...)`,
the expected value, the why and the misconceptions living in dagrad.exercises.lessons.
"""
import ast
import re

import pytest

from tests.notebooks import harness

NOTEBOOKS = sorted(harness.NOTEBOOK_DIR.glob("[0-9]*.ipynb"))


# Every lesson has exercises (tests/test_notebooks.py checks it); a notebook without any is
# left to that test rather than failing here for want of answers.
EXERCISE_NOTEBOOKS = [p for p in NOTEBOOKS if harness.exercise_ids(harness.notebook_json(p))]
IDS = [p.stem for p in EXERCISE_NOTEBOOKS]


RIGHT, WRONG = "✓ right", "✗ wrong"


def run_wrong_then_right(path, tmp_path):
    """{"wrong": ..., "right": ...}: (logged records by exercise, displayed check-cell outputs
    by exercise) of one run of the lesson answered wrong first and then right."""
    pytest.importorskip("nbformat", reason="install the notebooks extra")
    pytest.importorskip("nbclient", reason="install the notebooks extra")
    nb = harness.read_notebook(path)
    wrong = harness.read_sections(harness.wrong_answers_path(path))
    right = harness.read_sections(harness.solutions_path(path))
    answered = harness.wrong_then_right(nb, wrong, right)
    records = harness.execute(answered, tmp_path / "checks.jsonl")
    split = harness.split_attempts(records, answered)
    for kind, (grouped, _) in split.items():
        missing = set(harness.exercise_ids(nb)) - set(grouped)
        assert not missing, (f"exercises whose check did not run on the {kind} answer (or not "
                             f"with exercise=<id>): {missing}")
    return split, wrong


def right_answer_problems(grouped, shown):
    """What is wrong with the checks' verdicts on the solutions: each must log right and show
    ✓ alone."""
    problems = [f"{r['exercise']}: the check rejects the solution: {r['message'][:200]}"
                for records in grouped.values() for r in records if not r["ok"]]
    problems += [f"{ident}: the check cell shows {' | '.join(texts)[:300]!r}"
                 for ident, texts in shown.items()
                 if not any(RIGHT in t for t in texts) or any(WRONG in t for t in texts)]
    return problems


def shows(secret, text):
    """Does ``text`` hold ``secret`` (a right value as printed) as a whole number or array?"""
    return re.search(r"(?<![\w.])" + re.escape(secret) + r"(?!\w|\.\d)", text) is not None


def wrong_answer_problems(grouped, shown, sections):
    """What is wrong with the checks' verdicts on the wrong answers: each must show ✗, log
    the diagnosis its ``# expect:`` line names, and not show the right value."""
    problems = []
    for ident, source in sections.items():
        expected = harness.expected_diagnosis(source)
        texts = shown.get(ident, [])
        if not any(WRONG in t for t in texts):
            problems.append(f"{ident}: the check cell shows no ✗ ({' | '.join(texts)[:200]!r})")
        for record in grouped[ident]:
            if record["ok"]:
                problems.append(f"{ident}: the check accepted the wrong answer")
            elif record["diagnosis"] == "not_answered":
                problems.append(f"{ident}: the wrong answer left the exercise unanswered")
            elif expected is not None:
                found = record.get("diagnoses") or [record["diagnosis"]]
                if any(e not in found for e in expected):
                    problems.append(f"{ident}: diagnoses {found!r}, expected {expected!r} "
                                    f"({record['message'][:200]})")
            own = {y for r in grouped[ident] for y in r.get("yours", [])}
            for secret in record.get("secrets", []):
                if len(secret) >= 2 and secret not in own and \
                        any(shows(secret, t) for t in texts):
                    problems.append(f"{ident}: a first attempt shows the right value "
                                    f"{secret[:60]!r}")
    return problems


@pytest.mark.lesson
@pytest.mark.parametrize("path", EXERCISE_NOTEBOOKS, ids=IDS)
def test_each_check_fails_the_mistake_then_passes_the_fix(path, tmp_path):
    split, wrong = run_wrong_then_right(path, tmp_path)
    problems = wrong_answer_problems(*split["wrong"], wrong)
    problems += right_answer_problems(*split["right"])
    assert not problems, "\n".join(problems)


def check_cell_problem(source, ident):
    """Why a check cell's source computes or states more than ``check("NN.k", names...)``,
    or None when it is only that (``display(check(...))`` too)."""
    try:
        tree = ast.parse(source)
    except SyntaxError as e:
        return f"does not parse ({e})"
    if not tree.body:
        return "is empty"
    for statement in tree.body:
        call = statement.value if isinstance(statement, ast.Expr) else None
        if isinstance(call, ast.Call) and isinstance(call.func, ast.Name) and \
                call.func.id == "display" and len(call.args) == 1:
            call = call.args[0]
        if not (isinstance(call, ast.Call) and isinstance(call.func, ast.Name)
                and call.func.id == "check"):
            return f"holds more than check(...): {ast.unparse(statement)[:80]!r}"
        first, rest = call.args[:1], call.args[1:]
        if not (first and isinstance(first[0], ast.Constant) and first[0].value == ident):
            return f"does not start with the exercise's id {ident!r}"
        values = rest + [k.value for k in call.keywords]
        for v in values:
            if not isinstance(v, ast.Name):
                return f"passes {ast.unparse(v)!r}, not a name the student's cell set"
    return None


@pytest.mark.parametrize("path", NOTEBOOKS, ids=[p.stem for p in NOTEBOOKS])
def test_no_check_cell_computes_or_states_its_answer(path):
    nb = harness.notebook_json(path)
    problems = []
    for ident, cells in harness.tagged_cells(nb, "check").items():
        for cell in cells:
            source = "".join(cell["source"]) if isinstance(cell["source"], list) \
                else cell["source"]
            why = check_cell_problem(source, ident)
            if why:
                problems.append(f"check:{ident} {why}")
    assert not problems, "\n".join(problems)


def test_the_check_cell_rule_tells_a_converted_cell_from_one_that_states_its_answer():
    assert check_cell_problem('check("02.3", relu_d_z, relu_d_W1, dead_unit)', "02.3") is None
    assert check_cell_problem('display(check("02.3", a=a))', "02.3") is None
    assert "not a name" in check_cell_problem('check("02.3", dead_unit, 2)', "02.3")
    assert "not a name" in check_cell_problem('check("02.3", net2["L2"])', "02.3")
    assert "more than check" in check_cell_problem(
        'check_choice(dead_unit, int(np.argmin(zr_np)), options=[0, 1, 2])', "02.3")
    assert "more than check" in check_cell_problem('x = 1\ncheck("02.3", x)', "02.3")
    assert "id" in check_cell_problem('check("02.4", x)', "02.3")


@pytest.mark.parametrize("path", NOTEBOOKS, ids=[p.stem for p in NOTEBOOKS])
def test_every_exercise_has_a_solution_and_a_wrong_answer(path):
    exercises = set(harness.exercise_ids(harness.notebook_json(path)))
    solutions = set(harness.read_sections(harness.solutions_path(path)))
    wrong = set(harness.read_sections(harness.wrong_answers_path(path)))
    assert solutions == exercises, f"solutions for {sorted(solutions)}, exercises {sorted(exercises)}"
    assert wrong == exercises, f"wrong answers for {sorted(wrong)}, exercises {sorted(exercises)}"


def test_answer_files_belong_to_notebooks():
    stems = {p.stem for p in NOTEBOOKS}
    for folder in (harness.SOLUTIONS_DIR, harness.WRONG_ANSWERS_DIR):
        for path in folder.glob("*.py"):
            assert path.stem in stems, f"{path.name} answers a notebook that does not exist"


def test_answered_runs_stop_after_the_last_check():
    nb = {"cells": [{"cell_type": "code", "metadata": {"tags": ["exercise:03.1"]}, "source": ""},
                    {"cell_type": "code", "metadata": {"tags": ["check:03.1"]}, "source": ""},
                    {"cell_type": "markdown", "metadata": {}, "source": "## Checks"}]}
    assert len(harness.through_last_check(nb)["cells"]) == 2
    assert len(nb["cells"]) == 3


def test_answer_files_parse_into_sections(tmp_path):
    answers = tmp_path / "answers.py"
    answers.write_text("# answers\n# %% exercise 03.1\n# expect: sign\nx = -1\n\n"
                       "# %% exercise 03.2\ny = (2, 3)\n", encoding="utf-8")
    sections = harness.read_sections(answers)
    assert sections == {"03.1": "# expect: sign\nx = -1\n", "03.2": "y = (2, 3)\n"}
    assert harness.expected_diagnosis(sections["03.1"]) == ["sign"]
    assert harness.expected_diagnosis(sections["03.2"]) is None
    answers.write_text("# %% exercise 03.1\nx = 1\n# %% exercise 03.1\nx = 2\n", encoding="utf-8")
    with pytest.raises(ValueError, match="03.1 appears twice"):
        harness.read_sections(answers)


def test_a_wrong_then_right_run_answers_each_exercise_twice_and_splits_what_it_logged():
    def code(source, tag=None):
        return {"cell_type": "code", "source": source, "outputs": [],
                "metadata": {"tags": [tag]} if tag else {}}
    cells = [code("setup = 1"), code("x = None", "exercise:03.1"), code("plot(x)"),
             code('check("03.1", x)', "check:03.1"), code("between = 2"),
             code("y = None", "exercise:03.2"), code('check("03.2", y)', "check:03.2"),
             {"cell_type": "markdown", "source": "## after the last check", "metadata": {}}]
    nb = {"cells": cells}
    run = harness.wrong_then_right(nb, {"03.1": "x = -1", "03.2": "y = 0"},
                                   {"03.1": "x = 1", "03.2": "y = 2"})
    sources = [c["source"] for c in run["cells"]]
    marks = [k for k, c in enumerate(run["cells"]) if "_log.write" in c["source"]]
    assert [sources[k + 1] for k in marks] == ["x = -1", "x = 1", "y = 0", "y = 2"]
    assert sources[0] == "setup = 1" and sources.count("plot(x)") == 2
    assert sources.count("between = 2") == 1 and len(sources) == 1 + 2 * 4 + 1 + 2 * 3
    for k, c in enumerate(run["cells"]):
        c["outputs"] = [{"output_type": "stream", "name": "stdout", "text": f"cell {k}"}] \
            if c["source"].startswith("check") else []
    records = [{"answered": "wrong"}, {"exercise": "03.1", "ok": False},
               {"answered": "right"}, {"exercise": "03.1", "ok": True},
               {"answered": "wrong"}, {"exercise": "03.2", "ok": False},
               {"answered": "right"}, {"exercise": "03.2", "ok": True}]
    split = harness.split_attempts(records, run)
    for kind, ok in (("wrong", False), ("right", True)):
        grouped, shown = split[kind]
        assert {i: [r["ok"] for r in rs] for i, rs in grouped.items()} == \
            {"03.1": [ok], "03.2": [ok]}
        assert all(len(texts) == 1 for texts in shown.values())
    assert split["wrong"][1]["03.1"] != split["right"][1]["03.1"]
    with pytest.raises(AssertionError, match="03.2"):
        harness.wrong_then_right({"cells": [cells[1], cells[5], cells[3], cells[6]]}, {}, {})
