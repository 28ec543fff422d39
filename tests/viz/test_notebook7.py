"""A lesson in Jupyter Notebook 7, the other front end students are given: a real `jupyter
notebook` server, lesson 02 (two step-through players, one of them a quiz) as committed, run
with the menu's "Run All Cells" in headless Chromium at 1280 x 800. Every cell runs without an
error, the player steps with its "next" button, and the quiz marks a wrong value wrong and shows
the right one when asked. The server and the kernel run in a temporary folder and stop when the
test ends; the news pop-up is off there as in the JupyterLab test. Screenshots are kept in
test-artifacts/notebook7/."""
import os
import pathlib
import re
import shutil

import pytest

from .browser import browser_page
from .quiz_reader import answer_first_question, wait_until_live
from .test_jupyterlab import jupyter_lab

pytestmark = pytest.mark.browser

ROOT = pathlib.Path(__file__).resolve().parents[2]
SHOTS = ROOT / "test-artifacts" / "notebook7"
LESSON = ROOT / "notebooks" / "02_backpropagation.ipynb"       # two players, one a quiz
LOAD_TIMEOUT = 60_000        # ms for Notebook 7, its kernel or a menu to appear
RUN_TIMEOUT = 600_000        # ms for the whole lesson to run (about 20 s on an idle machine)

# Every code cell has run: its prompt holds an execution count, none is queued ("[*]").
ALL_RAN = """() => {
    const prompts = Array.from(document.querySelectorAll(".jp-CodeCell .jp-InputPrompt"));
    return prompts.length > 0 && prompts.every(p => /\\[\\d+\\]/.test(p.textContent));
  }"""
ERRORS = """() => Array.from(document.querySelectorAll(
    ".jp-OutputArea-output[data-mime-type='application/vnd.jupyter.stderr'], "
    + ".jp-RenderedText[data-mime-type='application/vnd.jupyter.error']")).map(e => e.textContent)"""


def notebook_or_skip():
    try:
        import notebook  # noqa: F401
    except ImportError:
        if os.environ.get("CI"):
            pytest.fail("the Notebook 7 test must run in CI: notebook is not installed")
        pytest.skip("notebook (Jupyter Notebook 7) is not installed (it is in the test extra: "
                    "pip install -e '.[test]')")


def shot(page, name):
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SHOTS / f"{name}.png"))


def test_a_lesson_runs_and_its_quiz_judges_in_notebook_7(tmp_path):
    notebook_or_skip()
    from playwright.sync_api import expect
    shutil.copyfile(LESSON, tmp_path / LESSON.name)
    with jupyter_lab(tmp_path, app="notebook") as server, browser_page() as page:
        errors = []
        page.on("pageerror", lambda e: errors.append(str(e)))
        page.set_default_timeout(LOAD_TIMEOUT)
        try:
            page.goto(server.open(LESSON.name))
            page.wait_for_selector(".jp-Notebook .jp-Cell")
            # the notebook has joined its kernel: the toolbar names it
            page.wait_for_selector(".jp-Toolbar-kernelName[aria-label='Python 3 (ipykernel)']")
            # Notebook 7.6 logs "Cannot read properties of undefined (reading 'schema')" from
            # its own settings loader while it starts, with or without any setting of ours:
            # what is checked is that nothing the lesson or its pictures do throws.
            errors.clear()
            page.locator(".lm-MenuBar-itemLabel", has_text="Run").first.click()
            page.locator(".lm-Menu-itemLabel", has_text="Run All Cells").first.click()
            page.wait_for_function(ALL_RAN, timeout=RUN_TIMEOUT)
            assert page.evaluate(ERRORS) == []

            players = page.locator(".jp-OutputArea .vz-player")
            assert players.count() == 2
            player = players.first
            wait_until_live(player)
            player.locator(".vz-controls").scroll_into_view_if_needed()
            count = player.locator(".vz-count")
            expect(count).to_have_text(re.compile(r"^1 / \d+$"))
            player.locator(".vz-next").click()
            expect(count).to_have_text(re.compile(r"^2 / \d+$"))
            shot(page, "player_frame_2")

            quiz = page.locator(".jp-OutputArea .vz-player:has(.vz-quiz)")
            assert quiz.count() == 1
            quiz.locator(".vz-controls").scroll_into_view_if_needed()
            wrong, shown = answer_first_question(quiz)
            assert "wrong" in wrong and "right" not in wrong.split(":")[0], wrong
            assert shown, "show revealed nothing"
            shot(page, "quiz_shown")
            assert errors == [], f"script errors in the page: {errors}"
        except Exception:
            shot(page, "failure")              # what the page showed when the test failed
            raise
