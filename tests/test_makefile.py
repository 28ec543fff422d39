"""The Makefile's entry points as a new user meets them."""
import collections
import os
import pathlib
import re
import shutil
import subprocess
import sys

import pytest

from tests import stages
from tests.autograd.op_table import OPS

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


def test_make_quick_is_pytest_over_the_tests_with_the_quick_switch():
    """make quick: every test folder, with DAGRAD_QUICK_TESTS=1, which tests/stages.py reads to
    leave out what only make test runs."""
    command = recipe("quick", dry=True)
    assert "DAGRAD_QUICK_TESTS=1 echo -m pytest -n 2 --dist worksteal -q tests" in command, command


def quick_run_ids():
    """The ids of the tests a quick run collects, and pytest's closing line."""
    env = {name: value for name, value in os.environ.items()
           if not name.startswith(("PYTEST_", "DAGRAD_"))}      # not this run's own settings
    env.update({"DAGRAD_QUICK_TESTS": "1", "OMP_NUM_THREADS": "1", "OPENBLAS_NUM_THREADS": "1"})
    result = subprocess.run([sys.executable, "-m", "pytest", "--collect-only", "-q",
                             "--assert=plain", "-p", "no:cacheprovider", "tests"],
                            cwd=ROOT, env=env, capture_output=True, text=True, timeout=600)
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]
    lines = result.stdout.splitlines()
    return [line for line in lines if "::" in line], next(
        line for line in reversed(lines) if "collected" in line)


def test_a_quick_run_checks_every_library_area_and_every_operation_once():
    """A quick run that silently ran nothing, or a folder less, or an operation less, would
    still pass: so its collection is counted here, in make test."""
    ids, summary = quick_run_ids()
    assert re.search(r"\d+/\d+ tests collected \(\d+ deselected\)", summary), summary
    by_area = collections.Counter(node.split("::")[0].split("/")[1] for node in ids)
    for area, at_least in (("autograd", 900), ("nn", 450), ("optim", 100),
                           ("interchange", 60), ("test_structure.py", 5)):
        assert by_area[area] >= at_least, (area, by_area)
    assert not set(by_area) & set(stages.LEFT_OUT), by_area
    for slow in ("test_million_operation_chain_backpropagates_and_frees",
                 "test_gpt_learns_the_bundled_text", "test_conv2d_gradcheck["):
        assert not any(slow in node for node in ids), slow
    every_row = collections.Counter(op.name for op in OPS)
    for check in ("test_gradcheck", "test_gradgradcheck", "test_matches_pytorch",
                  "test_backward_paths_and_reference_engine_agree",
                  "test_reference_engine_agrees_to_the_second_order"):
        rows = collections.Counter(node.split("[")[1].split("-(")[0] for node in ids
                                   if node.startswith(f"tests/autograd/test_op_table.py::"
                                                      f"{check}["))
        assert rows == every_row, (check, set(every_row) ^ set(rows))


def test_no_recipe_echoes_an_error_line():
    """make echoes a recipe line before running it unless it starts with @: a line that can
    print "error: ..." when something fails would show that text in every passing log."""
    text = (ROOT / "Makefile").read_text(encoding="utf-8").replace("\\\n", " ")
    echoed = [line for line in text.splitlines()
              if line.startswith("\t") and not line.startswith("\t@") and "error:" in line]
    assert echoed == []
