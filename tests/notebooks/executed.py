"""Each lesson executed blank once per test run, shared by the lesson tests and the site.

tests/test_notebooks.py::test_notebook_runs needs every lesson executed blank (a student's first
run) with its checks' log; the site (tests/site/conftest.py) needs every lesson executed, to
build its pages from. Both ask here, and the first to ask executes the lesson; the other reads
what it kept in build/executed/:

    <stem>.ipynb          the executed lesson, with the digest of the lesson and the library it
                          was made from (website/build.py source_digest), as `make site --reuse`
                          reads it
    <stem>.checks.json    {"digest", "run", "records"}: the same digest, the test run that made
                          it and the records its exercise checks logged (DAGRAD_EXERCISES_LOG)
    <stem>.lock           held while the lesson executes, so two workers never execute it at once

A copy is never used when its digest is not the lesson's and the library's as they are now. The
notebook test uses only a copy made in this test run (a run tests every lesson again); the site
also takes a matching copy from an earlier run, as it did before.
"""
import json
import pathlib
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor

from tests import once
from tests.notebooks import harness
from website import build as site_build

FOLDER = site_build.EXECUTED


def checks_path(path, folder=FOLDER):
    return pathlib.Path(folder) / f"{pathlib.Path(path).stem}.checks.json"


def lock_path(path, folder=FOLDER):
    return pathlib.Path(folder) / f"{pathlib.Path(path).stem}.lock"


class ExecutedLessons:
    """The lessons executed blank in test run ``run`` (tests/once.py run_id), kept in
    ``folder``."""

    def __init__(self, run, folder=FOLDER):
        self.run, self.folder = run, pathlib.Path(folder)

    def blank_run(self, path):
        """(the executed notebook, its checks' records) of lesson ``path`` in this run: read if
        this run executed it already, else executed now (waiting if another worker is)."""
        with once.lock(lock_path(path, self.folder)):
            kept = self._this_runs(path)
            if kept is None:
                kept = self._execute(path)
            return kept

    def for_the_site(self, paths, jobs=2):
        """Make sure each of ``paths`` has a copy the site can use (website/build.py
        ``reusable``): the lessons without one are executed, ``jobs`` at a time, a lesson
        another worker is executing left for later; returns {stem: "kept" | "executed"}."""
        done = {p.stem: "kept" for p in paths if site_build.reusable(p, self.folder)}
        todo = [p for p in paths if p.stem not in done]
        if todo:
            site_build.say(f"lessons: {len(todo)} to execute (build/executed has the other "
                           f"{len(done)}), {jobs} at a time")
        with ThreadPoolExecutor(max_workers=max(1, jobs)) as pool:
            takers = [pool.submit(self._take_for_the_site, todo) for _ in range(len(todo))]
            for stem, how in (taker.result() for taker in takers):
                if stem is not None:
                    done[stem] = how
        return done

    def _take_for_the_site(self, todo):
        """Execute the next lesson of ``todo`` no one else is executing (a shared list: each
        thread of ``for_the_site`` takes from it); when the others all are, wait for one."""
        while todo:
            for path in list(todo):
                with once.lock(lock_path(path, self.folder), wait=False) as held:
                    if held and path in todo:
                        todo.remove(path)
                        if site_build.reusable(path, self.folder):
                            return path.stem, "kept"
                        start = time.monotonic()
                        self._execute(path)
                        site_build.say(f"  {path.stem:<26} {time.monotonic() - start:4.0f} s")
                        return path.stem, "executed"
            time.sleep(1)
        return None, None

    def _this_runs(self, path):
        """(notebook, records) kept by this run for the lesson as it is now, else None."""
        try:
            kept = json.loads(checks_path(path, self.folder).read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return None
        copy = site_build.reusable(path, self.folder)
        if copy is None or kept.get("run") != self.run or \
                kept.get("digest") != site_build.source_digest(path):
            return None
        return harness.read_notebook(copy), kept["records"]

    def _execute(self, path):
        """Execute lesson ``path`` blank (from the notebooks folder, its files written to a
        temporary folder: ``DAGRAD_OUTPUT``) and keep it with its records; the caller holds its
        lock. The notebook is written first: the records name this run only once both are
        there."""
        nb = harness.read_notebook(path)
        with tempfile.TemporaryDirectory(prefix=f"dagrad_{path.stem}_") as work:
            records = harness.execute(nb, pathlib.Path(work) / "checks.jsonl",
                                      env={"DAGRAD_OUTPUT": work})
        site_build.keep_executed(nb, path, self.folder)
        once.write_json({"digest": site_build.source_digest(path), "run": self.run,
                         "records": records}, checks_path(path, self.folder))
        return nb, records
