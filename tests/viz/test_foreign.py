"""viz draws the graphs of other engines: micrograd's ``Value`` as it is (``data``, ``grad``,
``_prev``, ``_op``) and a student's engine with ordered ``inputs`` and ``op``, with the
gradient on every edge (the consumer's local contribution)."""
import math
import pathlib
import re

import numpy as np
import pytest

from dagrad import viz
from dagrad.viz.foreign import follows_protocol

from .browser import browser_page
from .micrograd_style import Value

SHOTS = pathlib.Path(__file__).resolve().parents[2] / "test-artifacts" / "viz"


def neuron():
    """Karpathy's neuron: o = tanh(x1 w1 + x2 w2 + b), then backward in the engine."""
    x1, x2 = Value(2.0, label="x1"), Value(0.0, label="x2")
    w1, w2 = Value(-3.0, label="w1"), Value(1.0, label="w2")
    b = Value(6.8813735870195432, label="b")
    o = (x1 * w1 + x2 * w2 + b).tanh()
    o.label = "o"
    o.backward()
    return o, dict(x1=x1, x2=x2, w1=w1, w2=w2, b=b)


def reuse():
    """A value used three times, once squared (micrograd's set keeps x * x as one input)."""
    a = Value(1.5, label="a")
    c = Value(-2.0, label="c")
    y = (a * a + a * c).exp() + (a ** 3) * 0.5
    y.backward()
    return y, a, c


def edge_sums(graph):
    """Σ of the δ's on each producer's out-edges."""
    sums = {}
    for e in graph.edges:
        sums[e.src] = sums.get(e.src, 0.0) + float(e.grad)
    return sums


def test_micrograd_values_follow_the_protocol():
    o, _ = neuron()
    assert follows_protocol(o) and not follows_protocol(3.0)


def test_every_edge_of_a_micrograd_graph_has_its_gradient():
    o, leaves = neuron()
    g = viz.trace(o, grads=True)
    assert len(g.edges) == 10 and all(e.grad is not None for e in g.edges)
    by_name = {n.name: n for n in g.nodes}
    sums = edge_sums(g)
    for name, v in leaves.items():          # a leaf used once: its one edge carries all of it
        assert math.isclose(sums[by_name[name].id], v.grad, abs_tol=1e-12)
    # the edge into tanh carries o.grad (1 - o²), the local rule for tanh
    into_tanh = [e for e in g.edges if g[e.dst].name == "tanh"][0]
    assert math.isclose(float(into_tanh.grad), 1 - o.data ** 2)
    assert g[into_tanh.dst].formula == "y = tanh x"          # its derivative: Tanh's rule
    from dagrad.viz.rules import named_rules
    assert named_rules(g, g[into_tanh.dst]) == "δ_u = δ_out · (1 − out²)  (u: the output of +)"


def test_reused_values_split_their_gradient_over_their_edges():
    y, a, c = reuse()
    g = viz.trace(y, grads=True)
    a_node = next(n for n in g.nodes if n.name == "a")
    a_edges = g.edges_from(a_node.id)
    assert len(a_edges) == 3                      # a * a (one input in a set), a * c, a ** 3
    assert math.isclose(edge_sums(g)[a_node.id], a.grad, rel_tol=1e-12)
    contributions = sorted(float(e.grad) for e in a_edges)
    inner = math.exp(1.5 * 1.5 + 1.5 * -2.0)
    assert np.allclose(contributions, sorted([inner * 2 * 1.5, inner * -2.0,
                                              0.5 * 3 * 1.5 ** 2]))


class Node:
    """A student's engine that keeps ordered ``inputs`` and names its operations ``op``."""

    def __init__(self, data, inputs=(), op="", name=None):
        self.data, self.inputs, self.op, self.name, self.grad = data, list(inputs), op, name, 0.0


def test_ordered_inputs_and_the_order_dependent_rules():
    a, b = Node(3.0, name="a"), Node(2.0, name="b")
    d = Node(a.data - b.data, [a, b], "sub")
    q = Node(d.data / b.data, [d, b], "div")
    q.grad, d.grad = 1.0, 1 / b.data
    a.grad, b.grad = d.grad, -d.grad - d.data / b.data ** 2
    g = viz.trace(q, grads=True)
    grads = {(g[e.src].name, g[e.dst].name): float(e.grad) for e in g.edges}
    assert grads[("a", "sub")] == pytest.approx(0.5)
    assert grads[("b", "sub")] == pytest.approx(-0.5)
    assert grads[("b", "div")] == pytest.approx(-0.25)
    assert grads[("sub", "div")] == pytest.approx(0.5)


def test_an_unknown_operation_shows_the_total_only_on_a_single_use():
    x = Node(2.0, name="x")
    s = Node(math.sinh(2.0), [x], "sinh")
    y = Node(s.data * x.data, [s, x], "*")
    y.grad, s.grad = 1.0, x.data
    x.grad = s.data + s.grad * math.cosh(2.0)
    g = viz.trace(y, grads=True)
    into_sinh = next(e for e in g.edges if g[e.dst].name == "sinh")
    assert into_sinh.grad is None                  # x has two uses: its split is unknown
    s_edge = next(e for e in g.edges if g[e.src].name == "sinh")
    assert float(s_edge.grad) == pytest.approx(2.0)


def test_gradients_need_the_engines_backward_first():
    a = Value(2.0)
    y = a * a
    with pytest.raises(ValueError, match="backward"):
        viz.trace(y, grads=True)
    assert len(viz.trace(y).edges) == 2           # without gradients it draws


def test_anything_else_is_a_clear_type_error():
    with pytest.raises(TypeError, match="_prev and _op"):
        viz.trace(object())


@pytest.mark.browser
def test_the_drawing_has_a_delta_on_every_edge_in_chromium(tmp_path):
    o, leaves = neuron()
    dot = viz.draw(o, grads=True)
    svg = viz.render.svg(dot)
    edges = re.findall(r'<g id="vz_e\d+" class="edge">(.*?)</g>', svg, re.S)
    assert len(edges) == 10
    assert all("δ" in e for e in edges)
    path = viz.save(dot, tmp_path / "micrograd.html")
    with browser_page() as page:
        page.goto(pathlib.Path(path).as_uri())
        page.wait_for_selector("svg")
        SHOTS.mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(SHOTS / "foreign_micrograd.png"))
        visible = page.evaluate("""() => Array.from(document.querySelectorAll("g.edge"))
            .map(g => Array.from(g.querySelectorAll("text"))
              .filter(t => getComputedStyle(t).visibility !== "hidden"
                           && t.getBoundingClientRect().width > 0)
              .map(t => t.textContent))""")
    assert len(visible) == 10
    assert all(any(t.startswith("δ") for t in texts) for texts in visible), visible
    assert any("δ -1.5" in texts for texts in visible)     # x1's edge: w1 · 0.5


def test_a_wrong_backward_in_the_engine_shows_where_grad_disagrees_with_its_edges():
    y, a, c = reuse()
    assert viz.trace(y, grads=True).disagreements == {}

    class Buggy(Value):
        """The classic bug: ``=`` instead of ``+=``, so a value used twice keeps one δ."""
        def __mul__(self, other):
            other = other if isinstance(other, Value) else Buggy(other)
            out = Buggy(self.data * other.data, (self, other), "*")

            def _backward():
                self.grad = other.data * out.grad
                other.grad = self.data * out.grad
            out._backward = _backward
            return out
    a, b = Buggy(2.0, label="a"), Buggy(-3.0, label="b")
    y = a * b * a                          # a is used twice: ∂y/∂a = 2ab = -12
    y.backward()
    assert a.grad != -12.0
    g = viz.trace(y, grads=True)
    a_node = next(n for n in g.nodes if n.name == "a")
    assert set(g.disagreements) == {a_node.id}
    assert float(g.disagreements[a_node.id]) == pytest.approx(-12.0)
    svg = viz.render.svg(viz.draw(y, grads=True))
    assert "⚠ .grad is &#45;6, but its edges&#39; δ&#39;s add up to &#45;12" in svg


def test_steps_and_the_quiz_player_work_on_a_foreign_graph():
    o, _ = neuron()
    frames = viz.steps(o)
    assert len(frames) == 2 * 5 and frames[-1].title == "Backward 5/5: *"
    from dagrad.viz.quiz import questions
    asked = {q["label"]: q for q in questions(frames)}
    assert asked["+ → tanh"]["rule"].startswith("δ_u = δ_out · (1 − out²) = 1 · (1 − 0.7071²)")
    assert asked["w1 → *"]["rule"].startswith("δ_")
    assert "vz-q" in viz.player(frames, quiz=True).html


def test_a_tuple_of_inputs_keeps_both_uses_of_a_square():
    r = Node(-0.5, name="r")
    L = Node(0.25, [r, r], "*", name="L")
    L.grad, r.grad = 1.0, 2 * -0.5
    g = viz.trace(L, grads=True)
    into_product = [e for e in g.edges if g[e.dst].name == "*"]
    assert [float(e.grad) for e in into_product] == [-0.5, -0.5]   # L.grad · r on each edge
    assert g.disagreements == {}
