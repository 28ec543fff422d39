"""viz.time_step: an unrolled recurrence drawn left to right, one column per time step."""
import re

from dagrad import autograd as ag
from dagrad import viz
from tests.viz.edge_geometry import misplaced_labels
from tests.viz.lesson_graphs import rnn_08, rnn_08_loss


def unrolled_rnn(steps=3):
    w, u, b = (ag.tensor(v, dtype=ag.float64, requires_grad=True) for v in (0.8, -1.3, 0.1))
    w.name, u.name, b.name = "w", "u", "b"
    h = ag.zeros((), dtype=ag.float64)
    with viz.record():
        for t, x in enumerate([1.0, -0.5, 2.0, 0.3][:steps], 1):
            with viz.time_step(t):
                h = ag.tanh(w * x + u * h + b)
        loss = (h - 0.4) ** 2
    return loss


def column_boxes(svg):
    """{column label: (left, right) x of its cluster's outline} in a rendered SVG."""
    boxes = {}
    for m in re.finditer(r'<g id="[^"]*" class="cluster">(.*?)</g>', svg, re.S):
        label = re.search(r"<text[^>]*>(t = \d+)</text>", m.group(1))
        outline = re.search(r'(?:points|d)="([^"]*)"', m.group(1)).group(1)
        xs = [float(x) for x in re.findall(r"(-?[\d.]+),-?[\d.]+", outline)]
        if label:
            boxes[label.group(1)] = (min(xs), max(xs))
    return boxes


def test_each_time_step_is_a_column_left_to_right():
    d = viz.draw(unrolled_rnn(4), grads=True)
    assert "rankdir=LR" in d.source                     # chosen for time steps, not TB
    boxes = column_boxes(d.pipe(format="svg").decode())
    assert sorted(boxes) == ["t = 1", "t = 2", "t = 3", "t = 4"]
    for k in range(1, 4):         # each column starts and ends right of the one before
        (left, right), (next_left, next_right) = boxes[f"t = {k}"], boxes[f"t = {k + 1}"]
        assert left < next_left and right < next_right and next_left > (left + right) / 2, boxes


def test_time_steps_leave_no_trace_on_operations_outside_them():
    loss = unrolled_rnn(2)
    graph = viz.trace(loss)
    outside = [n for n in graph.nodes if n.kind == "op" and not n.module]
    assert [n.name for n in outside] == ["Sub", "Pow"]   # the loss, after the loop


def test_every_edge_label_sits_beside_its_own_edge():
    """A weight shared by the columns reaches each step's operation across that column's own
    edges; its δ label must be read as its own edge's (nearest to its path), not as the
    neighbouring input's (lesson 08 drew u → Mul (t = 1)'s "δ 0" on x₁'s edge)."""
    for steps in (3, 4):
        for loss in (rnn_08_loss([1.0, -0.5, 2.0, 0.3][:steps]), unrolled_rnn(steps)):
            svg = viz.draw(loss, grads=True).pipe(format="svg").decode()
            assert misplaced_labels(svg) == [], steps
    last = rnn_08()[-1]                              # every δ known: the player's picture
    assert misplaced_labels(last.svg()) == []
