"""The static site (`make site`, website/build.py) as a reader sees it, in headless Chromium at
1280 x 800, served from a local HTTP server with every other address blocked: every page loads
with no console error and fetches nothing from elsewhere, no page scrolls sideways, every
step-through player steps, every quiz player judges a typed value, and the README's first
screen shows the two commands. The site is
built once per test session, reusing the lessons the notebook tests executed (build/executed)
when they match the lessons as they are. Screenshots are kept in test-artifacts/site/."""
import pytest

from tests.viz.quiz_reader import answer_first_question
from website import build as site_build

from .browsing import HEIGHT, ROOT, SHOTS, WIDTH, open_page, pages_of, watched_page

pytestmark = [pytest.mark.site, pytest.mark.browser]

SIDEWAYS = "() => document.documentElement.scrollWidth - document.documentElement.clientWidth"

PLAYERS_STEP = """() => Array.from(document.querySelectorAll(".vz-player")).map(p => {
    const count = p.querySelector(".vz-count"), title = p.querySelector(".vz-title");
    const before = [count.textContent, title.textContent];
    p.querySelector(".vz-next").click();
    const after = [count.textContent, title.textContent];
    p.querySelector(".vz-prev").click();
    return [before, after, count.textContent];
  })"""


def test_the_site_has_every_lesson_doc_page_and_the_lesson_map(site):
    pages = set(pages_of(site))
    for lesson in site_build.lessons():
        assert f"lessons/{lesson.stem}.html" in pages
    for doc in (ROOT / "docs").glob("*.md"):
        assert f"{doc.stem}.html" in pages
    assert {"index.html", "lessons/index.html"} <= pages
    lesson_map = (site / "lessons" / "index.html").read_text(encoding="utf-8")
    for lesson in site_build.lessons():
        assert f'href="{lesson.stem}.html"' in lesson_map


def test_lesson_pages_carry_their_outputs(site):
    """The lessons were executed: every lesson page shows outputs, and the lessons with a
    player have it on their page."""
    for lesson in site_build.lessons():
        text = (site / "lessons" / f"{lesson.stem}.html").read_text(encoding="utf-8")
        assert "jp-OutputArea-output" in text, f"{lesson.stem} shows no output"
        if "viz.player(" in lesson.read_text(encoding="utf-8"):
            assert "vz-player" in text, f"{lesson.stem}'s player is missing from its page"


def test_every_page_loads_offline_without_errors_or_sideways_scroll(site, served):
    failures = {}
    with watched_page(served) as (page, problems):
        for rel in pages_of(site):
            problems.clear()
            open_page(page, served + rel)
            sideways = page.evaluate(SIDEWAYS)
            if sideways > 0:
                problems.append(f"scrolls sideways by {sideways} px at {WIDTH} px")
            if problems:
                failures[rel] = list(problems)
    assert not failures, failures


def test_every_player_steps_forward_and_back(site, served):
    stepped = 0
    with watched_page(served) as (page, problems):
        for lesson in site_build.lessons():
            open_page(page, f"{served}lessons/{lesson.stem}.html")
            for before, after, back in page.evaluate(PLAYERS_STEP):
                n = before[0].split(" / ")[1]
                assert before[0] == f"1 / {n}" and after[0] == f"2 / {n}", (lesson.stem, after)
                assert after[1] != before[1] or n == "1", (lesson.stem, "the title did not move")
                assert back == f"1 / {n}"
                stepped += 1
        assert not problems, problems
    assert stepped >= 3, "the lessons' players are missing from the site"


def test_every_quiz_player_asks_and_judges(site, served):
    """Predict-then-reveal players work on the site: a wrong value is not marked right, and
    "show" reveals the value."""
    with watched_page(served) as (page, problems):
        for lesson in site_build.lessons():
            if "quiz=True" not in lesson.read_text(encoding="utf-8"):
                continue
            open_page(page, f"{served}lessons/{lesson.stem}.html")
            quizzes = page.locator(".vz-player:has(.vz-quiz)")
            assert quizzes.count(), f"{lesson.stem} asks for a quiz player; its page has none"
            for k in range(quizzes.count()):
                wrong, shown = answer_first_question(quizzes.nth(k))
                assert "wrong" in wrong and "right" not in wrong.split(":")[0], (lesson.stem, wrong)
                assert shown, (lesson.stem, "show revealed nothing")
        assert not problems, problems


def test_the_readme_first_screen_shows_the_two_commands(site, served):
    """At 1280 x 800 the home page (the README) shows `make demo` and `make test` without
    scrolling."""
    with watched_page(served) as (page, problems):
        open_page(page, served + "index.html")
        block = page.locator("pre", has_text="make demo")
        box = block.first.bounding_box()
        assert "make test" in block.first.inner_text()
        assert box is not None and box["y"] + box["height"] <= HEIGHT, box
        assert not problems, problems


def test_screenshots_of_three_pages(site, served):
    SHOTS.mkdir(parents=True, exist_ok=True)
    shots = {"home": "index.html", "lesson_map": "lessons/index.html",
             "lesson_02": "lessons/02_backpropagation.html"}
    with watched_page(served) as (page, problems):
        for name, rel in shots.items():
            open_page(page, served + rel)
            if name == "lesson_02":
                page.locator(".vz-player").first.scroll_into_view_if_needed()
                # the header swaps the site's name for the page's title once scrolled: shoot
                # after that, not halfway through it
                page.wait_for_selector(".md-header__title--active")
                page.wait_for_function("() => document.getAnimations().every("
                                       "a => a.playState !== 'running')")
            page.screenshot(path=str(SHOTS / f"{name}.png"))
        assert not problems, problems
    for name in shots:
        assert (SHOTS / f"{name}.png").stat().st_size > 10_000
