"""tests/notebooks/executed.py and tests/once.py, with the kernel replaced by a counter: a lesson
is executed once per test run whoever asks first, never twice at once, never taken from a copy
made from another source, and the site takes a matching copy from an earlier run."""
import json
import threading

import nbformat
import pytest

from tests import once
from tests.notebooks import executed, harness
from website import build as site_build


@pytest.fixture
def lessons(tmp_path, monkeypatch):
    """Two small lessons, and the list their executions are appended to (no kernel starts)."""
    runs = []

    def execute(nb, log_path, env=None):
        runs.append(nb.cells[0].source)
        threading.Event().wait(0.2)        # long enough for a second asker to arrive
        nb.cells[0].outputs = [nbformat.v4.new_output("stream", text="ran\n")]
        return [{"exercise": nb.cells[0].source, "ok": False, "diagnosis": "not_answered"}]
    monkeypatch.setattr(harness, "execute", execute)
    paths = []
    for stem in ("01_one", "02_two"):
        path = tmp_path / f"{stem}.ipynb"
        nbformat.write(nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(stem)]), path)
        paths.append(path)
    return paths, runs, tmp_path / "executed"


def test_two_askers_in_one_run_execute_a_lesson_once(lessons):
    (one, _), runs, folder = lessons
    askers = [executed.ExecutedLessons("run-a", folder) for _ in range(2)]
    got = []
    threads = [threading.Thread(target=lambda a=a: got.append(a.blank_run(one))) for a in askers]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert runs == ["01_one"]
    assert [records for _, records in got] == [[{"exercise": "01_one", "ok": False,
                                                 "diagnosis": "not_answered"}]] * 2
    assert all(nb.cells[0].outputs[0]["text"] == "ran\n" for nb, _ in got)


def test_the_site_and_the_notebook_test_share_the_run(lessons):
    (one, two), runs, folder = lessons
    this_run = executed.ExecutedLessons("run-a", folder)
    assert this_run.for_the_site([one, two]) == {"01_one": "executed", "02_two": "executed"}
    this_run.blank_run(one)
    assert sorted(runs) == ["01_one", "02_two"]
    next_run = executed.ExecutedLessons("run-b", folder)
    assert next_run.for_the_site([one, two]) == {"01_one": "kept", "02_two": "kept"}
    next_run.blank_run(two)                  # a new run executes its blank run again
    assert sorted(runs) == ["01_one", "02_two", "02_two"]
    kept = json.loads(executed.checks_path(two, folder).read_text(encoding="utf-8"))
    assert kept["run"] == "run-b" and kept["digest"] == site_build.source_digest(two)


def test_a_copy_of_another_source_is_never_taken(lessons):
    (one, _), runs, folder = lessons
    this_run = executed.ExecutedLessons("run-a", folder)
    this_run.blank_run(one)
    nb = nbformat.read(one, as_version=4)
    nb.cells[0].source = "01_one, changed"
    nbformat.write(nb, one)
    assert this_run.for_the_site([one]) == {"01_one": "executed"}
    this_run.blank_run(one)
    assert runs == ["01_one", "01_one, changed"]


def test_a_lock_held_elsewhere_is_reported_or_waited_for(tmp_path):
    path = tmp_path / "a.lock"
    with once.lock(path) as held:
        assert held
        with once.lock(path, wait=False) as second:
            assert second is False
    with once.lock(path, wait=False) as again:
        assert again


def test_once_makes_a_result_once_and_retries_after_an_error(tmp_path):
    made = []

    def make():
        made.append(1)
        if len(made) == 1:
            raise RuntimeError("the first try fails")
        return {"n": len(made)}
    with pytest.raises(RuntimeError):
        once.once(tmp_path, "thing", make)
    assert once.once(tmp_path, "thing", make) == {"n": 2}
    assert once.once(tmp_path, "thing", make) == {"n": 2} and len(made) == 2
