"""A book section runs unmodified (``import torch``, ``from d2l import torch as d2l``) through
``python -m dagrad.torch.run``, with the real torch made unimportable, on files in the book's
layout; its numbers are those of the same source run in this process on dagrad.
(tests/facade/test_d2l_book.py shows that such programs give PyTorch's numbers.)"""
import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from tests.facade.book_data import write_time_machine

SECTION = Path(__file__).parent / "book_sections" / "regression_and_rnn.py"
TO_DAGRAD = [(r"^import torch$", "from dagrad import torch"),
             (r"^from d2l import torch as d2l$", "from dagrad import d2l")]


def test_a_book_section_runs_unmodified_through_the_runner(tmp_path, monkeypatch, capsys):
    pytest.importorskip("matplotlib")
    (tmp_path / "data").mkdir()
    write_time_machine(tmp_path / "data")
    work, poison = tmp_path / "work", tmp_path / "poison" / "torch"
    work.mkdir()
    poison.mkdir(parents=True)
    (poison / "__init__.py").write_text("raise ImportError('the real torch was imported')\n")
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(poison.parent),
                                                       os.environ.get("PYTHONPATH", "")]),
               MPLBACKEND="Agg")
    done = subprocess.run([sys.executable, "-m", "dagrad.torch.run", str(SECTION)], cwd=work,
                          env=env, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-3000:]
    printed = json.loads(done.stdout.strip().splitlines()[-1])

    import matplotlib
    matplotlib.use("Agg")
    source = SECTION.read_text()
    for pattern, replacement in TO_DAGRAD:
        source = re.sub(pattern, replacement, source, flags=re.M)
    monkeypatch.chdir(work)
    exec(compile(source, str(SECTION), "exec"), {"__name__": "__main__"})
    here = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    assert printed == here
    assert abs(printed["w"][0] - 2) < 0.1 and printed["prediction"].startswith("it has")
