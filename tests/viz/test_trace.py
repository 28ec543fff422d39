"""viz.trace: graph structure, values and the gradient on every edge."""
import numpy as np
import pytest

from dagrad import autograd as ag
from dagrad import nn
from dagrad import viz
from tests.viz.dot_source import leaf


def edge(graph, src_name, dst_name):
    found = [e for e in graph.edges
             if graph[e.src].name == src_name and graph[e.dst].name == dst_name]
    assert len(found) == 1, found
    return found[0]


def test_sigmoid_at_zero_sends_a_quarter_back():
    u = leaf(0.0, "u")
    g = viz.trace(ag.sigmoid(u), grads=True)
    assert edge(g, "u", "Sigmoid").grad == pytest.approx(0.25)
    assert edge(g, "Sigmoid", "output").value == pytest.approx(0.5)
    assert g[g.root].grad == 1.0
    assert all(e.shape == () and e.dtype == np.float32 for e in g.edges)
    wide = viz.trace(ag.sigmoid(leaf([0.0, 1.0], "u", dtype="float64")), grads=True)
    assert [(e.shape, e.dtype) for e in wide.edges] == [((2,), np.float64)] * 2
    np.testing.assert_allclose(edge(wide, "u", "Sigmoid").grad, [0.25, 0.19661193], rtol=1e-7)


def test_affine_edges_carry_the_other_factor_and_one():
    w, x, b = leaf(-1.5, "w"), leaf(2.0, "x"), leaf(0.5, "b")
    g = viz.trace(w * x + b, grads=True)
    assert edge(g, "w", "Mul").grad == pytest.approx(2.0)       # ∂(wx+b)/∂w = x
    assert edge(g, "x", "Mul").grad == pytest.approx(-1.5)      # ∂/∂x = w
    assert edge(g, "b", "Add").grad == pytest.approx(1.0)
    assert edge(g, "Mul", "Add").grad == pytest.approx(1.0)
    assert edge(g, "Add", "output").value == pytest.approx(-2.5)


def test_a_tensor_used_twice_has_two_edges_and_their_sum_at_the_producer():
    a = leaf([3.0, -2.0], "a")
    g = viz.trace(a * a, grads=True, gradient=np.ones(2, np.float32))
    uses = [e for e in g.edges if g[e.src].name == "a"]
    assert [e.slot for e in uses] == [0, 1]
    for e in uses:
        np.testing.assert_allclose(e.grad, [3.0, -2.0])          # each use carries a
        np.testing.assert_allclose(e.value, [3.0, -2.0])
    np.testing.assert_allclose(g.find("a")[0].grad, [6.0, -4.0])  # the total is 2a


def test_nodes_are_in_topological_order_with_kinds():
    x, w = leaf([1.0, 2.0], "x"), leaf([0.5, 0.5], "w")
    y = (ag.tanh(x * w) * 2.0).sum()
    g = viz.trace(y)
    position = {n.id: k for k, n in enumerate(g.nodes)}
    assert all(position[e.src] < position[e.dst] for e in g.edges)
    assert [n.name for n in g.ops] == ["Mul", "Tanh", "Mul", "Sum"]
    assert {n.name: n.kind for n in g.nodes if n.kind != "op"} == {
        "x": "input", "w": "input", "2": "const", "output": "output"}
    assert not g.has_grads and all(e.grad is None for e in g.edges)
    assert g.ops[0].formula == "z = a * b; dz/da = b, dz/db = a"


def test_values_come_from_the_graph_or_from_record():
    x = leaf([1.0, 2.0], "x")
    y = ((x + 1.0) + 2.0).sum()          # Add keeps nothing for backward
    g = viz.trace(y)
    inner = edge(g, "Add", "Add")
    assert inner.value is None and g.missing_values >= 1
    g = viz.trace(y, grads=True)         # the shape is still known, from the gradient
    assert edge(g, "Add", "Add").shape == (2,)
    with viz.record():
        y = ((x + 1.0) + 2.0).sum()
    g = viz.trace(y)
    np.testing.assert_allclose(edge(g, "Add", "Add").value, [2.0, 3.0])
    assert g.missing_values == 0
    consts = sorted(float(n.value) for n in g.nodes if n.kind == "const")
    assert consts == [1.0, 2.0]


def test_saved_values_and_saved_outputs_are_used():
    x = leaf([0.0, 1.0], "x")
    y = ag.exp(x)                       # Exp saves its output
    z = (y * x).sum()                   # Mul saves its inputs
    g = viz.trace(z)
    np.testing.assert_allclose(edge(g, "Exp", "Mul").value, np.exp([0.0, 1.0]), rtol=1e-6)


def test_viz_changes_no_grad_and_backward_still_works(tmp_path):
    w, x = leaf([1.0, -2.0], "w"), leaf([0.5, 3.0], "x")
    h = w * x
    h.retain_grad()
    loss = (ag.tanh(h) * w).sum()
    loss.backward(retain_graph=True)
    before = {name: t.grad.numpy().copy() for name, t in (("w", w), ("x", x), ("h", h))}
    grad_objects = (w.grad, x.grad, h.grad)
    viz.trace(loss, grads=True)
    viz.draw(loss, grads=True).source
    viz.steps(loss)[-1].svg()
    viz.player(viz.steps(loss))
    viz.save(loss, tmp_path / "loss.dot")               # a tensor is drawn first
    assert (w.grad, x.grad, h.grad) == grad_objects
    for name, t in (("w", w), ("x", x), ("h", h)):
        np.testing.assert_array_equal(t.grad.numpy(), before[name])
    loss.backward()                      # accumulates a second, identical gradient
    for name, t in (("w", w), ("x", x), ("h", h)):
        np.testing.assert_allclose(t.grad.numpy(), 2 * before[name], rtol=1e-6)


def test_first_backward_after_viz_gives_the_right_gradients():
    a = leaf([1.5, -0.5], "a")
    loss = (a * a * a).sum()
    viz.trace(loss, grads=True)
    assert a.grad is None
    loss.backward()
    np.testing.assert_allclose(a.grad.numpy(), 3 * a.numpy() ** 2, rtol=1e-6)


def test_freed_graph_gives_advice():
    a = leaf(2.0, "a")
    y = ag.exp(a)
    y.backward()
    with pytest.raises(RuntimeError, match="Draw before calling backward"):
        viz.trace(y, grads=True)
    assert len(viz.trace(y).ops) == 1       # the structure is still there


def test_parameters_are_named_by_module_path_and_grouped():
    ag.manual_seed(0)
    model = nn.Sequential(nn.Linear(3, 4), nn.ReLU(), nn.Linear(4, 2))
    x = ag.randn(5, 3)
    loss = model(x).sum()
    g = viz.trace(loss, params=model)
    params = {n.name: n for n in g.nodes if n.kind == "param"}
    assert set(params) == {"0.weight", "0.bias", "2.weight", "2.bias"}
    assert params["2.bias"].module == "2"
    assert [n.module for n in g.ops] == ["0", "1", "2", None]
    unnamed = viz.trace(loss)           # still parameters, grouped by the module using them
    assert {n.module for n in unnamed.nodes if n.kind == "param"} == {"0", "2"}


def test_leaf_and_constant_roots():
    a = leaf([1.0, 2.0], "a")
    g = viz.trace(a, grads=True)
    assert [n.kind for n in g.nodes] == ["input", "output"]
    np.testing.assert_array_equal(g.find("a")[0].grad, [1.0, 1.0])
    g = viz.trace(ag.tensor(3.0))
    assert [n.kind for n in g.nodes] == ["const", "output"]
    with pytest.raises(ValueError, match="requires grad"):
        viz.trace(ag.tensor(3.0), grads=True)
    with pytest.raises(TypeError, match="Tensor"):
        viz.trace(3.0)


def test_deep_graphs_trace_without_recursion():
    x = leaf(1.0, "x")
    y = x
    for _ in range(100_000):
        y = y * 1.0
    g = viz.trace(y, grads=True)
    assert len(g.ops) == 100_000
    assert g.find("x")[0].grad == pytest.approx(1.0)


def test_named_class_targets_keep_their_name_in_the_graph():
    logits = ag.tensor(np.zeros((2, 3)), requires_grad=True)
    labels = ag.tensor([0, 2])
    labels.name = "labels"
    g = viz.trace(nn.functional.cross_entropy(logits, labels))
    assert ("input", "labels") in [(n.kind, n.name) for n in g.nodes]


def test_names_label_tensors_by_their_variable_names():
    weights = ag.tensor([0.5, -1.0], requires_grad=True)
    data = ag.tensor([[1.0, 2.0], [3.0, 4.0]])
    loss = (data @ weights).sum()
    names = {n.name: n.kind for n in viz.trace(loss, names=locals()).nodes}
    assert names == {"weights": "input", "data": "input", "MatMul": "op", "Sum": "op",
                     "loss": "output"}


def test_intermediate_tensors_are_named_on_the_edges_leaving_their_operation():
    w = ag.tensor(0.8, dtype=ag.float64, requires_grad=True)
    h = ag.zeros((), dtype=ag.float64)
    with viz.record():                            # inside record(): a name set on the tensor
        for t in (1, 2):
            h = ag.tanh(w * t + h)
            h.name = f"h_{t}"
        loss = (h - 0.5) ** 2
    g = viz.trace(loss, grads=True)
    assert sorted(n.output for n in g.nodes if n.output) == ["h_1", "h_2"]
    dot = viz.draw(loss, grads=True).source
    assert "<B>h_1</B>" in dot and "h_2: Tanh" in dot
    scores = w * 3.0                              # without record(): named through names=
    total = (scores * scores).sum()
    (op,) = [n for n in viz.trace(total, names={"scores": scores}).nodes if n.output]
    assert (op.name, op.output) == ("Mul", "scores")
    assert all(n.output is None for n in viz.trace(total).nodes)
    assert all(n.output is None for n in g.nodes if n.kind != "op")
