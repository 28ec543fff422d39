"""What a person sees: the player and the drawings opened in a real headless Chromium at a
1280 x 800 window (tests/viz/browser.py). Screenshots are kept in test-artifacts/viz/."""
import pathlib

import pytest

from dagrad import autograd as ag
from dagrad import viz
from dagrad.viz.demo import mlp_graph

from .browser import browser_page

pytestmark = pytest.mark.browser

ROOT = pathlib.Path(__file__).resolve().parents[2]
SHOTS = ROOT / "test-artifacts" / "viz"
LOSS = "2.129"                                  # the README example's y

# JavaScript: the visible <text> elements of the page: their text and size in CSS px.
VISIBLE_TEXT = """() => Array.from(document.querySelectorAll("svg text")).filter(t => {
    const r = t.getBoundingClientRect();
    return getComputedStyle(t).visibility !== "hidden" && r.width > 0 && r.height > 0;
  }).map(t => [t.textContent,
               parseFloat(t.getAttribute("font-size")) * t.getScreenCTM().a])"""
HIGHLIGHTED = """() => Array.from(document.querySelectorAll("g.vz-hl > title"))
                   .map(t => t.textContent)"""


def readme_example():
    x = ag.tensor([1.0, 2.0, 3.0], requires_grad=True)
    w = ag.tensor(0.5, requires_grad=True)
    with viz.record():
        y = (w * x).tanh().sum()
    return y, dict(x=x, w=w, y=y)


def demo_mlp():
    from dagrad import nn
    from dagrad.nn.models import MLP
    ag.manual_seed(0)
    X, labels = nn.datasets.load_digits()
    return mlp_graph(MLP([64, 64, 64, 64, 10]), X, labels)


def open_page(page, tmp_path, obj, name):
    path = viz.save(obj, tmp_path / f"{name}.html")
    page.goto(pathlib.Path(path).as_uri())
    page.wait_for_selector("svg")
    return page


def shot(page, name):
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SHOTS / f"{name}.png"))


def test_forward_frame_one_shows_no_loss_and_no_gradient(tmp_path):
    y, names = readme_example()
    with browser_page() as page:
        open_page(page, tmp_path, viz.player(viz.steps(y, names=names)), "player")
        shot(page, "player_forward_1")
        seen = [text for text, _ in page.evaluate(VISIBLE_TEXT)]
        assert "[0.5, 1, 1.5]" in seen                     # w * x, computed in frame 1
        assert LOSS not in seen
        assert not [t for t in seen if t.startswith(("δ", "Σδ"))]
        assert page.evaluate(HIGHLIGHTED) == ["n2"]        # Mul


def test_next_and_arrow_keys_step_and_reveal_gradients(tmp_path):
    y, names = readme_example()
    with browser_page() as page:
        open_page(page, tmp_path, viz.player(viz.steps(y, names=names)), "player")
        page.click(".vz-next")
        assert page.evaluate(HIGHLIGHTED) == ["n3"]        # Tanh
        page.focus(".vz-player")
        page.keyboard.press("ArrowRight")                  # Sum: the loss is known
        assert page.evaluate(HIGHLIGHTED) == ["n4"]
        assert LOSS in [t for t, _ in page.evaluate(VISIBLE_TEXT)]
        page.keyboard.press("ArrowRight")
        page.keyboard.press("ArrowRight")                  # Backward 2/3: Tanh
        shot(page, "player_backward_2")
        seen = [t for t, _ in page.evaluate(VISIBLE_TEXT)]
        assert page.locator(".vz-title").inner_text() == "Backward 2/3: Tanh"
        assert "δ [0.7864, 0.42, 0.1807]" in seen          # Tanh sent its δ to Mul
        assert "δ 2.169" not in seen                       # Mul has not run backward yet
        page.keyboard.press("ArrowRight")
        assert "δ 2.169" in [t for t, _ in page.evaluate(VISIBLE_TEXT)]
        page.keyboard.press("ArrowLeft")
        assert "δ 2.169" not in [t for t, _ in page.evaluate(VISIBLE_TEXT)]


@pytest.mark.parametrize("what", ["readme_player", "readme_drawing", "demo_mlp"])
def test_labels_are_at_least_10_px_and_nothing_scrolls_sideways(tmp_path, what):
    if what == "demo_mlp":
        obj = demo_mlp()
    else:
        y, names = readme_example()
        obj = viz.player(viz.steps(y, names=names)) if what == "readme_player" else \
            viz.draw(y, grads=True, names=names)
    with browser_page() as page:
        open_page(page, tmp_path, obj, what)
        shot(page, what)
        sizes = [px for _, px in page.evaluate(VISIBLE_TEXT)]
        assert sizes and min(sizes) >= 10, f"smallest label {min(sizes):.1f} CSS px"
        assert page.evaluate("document.documentElement.scrollWidth") <= 1280
        if what.startswith("readme"):                      # the whole picture fits the width
            svg = page.evaluate("document.querySelector('.vz-view svg')"
                                ".getBoundingClientRect().width")
            view = page.evaluate("document.querySelector('.vz-view').clientWidth")
            assert svg <= view + 1
