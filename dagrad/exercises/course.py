"""The lessons as an nbgrader course: write one nbgrader ``source/`` assignment per lesson.

    python -m dagrad.exercises.course [LESSON ...] [--course DIR] [--notebooks DIR]

For lesson ``01`` it writes ``DIR/source/01_autograd_basics/01_autograd_basics.ipynb`` (and
``DIR/nbgrader_config.py`` when there is none), from the lesson's notebook, its worked
solutions (``notebooks/solutions/<lesson>.py``) and its hidden tests
(``notebooks/hidden_tests/<lesson>.py``, optional), with nbgrader's cell metadata:

* the answer cell ``exercise:NN.k``: a solution cell, its starting lines kept and the worked
  solution between ``### BEGIN SOLUTION`` and ``### END SOLUTION``;
* the check cell ``check:NN.k``: kept read-only, the student's tutor (it never raises); after
  it one autograded test cell per part of the exercise, ``grade("NN.k", "<answer>")``, worth
  ``PART_POINTS``, with a hidden test (``### BEGIN HIDDEN TESTS``) when the lesson has one
  for the exercise (``grading.grade_at_other_inputs``, the exercise set up at other inputs)
  for the parts it re-checks (``rechecks``);
* the model answer of an open-ended exercise (``<details><summary>A model answer``): a
  manually graded answer cell worth ``MODEL_ANSWER_POINTS`` holding it for the grader; the
  question stays read-only;
* every other cell, text and code: read-only.

``nbgrader generate_assignment`` then writes the student version without the solutions, the
hidden tests and the model answers. nbgrader itself is not needed to build the course (the
``course`` extra installs it for the rest: ``pip install -e '.[course]'``).
"""
import argparse
import copy
import json
import pathlib
import re
import sys

from .answers import cell_source, cell_tag, read_sections
from .tutor import Choice, Shape, exercise

REPOSITORY_NOTEBOOKS = pathlib.Path(__file__).resolve().parents[2] / "notebooks"
PART_POINTS = 1
MODEL_ANSWER_POINTS = 2
SCHEMA = 3                     # nbgrader's cell-metadata schema version

MODEL_ANSWER = re.compile(r"\s*<details><summary>A model answer</summary>\s*(.*?)\s*</details>\s*",
                          re.S)
OPEN_EXERCISE = re.compile(r"\*\*Exercise (\d+)\b")
RECHECKS = re.compile(r"^# re-checks:[ \t]*(.+)$", re.M)

CONFIG = '''\
# nbgrader's configuration for the dagrad course (written by python -m dagrad.exercises.course).
c = get_config()
c.CourseDirectory.course_id = "dagrad"
# A blank answer cell keeps its starting lines (`d_W4 = None`): the check says "not answered
# yet" and the notebook runs on, instead of nbgrader's `raise NotImplementedError()`.
c.ClearSolutions.code_stub = {"python": "# YOUR CODE HERE"}
c.ClearSolutions.text_stub = "YOUR ANSWER HERE"
c.Execute.timeout = 300
'''


def lesson_paths(lessons, notebooks):
    """{lesson: its notebook} for lessons such as "01" (all converted lessons when empty:
    those with exercises defined in dagrad.exercises.lessons)."""
    notebooks = pathlib.Path(notebooks)
    found = {p.name[:2]: p for p in sorted(notebooks.glob("[0-9][0-9]_*.ipynb"))}
    if not lessons:
        here = pathlib.Path(__file__).parent / "lessons"
        lessons = [p.stem[-2:] for p in sorted(here.glob("lesson_[0-9][0-9].py"))]
    missing = [lesson for lesson in lessons if lesson not in found]
    if missing:
        raise SystemExit(f"no notebook for lesson {', '.join(missing)} in {notebooks}")
    return {lesson: found[lesson] for lesson in lessons}


def build(course, lessons=(), notebooks=REPOSITORY_NOTEBOOKS):
    """Write ``course/source/<lesson>/<lesson>.ipynb`` for each lesson (and
    ``course/nbgrader_config.py`` when absent); return the notebooks written."""
    course, notebooks = pathlib.Path(course), pathlib.Path(notebooks)
    written = []
    for lesson, path in lesson_paths(list(lessons), notebooks).items():
        nb = json.loads(path.read_text(encoding="utf-8"))
        solutions = read_sections(notebooks / "solutions" / f"{path.stem}.py")
        hidden = read_sections(notebooks / "hidden_tests" / f"{path.stem}.py")
        out = course / "source" / path.stem / path.name
        out.parent.mkdir(parents=True, exist_ok=True)
        out.write_text(json.dumps(assignment(nb, lesson, solutions, hidden), indent=1,
                                  ensure_ascii=False) + "\n", encoding="utf-8")
        written.append(out)
    config = course / "nbgrader_config.py"
    if not config.exists():
        config.write_text(CONFIG, encoding="utf-8")
    return written


def assignment(nb, lesson, solutions, hidden):
    """The lesson notebook ``nb`` (JSON) as an nbgrader source notebook."""
    missing = [ident for kind, ident in filter(None, map(cell_tag, nb["cells"]))
               if kind == "exercise" and ident not in solutions]
    if missing:
        raise ValueError(f"lesson {lesson}: no worked solution for exercise "
                         f"{', '.join(missing)} (notebooks/solutions/)")
    nb = copy.deepcopy(nb)
    cells = []
    for cell in nb["cells"]:
        tag = cell_tag(cell)
        if cell["cell_type"] == "code":
            cell["outputs"], cell["execution_count"] = [], None
        if tag and tag[0] == "exercise":
            cells.append(answer_cell(cell, tag[1], solutions[tag[1]]))
        elif tag and tag[0] == "check":
            cells.append(read_only(cell))
            setup = hidden.get(tag[1])
            cells += [grade_cell(tag[1], part, setup if rechecks(part, setup) else None)
                      for part in exercise(tag[1]).parts]
        elif cell["cell_type"] == "markdown" and MODEL_ANSWER.search(cell_source(cell)):
            cells += open_exercise_cells(cell, lesson)
        else:
            cells.append(read_only(cell))
    nb["cells"] = cells
    return nb


def rechecks(part, setup):
    """Does the hidden test ``setup`` judge ``part`` again? Those it names on a line
    ``# re-checks: <answer> ...``, else every part that computes a value (not a Choice or a
    Shape)."""
    if setup is None:
        return False
    named = RECHECKS.search(setup)
    if named:
        return bool(set(named.group(1).split()) & set(part.answers))
    return not isinstance(part, (Choice, Shape))


def nbgrader(cell, grade_id, *, grade=False, solution=False, locked=False, points=None):
    """``cell`` with nbgrader's metadata."""
    meta = {"grade": grade, "grade_id": grade_id, "locked": locked, "schema_version": SCHEMA,
            "solution": solution, "task": False}
    if grade:
        meta["points"] = points
    cell.setdefault("metadata", {})["nbgrader"] = meta
    return cell


def read_only(cell):
    return nbgrader(cell, f"cell-{cell.get('id') or id(cell)}", locked=True)


def new_cell(kind, source, cell_id):
    cell = {"cell_type": kind, "id": cell_id, "metadata": {}, "source": source}
    if kind == "code":
        cell.update(outputs=[], execution_count=None)
    return cell


def answer_cell(cell, ident, solution):
    """The answer cell: its starting lines (the blank answers), then the worked solution."""
    start = cell_source(cell).rstrip("\n")
    cell["source"] = f"{start}\n### BEGIN SOLUTION\n{solution.rstrip()}\n### END SOLUTION"
    return nbgrader(cell, f"answer-{ident.replace('.', '-')}", solution=True)


def grade_cell(ident, part, setup):
    """The autograded test cell of one part of exercise ``ident``: the part's verdict at the
    check above it, and, for a computed value, again at the inputs of ``setup``."""
    answer = part.answers[0]
    lines = ["from dagrad.exercises.grading import grade", f"grade({ident!r}, {answer!r})"]
    if setup is not None:
        lines += ["### BEGIN HIDDEN TESTS",
                  "from dagrad.exercises.grading import grade_at_other_inputs",
                  f"grade_at_other_inputs({ident!r}, {answer!r}, {triple_quoted(setup)}, "
                  f"globals())",
                  "### END HIDDEN TESTS"]
    grade_id = f"grade-{ident.replace('.', '-')}-{answer}"
    return nbgrader(new_cell("code", "\n".join(lines), grade_id[:64]), grade_id, grade=True,
                    locked=True, points=PART_POINTS)


def triple_quoted(code):
    """``code`` as a Python string literal that reads as the code itself."""
    escaped = code.replace("\\", "\\\\").replace('"""', '\\"\\"\\"')
    return f'"""\n{escaped}"""'


def open_exercise_cells(cell, lesson):
    """An open-ended exercise's text: the question, read-only, then its model answer as a
    manually graded answer cell (the student version holds nbgrader's text stub there)."""
    text = cell_source(cell)
    match = MODEL_ANSWER.search(text)
    number = OPEN_EXERCISE.search(text)
    ident = f"{lesson}-{number.group(1)}" if number else f"{lesson}-{cell.get('id')}"
    question = (text[:match.start()] + text[match.end():]).rstrip() + "\n"
    cell["source"] = question
    answer = new_cell("markdown", match.group(1).strip() + "\n", f"model-answer-{ident}")
    return [read_only(cell),
            nbgrader(answer, f"model-answer-{ident}", grade=True, solution=True,
                     points=MODEL_ANSWER_POINTS)]


def main(argv=None):
    parser = argparse.ArgumentParser(
        prog="python -m dagrad.exercises.course",
        description="Write the lessons as nbgrader source assignments (docs/teaching.md).")
    parser.add_argument("lessons", nargs="*", metavar="LESSON",
                        help='lesson numbers such as 01 02 (default: every converted lesson)')
    parser.add_argument("--course", default="course",
                        help="the nbgrader course folder (default: ./course)")
    parser.add_argument("--notebooks", default=str(REPOSITORY_NOTEBOOKS),
                        help="the lessons' folder, with solutions/ and hidden_tests/ "
                             "(default: the repository's notebooks/)")
    args = parser.parse_args(argv)
    for path in build(args.course, args.lessons, args.notebooks):
        print(path)
    return 0


if __name__ == "__main__":
    sys.exit(main())
