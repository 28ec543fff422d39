"""viz.draw: labels in the DOT source, rendering with Graphviz, module clusters and depth."""
import importlib
import os
import re
import tracemalloc
import xml.etree.ElementTree as ET

import numpy as np
import pytest

from dagrad import autograd as ag
from dagrad import nn
from dagrad import viz
from tests.viz.dot_source import edges, gradients, leaf, node_labels, node_names
from tests.viz.modules import block_stack


def labels_only(source):
    return re.sub(r'tooltip="[^"]*"', "", source)


def only(found):
    assert len(found) == 1, found
    return found[0]


def test_sigmoid_edge_carries_a_quarter():
    u = leaf(0.0, "u")
    source = viz.draw(ag.sigmoid(u), grads=True).source
    label = only([a for s, d, a in edges(source) if (s, d) == ("u", "Sigmoid")])
    assert gradients(label) == ["0.25"]


def test_affine_edges_from_w_and_b():
    w, x, b = leaf(-1.5, "w"), leaf(2.0, "x"), leaf(0.5, "b")
    source = viz.draw(w * x + b, grads=True).source
    found = {(s, d): gradients(a) for s, d, a in edges(source)}
    assert found[("w", "Mul")] == ["2"]        # x
    assert found[("x", "Mul")] == ["-1.5"]     # w
    assert found[("b", "Add")] == ["1"]
    assert found[("Add", "output")] == ["1"]


def test_square_has_two_edges_each_carrying_a_and_the_sum_at_a():
    a = leaf([3.0, -2.0], "a")
    source = viz.draw((a * a).sum(), grads=True).source
    uses = [attrs for s, d, attrs in edges(source) if (s, d) == ("a", "Mul")]
    assert [gradients(u) for u in uses] == [["[3, -2]"], ["[3, -2]"]]
    labels = node_labels(source)
    a_id = only([i for i, n in node_names(source).items() if n == "a"])
    assert gradients(labels[a_id] + "<") == ["[6, -4]"] and "Σδ" in labels[a_id]


def test_values_shapes_and_summaries():
    x = leaf(np.arange(12.0).reshape(3, 4), "x")
    with viz.record():
        y = (x * 2.0).sum(dim=1)
    source = viz.draw(y.sum(), grads=True).source
    mul_to_sum = only([a for s, d, a in edges(source) if (s, d) == ("Mul", "Sum")])
    # up to 16 elements in full, a matrix one line per row (a 3 x 4 block); the tooltip too
    assert "(3, 4)" in mul_to_sum
    assert "[[0, 2, 4, 6]<BR/>[8, 10, 12, 14]<BR/>[16, 18, 20, 22]]" in mul_to_sum
    assert "δ [[1, 1, 1, 1]<" in mul_to_sum and "[1, 1, 1, 1]]<" in mul_to_sum
    assert "value [[0, 2, 4, 6], [8, 10, 12, 14], [16, 18, 20, 22]]" in mul_to_sum
    sum_to_sum = only([a for s, d, a in edges(source) if (s, d) == ("Sum", "Sum")])
    assert "[12, 44, 76]" in sum_to_sum and "δ [1, 1, 1]" in sum_to_sum
    bare = labels_only(viz.draw(y.sum(), values=False, shapes=False).source)
    assert "(3, 4)" not in bare and "[12, 44, 76]" not in bare


def test_tensors_over_16_elements_are_labelled_by_their_rms():
    x = leaf(np.arange(20.0).reshape(4, 5), "x")
    with viz.record():
        y = (x * 2.0).sum()
    source = viz.draw(y, grads=True).source
    mul_to_sum = only([a for s, d, a in edges(source) if (s, d) == ("Mul", "Sum")])
    assert "rms 22.23" in mul_to_sum and "δ rms 1<" in mul_to_sum
    assert "value [[0, 2, 4, 6, 8]," in mul_to_sum                # the tooltip keeps them all


def test_a_line_of_more_than_8_numbers_is_summarised():
    """A (10,) bias written out is a label as wide as a screen: a line holds at most 8 numbers,
    so a vector of 10 reads as its rms (and its box stays narrow), one of 8 in full."""
    b10, b8 = leaf(np.arange(10.0), "b10"), leaf(np.arange(8.0), "b8")
    with viz.record():
        y = (b10 * 2.0).sum() + (b8 * 2.0).sum()
    source = viz.draw(y, grads=True).source
    assert "[0, 2, 4, 6, 8, 10, 12, 14]" in only(
        [a for s, d, a in edges(source) if (s, d) == ("Mul", "Sum") and "(8,)" in a])
    ten = only([a for s, d, a in edges(source) if (s, d) == ("Mul", "Sum") and "(10,)" in a])
    assert "rms 10.68" in ten and "δ [1, 1," not in ten.split("value")[0]
    assert "value [0, 2, 4, 6, 8, 10, 12, 14, 16, 18]" in ten      # the tooltip keeps them all


def test_needing_a_gradient_is_drawn_apart_from_size():
    """A tensor that needs a gradient is blue whatever its size, one that does not is grey
    whatever its size (a scalar ε of the reparameterisation trick, a batch of data)."""
    w = ag.tensor(0.5, requires_grad=True)                  # one element, needs δ
    eps = ag.tensor(0.3)                                    # one element, no δ
    data = ag.randn(2, 3)                                   # six elements, no δ
    w.name, eps.name, data.name = "w", "eps", "data"
    source = viz.draw((w * eps * data).sum(), grads=True).source
    fills = {n: re.search(r'fillcolor="([^"]*)"', line).group(1)
             for line in source.splitlines() for n in ("w", "eps", "data")
             if f"<B>{n}</B>" in line}
    assert fills == {"w": "#cfe8fc", "eps": "#f2f2f2", "data": "#f2f2f2"}
    assert "data (no δ)" in source and "input (needs δ)" in source


def test_gradient_colours_follow_magnitude_and_zero_is_grey():
    x = leaf([-1.0, 2.0], "x")
    with viz.record():
        y = (ag.relu(x * 100.0) * 0.001).sum()
    source = viz.draw(y, grads=True).source
    colour = {(s, d): re.search(r' color="([^"]*)"', a).group(1)
              for s, d, a in edges(source) if " color=" in a}
    small, large = colour[("Relu", "Mul")], colour[("Sum", "output")]
    assert small != large
    z = ag.relu(leaf([-1.0], "z")).sum()
    zero = only([a for s, d, a in edges(viz.draw(z, grads=True).source) if d == "Relu"])
    assert "dashed" in zero and "#9e9e9e" in zero
    legend = viz.draw(y, grads=True).source
    assert "log scale" in legend


def test_kinds_are_styled_apart():
    ag.manual_seed(0)
    lin = nn.Linear(2, 1)
    x = ag.randn(3, 2)
    source = viz.draw(lin(x).sum(), params=lin).source
    labels = {n: line for line in source.splitlines() for n in ("weight", "input", "Linear")
              if f"<B>{n}</B>" in line}
    assert '"#ffd8a8"' in labels["weight"]            # parameter: orange
    assert '"#f2f2f2"' in labels["input"]             # data (no gradient): grey, any size
    assert '"#ffffff"' in labels["Linear"]            # operation: white
    scalar = viz.draw((lin(x) * ag.tensor(2.0)).sum()).source
    const = [line for line in scalar.splitlines() if "<B>const</B>" in line]
    assert len(const) == 1 and "dashed" in const[0]   # a scalar constant: dashed grey


def svg_nodes(svg):
    root = ET.fromstring(svg)                          # well-formed XML
    assert root.tag.endswith("svg")
    ns = {"s": "http://www.w3.org/2000/svg"}
    return root.findall(".//s:g[@class='node']", ns)


def test_renders_to_svg_with_one_node_per_box():
    model = block_stack()
    x = ag.randn(2, 3, 8)
    loss = model(x).pow(2).mean()
    graph = viz.trace(loss, grads=True, params=model)
    digraph = viz.draw(graph, max_nodes=1000)
    svg = digraph.pipe(format="svg").decode()
    assert len(svg_nodes(svg)) == len(graph.nodes)
    assert svg.count('class="cluster"') >= 2 * 6        # the blocks and their sub-modules


def test_depth_collapses_modules_into_far_fewer_boxes():
    model = block_stack()
    x = ag.randn(2, 3, 8)
    loss = model(x).pow(2).mean()
    full = viz.draw(loss, grads=True, params=model, max_nodes=1000)
    one = viz.draw(loss, grads=True, params=model, depth=1, fold=False)
    two = viz.draw(loss, grads=True, params=model, depth=2, fold=False)
    n_full, n_one, n_two = (len(svg_nodes(d.pipe(format="svg").decode()))
                            for d in (full, one, two))
    assert n_one * 10 < n_full and n_one < n_two < n_full
    source = one.source
    boxes = [line for line in source.splitlines() if "box3d" in line]
    assert len(boxes) == 2 and "Block" in boxes[0] and "params" in boxes[0]
    # the block's input is used by several operations inside: one merged edge, summed δ
    assert "×2 uses" in source


def test_identical_blocks_fold_into_one_box():
    model = block_stack(layers=3)
    with viz.record():                 # keeps the input x of the residual Add too
        loss = model(ag.randn(2, 3, 8)).pow(2).mean()
    source = viz.draw(loss, grads=True, params=model, depth=1).source
    boxes = [line for line in source.splitlines() if "box3d" in line]
    assert len(boxes) == 1
    assert "0 … 2</B>  <B>×3</B>" in boxes[0] and "14 params (528 values) each" in boxes[0]
    assert sorted(node_names(source).values()) == ["0 … 2", "2", "Mean", "Pow", "input",
                                                   "output"]      # the data x


def test_too_many_nodes_suggests_depth():
    model = block_stack()
    loss = model(ag.randn(2, 3, 8)).sum()
    with pytest.raises(ValueError, match="depth=1"):
        viz.draw(loss, max_nodes=20)
    with pytest.raises(ValueError, match="smaller depth"):
        viz.draw(loss, max_nodes=3, depth=2)
    x = leaf([1.0], "x")
    y = x
    for _ in range(30):
        y = y * 1.0
    with pytest.raises(ValueError, match="outside any nn.Module"):
        viz.draw(y, max_nodes=20)


def indexed_sum(n):
    """x[0] + x[1] + ... + x[n-1]: each x[i] sends a gradient the size of x back (n of them)."""
    x = ag.tensor(np.arange(float(n)), dtype="float64", requires_grad=True)
    total = x[0]
    for i in range(1, n):
        total = total + x[i]
    return total


@pytest.mark.parametrize("picture", [viz.draw, viz.steps])
def test_a_picture_too_large_is_refused_before_any_gradient_is_computed(picture, monkeypatch):
    tracing = importlib.import_module("dagrad.viz.trace")
    s = indexed_sum(3000)               # 9,001 boxes; its 6,000 edge δ's would take 144 MB
    computed = []
    edge_gradients = tracing.edge_gradients
    monkeypatch.setattr(tracing, "edge_gradients",
                        lambda *a, **k: computed.append(1) or edge_gradients(*a, **k))
    tracemalloc.start()
    try:
        with pytest.raises(ValueError, match="boxes, more than max_nodes"):
            picture(s, grads=True) if picture is viz.draw else picture(s)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert not computed
    assert peak < 30e6, f"{peak / 1e6:.0f} MB"


def test_module_options():
    model = block_stack(layers=1)
    loss = model(ag.randn(1, 2, 8)).sum()
    labelled = labels_only(viz.draw(loss, modules="label", max_nodes=1000).source)
    assert "cluster" not in labelled and "0.mlp.0" in labelled
    plain = labels_only(viz.draw(loss, modules=None, max_nodes=1000).source)
    assert "cluster" not in plain and "0.mlp.0" not in plain
    assert "rankdir=TB" in viz.draw(loss, max_nodes=1000).source      # deep: top to bottom
    assert "rankdir=LR" in viz.draw(loss, rankdir="LR", max_nodes=1000).source
    assert "rankdir=LR" in viz.draw(ag.sigmoid(leaf(0.0, "u"))).source  # shallow: left-right
    for bad in (dict(modules="boxes"), dict(depth=0), dict(rankdir="up")):
        with pytest.raises(ValueError):
            viz.draw(loss, **bad)


def test_save_formats(tmp_path):
    a = leaf([1.0, 2.0], "a")
    d = viz.draw((a * a).sum(), grads=True)
    for ext, magic in (("svg", b"<?xml"), ("png", b"\x89PNG"), ("pdf", b"%PDF"),
                       ("dot", b"digraph")):
        path = viz.save(d, tmp_path / "sub" / f"g.{ext}")
        with open(path, "rb") as f:
            assert f.read(8).startswith(magic), ext
    viz.save((a * a).sum(), tmp_path / "tensor.svg")        # a tensor is drawn first
    with pytest.raises(ValueError, match="extension"):
        viz.save(d, tmp_path / "g.bmp")
    with pytest.raises(ValueError, match="no extension"):
        viz.save(d, tmp_path / "g")


def test_missing_dot_says_how_to_install(tmp_path, monkeypatch):
    monkeypatch.setenv("PATH", str(tmp_path))
    d = viz.draw(ag.sigmoid(leaf(0.0, "u")), grads=True)
    assert "Sigmoid" in d.source                               # DOT text still works
    with pytest.raises(RuntimeError, match="apt-get install graphviz"):
        viz.save(d, tmp_path / "g.svg")
    viz.save(d, tmp_path / "g.dot")
    assert os.path.exists(tmp_path / "g.dot")


def test_notebooks_show_a_pan_and_zoom_view_and_files_keep_the_svg(tmp_path):
    d = viz.draw(ag.sigmoid(leaf(0.0, "u")))
    bundle = d._repr_mimebundle_()
    assert set(bundle) == {"text/html", "image/svg+xml"}
    assert 'class="vz-view"' in bundle["text/html"] and "<svg" in bundle["text/html"]
    assert "http" not in bundle["text/html"].split("<svg", 1)[0]
    page = open(viz.save(d, tmp_path / "g.html"), encoding="utf-8").read()
    assert page.startswith("<!DOCTYPE html>") and "vz-fit" in page


def test_raising_max_nodes_past_a_few_thousand_warns():
    with pytest.warns(UserWarning, match="depth=1"):
        viz.draw(ag.sigmoid(leaf(0.0, "u")), max_nodes=10_000)


def test_importing_viz_needs_only_numpy():
    import subprocess
    import sys
    code = ("import sys; from dagrad import viz; heavy = [m for m in ('graphviz', 'matplotlib', 'dagrad.nn') "
            "if m in sys.modules]; print(heavy)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True, cwd=os.path.dirname(os.path.dirname(os.path.dirname(
                             os.path.abspath(__file__)))))
    assert out.stdout.strip() == "[]"


def test_missing_graphviz_package_names_the_install(monkeypatch):
    import sys
    from dagrad.viz import render as viz_render
    monkeypatch.setitem(sys.modules, "graphviz", None)
    monkeypatch.setattr(viz_render, "_DIGRAPH", None)
    with pytest.raises(ImportError, match="pip install graphviz"):
        viz.draw(ag.sigmoid(leaf(0.0, "u")))
