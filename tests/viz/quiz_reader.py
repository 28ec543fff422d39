"""A student at a quiz player (``viz.player(..., quiz=True)``), wherever it is shown: the site,
JupyterLab, Jupyter Notebook 7."""
import re


def wait_until_live(player):
    """Wait until ``player``'s script has run: its frame counter ("1 / n") is in the HTML
    from the start, but its buttons do nothing until the script has shown frame 0 and set
    ``data-frame``. A host that renders outputs before running their scripts (Notebook 7 after
    "Run All Cells") would otherwise take the first click on a dead button."""
    from playwright.sync_api import expect
    expect(player).to_have_attribute("data-frame", re.compile(r"^\d+$"))


def answer_first_question(player):
    """Step ``player`` (a quiz player's locator) to its first question, type a wrong value,
    then ask to be shown; returns (feedback to the wrong value, feedback after "show")."""
    wait_until_live(player)
    count = player.locator(".vz-count")
    total = int(count.inner_text().split(" / ")[1])
    question = player.locator(".vz-q.vz-current")
    for _ in range(total):
        if question.count():
            break
        player.locator(".vz-next").click()
    assert question.count(), "a quiz player with no question in any frame"
    box, feedback = question.first.locator("input"), question.first.locator(".vz-q-feedback")
    box.fill("123456789")
    box.press("Enter")
    size = re.search(r"type (\d+) numbers", feedback.inner_text())
    if size:                                       # a δ with several elements: one per element
        box.fill(", ".join(["123456789"] * int(size.group(1))))
        box.press("Enter")
    wrong = feedback.inner_text()
    question.first.locator(".vz-q-show").click()
    return wrong, question.first.locator(".vz-q-feedback").inner_text()
