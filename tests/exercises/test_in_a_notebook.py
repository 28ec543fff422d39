"""Every check reaches the cell's output in a real Jupyter kernel: two checks in one cell both
show, a check returned or displayed is not shown twice, attempts are counted per exercise
across cell runs (checks of one exercise in one cell are one attempt), and reveal() shows the
right value. Read from the executed notebook's outputs, as a student sees them."""
import pytest

CELLS = [
    "from dagrad.exercises import check_value, reveal",
    # 0: two checks in one cell, the first wrong: both verdicts show
    'check_value(1.0, 2.0, exercise="98.1")\ncheck_value(2.0, 2.0, exercise="98.2")',
    # 1: displayed explicitly, and returned as the cell's value: one output each
    'display(check_value(3.0, 3.0, exercise="98.3"))',
    'r = check_value(5.0, 3.0, exercise="98.4")\nr',
    # 3, 4: the same exercise in a later cell is the next attempt
    'check_value(5.0, 3.0, exercise="98.4")',
    # 5: two checks of one exercise in one cell are one attempt
    'check_value(7.0, 3.0, exercise="98.5")\ncheck_value(8.0, 3.0, exercise="98.5")',
    'reveal("98.4")',
]


def visible(outputs):
    return [o.get("data", {}).get("text/plain", o.get("text", "")) for o in outputs]


@pytest.fixture(scope="module")
def executed():
    nbformat = pytest.importorskip("nbformat", reason="install the notebooks extra")
    nbclient = pytest.importorskip("nbclient", reason="install the notebooks extra")
    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_code_cell(source) for source in CELLS]
    nbclient.NotebookClient(nb, timeout=120, kernel_name="python3").execute()
    return [visible(cell.outputs) for cell in nb.cells[1:]]


def test_two_checks_in_one_cell_both_show(executed):
    shown = executed[0]
    assert len(shown) == 2
    assert shown[0].startswith("Exercise 98.1: ✗ wrong:") and "98.2: ✓ right" in shown[1]


def test_a_check_displayed_or_returned_shows_once(executed):
    assert len(executed[1]) == 1 and "✓ right" in executed[1][0]
    assert len(executed[2]) == 1 and "✗ wrong" in executed[2][0]


def test_attempts_are_counted_per_exercise_across_cells(executed):
    assert "Attempt 1" in executed[2][0] and "should be 3" not in executed[2][0]
    assert "Attempt 2 (the same answer as before)" in executed[3][0]
    assert all("Attempt 1." in text for text in executed[4]) and len(executed[4]) == 2


def test_reveal_shows_the_right_value(executed):
    assert len(executed[5]) == 1 and "should be 3" in executed[5][0]
