"""The lessons as an nbgrader course, graded through nbgrader itself (docs/teaching.md).

One test walks the teacher's page: it runs docs/teaching.md's shell blocks as they are, in a
temporary folder (build lessons 01 and 02, generate the student versions, release, a student
fetches and submits them blank, collect, autograde, feedback, export), with three more
submissions of each lesson put into submitted/ by hand before the grading block, as the page
says submissions that come some other way are: the solutions (full marks), the wrong answers of
tests/notebooks/wrong_answers/ (at most half, each lost point's feedback holding the check's
diagnosis) and answers typed in as numbers copied from a solved run (which lose exactly the
hidden tests' points). It checks that the student versions hold no solution, hidden test or
model answer, and reads every grade and feedback page. The wrong submission's feedback page holds check_grads' picture, shown in
Chromium and saved under test-artifacts/.
"""
import getpass
import html
import json
import os
import pathlib
import re
import subprocess
import sys

import numpy as np
import pytest

from dagrad.exercises.answers import cell_source, exercise_ids
from dagrad.exercises.tutor import exercise
from tests.notebooks import harness

ROOT = harness.ROOT
PAGE = ROOT / "docs" / "teaching.md"
LESSONS = {"01": "01_autograd_basics", "02": "02_backpropagation"}
ARTIFACTS = ROOT / "test-artifacts"
TIMEOUT = 1800


def nbgrader_or_skip():
    try:
        import nbgrader  # noqa: F401
    except ImportError:
        if os.environ.get("CI"):
            pytest.fail("nbgrader must be installed in CI (the course extra: make "
                        ".venv/.installed-test)")
        pytest.skip("nbgrader is not installed (pip install -e '.[course]')")


def shell_blocks():
    """[(who, code)] of the page's ``sh`` blocks; ``who`` is the block's first comment line."""
    blocks = re.findall(r"```sh\n(.*?)```", PAGE.read_text(encoding="utf-8"), re.S)
    return [(block.splitlines()[0].lstrip("# ").strip(), block) for block in blocks]


def run(command, cwd, env):
    """Run a shell script; fail with its output when it fails."""
    result = subprocess.run(["bash", "-euo", "pipefail", "-c", command], cwd=cwd, env=env,
                            capture_output=True, text=True, timeout=TIMEOUT)
    assert result.returncode == 0, (f"in {cwd}:\n{command}\nfailed:\n{result.stdout[-3000:]}\n"
                                    f"{result.stderr[-5000:]}")
    return result.stdout + result.stderr


def walk_the_page(work, env, before_grading):
    """Run the page's blocks where it says: the teacher's in ``work`` (then in course/), the
    student's in a folder of their own; ``before_grading()`` runs just before the block that
    collects and grades (where the page puts submissions that come some other way). The
    installation block is skipped (done already)."""
    folders = {"the teacher, in a checkout of dagrad": None, "the teacher": work,
               "the teacher, in course/": work / "course", "a student, in their own folder":
               work / "student"}
    (work / "student").mkdir()
    ran = []
    for who, code in shell_blocks():
        assert who in folders, f"docs/teaching.md: a sh block for {who!r}, not one of {folders}"
        if folders[who] is not None:
            if "nbgrader autograde" in code:
                before_grading()
            run(code, folders[who], env)
            ran.append(who)
    assert ran.count("a student, in their own folder") == 1 and len(ran) == 4, ran


def solution_lines(stem, lesson_text):
    """The code lines of the lesson's worked solutions that the lesson itself does not hold."""
    sections = harness.read_sections(harness.SOLUTIONS_DIR / f"{stem}.py")
    return {line.strip() for s in sections.values() for line in s.splitlines()
            if line.strip() and not line.strip().startswith("#")
            and line.strip() not in lesson_text and len(line.strip()) > 8}


def model_answers(nb):
    """The model answers' lines (of more than a few words) in a lesson notebook."""
    text = "\n".join(cell_source(c) for c in nb["cells"]
                     if c["cell_type"] == "markdown")
    blocks = re.findall(r"<details><summary>A model answer</summary>(.*?)</details>", text, re.S)
    return [line.strip() for b in blocks for line in b.splitlines() if len(line.strip()) > 30]


def sources(path):
    return "\n".join(cell_source(c) for c in harness.notebook_json(path)["cells"])


def typed_in_sections(stem, tmp_path):
    """The lesson's answers with every numeric answer typed in as the numbers a solved run
    gives (answers that are functions or classes keep their worked solution)."""
    path = harness.NOTEBOOK_DIR / f"{stem}.ipynb"
    solutions = harness.read_sections(harness.solutions_path(path))
    nb = harness.through_last_check(harness.inject(harness.read_notebook(path), solutions))
    idents = exercise_ids(harness.notebook_json(path))
    names = [n for ident in idents for n in exercise(ident).answer_names]
    dump = tmp_path / f"{stem}-answers.json"
    import nbformat
    nb.cells.append(nbformat.v4.new_code_cell(
        "import json as _json, numpy as _np\n"
        "def _numbers(v):\n"
        "    v = v.numpy() if hasattr(v, 'numpy') and not isinstance(v, type) else v\n"
        "    return _np.asarray(v, dtype=float).tolist() if isinstance(v, (_np.ndarray, float, "
        "int, _np.number)) else None\n"
        f"_json.dump({{n: _numbers(globals()[n]) for n in {names!r}}}, open({str(dump)!r}, 'w'))"))
    harness.execute(nb, tmp_path / f"{stem}-solved.jsonl")
    values = json.loads(dump.read_text())
    typed = {}
    for ident in idents:
        answer_names = exercise(ident).answer_names
        if any(values[n] is None for n in answer_names):
            typed[ident] = solutions[ident]
        else:
            typed[ident] = "".join(f"{n} = np.array({values[n]!r})\n" for n in answer_names)
    return typed


def write_submission(course, student, stem, sections):
    import nbformat
    release = course / "release" / stem / f"{stem}.ipynb"
    nb = harness.inject(harness.read_notebook(release), sections)
    folder = course / "submitted" / student / stem
    folder.mkdir(parents=True)
    nbformat.write(nb, str(folder / f"{stem}.ipynb"))


def cell_grades(course, stem, student):
    """{grade cell id: (auto score, max score)} of a student's autograded notebook."""
    from nbgrader.api import Gradebook
    with Gradebook(f"sqlite:///{course / 'gradebook.db'}") as gb:
        notebook = gb.find_submission_notebook(stem, stem, student)
        return {g.name: (g.auto_score, g.max_score) for g in notebook.grades
                if g.cell.cell_type == "code"}


def autograded_cells(course, stem, student):
    """{grade cell id: the autograded cell} of a student's notebook."""
    path = course / "autograded" / student / stem / f"{stem}.ipynb"
    return {c["metadata"]["nbgrader"]["grade_id"]: c
            for c in harness.notebook_json(path)["cells"] if "nbgrader" in c["metadata"]}


def error_text(cell):
    errors = [o for o in cell.get("outputs", []) if o["output_type"] == "error"]
    return f"{errors[0]['ename']}: {errors[0]['evalue']}" if errors else None


def hidden_cells(course, stem):
    source = harness.notebook_json(course / "source" / stem / f"{stem}.ipynb")
    return {c["metadata"]["nbgrader"]["grade_id"] for c in source["cells"]
            if "### BEGIN HIDDEN TESTS" in cell_source(c)}


@pytest.mark.lesson                # runs lessons 01 and 02 in kernels, nbgrader's and ours
def test_the_lessons_as_an_nbgrader_course(tmp_path):
    nbgrader_or_skip()
    work = tmp_path / "work"
    work.mkdir()
    env = dict(os.environ, EXCHANGE=str(tmp_path / "exchange"),
               JUPYTER_CONFIG_DIR=str(tmp_path / "jupyter-config"),
               PATH=f"{pathlib.Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}")
    (tmp_path / "exchange").mkdir()
    course = work / "course"

    def three_more_submissions():
        """The solutions, the wrong answers and the typed-in numbers of each lesson, put into
        submitted/ by hand as the page says, so the page's own block grades them."""
        for stem in LESSONS.values():
            path = harness.NOTEBOOK_DIR / f"{stem}.ipynb"
            write_submission(course, "solutions", stem, harness.read_sections(
                harness.solutions_path(path)))
            write_submission(course, "wrong", stem, harness.read_sections(
                harness.wrong_answers_path(path)))
            write_submission(course, "typed", stem, typed_in_sections(stem, tmp_path))
    walk_the_page(work, env, three_more_submissions)
    blank = getpass.getuser()          # the student who submitted through the exchange

    # the student versions: no solution, no hidden test, no model answer
    for stem in LESSONS.values():
        lesson = harness.notebook_json(harness.NOTEBOOK_DIR / f"{stem}.ipynb")
        lesson_text = "\n".join(cell_source(c) for c in lesson["cells"])
        teacher = sources(course / "source" / stem / f"{stem}.ipynb")
        student = sources(course / "release" / stem / f"{stem}.ipynb")
        secret = solution_lines(stem, lesson_text) | set(model_answers(lesson))
        assert secret and all(line in teacher for line in secret)
        leaked = sorted(line for line in secret if line in student)
        assert not leaked, f"{stem}: the student version holds {leaked[:5]}"
        for marker in ("BEGIN SOLUTION", "HIDDEN TESTS", "grade_at_other_inputs", "<details>"):
            assert marker not in student, f"{stem}: the student version holds {marker!r}"
        assert 'check("01.' in student or 'check("02.' in student

    check_the_grades(course, blank)
    look_at_the_feedback(course / "feedback" / "wrong" / LESSONS["01"] /
                         f"{LESSONS['01']}.html")


def check_the_grades(course, blank):
    grades_csv = (course / "grades.csv").read_text()
    for student in (blank, "solutions", "wrong", "typed"):
        assert student in grades_csv

    for lesson, stem in LESSONS.items():
        # blank: 0, and the notebook ran to its end (only graded cells failed)
        grades = cell_grades(course, stem, blank)
        assert grades and all(score == 0 for score, _ in grades.values()), grades
        cells = harness.notebook_json(course / "autograded" / blank / stem / f"{stem}.ipynb")
        failed = [cell_source(c)[:60] for c in cells["cells"]
                  if c["cell_type"] == "code" and error_text(c)
                  and not c["metadata"]["nbgrader"].get("grade")]
        assert not failed, f"{stem}, blank: cells other than the graded ones failed: {failed}"
        assert cells["cells"][-1]["execution_count"] is not None

        # the solutions: full marks
        grades = cell_grades(course, stem, "solutions")
        assert all(score == top for score, top in grades.values()), grades

        # the wrong answers: at most half, each lost point explained in dagrad's words
        grades = cell_grades(course, stem, "wrong")
        assert sum(s for s, _ in grades.values()) <= sum(t for _, t in grades.values()) / 2
        graded = autograded_cells(course, stem, "wrong")
        feedback = html.unescape((course / "feedback" / "wrong" / stem /
                                  f"{stem}.html").read_text(encoding="utf-8"))
        wrong = harness.read_sections(harness.wrong_answers_path(
            harness.NOTEBOOK_DIR / f"{stem}.ipynb"))
        said = {}                   # exercise id -> the words of its lost points
        for grade_id, (score, _) in grades.items():
            if score:
                continue
            text = error_text(graded[grade_id])
            ident = re.match(r"grade-(\d\d)-(\d+)-", grade_id).expand(r"\1.\2")
            assert text and text.startswith(f"AssertionError: Exercise {ident} ("), text
            assert "not answered" not in text, text
            assert text.split(": ", 1)[1] in feedback, f"{grade_id}: not in the feedback"
            said[ident] = said.get(ident, "") + text
        assert set(said) == set(wrong), f"{stem}: exercises that lost no point: {set(wrong) - set(said)}"
        for ident, text in said.items():
            # the misconceptions the wrong answer makes, named in the lesson's words
            sentences = {}
            for part in exercise(ident).parts:
                for m in getattr(part, "misconceptions", ()):
                    sentences.setdefault(m.tag, []).append(m.sentence[:50])
            for tag in harness.expected_diagnosis(wrong[ident]) or []:
                assert tag not in sentences or any(s.lower() in text.lower() for s in sentences[tag]), \
                    (ident, tag, text)

        # typed-in numbers: exactly the hidden tests' points lost
        grades = cell_grades(course, stem, "typed")
        hidden = hidden_cells(course, stem)
        assert hidden
        lost = {g for g, (score, top) in grades.items() if score != top}
        assert lost == hidden, f"{stem}: lost {sorted(lost)}, hidden tests {sorted(hidden)}"
        graded = autograded_cells(course, stem, "typed")
        for grade_id in hidden:
            assert "At other inputs (a hidden test)" in error_text(graded[grade_id])


def look_at_the_feedback(page):
    """check_grads' picture in the wrong submission's feedback, in Chromium: exercise 01.2's
    check cell shows the graph with the wrong δ's in red."""
    from tests.viz.browser import browser_page
    ARTIFACTS.mkdir(exist_ok=True)
    with browser_page(1100, 900) as browser:
        browser.goto(page.as_uri())
        verdicts = browser.locator(".dagrad-check-wrong", has=browser.locator("svg"))
        assert verdicts.count() >= 1, "no wrong verdict with a picture in the feedback"
        verdict = verdicts.first
        verdict.scroll_into_view_if_needed()
        box = verdict.locator("svg").first.bounding_box()
        assert box and box["width"] > 200 and box["height"] > 150, box
        text = verdict.inner_text()
        assert "Exercise 01.2" in text and "δ_z2" in text, text[:300]
        reds = verdict.locator("svg [stroke='#d50000'], svg [fill='#d50000']").count()
        verdict.screenshot(path=str(ARTIFACTS / "course_feedback_wrong_01.png"))
    assert reds > 0, "the picture draws nothing in red"
