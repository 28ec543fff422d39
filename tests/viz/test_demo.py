"""python -m viz demo writes its three files."""
import os
import subprocess
import sys

import pytest

pytest.importorskip("matplotlib", reason="the demo's plot needs matplotlib")
pytest.importorskip("sklearn", reason="the demo's digits ship with scikit-learn")


def test_demo_writes_all_three_files(tmp_path):
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    out = tmp_path / "demo"
    result = subprocess.run([sys.executable, "-m", "viz", "demo", "--out", str(out),
                             "--epochs", "2"], cwd=root, capture_output=True, text=True,
                            timeout=600)
    assert result.returncode == 0, result.stderr
    for name, magic in (("mlp_graph.svg", b"<?xml"), ("two_layer_steps.html", b"<!DOCTYPE"),
                        ("gradient_flow.png", b"\x89PNG")):
        path = out / name
        assert path.exists(), name
        assert path.read_bytes().startswith(magic), name
        assert str(path) in result.stdout
    assert b"http" not in (out / "two_layer_steps.html").read_bytes()
