"""website/plain_math.py: the formulas of the lessons as the characters a reader sees, for the
site's search index."""
import json

import pytest

from website import build as site_build
from website.plain_math import FORMULA, formula, plain


@pytest.mark.parametrize("tex, text", [
    (r"\mathbf c_t = \tanh(\mathbf z)", "cₜ = tanh(z)"),
    (r"\hat{\mathbf y}^\top", "ŷᵀ"),
    (r"\partial v/\partial b = a", "∂v/∂b = a"),
    (r"\mathbf w \in \mathbb R^{d}", "w ∈ ℝᵈ"),
    (r"10^{-6}", "10⁻⁶"),
    (r"\frac{\partial L}{\partial w_{ij}} = \sum_i x_i \delta_j", "∂L/∂wᵢⱼ = Σᵢ xᵢ δⱼ"),
    (r"\tfrac{1}{n}\sum_i (y_i - \hat y_i)^2", "1/nΣᵢ (yᵢ - ŷᵢ)²"),
    (r"\sqrt{d_k}", "√dₖ"),
    (r"\lVert\mathbf x\rVert \le R", "‖x‖ ≤ R"),
    (r"W_2 W_1 = \underbrace{W_2 W_1}_{W}", "W₂ W₁ = W₂ W₁"),
    (r"\operatorname{softmax}(x)_i", "softmax(x)ᵢ"),
    (r"x \sim \mathcal N(0, 1)", "x ∼ N(0, 1)"),
    (r"\log p(x) \ge \mathbb E_q[\log p]", "log p(x) ≥ 𝔼_q[log p]"),
    (r"\begin{aligned} a &= b \\ c &= d \end{aligned}", "a = b ; c = d"),
    (r"\mathrm{unknown}\,\foo{x}", "unknown foox"),
])
def test_a_formula_reads_as_text(tex, text):
    assert formula(tex) == text


def test_every_delimiter_and_the_text_around_it():
    assert plain(r"the cell $\mathbf c_t$ and $$\delta = 1$$, \(a^2\) or \[b_1\].") == \
        "the cell cₜ and δ = 1, a² or b₁."
    assert plain("no formula: 3 $ and a shell's \\$HOME") == "no formula: 3 $ and a shell's \\$HOME"


def test_no_formula_of_the_lessons_keeps_a_backslash():
    """Every formula written in a lesson's text comes out without a TeX command."""
    formulas = 0
    for lesson in site_build.lessons():
        nb = json.loads(lesson.read_text(encoding="utf-8"))
        for cell in nb["cells"]:
            if cell["cell_type"] == "markdown":
                for found in FORMULA.finditer("".join(cell["source"])):
                    assert "\\" not in plain(found.group(0)), (lesson.stem, found.group(0))
                    formulas += 1
    assert formulas > 500
