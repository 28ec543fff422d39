"""The static site (`make site`, website/build.py) as a reader sees it, in headless Chromium at
1280 x 800, served from a local HTTP server with every other address blocked: every page loads
with no console error and fetches nothing from elsewhere, no page scrolls sideways, every
step-through player steps, every quiz player judges a typed value, and the README's first
screen shows the two commands. The site is built once per test run from the run's blank
executions of the lessons (tests/notebooks/executed.py), and each page is visited once at this
size: the tests here and in test_reading.py assert on what that visit found
(tests/site/page_facts.py), each on its own facts, so a broken feature fails its own test.
Screenshots are kept in test-artifacts/site/."""
import pytest

from website import build as site_build

from .browsing import HEIGHT, ROOT, SHOTS, WIDTH, pages_of
from .page_facts import WIDE_SHOTS, trouble

pytestmark = [pytest.mark.site, pytest.mark.browser]


def lesson_page(lesson):
    return f"lessons/{lesson.stem}.html"


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


def test_every_page_loads_offline_without_errors_or_sideways_scroll(site, wide_pages):
    assert sorted(wide_pages) == pages_of(site), "a page of the site was not visited"
    failures = trouble(wide_pages, "load")
    for rel, facts in wide_pages.items():
        sideways = (facts["load"]["value"] or {}).get("sideways", 0)
        if sideways > 0:
            failures.setdefault(rel, []).append(f"scrolls sideways by {sideways} px at {WIDTH} px")
    assert not failures, failures


def test_every_player_steps_forward_and_back(wide_pages):
    lessons = [lesson_page(lesson) for lesson in site_build.lessons()]
    assert not trouble(wide_pages, "players", lessons)
    stepped = 0
    for rel in lessons:
        for before, after, back in wide_pages[rel]["players"]["value"]:
            n = before[0].split(" / ")[1]
            assert before[0] == f"1 / {n}" and after[0] == f"2 / {n}", (rel, after)
            assert after[1] != before[1] or n == "1", (rel, "the title did not move")
            assert back == f"1 / {n}"
            stepped += 1
    assert stepped >= 3, "the lessons' players are missing from the site"


def test_every_quiz_player_asks_and_judges(wide_pages):
    """Predict-then-reveal players work on the site: a wrong value is not marked right, and
    "show" reveals the value."""
    quizzing = [lesson_page(lesson) for lesson in site_build.lessons()
                if "quiz=True" in lesson.read_text(encoding="utf-8")]
    assert quizzing and not trouble(wide_pages, "quiz", quizzing)
    for rel in quizzing:
        answers = wide_pages[rel]["quiz"]["value"]
        assert answers, f"{rel} asks for a quiz player; its page has none"
        for wrong, shown in answers:
            assert "wrong" in wrong and "right" not in wrong.split(":")[0], (rel, wrong)
            assert shown, (rel, "show revealed nothing")


def test_the_readme_first_screen_shows_the_two_commands(wide_pages):
    """At 1280 x 800 the home page (the README) shows `make demo` and `make test` without
    scrolling."""
    readme = wide_pages["index.html"]["readme"]
    assert not readme["problems"], readme["problems"]
    box = readme["value"]["box"]
    assert "make test" in readme["value"]["text"]
    assert box is not None and box["y"] + box["height"] <= HEIGHT, box


def test_screenshots_of_three_pages(wide_pages):
    assert not trouble(wide_pages, "screenshot")
    assert sorted(rel for rel, facts in wide_pages.items() if "screenshot" in facts) == \
        sorted(WIDE_SHOTS)
    for name in WIDE_SHOTS.values():
        assert (SHOTS / name).stat().st_size > 10_000
