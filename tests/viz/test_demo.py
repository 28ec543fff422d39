"""python -m dagrad.viz demo writes its three files."""
import os
import re
import subprocess
import sys

import pytest

pytest.importorskip("matplotlib", reason="the demo's plot needs matplotlib")
pytest.importorskip("sklearn", reason="the demo's digits ship with scikit-learn")


def test_demo_writes_all_three_files(tmp_path):
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    out = tmp_path / "demo"
    result = subprocess.run([sys.executable, "-m", "dagrad.viz", "demo", "--out", str(out),
                             "--epochs", "2"], cwd=root, capture_output=True, text=True,
                            timeout=600)
    assert result.returncode == 0, result.stderr
    for name, magic in (("mlp_graph.svg", b"<?xml"), ("two_layer_steps.html", b"<!DOCTYPE"),
                        ("gradient_flow.png", b"\x89PNG")):
        path = out / name
        assert path.exists(), name
        assert path.read_bytes().startswith(magic), name
        assert str(path) in result.stdout
    page = (out / "two_layer_steps.html").read_text(encoding="utf-8")
    # self-contained: nothing is loaded from elsewhere (an XML namespace name such as
    # "http://www.w3.org/1999/xlink" is a name, not a download)
    assert not re.search(r"""(?:src|href)\s*=\s*["']?(?:https?:)?//|url\(\s*["']?(?:https?:)?//"""
                         r"|\bfetch\(|XMLHttpRequest|@import", page)
    # one frame per operation forward and one backward, all states of one inline SVG
    forward, backward = page.count('["forward", '), page.count('["backward", ')
    assert forward >= 2 and forward == backward and page.count("<svg") == 1
    assert "Forward 1/" in page and "Backward 1/" in page
    # the graph carries the gradient on its edges, the colour legend, and the layers as clusters
    svg = (out / "mlp_graph.svg").read_text(encoding="utf-8")
    assert svg.count("δ") >= 10 and "log scale" in svg and 'class="cluster"' in svg
    # opened in a browser window narrower than the picture, it shrinks to the window's width
    assert re.search(r'<svg width="100%" style="max-width: \d+px; height: auto"', svg)
    # no label line is a row of more than 8 numbers (the last layer's (10,) bias is its rms)
    rows = [t for t in re.findall(r"<text[^>]*>([^<]*)</text>", svg) if t.count(",") >= 8]
    assert rows == [], rows[:3]
