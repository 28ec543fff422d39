"""The site read as a person reads it, in headless Chromium: the pictures' controls look like
buttons under the Material theme, every lesson page offers its notebook for download (and the
file is the lesson), on a phone (390 x 844) a player keeps its buttons on one row and its
slider across the player, no label of a picture is under 8 px unless the picture scrolls inside
its box, stepping a player never moves its picture, and the search shows formulas as text, not
TeX. Screenshots are kept in test-artifacts/site/."""
import json
import re

import pytest

from website import build as site_build
from website import plain_math

from .browsing import HEIGHT, PHONE, SHOTS, open_page, watched_page

pytestmark = [pytest.mark.site, pytest.mark.browser]

MIN_PHONE_LABEL_PX = 8
SEARCH_TIMEOUT = 180_000       # ms for the search's first results

# JavaScript over a page.
BUTTONS = """() => Array.from(document.querySelectorAll(".vz-viewer button")).map(b => {
    const s = getComputedStyle(b), seen = c => !/^rgba\\(.*,\\s*0\\)$/.test(c);
    return {text: b.textContent.trim(),
            border: parseFloat(s.borderTopWidth) > 0 && s.borderTopStyle !== "none"
                    && seen(s.borderTopColor),
            background: seen(s.backgroundColor)};
  })"""
# Each player's controls: the middles (in height) of its buttons and of its counter, the
# buttons' heights, the slider's width against the row's, and the zoom buttons' middles.
CONTROLS = """() => Array.from(document.querySelectorAll(".vz-player")).map(p => {
    const row = p.querySelector(".vz-controls"), rect = e => e.getBoundingClientRect();
    const middle = e => rect(e).top + rect(e).height / 2;
    const buttons = Array.from(row.querySelectorAll("button"));
    return {middles: buttons.concat([row.querySelector(".vz-count")]).map(middle),
            heights: buttons.map(b => rect(b).height),
            slider: rect(row.querySelector(".vz-slider")).width, row: row.clientWidth,
            zoom: Array.from(p.querySelectorAll(".vz-zoom button")).map(middle)};
  })"""
# Each picture: its smallest label in CSS px as shown, and whether it scrolls inside its box.
LABELS = """() => Array.from(document.querySelectorAll(".vz-viewer")).map(v => {
    const view = v.querySelector(".vz-view");
    const sizes = Array.from(view.querySelectorAll("svg text")).map(
      t => parseFloat(t.getAttribute("font-size")) * t.getScreenCTM().a);
    return {smallest: Math.min(...sizes),
            scrolls: view.scrollWidth > view.clientWidth + 1
                     || view.scrollHeight > view.clientHeight + 1};
  })"""
# The images of graphs (the home page's): shown width, and whether their paragraph scrolls.
GRAPH_IMAGES = """() => Array.from(document.querySelectorAll("img[src$='.svg']")).map(i => ({
    src: i.getAttribute("src"), width: i.getBoundingClientRect().width,
    scrolls: i.parentElement.scrollWidth > i.parentElement.clientWidth + 1}))"""
# Step each player through every frame with its slider: where its zoom buttons are, per frame.
ZOOM_ROW_PER_FRAME = """() => Array.from(document.querySelectorAll(".vz-player")).map(p => {
    const slider = p.querySelector(".vz-slider"), zoom = p.querySelector(".vz-zoom");
    const tops = [];
    for (let i = 0; i <= +slider.max; i++) {
      slider.value = i; slider.dispatchEvent(new Event("input"));
      tops.push(zoom.getBoundingClientRect().top - p.getBoundingClientRect().top);
    }
    slider.value = 0; slider.dispatchEvent(new Event("input"));
    return tops;
  })"""
# The lesson's width against its page's column: the link above it takes none of it.
LESSON_WIDTH = """() => document.querySelector(".jp-Notebook").getBoundingClientRect().width
    / document.querySelector("article.md-content__inner").getBoundingClientRect().width"""
SIDEWAYS = "() => document.documentElement.scrollWidth - document.documentElement.clientWidth"


def lessons_showing(site, marker):
    """The lessons whose page holds ``marker`` (a class of the pictures)."""
    return [lesson for lesson in site_build.lessons()
            if marker in (site / "lessons" / f"{lesson.stem}.html").read_text(encoding="utf-8")]


def test_every_control_of_a_picture_looks_like_a_button(site, served):
    """Material resets a <button> to bare text: prev / play / next, fit / zoom and a quiz's
    check / show must have their border or background back."""
    seen = 0
    with watched_page(served) as (page, problems):
        for lesson in lessons_showing(site, "vz-viewer"):
            open_page(page, f"{served}lessons/{lesson.stem}.html")
            for button in page.evaluate(BUTTONS):
                assert button["border"] or button["background"], (lesson.stem, button)
                seen += 1
        assert not problems, problems
    assert seen >= 20, "the lessons' pictures have lost their buttons"


def test_every_lesson_page_offers_its_notebook(site, served, tmp_path):
    """A visible link in the first screen of each lesson page downloads the lesson as a
    notebook: the same cells, the same kernel; the lesson under it keeps the page's width."""
    with watched_page(served) as (page, problems):
        for lesson in site_build.lessons():
            open_page(page, f"{served}lessons/{lesson.stem}.html")
            link = page.locator("a.dg-download")
            assert link.count() == 1 and link.is_visible(), lesson.stem
            box = link.bounding_box()
            assert box["y"] + box["height"] <= HEIGHT, (lesson.stem, "below the first screen")
            assert f"{lesson.name}" in link.inner_text()
            assert page.evaluate(LESSON_WIDTH) > 0.95, (lesson.stem, "the lesson is narrowed")
            with page.expect_download() as download:
                link.click()
            saved = tmp_path / lesson.name
            download.value.save_as(saved)
            got, want = (json.loads(p.read_text(encoding="utf-8")) for p in (saved, lesson))
            assert [c["source"] for c in got["cells"]] == [c["source"] for c in want["cells"]]
            assert got["metadata"]["kernelspec"] == want["metadata"]["kernelspec"]
        assert not problems, problems


def test_on_a_phone_players_keep_one_row_of_buttons_and_labels_stay_readable(site, served):
    """At 390 px: each player's prev / play / next and its counter on one row, none wrapped
    onto two lines, its slider across the player, its zoom buttons on one row; every picture
    opens with labels of at least 8 px or scrolls inside its box; no page scrolls sideways."""
    SHOTS.mkdir(parents=True, exist_ok=True)
    players = 0
    with watched_page(served, *PHONE) as (page, problems):
        for lesson in lessons_showing(site, "vz-viewer"):
            open_page(page, f"{served}lessons/{lesson.stem}.html")
            assert page.evaluate(SIDEWAYS) <= 0, (lesson.stem, "scrolls sideways")
            for p in page.evaluate(CONTROLS):
                assert max(p["middles"]) - min(p["middles"]) < 3, (lesson.stem, "buttons wrap", p)
                assert max(p["heights"]) - min(p["heights"]) < 2, (lesson.stem, "a label wraps", p)
                assert p["slider"] >= 0.9 * p["row"], (lesson.stem, "the slider is short", p)
                assert max(p["zoom"]) - min(p["zoom"]) < 3, (lesson.stem, "zoom buttons wrap", p)
                players += 1
            for picture in page.evaluate(LABELS):
                assert picture["smallest"] >= MIN_PHONE_LABEL_PX or picture["scrolls"], \
                    (lesson.stem, picture)
            if lesson.stem == "02_backpropagation":
                controls = page.locator(".vz-player .vz-controls").first
                controls.scroll_into_view_if_needed()
                page.evaluate("() => window.scrollBy(0, -100)")     # below the page's header
                page.screenshot(path=str(SHOTS / "phone_lesson_02_player.png"))
        open_page(page, served + "index.html")
        assert page.evaluate(SIDEWAYS) <= 0, "the home page scrolls sideways"
        for image in page.evaluate(GRAPH_IMAGES):
            smallest = smallest_label_px(site / image["src"], image["width"])
            assert smallest >= MIN_PHONE_LABEL_PX or image["scrolls"], (image, smallest)
        page.locator("img[src$='.svg']").first.scroll_into_view_if_needed()
        page.screenshot(path=str(SHOTS / "phone_home_graph.png"))
        assert not problems, problems
    assert players >= 3, "the lessons' players are missing from the site"


def smallest_label_px(svg_path, shown_width):
    """The smallest label of an SVG image (from dot) in CSS px when shown ``shown_width`` px
    wide: its font size in the picture's units times the picture's scale."""
    svg = svg_path.read_text(encoding="utf-8")
    view_width = float(re.search(r'viewBox="[\d.-]+ [\d.-]+ ([\d.]+)', svg).group(1))
    fonts = [float(f) for f in re.findall(r'font-size="([\d.]+)"', svg)]
    return min(fonts) * shown_width / view_width


@pytest.mark.parametrize("width, height", [(1280, 800), PHONE], ids=["1280px", "phone"])
def test_stepping_a_player_never_moves_its_picture(site, served, width, height):
    """A frame's text (title, formula, numbers) may wrap onto more lines than the one before,
    and a quiz player's frame may ask one question, two or none: the zoom buttons, and the
    picture under them, stay where they are through every frame. (Answering does not move
    them either: tests/viz/test_quiz.py.)"""
    with watched_page(served, width, height) as (page, problems):
        for lesson in lessons_showing(site, "vz-player"):
            open_page(page, f"{served}lessons/{lesson.stem}.html")
            for k, tops in enumerate(page.evaluate(ZOOM_ROW_PER_FRAME)):
                assert max(tops) - min(tops) < 1, (lesson.stem, f"player {k}", tops)
        assert not problems, problems


# A TeX command the lessons' formulas use (the index also holds their code, where "\\n" and
# "$HOME" are not TeX).
TEX = re.compile(r"\\(?:" + "|".join(sorted(
    {w for w in plain_math.SYMBOLS if w.isalpha()} | plain_math.FONTS | set(plain_math.ACCENTS)
    | plain_math.FRACTIONS | {"sqrt", "mathbb", "begin", "end", "left", "right", "quad"}))
    + r")(?![A-Za-z])")


def test_search_shows_formulas_as_text(site, served):
    """The search index holds the lessons' text with their formulas written as characters
    (website/plain_math.py), and a search for a formula-heavy topic lists snippets without
    TeX."""
    index = json.loads((site / "search" / "search_index.json").read_text(encoding="utf-8"))
    lessons = [doc for doc in index["docs"] if doc["location"].startswith("lessons/")]
    assert lessons
    for doc in lessons:
        found = TEX.search(doc["text"])
        assert found is None, (doc["location"], doc["text"][max(0, found.start() - 80):
                                                            found.end() + 80])
    assert any("cₜ" in doc["text"] for doc in lessons), "the LSTM's c_t is not in the index"
    with watched_page(served) as (page, problems):
        open_page(page, served + "index.html")
        page.locator("label.md-search__icon, .md-search__input").first.click()
        page.locator("input.md-search__input").fill("forget gate")
        results = page.locator(".md-search-result__item")
        # the theme's search builds its index of every lesson's text in the browser first:
        # seconds on an idle machine, more than the default 30 s on a busy one
        results.first.wait_for(timeout=SEARCH_TIMEOUT)
        text = page.locator(".md-search-result").inner_text()
        page.screenshot(path=str(SHOTS / "search_forget_gate.png"))
        assert "forget" in text.lower()
        assert not TEX.search(text), text[:2000]
        assert not problems, problems
