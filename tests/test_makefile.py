"""The Makefile's entry points as a new user meets them."""
import os
import pathlib
import shutil
import subprocess

import pytest

ROOT = pathlib.Path(__file__).resolve().parent.parent


def recipe(target, *overrides):
    """The commands `make target` would run, printed instead of run (PY=echo), with the
    installation step taken as done."""
    if shutil.which("make") is None:
        pytest.skip("make is not installed")
    result = subprocess.run(["make", "-s", "-o", ".venv/.installed-demo", "-o",
                             ".venv/.installed-site", "-o", ".venv/.installed-course", target,
                             "PY=echo", *overrides],
                            cwd=ROOT, capture_output=True, text=True, check=True, timeout=60)
    return result.stdout


def test_make_notebooks_allows_root_exactly_when_run_as_root():
    """JupyterLab stops with "Running as root is not recommended" unless given --allow-root;
    containers and cloud machines often run as root."""
    command = recipe("notebooks")
    assert "-m jupyter lab --no-browser --notebook-dir=notebooks" in command
    assert ("--allow-root" in command) == (os.geteuid() == 0), command


def test_make_course_writes_the_lessons_as_nbgrader_assignments():
    assert "-m dagrad.exercises.course --course course 01 02" in recipe("course",
                                                                        "LESSONS=01 02")
    assert "-m dagrad.exercises.course --course fall" in recipe("course", "COURSE=fall")


def test_the_test_environment_has_the_course_extra():
    """CI grades the lessons through nbgrader (tests/exercises/test_course.py)."""
    text = (ROOT / "Makefile").read_text()
    assert "install -e '.[test,site,course]'" in text


def test_make_site_builds_into_build_site():
    assert "website/build.py --out build/site" in recipe("site")
