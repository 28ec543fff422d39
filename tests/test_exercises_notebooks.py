"""The lessons' exercise checks can tell a right answer from a wrong one, and show it.

For every notebook with exercises: run it with the solutions (notebooks/solutions/<stem>.py)
typed into the answer cells, and every check cell must show ✓ (read from the cell's displayed
outputs, as the student sees them) and log right; run it with the wrong answers
(tests/notebooks/wrong_answers/<stem>.py: the mistakes students make) and every check cell must
show ✗, without the right value (a first attempt gets hints, not the answer), with the
diagnosis the wrong answer's `# expect:` line names. These two runs stop after the last check
cell; the blank run, tests/test_notebooks.py::test_notebook_runs, runs it all. Every answer cell
has a solution and a wrong answer.

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


def run_with(path, sections, tmp_path):
    """(logged records by exercise, displayed check-cell outputs by exercise)."""
    pytest.importorskip("nbformat", reason="install the notebooks extra")
    pytest.importorskip("nbclient", reason="install the notebooks extra")
    nb = harness.read_notebook(path)
    answered = harness.through_last_check(harness.inject(nb, sections))
    records = harness.execute(answered, tmp_path / "checks.jsonl")
    grouped = harness.by_exercise(records)
    missing = set(harness.exercise_ids(nb)) - set(grouped)
    assert not missing, f"exercises whose check did not run (or not with exercise=<id>): {missing}"
    return grouped, harness.displayed_checks(answered)


@pytest.mark.lesson
@pytest.mark.parametrize("path", EXERCISE_NOTEBOOKS, ids=IDS)
def test_solutions_pass_every_check(path, tmp_path):
    sections = harness.read_sections(harness.solutions_path(path))
    grouped, shown = run_with(path, sections, tmp_path)
    failed = [r for records in grouped.values() for r in records if not r["ok"]]
    assert not failed, f"checks that reject the solutions: {failed}"
    problems = [f"{ident}: the check cell shows {' | '.join(texts)[:300]!r}"
                for ident, texts in shown.items()
                if not any(RIGHT in t for t in texts) or any(WRONG in t for t in texts)]
    assert not problems, "check cells that do not show ✓ alone:\n" + "\n".join(problems)


def shows(secret, text):
    """Does ``text`` hold ``secret`` (a right value as printed) as a whole number or array?"""
    return re.search(r"(?<![\w.])" + re.escape(secret) + r"(?!\w|\.\d)", text) is not None


@pytest.mark.lesson
@pytest.mark.parametrize("path", EXERCISE_NOTEBOOKS, ids=IDS)
def test_wrong_answers_fail_every_check(path, tmp_path):
    sections = harness.read_sections(harness.wrong_answers_path(path))
    grouped, shown = run_with(path, sections, tmp_path)
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
