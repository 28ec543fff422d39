"""The picture of check_grads: wrong tensors and the edges whose δ's add up to their gradient
are red and say so in words, with the student's value in the box; no δ and no right value
before the reveal, every δ and the right value beside the student's after it; checked in the
SVG and in headless Chromium (screenshots in test-artifacts/exercises/)."""
import contextlib
import html
import pathlib
import re

import pytest

from dagrad.exercises import check_grads
from dagrad.viz.player import page

from ..viz.browser import browser_page
from .test_grads import by_hand, small_net

SHOTS = pathlib.Path(__file__).resolve().parents[2] / "test-artifacts" / "exercises"
RED = "#d50000"


def groups(svg, kind):
    """[(title, text of the group)] of the SVG's nodes or edges."""
    starts = [m.start() for m in re.finditer(r'<g id="[^"]*" class="(?:node|edge|cluster)"',
                                            svg)] + [len(svg)]
    found = []
    for a, b in zip(starts, starts[1:]):
        body = svg[a:b]
        if f'class="{kind}"' in body[:200]:
            found.append((html.unescape(re.search(r"<title>(.*?)</title>", body).group(1)), body))
    return found


def wrong_W_and_h():
    x, W, h, loss = small_net()
    g = by_hand(x, W)
    return check_grads({**g, "W": 2 * g["W"], "h": -g["h"]}, loss, names=locals())


def node_texts(svg):
    nodes = dict(groups(svg, "node"))
    return nodes, {t: html.unescape(" ".join(re.findall(r">([^<]*)</text>", body)))
                   for t, body in nodes.items()}


def test_before_the_reveal_the_picture_shows_no_gradient_and_no_right_value():
    r = wrong_W_and_h()
    svg = r.svg
    nodes, texts = node_texts(svg)
    w_node = next(t for t, words in texts.items() if words.startswith("W "))
    assert "yours [[-0.4757, 0.7672], [0.9515, -1.534], [-1.903, 3.069]]" in texts[w_node]
    words = html.unescape(" ".join(re.findall(r">([^<]*)</text>", svg)))
    tips = html.unescape(" ".join(re.findall(r'xlink:title="([^"]*)"', svg)))
    assert "right [" not in words and not re.search(r"δ (seed )?-?\d", words)
    assert "-0.2379" not in words + tips and "right [[" not in tips
    assert "-0.237871" not in tips and "yours [[-0.475743" in tips


def test_wrong_tensors_and_their_edges_are_red_with_words():
    r = wrong_W_and_h().reveal()
    svg = r.svg
    nodes = dict(groups(svg, "node"))
    texts = {t: html.unescape(" ".join(re.findall(r">([^<]*)</text>", body)))
             for t, body in nodes.items()}
    w_node = next(t for t, words in texts.items() if words.startswith("W "))
    assert RED in nodes[w_node]
    assert "✗ ∂L/∂W wrong" in texts[w_node]
    assert "yours [[-0.4757, 0.7672], [0.9515, -1.534], [-1.903, 3.069]]" in texts[w_node]
    assert "right [[-0.2379, 0.3836], [0.4757, -0.7672], [-0.9515, 1.534]]" in texts[w_node]
    x_node = next(t for t, words in texts.items() if words.startswith("x "))
    assert "✓ ∂L/∂x right" in texts[x_node] and RED not in nodes[x_node]
    tanh = next(t for t, words in texts.items() if words.startswith("Tanh"))
    assert "✗ ∂L/∂h wrong" in texts[tanh] and RED in nodes[tanh]
    edges = groups(svg, "edge")
    red = sorted(title for title, body in edges if RED in body)
    assert red == sorted(title for title, _ in edges if title.startswith((w_node + "->",
                                                                          tanh + "->")))
    assert len([e for e in red if e.startswith(tanh)]) == 2         # h * h: two uses of h
    assert len([e for e in red if e.startswith(w_node)]) == 1
    assert all("a term of ∂L/∂" in body for _, body in edges if RED in body)
    tips = html.unescape(" ".join(re.findall(r'xlink:title="([^"]*)"', svg)))
    assert "right [[-0.237871" in tips and "yours [[-0.475743" in tips   # full arrays
    assert "Every edge carries its δ" in r._repr_html_()
    assert "Red: the tensors whose gradient is wrong" in wrong_W_and_h()._repr_html_()


def test_a_right_answer_has_its_picture_too():
    x, W, h, loss = small_net()
    r = check_grads(by_hand(x, W), loss, names=locals())
    assert r.svg.count("right</text>") >= 3 and RED not in r.svg


@contextlib.contextmanager
def opened(result, tmp_path, shot):
    """The result's HTML as a page in Chromium, with a screenshot ``shot`` taken."""
    path = tmp_path / "check.html"
    path.write_text(page(result._repr_html_(), "check_grads"), encoding="utf-8")
    with browser_page(1280, 800) as p:
        p.goto(path.as_uri())
        p.wait_for_selector("svg")
        SHOTS.mkdir(parents=True, exist_ok=True)
        p.screenshot(path=str(SHOTS / shot), full_page=True)
        yield p


@pytest.mark.browser
def test_the_picture_reads_right_in_chromium(tmp_path):
    with opened(wrong_W_and_h().reveal(), tmp_path, "check_grads_wrong.png") as p:
        seen = p.evaluate("""() => Array.from(document.querySelectorAll("svg text"))
            .filter(t => t.getBoundingClientRect().width > 0).map(t => t.textContent)""")
        words = p.locator(".dagrad-check").inner_text()
    assert "✗ ∂L/∂W wrong" in seen and "✗ ∂L/∂h wrong" in seen and "✓ ∂L/∂x right" in seen
    assert any(t.startswith("yours [[-0.4757") for t in seen)
    assert words.startswith("✗ wrong:") and "2 of 3 gradients are wrong" in words
    assert "should be [[-0.2379" in words


def test_a_large_graph_gets_a_sentence_instead_of_a_picture():
    from dagrad import autograd as ag
    x = ag.tensor([0.5, -0.25], requires_grad=True)
    h = x
    for _ in range(80):
        h = (h * 0.9).tanh()
    loss = h.sum()
    r = check_grads({"x": [0.0, 0.0]}, loss, names=locals())
    assert not r.ok
    assert "(No picture: the graph has" in r._repr_html_() and "<svg" not in r._repr_html_()


@pytest.mark.browser
def test_the_first_attempt_in_chromium_hides_the_right_value_behind_a_button(tmp_path):
    with opened(wrong_W_and_h(), tmp_path, "check_grads_first_attempt.png") as p:
        before = p.locator(".dagrad-check").inner_text()
        p.get_by_text("show the right value").click()
        p.screenshot(path=str(SHOTS / "check_grads_shown.png"), full_page=True)
        after = p.locator(".dagrad-check").inner_text()
    assert "-0.2379" not in before and "✗ ∂L/∂W wrong" in before
    assert "∂L/∂W should be [[-0.2379, 0.3836]" in after
