"""Hostile names in a real browser: every surface viz writes (the drawing as Jupyter shows it
and as ``viz.save`` writes ``.html`` and ``.svg``, a step-through frame, the player, the quiz,
a foreign graph, ``check_grads``' picture) made from a graph carrying every payload of
tests/viz/hostile.py (``<script>``, ``javascript:`` links in HTML-like labels, DOT attribute
injection, event handlers, escape sequences) on module names, Function names, docstrings,
tensor names, ``names=`` keys, foreign values and titles, opened in headless Chromium. Every
link and every control is clicked (and the quiz's boxes get the payloads typed in); no dialog
may open, no payload may run (each sets ``top.__pwned`` or calls ``alert``), and no element may
carry a ``javascript:`` link or an event-handler attribute. Screenshots in test-artifacts/viz/."""
import contextlib
import pathlib

import pytest

from dagrad import viz
from dagrad.exercises import check_grads
from dagrad.viz.svgview import page as html_page

from . import hostile
from .browser import browser_page

ROOT = pathlib.Path(__file__).resolve().parents[2]
SHOTS = ROOT / "test-artifacts" / "viz"

# JavaScript: attributes that would run code, anywhere in the document.
CODE_ATTRIBUTES = """() => Array.from(document.querySelectorAll("*")).flatMap(e =>
    Array.from(e.attributes).filter(a => /^on/i.test(a.name) ||
        (/href$|^src$|^action$/i.test(a.name) && /^\\s*(javascript|data:text)/i.test(a.value)))
      .map(a => e.tagName + " " + a.name + "=" + a.value))"""
CLICKABLE = "a, button, input, select, [onclick], [href]"


def pages(tmp_path):
    """{surface: file} for every surface, each built from the graph with every payload."""
    loss, names = hostile.everything()
    drawing = viz.draw(loss, grads=True, names=names)       # module paths alone as titles
    frames = viz.steps(loss, names=names)
    title = hostile.PAYLOADS["script_end"] + hostile.PAYLOADS["script"]
    keys = {payload: names[payload + " h"] for payload in hostile.PAYLOADS.values()}
    wrong = {key: -2 * t.detach().numpy() for key, t in keys.items()}
    check = check_grads(wrong, loss, names=keys)
    out = {
        "draw_view": _write(tmp_path / "draw_view.html", html_page(drawing._repr_html_(), title)),
        "draw_html": viz.save(drawing, tmp_path / "draw.html"),
        "draw_svg": viz.save(drawing, tmp_path / "draw.svg"),
        "frame_svg": viz.save(frames[len(frames) - 3], tmp_path / "frame.svg"),
        "player": viz.save(viz.player(frames, title=title), tmp_path / "player.html"),
        "quiz": viz.save(viz.player(frames, quiz=True, title=title), tmp_path / "quiz.html"),
        "foreign": viz.save(viz.draw(hostile.foreign_everything(), grads=True),
                            tmp_path / "foreign.html"),
        "check_grads": _write(tmp_path / "check.html", html_page(check._repr_html_(), title)),
    }
    return out


def _write(path, text):
    path.write_text(text, encoding="utf-8")
    return path


def click_everything(page):
    """Click every link and control: with the mouse where it is on screen (and the payloads
    typed into every text box shown), and with a click event where it is not (a quiz question
    of another frame, a box scrolled out of view). Returns the number of elements clicked."""
    elements = page.query_selector_all(CLICKABLE)
    for element in elements:
        if not element.is_visible():
            element.dispatch_event("click")
            continue
        if element.get_attribute("type") == "text":
            for payload in hostile.PAYLOADS.values():
                element.fill(payload)
                element.press("Enter")
        element.click(force=True, no_wait_after=True)
    return len(elements)


@pytest.fixture(scope="module")
def surfaces(tmp_path_factory):
    return pages(tmp_path_factory.mktemp("hostile"))


@pytest.fixture(scope="module")
def chromium():
    """One headless Chromium for the module; each test opens its own page in it."""
    with browser_page() as first:
        yield first.context.browser


SURFACES = ["draw_view", "draw_html", "draw_svg", "frame_svg", "player", "quiz", "foreign",
            "check_grads"]


@pytest.mark.parametrize("surface", SURFACES)
def test_no_payload_runs_when_every_link_and_control_is_clicked(surfaces, chromium, surface):
    dialogs, errors = [], []
    with contextlib.closing(chromium.new_page(viewport={"width": 1280, "height": 800})) as page:
        page.on("dialog", lambda d: (dialogs.append(d.message), d.dismiss()))
        page.on("pageerror", lambda e: errors.append(str(e)))
        page.goto(pathlib.Path(surfaces[surface]).as_uri())
        page.wait_for_selector("svg")
        links = page.evaluate("() => document.querySelectorAll('a').length")
        clicked = click_everything(page)
        page.wait_for_timeout(200)                  # a navigation to javascript: runs async
        SHOTS.mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(SHOTS / f"hostile_{surface}.png"))
        pwned = page.evaluate("() => top.__pwned === undefined ? null : top.__pwned")
        code = page.evaluate(CODE_ATTRIBUTES)
        shown = page.evaluate("() => document.documentElement.textContent")
    assert links > 0 and clicked >= links, (links, clicked)
    assert not dialogs, dialogs
    assert pwned is None, pwned
    assert not code, code[:5]
    assert not errors, errors[:3]
    assert hostile.shown(hostile.PAYLOADS["html_label"]) in shown   # read as written
