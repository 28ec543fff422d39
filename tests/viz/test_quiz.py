"""viz.player(frames, quiz=True): in each backward frame the δ's the operation sends stay
hidden until typed; right answers are marked right, wrong ones wrong (in words) with the right
value and the local rule. Checked in headless Chromium; screenshots in test-artifacts/viz/."""
import pytest

from dagrad import viz
from dagrad.viz.quiz import LOCAL_RULES, questions

from .browser import browser_page
from .test_browser import VISIBLE_TEXT, open_page, readme_example, shot

TANH_DELTA = "δ [0.7864, 0.42, 0.1807]"       # what Tanh sends back to Mul (backward 2/3)
SUM_DELTA = "δ [1, 1, 1]"                      # what Sum sends back to Tanh (backward 1/3)


def quiz_player():
    y, names = readme_example()
    return viz.player(viz.steps(y, names=names), quiz=True)


def gradients_seen(page):
    return [t for t, _ in page.evaluate(VISIBLE_TEXT) if t.startswith(("δ", "Σδ"))]


def current(page):
    return page.locator(".vz-q.vz-current")


def test_questions_carry_the_rule_with_its_numbers():
    y, names = readme_example()
    asked = {q["label"]: q for q in questions(viz.steps(y, names=names))}
    assert set(asked) == {"Tanh → Sum", "Mul → Tanh", "w → Mul", "x → Mul"}   # not the seed
    assert asked["Mul → Tanh"]["rule"].startswith("δ_x = δ_out · (1 − out²), with δ_out = "
                                                  "[1, 1, 1], out = [0.4621, 0.7616, 0.9051]")
    assert asked["x → Mul"]["rule"] == ("δ_b = δ_out · a, with δ_out = [0.7864, 0.42, "
                                        "0.1807], a = 0.5")
    assert "summed over the axes" in asked["w → Mul"]["rule"]
    assert asked["w → Mul"]["right"] == "2.169"
    assert all(len(rules) in (1, 2) for rules in LOCAL_RULES.values())
    assert "vz-quiz" not in viz.player(viz.steps(y, names=names)).html


@pytest.mark.browser
def test_a_wrong_value_is_marked_wrong_and_a_right_one_right_in_chromium(tmp_path):
    with browser_page() as page:
        open_page(page, tmp_path, quiz_player(), "quiz")
        assert page.locator(".vz-quiz-note.vz-current").inner_text().startswith("Forward pass")
        page.focus(".vz-player")
        for _ in range(3):
            page.keyboard.press("ArrowRight")              # keys step: Backward 1/3, Sum
        assert page.locator(".vz-title").inner_text() == "Backward 1/3: Sum"
        assert SUM_DELTA not in gradients_seen(page)        # hidden until answered
        assert page.locator("g.vz-ask").count() == 1        # the asked edge is marked
        assert "Tanh → Sum" in current(page).inner_text()

        box = current(page).locator("input")
        box.fill("2")                                       # one number for three elements
        box.press("Enter")
        assert "type 3 numbers" in current(page).locator(".vz-q-feedback").inner_text()
        assert SUM_DELTA not in gradients_seen(page)

        box.fill("[2, 2, 2]")
        box.press("ArrowLeft")                              # typing does not change frames
        assert page.locator(".vz-title").inner_text() == "Backward 1/3: Sum"
        current(page).locator(".vz-q-check").click()
        feedback = current(page).locator(".vz-q-feedback").inner_text()
        shot(page, "quiz_wrong")
        assert feedback.startswith("✗ wrong: you wrote [2, 2, 2], but δ = [1, 1, 1]")
        assert "right" not in feedback.split("\n")[0]
        assert "rule: δ_x = δ_out, copied to every element that was summed" in feedback
        assert "vz-right" not in current(page).get_attribute("class")

        page.click(".vz-next")                              # buttons step: Backward 2/3, Tanh
        assert page.locator(".vz-title").inner_text() == "Backward 2/3: Tanh"
        assert TANH_DELTA not in gradients_seen(page)
        shot(page, "quiz_asking")
        box = current(page).locator("input")
        box.fill("0.786, 0.42, 0.181")                      # within 1%
        box.press("Enter")
        feedback = current(page).locator(".vz-q-feedback").inner_text()
        shot(page, "quiz_right")
        assert feedback.startswith("✓ right: δ = [0.7864, 0.42, 0.1807]")
        assert "δ_x = δ_out · (1 − out²)" in feedback
        assert TANH_DELTA in gradients_seen(page)
        assert page.locator("g.vz-ask").count() == 0
        assert page.locator(".vz-quiz-score").inner_text().startswith(
            "Your answers: 1 right, 1 wrong (of 4 δ's asked")

        page.click(".vz-prev")                              # answered frames stay answered
        page.click(".vz-next")
        assert TANH_DELTA in gradients_seen(page)
        page.focus(".vz-player")
        page.keyboard.press("ArrowRight")                   # Backward 3/3, Mul: two questions
        assert current(page).count() == 2
        assert "δ 2.169" not in gradients_seen(page)
        current(page).nth(0).locator(".vz-q-show").click()  # "show" reveals without a verdict
        shown = current(page).nth(0).locator(".vz-q-feedback").inner_text()
        assert shown.startswith("δ = 2.169") and "right" not in shown.split("\n")[0]
        assert "δ 2.169" in gradients_seen(page)


@pytest.mark.browser
def test_the_tolerance_is_one_percent(tmp_path):
    with browser_page() as page:
        open_page(page, tmp_path, quiz_player(), "quiz")
        page.locator(".vz-slider").fill("5")                # Backward 3/3: Mul
        question = current(page).nth(0)
        for answer, verdict in [("2.3", "✗ wrong"), ("-2.169", "✗ wrong"),
                                ("2.17", "✓ right"), ("2.169", "✓ right")]:
            question.locator("input").fill(answer)
            question.locator("input").press("Enter")
            assert question.locator(".vz-q-feedback").inner_text().startswith(verdict), answer
