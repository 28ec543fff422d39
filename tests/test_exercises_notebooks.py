"""The lessons' exercise checks can tell a right answer from a wrong one.

For every notebook with exercises: run it with the solutions (notebooks/solutions/<stem>.py)
typed into the answer cells, and every check must say right; run it with the wrong answers
(tests/notebooks/wrong_answers/<stem>.py: the mistakes students make) and every check must say
wrong, with the diagnosis the wrong answer's `# expect:` line names. These two runs stop after
the last check cell; the blank run, tests/test_notebooks.py::test_notebook_runs, runs it all. Every answer cell has a solution and a wrong answer.
"""
import pytest

from tests.notebooks import harness

NOTEBOOKS = sorted(harness.NOTEBOOK_DIR.glob("[0-9]*.ipynb"))


# Every lesson has exercises (tests/test_notebooks.py checks it); a notebook without any is
# left to that test rather than failing here for want of answers.
EXERCISE_NOTEBOOKS = [p for p in NOTEBOOKS if harness.exercise_ids(harness.notebook_json(p))]
IDS = [p.stem for p in EXERCISE_NOTEBOOKS]


def run_with(path, sections, tmp_path):
    pytest.importorskip("nbformat", reason="install the notebooks extra")
    pytest.importorskip("nbclient", reason="install the notebooks extra")
    nb = harness.read_notebook(path)
    answered = harness.through_last_check(harness.inject(nb, sections))
    records = harness.execute(answered, tmp_path / "checks.jsonl")
    grouped = harness.by_exercise(records)
    missing = set(harness.exercise_ids(nb)) - set(grouped)
    assert not missing, f"exercises whose check did not run (or not with exercise=<id>): {missing}"
    return grouped


@pytest.mark.lesson
@pytest.mark.parametrize("path", EXERCISE_NOTEBOOKS, ids=IDS)
def test_solutions_pass_every_check(path, tmp_path):
    sections = harness.read_sections(harness.solutions_path(path))
    grouped = run_with(path, sections, tmp_path)
    failed = [r for records in grouped.values() for r in records if not r["ok"]]
    assert not failed, f"checks that reject the solutions: {failed}"


@pytest.mark.lesson
@pytest.mark.parametrize("path", EXERCISE_NOTEBOOKS, ids=IDS)
def test_wrong_answers_fail_every_check(path, tmp_path):
    sections = harness.read_sections(harness.wrong_answers_path(path))
    grouped = run_with(path, sections, tmp_path)
    problems = []
    for ident, source in sections.items():
        expected = harness.expected_diagnosis(source)
        for record in grouped[ident]:
            if record["ok"]:
                problems.append(f"{ident}: the check accepted the wrong answer")
            elif record["diagnosis"] == "not_answered":
                problems.append(f"{ident}: the wrong answer left the exercise unanswered")
            elif expected is not None and record["diagnosis"] != expected:
                problems.append(f"{ident}: diagnosis {record['diagnosis']!r}, expected "
                                f"{expected!r} ({record['message'][:200]})")
    assert not problems, "\n".join(problems)


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
    assert harness.expected_diagnosis(sections["03.1"]) == "sign"
    assert harness.expected_diagnosis(sections["03.2"]) is None
    answers.write_text("# %% exercise 03.1\nx = 1\n# %% exercise 03.1\nx = 2\n", encoding="utf-8")
    with pytest.raises(ValueError, match="03.1 appears twice"):
        harness.read_sections(answers)
