"""The stages of the test suite (see tests/conftest.py), and what a quick run leaves out.

A test marked ``lesson``, ``site`` or ``browser`` is not the library's own; the entry points of
those stages call ``refuse_in_quick_run`` so that a test that forgot its marker says so instead
of slowing every quick run down.

A quick run (``make quick``, or any pytest run with ``DAGRAD_QUICK_TESTS=1``) is the library's
check for someone changing the code, in about a minute on two cores. This module is the one
place that decides what it leaves out, all of which ``make test`` runs:

- the folders and files in ``LEFT_OUT`` (not even collected), each with its reason;
- the lesson, site and browser stages;
- every test marked ``slow`` (``SLOW_MEANS``): the op table's rows past their first shapes
  (a quick run checks every operation once, first and second order, against the reference
  engine and PyTorch), the grids of every convolution and pooling setting (their operations are
  rows of the op table), a model trained to a target (its layers are gradchecked and compared
  with PyTorch's), a statistical estimate over many draws, a time measured at n and 10n, and
  graphs of 10⁵ to 10⁶ operations.
"""
import os
import pathlib

import pytest

STAGES = ("lesson", "site", "browser")      # in the order of the summary; the rest: "library"
QUICK = "DAGRAD_QUICK_TESTS"                # set by `make quick`
SLOW = "slow"                               # the marker of a test a quick run leaves out
SLOW_MEANS = ("a sweep's further settings, a model trained to a target, an estimate over many "
              "draws, a time measured at n and 10n or a graph of 10^5+ operations")

TESTS = pathlib.Path(__file__).resolve().parent
LEFT_OUT = {                                # relative to tests/: why a quick run leaves it out
    "facade": "dagrad.torch and dagrad.d2l, above the library, and the programs run on them",
    "exercises": "dagrad.exercises, the lessons' checks, and their notebook runs",
    "notebooks": "runs the lessons",
    "viz": "the pictures: Graphviz drawings, plots and players, several opened in Chromium",
    "site": "builds and opens the site",
    "packaging": "builds the wheel and installs it in a new venv",
    "test_added_pytorch_names.py": "the names PyTorch programs use (dagrad.torch)",
    "test_benchmarks.py": "sets up the benchmarks' workloads",
    "test_exercises_notebooks.py": "runs the lessons' exercises in their notebooks",
    "test_makefile.py": "runs make, and counts what a quick run collects",
    "test_notebooks.py": "runs the lessons",
    "test_readme.py": "runs every Python block of the README and the docs",
}


def quick_run():
    """Whether this run is a quick one (``DAGRAD_QUICK_TESTS`` set and not empty)."""
    return bool(os.environ.get(QUICK))


def left_out_of_quick_run(path):
    """Whether a quick run skips collecting ``path`` (a pathlib.Path): it is in ``LEFT_OUT``."""
    try:
        relative = pathlib.Path(path).resolve().relative_to(TESTS)
    except ValueError:                      # outside tests/
        return False
    return bool(relative.parts) and relative.parts[0] in LEFT_OUT


def stage_of(item):
    """The stage of test ``item``: its first stage marker, else "library"."""
    return next((stage for stage in STAGES if item.get_closest_marker(stage)), "library")


def in_quick_run(item):
    """Whether a quick run runs the collected test ``item``: a library test not marked slow."""
    return stage_of(item) == "library" and item.get_closest_marker(SLOW) is None


def refuse_in_quick_run(stage, what):
    """Fail the calling test when ``make quick`` runs it: it does ``what`` (a lesson, the site,
    a browser) without the ``stage`` marker that leaves it out of quick runs."""
    if quick_run():
        pytest.fail(f"this test {what}, which `make quick` leaves out: mark it "
                    f"@pytest.mark.{stage} (tests/stages.py)", pytrace=False)
