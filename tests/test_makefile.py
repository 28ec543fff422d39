"""The Makefile's entry points as a new user meets them."""
import os
import pathlib
import shutil
import subprocess

import pytest

ROOT = pathlib.Path(__file__).resolve().parent.parent


def recipe(target, *overrides, dry=False):
    """The commands `make target` would run, printed instead of run (PY=echo; with ``dry``,
    make's own listing of the commands, silenced ones included), with the installation steps
    taken as done."""
    if shutil.which("make") is None:
        pytest.skip("make is not installed")
    result = subprocess.run(["make", "-n" if dry else "-s", "-o", ".venv/.installed-demo", "-o",
                             ".venv/.installed-site", "-o", ".venv/.installed-test", "-o",
                             ".venv/.installed-course", target,
                             "PY=echo", *overrides],
                            cwd=ROOT, capture_output=True, text=True, check=True, timeout=60)
    return result.stdout


def test_make_notebooks_allows_root_exactly_when_run_as_root():
    """JupyterLab stops with "Running as root is not recommended" unless given --allow-root;
    containers and cloud machines often run as root."""
    command = recipe("notebooks")
    assert "-m jupyter lab --no-browser --notebook-dir=notebooks" in command
    assert ("--allow-root" in command) == (os.geteuid() == 0), command


def test_make_notebooks_turns_jupyterlabs_news_off_in_the_venv():
    """JupyterLab's "get notified about official Jupyter news?" pop-up covers a corner of every
    screen until answered; make notebooks turns it off in .venv's own settings."""
    command = recipe("notebooks", dry=True)
    assert ("-m jupyter labextension disable --level=sys_prefix "
            "@jupyterlab/apputils-extension:announcements") in command


def test_make_course_writes_the_lessons_as_nbgrader_assignments():
    assert "-m dagrad.exercises.course --course course 01 02" in recipe("course",
                                                                        "LESSONS=01 02")
    assert "-m dagrad.exercises.course --course fall" in recipe("course", "COURSE=fall")


def test_the_test_environment_has_the_course_extra():
    """CI grades the lessons through nbgrader (tests/exercises/test_course.py)."""
    text = (ROOT / "Makefile").read_text()
    assert "install -q -e '.[test,site,course]'" in text


def test_make_site_builds_into_build_site():
    assert "-m website.build --out build/site" in recipe("site")


def test_make_quick_runs_the_core_tests_without_the_lessons_the_site_and_the_browser():
    """make quick: the engine's, modules', optimizers', formats' and errors' tests, without the
    lessons, the site, the browser, the program runs and the convolution and pooling sweeps."""
    command = recipe("quick")
    assert "-m pytest -n 2 -q -m not lesson and not site and not browser tests/autograd " \
           "tests/nn tests/optim tests/interchange " in command
    for left_out in ("tests/facade", "tests/exercises", "tests/viz", "tests/site",
                     "tests/test_notebooks.py", "tests/test_readme.py"):
        assert left_out not in command, left_out
    assert "--ignore=tests/autograd/test_conv_ops.py --ignore=tests/autograd/test_pool_ops.py" \
        in command


def test_no_recipe_echoes_an_error_line():
    """make echoes a recipe line before running it unless it starts with @: a line that can
    print "error: ..." when something fails would show that text in every passing log."""
    text = (ROOT / "Makefile").read_text(encoding="utf-8").replace("\\\n", " ")
    echoed = [line for line in text.splitlines()
              if line.startswith("\t") and not line.startswith("\t@") and "error:" in line]
    assert echoed == []
