"""viz.steps and viz.player: one frame per operation forward then backward; offline HTML."""
import re
import shutil
import subprocess

import numpy as np
import pytest

from dagrad import autograd as ag
from dagrad import viz
from tests.viz.dot_source import edges, gradients, leaf


def two_layer():
    x = leaf([1.0, -2.0], "x")
    W1, b1 = leaf([[0.5, -1.0], [2.0, 0.3]], "W1"), leaf([0.1, 0.2], "b1")
    W2 = leaf([[1.0, -1.0]], "W2")
    with viz.record():
        h = ag.tanh(W1 @ x + b1)
        y = (W2 @ h).sum()
    return y, (x, W1, b1, W2)


def test_one_frame_per_operation_forward_then_backward():
    y, leaves = two_layer()
    frames = viz.steps(y)
    ops = [n.name for n in viz.trace(y).ops]
    assert ops == ["MatMul", "Add", "Tanh", "MatMul", "Sum"]
    assert [(f.phase, f.node.name) for f in frames] == (
        [("forward", op) for op in ops] + [("backward", op) for op in reversed(ops)])
    assert frames[0].title == "Forward 1/5: MatMul" and frames[5].title == "Backward 1/5: Sum"
    assert frames[2].formula.startswith("y = tanh") and frames[7].formula.startswith("dy/dx")
    assert all(leaf.grad is None for leaf in leaves)


def shown(label):
    """The label text that is visible (not drawn transparent)."""
    return re.sub(r'<FONT COLOR="transparent"[^>]*>[^<]*</FONT>', "", label)


def test_frames_reveal_values_forward_and_gradients_backward():
    y, _ = two_layer()
    frames = viz.steps(y)
    first = {(s, d): shown(a) for s, d, a in edges(frames[0].digraph.source)}
    assert "[2.5, 1.4]" in first[("MatMul", "Add")]              # just computed
    assert "2.6" not in first[("Add", "Tanh")]                  # not yet
    assert 'penwidth=2.5' in frames[0].digraph.source           # the highlighted node
    last_forward = {(s, d): shown(a) for s, d, a in edges(frames[4].digraph.source)}
    assert "δ" not in "".join(last_forward.values())
    back = {(s, d): shown(a) for s, d, a in edges(frames[7].digraph.source)}   # Tanh
    assert gradients(back[("Add", "Tanh")]) == ["[0.02182, -0.1505]"]   # (1 - tanh²) W2
    assert gradients(back[("MatMul", "Add")]) == []              # Add has not run yet
    # the layout is the same in every frame: the same text, only colours change
    assert len({layout_text(f.digraph.source) for f in frames}) == 1


def layout_text(source):
    """DOT source without what does not move anything: colours, pen widths, line styles."""
    source = re.sub(r'<FONT COLOR="[^"]*"( POINT-SIZE="\d+")?>', r"<FONT\1>", source)
    source = re.sub(r'<FONT>([^<]*)</FONT>', r"\1", source)
    source = re.sub(r'\b(color|fillcolor|penwidth|style)=("[^"]*"|\S+)', "", source)
    return re.sub(r"\s+", " ", source)


def test_player_is_self_contained_html(tmp_path):
    y, _ = two_layer()
    player = viz.player(viz.steps(y), interval=0.5)
    page = player.page()
    assert page.startswith("<!DOCTYPE html>") and page.count('class="vz-frame') == 10
    assert page.count("<svg") == 10
    assert not re.search(r"(src|href)\s*=\s*[\"']?(https?:)?//", page, re.I)
    assert "http" not in page and "@import" not in page and "url(" not in page
    assert 'type="range"' in page and "vz-prev" in page and "vz-next" in page
    assert player._repr_html_() == player.html and "<html" not in player.html
    path = viz.save(player, tmp_path / "steps.html")
    assert open(path, encoding="utf-8").read() == page
    ids = re.findall(r'\bid="([^"]+)"', page)
    assert len(ids) == len(set(ids))


@pytest.mark.skipif(shutil.which("node") is None, reason="node.js checks the player's script")
def test_player_script_runs(tmp_path):
    y, _ = two_layer()
    html = viz.player(viz.steps(y)).html
    script = re.search(r"<script>(.*)</script>", html, re.S).group(1)
    harness = FAKE_DOM + script + """
    var r = elements.root;
    r.next.onclick(); r.next.onclick(); r.prev.onclick();
    console.log(r.frames.map(function (f) { return f.style.display; }).join(","));
    console.log(r.count.textContent);
    r.slider.value = "9"; r.slider.oninput();
    console.log(r.count.textContent);
    """
    path = tmp_path / "run.js"
    path.write_text(harness)
    out = subprocess.run(["node", str(path)], capture_output=True, text=True, check=True)
    lines = out.stdout.split()
    assert lines[0] == ",".join(["none", "block"] + ["none"] * 8)
    assert lines[1:] == ["2", "/", "10", "10", "/", "10"]


FAKE_DOM = """
function el() { return {style: {}, textContent: "", value: "0"}; }
var elements = {root: {frames: [], next: el(), prev: el(), play: el(), slider: el(),
                       count: el()}};
for (var i = 0; i < 10; i++) {
  elements.root.frames.push(el());
  elements.root.frames[i].style.display = i ? "none" : "block";
}
elements.root.querySelectorAll = function () { return elements.root.frames; };
elements.root.querySelector = function (sel) {
  return {".vz-slider": elements.root.slider, ".vz-count": elements.root.count,
          ".vz-play": elements.root.play, ".vz-prev": elements.root.prev,
          ".vz-next": elements.root.next}[sel];
};
var document = {getElementById: function () { return elements.root; }};
"""


def test_empty_graph_has_no_frames():
    a = leaf(1.0, "a")
    assert viz.steps(a) == []
    with pytest.raises(ValueError, match="no frames"):
        viz.player([])


def test_steps_leave_grads_alone():
    y, leaves = two_layer()
    viz.player(viz.steps(y))
    y.backward()
    np.testing.assert_allclose(leaves[3].grad.numpy(), [[np.tanh(2.6), np.tanh(1.6)]], rtol=1e-5)
