"""The test suite's stages, and a line for each slow test as it finishes.

Three markers name the tests that are not the library's own: ``lesson`` (runs a lesson in a
kernel), ``site`` (needs the built site) and ``browser`` (opens Chromium). ``make quick``
(``DAGRAD_QUICK_TESTS=1``) leaves them out, with the tests marked ``slow`` and the folders
tests/stages.py names, which also says why; ``make test`` runs everything and,
because those tests take most of its time with few dots to show for it, prints a line for each
of them as it finishes (its stage, its name, its outcome and its time) and, at the end, one line
per stage with its test count and the time its tests took. Under ``make quick`` the entry points
of those stages (tests/viz/browser.py, the notebook harness) refuse to run in a test that is not
marked (tests/stages.py): the marker is what keeps a quick run quick.

The lesson and site stages share their work across the two workers of `make test`, so nothing
is done twice in a run (tests/once.py): each lesson is executed blank once, by
test_notebook_runs or by the site's build, whichever asks first (tests/notebooks/executed.py);
the site is built once; and each of its pages is visited once at 1280 x 800 and once on a
phone, the site tests asserting on what those visits found (tests/site/page_facts.py). Each
run still executes every lesson and visits every page: a copy from an earlier run is never
taken for this run's blank run. A lesson's one other run judges both its wrong answers and its
solutions: each exercise answered wrong, then right (tests/test_exercises_notebooks.py).

`make test` runs with ``--dist worksteal``: each worker starts on its half of the tests in file
order (the library's first half on one, the rest, lessons and browser included, on the
other), and a worker that runs out takes half of the other's remaining tests. With xdist's
default, both workers reached the lessons together at the end and the run ended on one worker
running the last seven alone for 1 min 30 s. Handing the lessons out first put two lesson
kernels side by side, or one beside Chromium, for most of the run; in its one run each lesson
test took 5-8 s longer (13 min 06 s in all). One run of each order proves little on this
machine: two runs of the same code (but for comments) took 13 min 08 s and 10 min 24 s.
"""
import time

import pytest

from tests import once
from tests.stages import (SLOW, SLOW_MEANS, STAGES, in_quick_run, left_out_of_quick_run, quick_run,
                          stage_of)


class Progress:
    """Collects each test's phases (setup, call, teardown) and reports the stage tests."""

    def __init__(self, terminal):
        self.terminal = terminal
        self.pending = {}                   # nodeid -> (seconds so far, outcome so far)
        self.totals = {}                    # stage -> (tests, seconds)
        self.start = time.monotonic()

    @pytest.hookimpl
    def pytest_runtest_logreport(self, report):
        seconds, outcome = self.pending.get(report.nodeid, (0.0, "passed"))
        if report.failed:
            outcome = "failed"
        elif report.skipped and outcome != "failed":
            outcome = "skipped"
        self.pending[report.nodeid] = (seconds + report.duration, outcome)
        if report.when != "teardown":
            return
        seconds, outcome = self.pending.pop(report.nodeid)
        stage = dict(report.user_properties).get("stage", "library")
        tests, total = self.totals.get(stage, (0, 0.0))
        self.totals[stage] = (tests + 1, total + seconds)
        if stage != "library":
            if getattr(self.terminal, "_width_of_current_line", 0):    # after pytest's dots
                self.terminal.write("\n")
            self.terminal.write_line(f"{stage:>8}  {report.nodeid.split('/')[-1]}  {outcome} "
                                     f"in {clock(seconds)}   "
                                     f"[{clock(time.monotonic() - self.start)} since the start]")

    @pytest.hookimpl
    def pytest_terminal_summary(self, terminalreporter):
        if not self.totals:
            return
        terminalreporter.section("time by stage (the test time, summed over the workers)")
        for stage in ("library",) + STAGES:
            if stage in self.totals:
                tests, seconds = self.totals[stage]
                terminalreporter.write_line(f"{stage:>8}  {tests:5} tests  {clock(seconds)}")


def clock(seconds):
    """``4 min 05 s`` or ``41 s``."""
    minutes, seconds = divmod(round(seconds), 60)
    return f"{minutes} min {seconds:02} s" if minutes else f"{seconds} s"


@pytest.fixture(scope="session")
def executed_lessons(request):
    """Each lesson executed blank once in this test run, by whichever worker needs it first:
    the notebook tests and the site's build share it (tests/notebooks/executed.py)."""
    from tests.notebooks.executed import ExecutedLessons
    return ExecutedLessons(once.run_id(request.config))


def pytest_ignore_collect(collection_path, config):
    """A quick run does not collect the folders and files it leaves out (tests/stages.py)."""
    if quick_run() and left_out_of_quick_run(collection_path):
        return True
    return None


def pytest_collection_modifyitems(config, items):
    """Each test carries its stage in its reports (an xdist worker's too); a quick run keeps
    the library's tests not marked slow (tests/stages.py)."""
    if quick_run():
        deselected = [item for item in items if not in_quick_run(item)]
        if deselected:
            config.hook.pytest_deselected(items=deselected)
            items[:] = [item for item in items if in_quick_run(item)]
    for item in items:
        item.user_properties.append(("stage", stage_of(item)))


@pytest.hookimpl(trylast=True)             # after the terminal reporter is set up
def pytest_configure(config):
    for stage, what in (("lesson", "runs a lesson in a kernel"),
                        ("site", "needs the built site (make site)"),
                        ("browser", "opens a page in headless Chromium")):
        config.addinivalue_line("markers", f"{stage}: {what}; left out by `make quick`")
    config.addinivalue_line("markers", f"{SLOW}: {SLOW_MEANS}; left out by `make quick`")
    terminal = config.pluginmanager.getplugin("terminalreporter")
    if terminal is not None and not hasattr(config, "workerinput"):     # not an xdist worker
        config.pluginmanager.register(Progress(terminal), "dagrad-progress")
