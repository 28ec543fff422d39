"""Tooltips follow the frame: hovering a box or an edge of a step-through never tells what the
frame does not know yet: no value before its forward frame, no δ before the backward frame that
sends it (in a quiz, not before the δ is answered or shown). Read in headless Chromium, frame by
frame, as the browser shows them (the ``xlink:title`` of the hovered element)."""
import re

import pytest

from dagrad import viz

from .browser import browser_page
from .test_browser import open_page, readme_example, shot

pytestmark = pytest.mark.browser

# JavaScript: {SVG id of a box or an edge (without the view's prefix): its tooltip text}
TOOLTIPS = """() => Object.fromEntries(Array.from(
    document.querySelectorAll("g.node, g.edge")).map(g => {
      const a = g.querySelector("a");
      return [g.id.replace(/^vz-view-\\d+-/, ""),
              a ? a.getAttributeNS("http://www.w3.org/1999/xlink", "title") : null];
    }))"""
HOVERED = """() => {
    const a = document.querySelector("a:hover");
    return a ? a.getAttributeNS("http://www.w3.org/1999/xlink", "title") : null; }"""
FORWARD_FRAMES, FRAMES = 3, 6              # the README example: Mul, Tanh, Sum, then back


def player_frames(quiz=False):
    y, names = readme_example()
    frames = viz.steps(y, names=names)
    return frames, viz.player(frames, quiz=quiz)


def known(tips, word):
    return sorted(k for k, t in tips.items() if t and re.search(word, t))


def test_no_tooltip_holds_a_value_or_a_gradient_before_its_frame(tmp_path):
    frames, player = player_frames()
    graph, timeline = frames[0].picture.graph, frames[0].picture.timeline
    with browser_page() as page:
        open_page(page, tmp_path, player, "tooltips")
        for frame in range(FRAMES):
            page.locator(".vz-slider").fill(str(frame))
            tips = page.evaluate(TOOLTIPS)
            gradients = known(tips, r"\n(Σ?δ|δ seed)")
            if frame < FORWARD_FRAMES:
                assert gradients == [], (frame, gradients)
            for i, e in enumerate(graph.edges):     # each edge's δ from the frame sending it
                has = "δ" in tips[f"vz_e{i}"].split("\n", 1)[-1]
                assert has == (timeline.sent_at[i] <= frame), (frame, i, tips[f"vz_e{i}"])
            out_edges = [i for i, e in enumerate(graph.edges) if graph[e.src].kind == "op"]
            for i in out_edges:                     # an op's output value from its frame on
                src = graph.edges[i].src
                assert ("value" in tips[f"vz_e{i}"]) == (timeline.value_at[src] <= frame)
            # a frame's static picture (frame.svg()) carries the same tooltips
            static = frames[frame].svg()
            for i, _ in enumerate(graph.edges):
                title = re.search(rf'id="vz_e{i}".*?xlink:title="([^"]*)"', static, re.S)
                assert title.group(1).replace("&#10;", "\n") == tips[f"vz_e{i}"]
        assert tips["vz_n1"].endswith("δ [0.3932, 0.21, 0.09035]")     # x: its total, at last


def test_hovering_shows_the_frames_tooltip(tmp_path):
    _, player = player_frames()
    with browser_page() as page:
        open_page(page, tmp_path, player, "tooltips_hover")
        page.locator("[id$='-vz_n1'] path").first.hover()                    # x, frame 1
        first = page.evaluate(HOVERED)
        assert first.startswith("input (needs δ) x (3,)") and "value [1, 2, 3]" in first
        assert "δ" not in first.split("\n", 1)[1]
        page.locator(".vz-slider").fill(str(FRAMES - 1))
        page.locator("[id$='-vz_n1'] path").first.hover()
        shot(page, "tooltips_last_frame")
        assert page.evaluate(HOVERED).endswith("δ [0.3932, 0.21, 0.09035]")


def test_a_quiz_keeps_the_delta_out_of_tooltips_until_answered(tmp_path):
    frames, player = player_frames(quiz=True)
    with browser_page() as page:
        open_page(page, tmp_path, player, "quiz_tooltips")
        page.locator(".vz-slider").fill(str(FORWARD_FRAMES + 1))       # Backward 2/3: Tanh
        edge = page.evaluate(TOOLTIPS)["vz_e2"]                          # Mul → Tanh
        assert edge.startswith("Mul → Tanh") and "δ" not in edge.split("\n", 1)[1], edge
        page.locator(".vz-q.vz-current .vz-q-show").click()
        assert page.evaluate(TOOLTIPS)["vz_e2"].endswith("δ [0.7864, 0.42, 0.1807]")
        page.locator(".vz-slider").fill(str(FORWARD_FRAMES + 2))       # Backward 3/3: Mul
        tips = page.evaluate(TOOLTIPS)
        assert "δ" not in tips["vz_n1"].split("\n", 1)[1]              # x's δ: not answered
        assert "δ" not in tips["vz_e1"].split("\n", 1)[1]
        question = page.locator(".vz-q.vz-current").nth(1)               # x → Mul
        question.locator("input").fill("0.3932, 0.21, 0.09035")
        question.locator("input").press("Enter")
        tips = page.evaluate(TOOLTIPS)
        assert tips["vz_e1"].endswith("δ [0.3932, 0.21, 0.09035]")
        assert tips["vz_n1"].endswith("δ [0.3932, 0.21, 0.09035]")
