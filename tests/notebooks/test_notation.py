"""One notation, stated once: lessons 02 and 04 write rows as examples, Y = X Wᵀ + b with W of
shape (out, in) as nn.Linear.weight, in every formula, exercise and printed label. The only
place a column-vector formula may appear is the lesson's conventions box (a Markdown quote
starting "**Conventions.**"), which names the switch for readers of column-vector texts.
"""
import re

import pytest

from tests.notebooks import harness

ROW_LESSONS = ["02", "04"]

# A matrix (W, W_1, W^T, J^T) multiplying a vector or δ written to its right, in LaTeX or in
# plain text: W x, W_1 \mathbf x, W_2^\top \delta, J^\top δ, "W1 x + b1", W₁x.
_MATRIX = r"(?:W|J)(?:_\{?\w+\}?|[₀-₉0-9])?(?:\^\\top|\^T|\^\{\\top\}|ᵀ)?"
_VECTOR = r"(?:\\mathbf\s*\{?[a-z]\b|\\mathbf\{[a-z]\}|\\delta|δ|\\boldsymbol|[xhuv]\b)"
COLUMN_PATTERNS = {
    "a matrix times a column vector (W x)":
        re.compile(_MATRIX + r"\s*(?:\\,|\\;|\\ )?\s*" + _VECTOR),
    "an outer product δ xᵀ of column vectors":
        re.compile(r"(?:\\delta|δ)(?:_\{[^{}]*\}|_\w)?\s*(?:\\,)?\s*\\mathbf\s*\{?[a-z]\}?\s*\^\\top"),
    "a batch times W without its transpose (X W + b)":
        re.compile(r"(?:\b[XH]|\\mathbf\s*\{?[xh]\}?)\s*W(?:_\{?\w+\}?)?\s*\+"),
}


def cell_text(cell):
    return "".join(cell["source"]) if isinstance(cell["source"], list) else cell["source"]


def outside_the_box(text):
    """``text`` without its conventions box (the quoted lines of a "**Conventions.**" note)."""
    lines, kept, in_box = text.splitlines(), [], False
    for line in lines:
        if line.startswith("> **Conventions.**"):
            in_box = True
        elif not line.startswith(">"):
            in_box = False
        if not in_box:
            kept.append(line)
    return "\n".join(kept)


def column_formulas(text):
    """[(what, the formula as written)] for each column-vector formula in ``text`` outside
    the conventions box."""
    text = outside_the_box(text)
    return [(what, m.group(0)) for what, pattern in COLUMN_PATTERNS.items()
            for m in pattern.finditer(text)]


def lesson(number):
    (path,) = harness.NOTEBOOK_DIR.glob(f"{number}_*.ipynb")
    return harness.notebook_json(path)


@pytest.mark.parametrize("number", ROW_LESSONS)
def test_the_lesson_states_its_conventions_once_at_the_top(number):
    cells = lesson(number)["cells"]
    boxes = [i for i, c in enumerate(cells) if "> **Conventions.**" in cell_text(c)]
    assert boxes == [0], f"lesson {number}: conventions boxes in cells {boxes}, expected one in 0"
    box = cell_text(cells[0])
    for words in ("Rows are examples", "W^\\top", "(out, in)", "nn.Linear.weight",
                  "\\delta_v = \\partial L / \\partial v"):
        assert words in box, f"lesson {number}'s conventions box does not say {words!r}"


@pytest.mark.parametrize("number", ROW_LESSONS)
def test_no_column_vector_formula_outside_the_box(number):
    found = [f"cell {i}: {what}: {formula!r}"
             for i, cell in enumerate(lesson(number)["cells"])
             for what, formula in column_formulas(cell_text(cell))]
    assert not found, "\n".join(found)


def test_the_detector_finds_the_column_forms_and_passes_the_row_forms():
    column = [r"$\mathbf z = W_1 \mathbf x + \mathbf b_1$", r"$\hat y = W_2 \mathbf h + b_2$",
              r"\delta_{\mathbf h} = W_2^\top \delta_{\hat y}", r"$\delta_u = J^\top \delta_v$",
              r"\delta_{W_2} &= \delta_{\hat y}\, \mathbf h^\top", r"$\mathbf o = X W + \mathbf b$",
              "(\"Linear 1:  z = W1 x + b1\", layer1, x, z)", "computes $W^\\top\\delta$ directly",
              r"$\mathbf o = W\mathbf x + \mathbf b$"]
    for text in column:
        assert column_formulas(text), text
    row = [r"$\mathbf z = \mathbf x W_1^\top + \mathbf b_1$", r"$O = X W^\top + \mathbf b$",
           r"\delta_{W_2} &= \delta_{\hat y}^\top\, \mathbf h", r"\delta_{\mathbf x} = \delta_{\mathbf z}\, W_1",
           r"$\delta_{\mathbf u} = \delta_{\mathbf v}\, J$", r"$\mathbf w\cdot\mathbf x + b$",
           r"$(\mathbf x W_1^\top + \mathbf b_1)\, W_2^\top + \mathbf b_2$",
           "> **Conventions.** Texts that write $\\mathbf z = W\\mathbf x + \\mathbf b$ ...\n> more"]
    for text in row:
        assert not column_formulas(text), (text, column_formulas(text))
