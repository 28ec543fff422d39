"""viz.steps and viz.player: one frame per operation forward then backward; offline HTML."""
import html
import re

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
    assert frames[2].formula.startswith("y = tanh")
    assert frames[7].formula == "δ_u = δ_out · (1 − out²)  (u: the output of Add)"   # its rule
    assert all(leaf.grad is None for leaf in leaves)


def texts(svg):
    """The text of every <text> element of an SVG."""
    return [html.unescape(t) for t in re.findall(r"<text\b[^>]*>(.*?)</text>", svg, re.S)]


def test_frames_reveal_values_forward_and_gradients_backward():
    y, _ = two_layer()
    frames = viz.steps(y)
    first = texts(frames[0].svg())
    assert "[2.5, 1.4]" in first                                 # W1 @ x, just computed
    assert "[2.6, 1.6]" not in first                             # W1 @ x + b1: not yet
    assert not [t for t in first if t.startswith(("δ", "Σδ"))]    # no gradient
    assert not [t for t in texts(frames[4].svg()) if t.startswith(("δ", "Σδ"))]
    assert "0.06736" not in texts(frames[3].svg())                # the loss, before Sum ran
    assert "0.06736" in texts(frames[4].svg())
    tanh_back = " ".join(texts(frames[7].svg()))                  # Backward 3/5: Tanh
    assert "δ [0.02182, -0.1505]" in tanh_back                    # (1 - tanh²) W2, sent by Tanh
    assert "δ [0.02182, -0.1505]" not in " ".join(texts(frames[6].svg()))
    assert 'class="vz-hl node"' in frames[0].svg()                # the operation being evaluated
    assert 'class="vz-pending edge"' in frames[0].svg()           # no gradient has arrived yet


def test_one_layout_for_every_frame():
    """Every frame is a state of one picture: the same positions, only some text removed."""
    y, _ = two_layer()
    frames = viz.steps(y)
    assert len({id(f.picture) for f in frames}) == 1
    positions = [set(re.findall(r'<text\b[^>]*\bx="([^"]*)" y="([^"]*)"', f.svg()))
                 for f in frames]
    everything = set.union(*positions)
    assert all(p <= everything for p in positions)
    assert positions[-1] == everything                            # the last frame knows all


def test_steps_checks_max_nodes_before_any_picture():
    x = leaf([1.0], "x")
    y = x
    for _ in range(400):
        y = y * 1.0
    with pytest.raises(ValueError, match="max_nodes=150"):
        viz.steps(y.sum())


def test_player_is_self_contained_html(tmp_path):
    y, _ = two_layer()
    player = viz.player(viz.steps(y), interval=0.5)
    page = player.page()
    assert page.startswith("<!DOCTYPE html>") and page.count("<svg") == 1
    assert page.count('["forward", ') == 5 and page.count('["backward", ') == 5
    assert not re.search(r"(src|href)\s*=\s*[\"']?(https?:)?//", page, re.I)
    assert "http" not in page.split("<svg", 1)[1].split("</svg>")[0].replace(
        "http://www.w3.org", "")
    assert "@import" not in page and "url(" not in page
    assert 'type="range"' in page and "vz-prev" in page and "vz-next" in page
    assert player._repr_html_() == player.html and "<html" not in player.html
    path = viz.save(player, tmp_path / "steps.html")
    assert open(path, encoding="utf-8").read() == page
    ids = re.findall(r'\bid="([^"]+)"', page)
    assert len(ids) == len(set(ids))
    assert "<text fill=\"transparent\"" not in page and "#fffffe" not in page   # nothing hidden by colour


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
