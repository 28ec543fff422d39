"""The checks as an autograder's tests (dagrad.exercises.grading) and the lessons written as
nbgrader source assignments (dagrad.exercises.course), without nbgrader: the whole course
through nbgrader itself is tests/exercises/test_course.py."""
import json

import numpy as np
import pytest

from dagrad.exercises import Choice, Exercise, Value, check, define, given
from dagrad.exercises.answers import cell_source, read_sections
from dagrad.exercises.course import assignment, build
from dagrad.exercises.grading import answer_cell, grade, grade_at_other_inputs
from dagrad.exercises.tutor import GIVEN, exercise
from tests.notebooks import harness

HIDDEN = 'x = np.array([4.0, -1.0, 0.5, 2.5])\ngiven("91.1", x=x)'


def two_part_exercise():
    define(Exercise("91.1", Value("mean_x", lambda g: g.array("x").mean(), name="the mean"),
                    Choice("largest", lambda g: int(np.argmax(g.array("x"))),
                           options=[0, 1, 2, 3])))
    notebook = {"np": np, "given": given}
    exec('x = np.array([1.0, 2.0, 6.0])\ngiven("91.1", x=x)', notebook)
    return notebook


def answer(notebook, source):
    """Run an answer cell as a kernel would, recording it in ``In``."""
    exec(source, notebook)
    notebook["In"] = ["", source, "check(...)", "grade(...)"]


def test_each_part_scores_on_its_own_with_the_checks_words():
    notebook = two_part_exercise()
    answer(notebook, "mean_x = -3.0\nlargest = 2")
    check("91.1", notebook["mean_x"], notebook["largest"])
    grade("91.1", "largest")                                  # right: passes
    with pytest.raises(AssertionError, match=r"^Exercise 91.1 \(mean_x\): the mean is wrong: "
                                             r"yours is -3; .*sign"):
        grade("91.1", "mean_x")


def test_a_blank_or_unchecked_exercise_fails_every_part():
    two_part_exercise()
    with pytest.raises(AssertionError, match="was not checked"):
        grade("91.1", "mean_x")
    check("91.1", None, None)
    for name in ("mean_x", "largest"):
        with pytest.raises(AssertionError, match=r"Not answered yet"):
            grade("91.1", name)
    with pytest.raises(ValueError, match="no answer called 'mean'"):
        grade("91.1", "mean")


def test_a_hidden_test_runs_the_answer_cell_again_at_other_inputs():
    notebook = two_part_exercise()
    answer(notebook, "mean_x = x.sum() / len(x)\nlargest = 2")
    first = check("91.1", notebook["mean_x"], notebook["largest"])
    set_up = GIVEN["91.1"]
    grade_at_other_inputs("91.1", "mean_x", HIDDEN, notebook)
    # the notebook's names, the exercise's set-up and its last verdict are as they were
    assert notebook["x"].tolist() == [1.0, 2.0, 6.0] and notebook["mean_x"] == 3.0
    assert GIVEN["91.1"] is set_up
    grade("91.1", "mean_x")
    assert first.ok

    answer(notebook, "mean_x = 3.0\nlargest = 2")                 # typed in from a run
    check("91.1", notebook["mean_x"], notebook["largest"])
    grade("91.1", "mean_x")
    with pytest.raises(AssertionError, match=r"^At other inputs \(a hidden test\).*Exercise "
                                             r"91.1 \(mean_x\): the mean is wrong: yours is 3"):
        grade_at_other_inputs("91.1", "mean_x", HIDDEN, notebook)

    answer(notebook, "mean_x = x[2] / 2\nlargest = 2")            # needs 3 values or more
    with pytest.raises(AssertionError, match="your answer cell raised IndexError"):
        grade_at_other_inputs("91.1", "mean_x", 'x = np.ones(2)\ngiven("91.1", x=x)',
                              notebook)


def test_the_answer_cell_is_the_last_one_run_that_sets_an_answer():
    cells = ["", "x = 1", "mean_x = 1\nlargest = 0", "print(mean_x)", "def largest(): pass",
             "check('91.1', mean_x, largest)", "(this cell)"]
    assert answer_cell({"In": cells}, ("mean_x", "largest")) == "def largest(): pass"
    assert answer_cell({"In": cells[:4]}, ("mean_x",)) == "mean_x = 1\nlargest = 0"
    assert answer_cell({"In": ["", "y = 2", "z"]}, ("mean_x",)) is None
    assert answer_cell({"In": ["", "mean_x: float = 2", "z"]}, ("mean_x",)) is not None


LESSON_02 = harness.NOTEBOOK_DIR / "02_backpropagation.ipynb"


def lesson_02_source():
    nb = harness.notebook_json(LESSON_02)
    return nb, assignment(nb, "02", read_sections(harness.solutions_path(LESSON_02)),
                          read_sections(harness.NOTEBOOK_DIR / "hidden_tests" /
                                        "02_backpropagation.py"))


def test_a_lesson_becomes_an_nbgrader_source_notebook():
    lesson, source = lesson_02_source()
    meta = [c["metadata"]["nbgrader"] for c in source["cells"]]
    ids = [m["grade_id"] for m in meta]
    assert len(ids) == len(set(ids))
    # every answer cell holds its solution, every part of every exercise is a graded cell
    answers = [c for c, m in zip(source["cells"], meta) if m["solution"] and not m["grade"]]
    assert len(answers) == len(harness.exercise_ids(lesson)) == 4
    assert all("### BEGIN SOLUTION" in cell_source(c) for c in answers)
    graded = {m["grade_id"]: c for c, m in zip(source["cells"], meta)
              if m["grade"] and c["cell_type"] == "code"}
    parts = sum(len(exercise(i).parts) for i in harness.exercise_ids(lesson))
    assert len(graded) == parts and all(m["locked"] for m in meta if m["grade"] and
                                        not m["solution"])
    hidden = sorted(g for g, c in graded.items() if "BEGIN HIDDEN TESTS" in cell_source(c))
    assert hidden == ["grade-02-2-grad_W1", "grade-02-3-relu_d_z", "grade-02-5-J_wide"]
    # the open-ended exercise: the question read-only, the model answer graded by hand
    manual = [c for c, m in zip(source["cells"], meta) if m["grade"] and m["solution"]]
    assert len(manual) == 1 and manual[0]["cell_type"] == "markdown"
    assert "Memory grows **linearly with depth" in cell_source(manual[0])
    assert not any("<details>" in cell_source(c) for c in source["cells"])
    # the lesson's own cells, text and code, are read-only and otherwise unchanged
    plain = [c for c, m in zip(source["cells"], meta) if not m["grade"] and not m["solution"]]
    assert all(m["locked"] for m in meta if not m["grade"] and not m["solution"])
    checks = [c for c in plain if "check:" in str(c["metadata"].get("tags"))]
    assert [cell_source(c) for c in checks] == [
        cell_source(c) for c in lesson["cells"] if "check:" in str(c["metadata"].get("tags"))]


def test_a_lesson_without_a_solution_for_an_exercise_is_refused():
    nb = harness.notebook_json(LESSON_02)
    solutions = read_sections(harness.solutions_path(LESSON_02))
    del solutions["02.4"]
    with pytest.raises(ValueError, match="no worked solution for exercise 02.4"):
        assignment(nb, "02", solutions, {})


def test_build_writes_the_source_folder_and_a_config_once(tmp_path):
    written = build(tmp_path, ["02"])
    assert written == [tmp_path / "source" / "02_backpropagation" / "02_backpropagation.ipynb"]
    assert json.loads(written[0].read_text())["nbformat"] == 4
    config = tmp_path / "nbgrader_config.py"
    assert 'code_stub = {"python": "# YOUR CODE HERE"}' in config.read_text()
    config.write_text("c = get_config()  # the teacher's own\n")
    build(tmp_path, ["02"])
    assert config.read_text() == "c = get_config()  # the teacher's own\n"
    with pytest.raises(SystemExit, match="no notebook for lesson 99"):
        build(tmp_path, ["99"])
