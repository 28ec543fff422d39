"""Pictures inside a longer page, as in Jupyter or on the site (headless Chromium, 1280 x 800):
the wheel scrolls the page unless the picture was clicked or Ctrl is held, a tall graph opens at
a readable scale and scrolls inside its box, a player takes the keyboard focus when it comes
into view, and the colour legend shows no gradient value before backward has produced one.
Screenshots are kept in test-artifacts/viz/."""
import pathlib

import pytest

from dagrad import autograd as ag
from dagrad import viz
from dagrad.viz.player import page as html_page

from .browser import browser_page
from .test_browser import HIGHLIGHTED, VISIBLE_TEXT, readme_example, shot

pytestmark = pytest.mark.browser

FILLER = "<p style='height: 1500px'>text of the lesson</p>"
SCALE = "() => document.querySelector('.vz-scale').textContent"


def open_in_page(page, tmp_path, fragment, before="", after=FILLER, name="in_page"):
    path = pathlib.Path(tmp_path) / f"{name}.html"
    path.write_text(html_page(before + fragment + after, name), encoding="utf-8")
    page.goto(path.as_uri())
    page.wait_for_selector("svg")
    return page


def readme_player():
    y, names = readme_example()
    return viz.player(viz.steps(y, names=names))


def wheel_over_picture(page, dy=400):
    box = page.locator(".vz-view").bounding_box()
    page.mouse.move(box["x"] + box["width"] / 2, box["y"] + min(100, box["height"] / 2))
    page.mouse.wheel(0, dy)
    page.wait_for_timeout(200)


def test_the_wheel_scrolls_the_page_until_the_picture_is_clicked(tmp_path):
    with browser_page() as page:
        open_in_page(page, tmp_path, readme_player().html)
        page.evaluate("document.activeElement && document.activeElement.blur()")
        scale = page.evaluate(SCALE)
        wheel_over_picture(page)
        page.wait_for_function("window.scrollY > 0")         # the wheel scrolled the page
        assert page.evaluate(SCALE) == scale, "the wheel zoomed a picture nobody clicked"
        page.evaluate("window.scrollTo(0, 0)")
        page.keyboard.down("Control")                       # Ctrl + wheel zooms
        wheel_over_picture(page, -200)
        page.keyboard.up("Control")
        assert page.evaluate(SCALE) != scale and page.evaluate("window.scrollY") == 0
        zoomed = page.evaluate(SCALE)
        page.locator(".vz-view").click()                    # clicked: the wheel zooms
        wheel_over_picture(page, -200)
        assert page.evaluate(SCALE) != zoomed and page.evaluate("window.scrollY") == 0
        page.locator("p").click()                           # clicking elsewhere gives it back
        wheel_over_picture(page)
        page.wait_for_function("window.scrollY > 0")


def tall_chain(n=30):
    x = ag.tensor([0.5, -0.25], requires_grad=True)
    with viz.record():
        y = x
        for _ in range(n):
            y = (y * 1.1).tanh()
        loss = y.sum()
    return viz.draw(loss, grads=True, names={"x": x, "loss": loss}, rankdir="TB")


def test_a_tall_graph_opens_readable_and_scrolls_inside_its_box(tmp_path):
    with browser_page() as page:
        open_in_page(page, tmp_path, tall_chain()._repr_html_())
        shot(page, "tall_graph")
        sizes = [px for _, px in page.evaluate(VISIBLE_TEXT)]
        assert min(sizes) >= 10, f"smallest label {min(sizes):.1f} px: the picture shrank"
        view = page.evaluate("""() => { const v = document.querySelector('.vz-view');
            return [v.scrollHeight, v.clientHeight]; }""")
        assert view[0] > 2 * view[1], f"the picture does not scroll inside its box: {view}"
        assert view[1] <= 0.8 * 800 + 2
        page.evaluate("document.activeElement && document.activeElement.blur()")
        wheel_over_picture(page)                            # not clicked: the page scrolls
        page.wait_for_function("window.scrollY > 0")
        assert page.locator(".vz-view").evaluate("v => v.scrollTop") == 0
        page.locator(".vz-view").evaluate("v => v.scrollTop = v.scrollHeight")
        assert page.locator(".vz-view").evaluate("v => v.scrollTop") > 0
        assert page.evaluate("document.documentElement.scrollWidth") <= 1280


def test_the_player_takes_the_keyboard_focus_when_it_comes_into_view(tmp_path):
    with browser_page() as page:
        open_in_page(page, tmp_path, readme_player().html, before=FILLER, after=FILLER)
        page.wait_for_timeout(200)
        assert "vz-player" not in (page.evaluate("document.activeElement.className") or "")
        page.locator(".vz-controls").scroll_into_view_if_needed()
        page.wait_for_function("document.activeElement.classList.contains('vz-player')")
        page.keyboard.press("ArrowRight")                  # no click needed
        assert page.evaluate(HIGHLIGHTED) == ["n3"]


def test_the_legend_shows_no_gradient_before_backward(tmp_path):
    y, names = readme_example()
    frames = viz.steps(y, names=names)
    forward = sum(1 for f in frames if f.phase == "forward")
    with browser_page() as page:
        open_in_page(page, tmp_path, viz.player(frames).html, after="")
        seen = [t for t, _ in page.evaluate(VISIBLE_TEXT)]
        assert "2.169" not in seen                          # w.grad, the legend's top value
        page.locator(".vz-slider").fill(str(forward - 1))   # the last forward frame
        assert "2.169" not in [t for t, _ in page.evaluate(VISIBLE_TEXT)]
        page.locator(".vz-slider").fill(str(forward))       # backward 1: the legend appears
        assert "2.169" in [t for t, _ in page.evaluate(VISIBLE_TEXT)]
        shot(page, "legend_backward_1")


def test_backward_frames_show_the_product_with_numbers(tmp_path):
    """δ_in = δ_out × local derivative, written with the numbers of the frame: Mul's frame
    multiplies Tanh's δ by x and by w; a quiz player keeps them for the student to find."""
    y, names = readme_example()
    frames = viz.steps(y, names=names)
    numbers = "() => document.querySelector('.vz-numbers').textContent"
    with browser_page() as page:
        open_in_page(page, tmp_path, viz.player(frames).html, after="")
        assert page.evaluate(numbers) == ""                 # forward: nothing computed backward
        page.locator(".vz-slider").fill(str(len(frames) - 1))    # Backward 3/3: Mul
        text = page.evaluate(numbers)
        shot(page, "backward_numbers")
        assert "to w: δ_w = δ_out · x = [0.7864, 0.42, 0.1807] · [1, 2, 3]" in text
        assert "→  δ = 2.169" in text and "to x: δ_x = δ_out · w = " in text
        open_in_page(page, tmp_path, viz.player(frames, quiz=True).html, after="", name="quiz")
        page.locator(".vz-slider").fill(str(len(frames) - 1))
        assert page.evaluate(numbers) == ""
