"""A book section runs unmodified (``import torch``, ``from d2l import torch as d2l``) through
``python -m dagrad.torch.run``, with the real torch made unimportable, on files in the book's
layout; its numbers are those of the same source run in this process on dagrad.
(tests/facade/test_d2l_book.py shows that such programs give PyTorch's numbers.)"""
import json
import math
import os
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from tests.facade.book_data import write_time_machine

SECTION = Path(__file__).parent / "book_sections" / "regression_and_rnn.py"
TO_DAGRAD = [(r"^import torch$", "from dagrad import torch"),
             (r"^from d2l import torch as d2l$", "from dagrad import d2l")]


def run_unmodified(section, tmp_path):
    """Run ``section`` with ``python -m dagrad.torch.run`` from ``tmp_path/work`` (the book's
    ../data is ``tmp_path/data``) with the real torch unimportable; its last line as JSON."""
    work, poison = tmp_path / "work", tmp_path / "poison" / "torch"
    work.mkdir(exist_ok=True)
    poison.mkdir(parents=True)
    (poison / "__init__.py").write_text("raise ImportError('the real torch was imported')\n")
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(poison.parent),
                                                       os.environ.get("PYTHONPATH", "")]),
               MPLBACKEND="Agg")
    done = subprocess.run([sys.executable, "-m", "dagrad.torch.run", str(section)], cwd=work,
                          env=env, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-3000:]
    return json.loads(done.stdout.strip().splitlines()[-1])


def test_a_book_section_runs_unmodified_through_the_runner(tmp_path, monkeypatch, capsys):
    pytest.importorskip("matplotlib")
    (tmp_path / "data").mkdir()
    write_time_machine(tmp_path / "data")
    printed = run_unmodified(SECTION, tmp_path)
    work = tmp_path / "work"

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


def test_the_books_gan_section_runs_unmodified_and_learns_the_gaussian(tmp_path):
    """§20.1: the generator's points take the data's mean b and covariance AᵀA (from a mean
    and a spread near 0), and both losses end at log 2, as in the book's figure."""
    pytest.importorskip("matplotlib")
    printed = run_unmodified(Path(__file__).parent / "book_sections" / "gan.py", tmp_path)
    assert printed["loss_G"][0] > 1 and len(printed["loss_D"]) == 20
    np.testing.assert_allclose([printed["loss_D"][-1], printed["loss_G"][-1]], [math.log(2)] * 2,
                               atol=0.01)
    assert np.linalg.norm(np.subtract(printed["mean"], [1, 2])) < 0.8
    np.testing.assert_allclose(printed["cov"], [[1.01, 1.95], [1.95, 4.25]], rtol=0.3)
