"""The site read as a person reads it, in headless Chromium: the pictures' controls look like
buttons under the Material theme, every lesson page offers its notebook for download (and the
file is the lesson), on a phone (390 x 844) a player keeps its buttons on one row and its
slider across the player, no label of a picture is under 8 px unless the picture scrolls inside
its box, stepping a player never moves its picture, and the search shows formulas as text, not
TeX. Each page is visited once at 1280 x 800 and once on a phone (tests/site/page_facts.py:
the tests here assert on what those visits found); the search is a visit of its own.
Screenshots are kept in test-artifacts/site/."""
import json
import re
import urllib.request

import pytest

from website import build as site_build
from website import plain_math

from .browsing import HEIGHT, SHOTS, open_page, watched_page
from .page_facts import PHONE_SHOTS, trouble

pytestmark = [pytest.mark.site, pytest.mark.browser]

MIN_PHONE_LABEL_PX = 8
SEARCH_TIMEOUT = 180_000       # ms for the search's first results


def lessons_showing(site, marker):
    """The pages of the lessons whose page holds ``marker`` (a class of the pictures)."""
    pages = [f"lessons/{lesson.stem}.html" for lesson in site_build.lessons()]
    return [rel for rel in pages if marker in (site / rel).read_text(encoding="utf-8")]


def test_every_control_of_a_picture_looks_like_a_button(site, wide_pages):
    """Material resets a <button> to bare text: prev / play / next, fit / zoom and a quiz's
    check / show must have their border or background back."""
    showing = lessons_showing(site, "vz-viewer")
    assert not trouble(wide_pages, "buttons", showing)
    seen = 0
    for rel in showing:
        for button in wide_pages[rel]["buttons"]["value"]:
            assert button["border"] or button["background"], (rel, button)
            seen += 1
    assert seen >= 20, "the lessons' pictures have lost their buttons"


def test_every_lesson_page_offers_its_notebook(site, served, wide_pages):
    """A visible link in the first screen of each lesson page downloads the lesson as a
    notebook (the link names the file and asks the browser to save it; the file it points at,
    fetched from the server: the same cells, the same kernel); the lesson under the link keeps
    the page's width."""
    pages = {lesson: f"lessons/{lesson.stem}.html" for lesson in site_build.lessons()}
    assert not trouble(wide_pages, "download", pages.values())
    for lesson, rel in pages.items():
        link = wide_pages[rel]["download"]["value"]
        assert link["count"] == 1 and link["visible"], (rel, link)
        assert link["bottom"] <= HEIGHT, (rel, "below the first screen")
        assert lesson.name in link["text"] and link["download"] == lesson.name, (rel, link)
        assert link["width"] > 0.95, (rel, "the lesson is narrowed")
        with urllib.request.urlopen(served + "lessons/" + link["href"]) as response:
            got = json.loads(response.read().decode("utf-8"))
        want = json.loads(lesson.read_text(encoding="utf-8"))
        assert [c["source"] for c in got["cells"]] == [c["source"] for c in want["cells"]]
        assert got["metadata"]["kernelspec"] == want["metadata"]["kernelspec"]


def test_on_a_phone_players_keep_one_row_of_buttons_and_labels_stay_readable(site, phone_pages):
    """At 390 px: each player's prev / play / next and its counter on one row, none wrapped
    onto two lines, its slider across the player, its zoom buttons on one row; every picture
    opens with labels of at least 8 px or scrolls inside its box; no page scrolls sideways."""
    showing = lessons_showing(site, "vz-viewer")
    assert sorted(phone_pages) == sorted(showing + ["index.html"])
    for name in ("load", "controls", "labels", "graph_images", "screenshot"):
        assert not trouble(phone_pages, name), name
    players = 0
    for rel in showing:
        facts = phone_pages[rel]
        assert facts["load"]["value"]["sideways"] <= 0, (rel, "scrolls sideways")
        for p in facts["controls"]["value"]:
            assert max(p["middles"]) - min(p["middles"]) < 3, (rel, "buttons wrap", p)
            assert max(p["heights"]) - min(p["heights"]) < 2, (rel, "a label wraps", p)
            assert p["slider"] >= 0.9 * p["row"], (rel, "the slider is short", p)
            assert max(p["zoom"]) - min(p["zoom"]) < 3, (rel, "zoom buttons wrap", p)
            players += 1
        for picture in facts["labels"]["value"]:
            assert picture["smallest"] >= MIN_PHONE_LABEL_PX or picture["scrolls"], \
                (rel, picture)
    home = phone_pages["index.html"]
    assert home["load"]["value"]["sideways"] <= 0, "the home page scrolls sideways"
    for image in home["graph_images"]["value"]:
        smallest = smallest_label_px(site / image["src"], image["width"])
        assert smallest >= MIN_PHONE_LABEL_PX or image["scrolls"], (image, smallest)
    for name in PHONE_SHOTS.values():
        assert (SHOTS / name).stat().st_size > 10_000
    assert players >= 3, "the lessons' players are missing from the site"


def smallest_label_px(svg_path, shown_width):
    """The smallest label of an SVG image (from dot) in CSS px when shown ``shown_width`` px
    wide: its font size in the picture's units times the picture's scale."""
    svg = svg_path.read_text(encoding="utf-8")
    view_width = float(re.search(r'viewBox="[\d.-]+ [\d.-]+ ([\d.]+)', svg).group(1))
    fonts = [float(f) for f in re.findall(r'font-size="([\d.]+)"', svg)]
    return min(fonts) * shown_width / view_width


@pytest.mark.parametrize("size", ["wide_pages", "phone_pages"], ids=["1280px", "phone"])
def test_stepping_a_player_never_moves_its_picture(site, size, request):
    """A frame's text (title, formula, numbers) may wrap onto more lines than the one before,
    and a quiz player's frame may ask one question, two or none: the zoom buttons, and the
    picture under them, stay where they are through every frame. (Answering does not move
    them either: tests/viz/test_quiz.py.)"""
    pages = request.getfixturevalue(size)
    showing = lessons_showing(site, "vz-player")
    assert set(showing) <= set(pages) and not trouble(pages, "zoom", showing)
    for rel in showing:
        for k, tops in enumerate(pages[rel]["zoom"]["value"]):
            assert max(tops) - min(tops) < 1, (rel, f"player {k}", tops)


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
        # typed key by key, as a person types: the theme reads the box on a key going up (or
        # when its index is ready), so a value set without keys was searched for only when the
        # index happened to be built after it (a busy machine), and never on an idle one
        page.locator("input.md-search__input").press_sequentially("forget gate")
        results = page.locator(".md-search-result__item")
        # the theme's search builds its index of every lesson's text in the browser first:
        # seconds on an idle machine, more than the default 30 s on a busy one
        results.first.wait_for(timeout=SEARCH_TIMEOUT)
        text = page.locator(".md-search-result").inner_text()
        page.screenshot(path=str(SHOTS / "search_forget_gate.png"))
        assert "forget" in text.lower()
        assert not TEX.search(text), text[:2000]
        assert not problems, problems
