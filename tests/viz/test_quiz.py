"""viz.player(frames, quiz=True): in each backward frame the δ's the operation sends stay
hidden until found. A wrong value is marked wrong with what it looks like (swapped with the
other input's δ, the wrong sign) and the rule in the graph's names and numbers, never the δ;
"show" gives the δ, keeps a wrong mark and makes a later typed value count for nothing; the
legend's numbers and the tooltips give no unfound δ away; the highlighted operation is
scrolled into the view. Checked in headless Chromium on the README example and on the graphs
of lessons 01, 02 and 08; screenshots in test-artifacts/viz/."""
import pytest

from dagrad import viz
from dagrad.viz.quiz import questions

from .browser import browser_page
from .lesson_graphs import network_02, neuron_01, rnn_08
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


def feedback(page, k=0):
    return current(page).nth(k).locator(".vz-q-feedback").inner_text()


def type_answer(page, text, k=0):
    box = current(page).nth(k).locator("input")
    box.fill(text)
    box.press("Enter")
    return feedback(page, k)


def test_questions_carry_the_rule_in_the_graphs_names_and_numbers():
    y, names = readme_example()
    asked = {q["where"]: q for q in questions(viz.steps(y, names=names))}
    assert set(asked) == {"Tanh → Sum, input 0", "Mul → Tanh, input 0", "w → Mul, input 0",
                          "x → Mul, input 1"}                                 # not the seed
    assert asked["Mul → Tanh, input 0"]["rule"] == (
        "δ_u = δ_out · (1 − out²) = [1, 1, 1] · (1 − [0.4621, 0.7616, 0.9051]²)  "
        "(u: the output of Mul)")
    assert asked["x → Mul, input 1"]["rule"] == "δ_x = δ_out · w = [0.7864, 0.42, 0.1807] · 0.5"
    assert asked["w → Mul, input 0"]["name"] == "δ_w"
    assert "summed over the axes w was broadcast along" in asked["w → Mul, input 0"]["rule"]
    assert asked["w → Mul, input 0"]["right"] == "2.169"
    assert not any("2.169" in q["rule"] for q in asked.values())      # the rule, not the δ
    assert "vz-quiz" not in viz.player(viz.steps(y, names=names)).html


def test_the_lessons_rules_speak_the_lessons_symbols():
    """Lesson 01's δ_w = δ_out · x = (−1.997) · 0.5; lesson 02's fused Linear has one rule per
    edge (δ_x, δ_W, δ_b); lesson 08's edges are named by tensor and time step."""
    asked = {q["name"]: q for q in questions(neuron_01())}
    assert asked["δ_w"]["rule"] == "δ_w = δ_out · x = (-1.997) · 0.5"
    assert asked["δ_z"]["rule"] == "δ_z = δ_out · (1 − y²) = (-2.183) · (1 − (-0.2913)²)"
    assert [o["name"] for o in asked["δ_w"]["others"]] == ["δ_x"]
    linear = [q for q in questions(network_02()) if q["where"].endswith("→ Linear, input 0")
              and q["name"] == "δ_h" or q["name"] in ("δ_2.weight", "δ_2.bias")]
    rules = sorted(q["rule"].split(" = ")[0] for q in linear)
    assert rules == ["δ_2.bias", "δ_2.weight", "δ_h"]
    assert any(q["rule"].startswith("δ_2.weight = δ_outᵀ @ h = [[0.1139]]ᵀ @ ") for q in linear)
    rnn = questions(rnn_08())
    steps = {q["where"].rpartition(", ")[2] for q in rnn}
    assert {"t = 1", "t = 2", "t = 3"} <= steps
    into_h1 = [q for q in rnn if q["name"] == "δ_h_1"]
    assert into_h1 and all(q["rule"].startswith("δ_h_1 = δ_out · u = ") for q in into_h1)


@pytest.mark.browser
def test_a_wrong_value_keeps_the_delta_hidden_and_gives_the_rule_in_chromium(tmp_path):
    with browser_page() as page:
        open_page(page, tmp_path, quiz_player(), "quiz")
        assert page.locator(".vz-quiz-note.vz-current").inner_text().startswith("Forward pass")
        page.focus(".vz-player")
        for _ in range(3):
            page.keyboard.press("ArrowRight")              # keys step: Backward 1/3, Sum
        assert page.locator(".vz-title").inner_text() == "Backward 1/3: Sum"
        assert SUM_DELTA not in gradients_seen(page)        # hidden until found
        assert page.locator("g.vz-ask").count() == 1        # the asked edge is marked
        assert "Tanh → Sum" in current(page).inner_text()

        assert "type 3 numbers" in type_answer(page, "2")   # one number for three elements
        box = current(page).locator("input")
        box.fill("[2, 2, 2]")
        box.press("ArrowLeft")                              # typing does not change frames
        assert page.locator(".vz-title").inner_text() == "Backward 1/3: Sum"
        current(page).locator(".vz-q-check").click()
        said = feedback(page)
        shot(page, "quiz_wrong")
        assert said.startswith("✗ wrong: you wrote [2, 2, 2]. Try again, or press show.")
        assert "The rule: δ_u = δ_out = 1, copied to every element that was summed" in said
        assert "[1, 1, 1]" not in said                       # the δ itself is not given
        assert SUM_DELTA not in gradients_seen(page) and page.locator("g.vz-ask").count() == 1
        assert type_answer(page, "[1, 1, 1]").startswith("✓ right: δ_u = [1, 1, 1]")
        assert SUM_DELTA in gradients_seen(page)

        page.click(".vz-next")                              # buttons step: Backward 2/3, Tanh
        assert page.locator(".vz-title").inner_text() == "Backward 2/3: Tanh"
        assert TANH_DELTA not in gradients_seen(page)
        shot(page, "quiz_asking")
        said = type_answer(page, "0.786, 0.42, 0.181")      # within 1%
        shot(page, "quiz_right")
        assert said.startswith("✓ right: δ_u = [0.7864, 0.42, 0.1807]")
        assert TANH_DELTA in gradients_seen(page) and page.locator("g.vz-ask").count() == 0
        assert page.locator(".vz-quiz-score").inner_text() == (
            "Your answers: 2 right, 0 wrong, 0 shown (of 4 δ's asked).")

        page.click(".vz-prev")                              # found frames stay found
        page.click(".vz-next")
        assert TANH_DELTA in gradients_seen(page)
        page.focus(".vz-player")
        page.keyboard.press("ArrowRight")                   # Backward 3/3, Mul: two questions
        assert current(page).count() == 2
        assert "δ 2.169" not in gradients_seen(page)
        assert type_answer(page, "-2.169").startswith("✗ wrong")
        assert "It has the wrong sign." in feedback(page)
        current(page).nth(0).locator(".vz-q-show").click()  # "show" gives the δ ...
        shown = feedback(page)
        assert shown.startswith("δ_w = 2.169 (shown)")
        assert "δ 2.169" in gradients_seen(page)
        assert "not counted" in type_answer(page, "2.169")   # ... and a value typed after it
        current(page).nth(1).locator(".vz-q-show").click()
        assert page.locator(".vz-quiz-score").inner_text() == (
            "Your answers: 2 right, 1 wrong, 1 shown (of 4 δ's asked).")   # the wrong mark


@pytest.mark.browser
def test_the_tolerance_is_one_percent(tmp_path):
    with browser_page() as page:
        open_page(page, tmp_path, quiz_player(), "quiz")
        page.locator(".vz-slider").fill("5")                # Backward 3/3: Mul
        for answer, verdict in [("2.3", "✗ wrong"), ("-2.169", "✗ wrong"),
                                ("2.17", "✓ right"), ("2.169", "✓ right")]:
            assert type_answer(page, answer).startswith(verdict), answer


LEGEND_NUMBERS = """() => Array.from(document.querySelectorAll("text[data-legend]"))
    .filter(t => getComputedStyle(t).visibility !== "hidden").map(t => t.textContent)"""
TIPS = """() => Array.from(document.querySelectorAll("svg a"))
    .map(a => a.getAttributeNS("http://www.w3.org/1999/xlink", "title") || "").join("\\n")"""


@pytest.mark.browser
def test_nothing_on_the_page_gives_an_unfound_delta_away(tmp_path):
    """The legend's numbers (the range of every δ) and the tooltips stay without the δ's
    until they are found; a skipped question's δ stays hidden in later frames too."""
    frames = neuron_01()
    with browser_page() as page:
        open_page(page, tmp_path, viz.player(frames, quiz=True), "quiz_01")
        last = len(frames) - 1
        page.locator(".vz-slider").fill(str(last))          # every question skipped
        assert page.evaluate(LEGEND_NUMBERS) == []
        seen = " ".join(t for t, _ in page.evaluate(VISIBLE_TEXT))
        tips = page.evaluate(TIPS)
        for q in questions(frames):
            assert f"δ {q['right']}" not in seen and f"δ {q['right']}" not in tips, q["name"]
        for k in range(len(frames) // 2, len(frames)):       # show every δ
            page.locator(".vz-slider").fill(str(k))
            for button in current(page).locator(".vz-q-show").all():
                button.click()
        assert page.evaluate(LEGEND_NUMBERS)                 # all found: the legend reads


@pytest.mark.parametrize("lesson, build, expect", [
    ("01", neuron_01, "δ_w = δ_out · x = (-1.997) · 0.5"),
    ("02", network_02, "δ_2.weight = δ_outᵀ @ h"),
    ("08", rnn_08, "δ_h_2 = δ_out · u = "),
])
@pytest.mark.browser
def test_the_lessons_quiz_in_chromium_names_their_tensors_and_keeps_the_operation_in_view(
        tmp_path, lesson, build, expect):
    """Every backward frame: the highlighted operation lies inside the picture's box at the
    default zoom; a wrong answer's rule uses the graph's names (screenshots looked at)."""
    frames = build()
    asked = questions(frames)
    with browser_page() as page:
        open_page(page, tmp_path, viz.player(frames, quiz=True), f"quiz_{lesson}")
        outside, said = [], ""
        for f in frames[len(frames) // 2:]:
            page.locator(".vz-slider").fill(str(f.index))
            inside = page.evaluate("""() => {
                const view = document.querySelector(".vz-view").getBoundingClientRect();
                return Array.from(document.querySelectorAll("g.vz-hl")).every(g => {
                    const r = g.getBoundingClientRect();
                    return r.left >= view.left && r.right <= view.right &&
                           r.top >= view.top && r.bottom <= view.bottom; });
            }""")
            if not inside:
                outside.append(f.title)
            for k, q in enumerate(q for q in asked if q["frame"] == f.index):
                if expect.split(" = ")[0] in q["rule"] and not said:
                    said = type_answer(page, ", ".join("7" for _ in q["values"]), k)
                    shot(page, f"quiz_lesson_{lesson}")
        assert not outside, f"frames whose operation is outside the view: {outside}"
        assert expect in said and said.startswith("✗ wrong")


# Where the zoom buttons (and the picture under them) are, from the top of the player.
ZOOM_TOP = """() => { const p = document.querySelector(".vz-player");
    return document.querySelector(".vz-zoom").getBoundingClientRect().top
           - p.getBoundingClientRect().top; }"""


def looks_like_a_slip(q):
    """A wrong answer as a student types it (4 significant digits, as the picture shows
    numbers), the kind with the longest hint: the other input's δ, else the negative."""
    values = q["others"][0]["values"] if q["others"] else [-v for v in q["values"]]
    return ", ".join(f"{v:.4g}" for v in values)


@pytest.mark.parametrize("width", [1280, 390], ids=["1280px", "phone"])
@pytest.mark.browser
def test_neither_a_question_nor_its_answer_moves_the_picture(tmp_path, width):
    """The question panel keeps one height through every frame (a forward note, one question,
    two questions) and through every answer (a wrong one with its hint and the rule, shown,
    typed after show): the zoom buttons and the picture stay where they are."""
    frames = network_02()
    asked = questions(frames)
    with browser_page(width, 844) as page:
        open_page(page, tmp_path, viz.player(frames, quiz=True), f"quiz_still_{width}")
        tops = {}
        for f in frames:
            page.locator(".vz-slider").fill(str(f.index))
            tops[f.title] = page.evaluate(ZOOM_TOP)
            for k, q in enumerate(q for q in asked if q["frame"] == f.index):
                assert type_answer(page, looks_like_a_slip(q), k).startswith("✗ wrong")
                tops[f"{f.title}, {q['name']} wrong"] = page.evaluate(ZOOM_TOP)
                current(page).nth(k).locator(".vz-q-show").click()
                tops[f"{f.title}, {q['name']} shown"] = page.evaluate(ZOOM_TOP)
                assert "not counted" in type_answer(page, q["right"], k)
                tops[f"{f.title}, {q['name']} typed after show"] = page.evaluate(ZOOM_TOP)
        shot(page, f"quiz_still_{width}px")
        first = next(iter(tops.values()))
        moved = {when: top for when, top in tops.items() if abs(top - first) >= 1}
        assert not moved, f"the picture starts {first} px down, then moves: {moved}"
        assert len(tops) > len(frames) + 2 * len(asked)
