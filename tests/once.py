"""Work done once per test run, by whichever of the run's processes (pytest-xdist's workers)
needs it first, and shared with the others: an exclusive lock on a file (``lock``), and a result
kept in a folder every worker of the run sees (``once``). The lessons' executions
(tests/notebooks/executed.py), the built site and the facts read from its pages
(tests/site/conftest.py) are made this way, so two workers never make the same thing twice."""
import contextlib
import fcntl
import json
import os
import pathlib
import tempfile
import uuid


def run_id(config):
    """The id of this test run: the one pytest-xdist gives all its workers, or a new one for a
    run without workers (call it once per run: a session fixture)."""
    return getattr(config, "workerinput", {}).get("testrunuid") or uuid.uuid4().hex


def run_folder(tmp_path_factory, config):
    """A folder of this run's that every worker sees: the parent of the workers' own temporary
    folders under xdist (pytest makes it per run), else the run's own."""
    base = tmp_path_factory.getbasetemp()
    folder = (base.parent if hasattr(config, "workerinput") else base) / "once"
    folder.mkdir(exist_ok=True)
    return folder


@contextlib.contextmanager
def lock(path, wait=True):
    """Hold the exclusive lock of file ``path`` (made if missing) while the block runs; yields
    True. With ``wait=False`` it yields False at once when another process holds it. The
    operating system releases the lock if the holder dies."""
    path = pathlib.Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "a") as f:
        try:
            fcntl.flock(f, fcntl.LOCK_EX | (0 if wait else fcntl.LOCK_NB))
        except BlockingIOError:
            yield False
            return
        try:
            yield True
        finally:
            fcntl.flock(f, fcntl.LOCK_UN)


def write_json(data, path):
    """Write ``data`` as JSON to ``path`` through a temporary file and a rename, so a reader
    never sees half a file."""
    path = pathlib.Path(path)
    fd, tmp = tempfile.mkstemp(dir=path.parent, suffix=".part")
    with os.fdopen(fd, "w", encoding="utf-8") as f:
        json.dump(data, f)
    os.replace(tmp, path)


def once(folder, name, make):
    """The JSON result of ``make()`` kept as ``folder/name.json``: made by the first process of
    the run to ask, under ``folder/name.lock``; the others wait for it and read it. A ``make``
    that raises leaves nothing behind, so the next to ask tries again (and fails with its own
    error)."""
    folder = pathlib.Path(folder)
    result = folder / f"{name}.json"
    with lock(folder / f"{name}.lock"):
        if not result.exists():
            write_json(make(), result)
        return json.loads(result.read_text(encoding="utf-8"))
