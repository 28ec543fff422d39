"""A whole backward pass by hand: each δ judged where its mistake enters, whatever the tensors'
sizes (the student's own δ's carried back through a copy of the graph), and exercises that
share a progress map (each knows the others' answers; the picture is the whole pass)."""
import numpy as np
import pytest

from dagrad import autograd as ag
from dagrad.exercises import Exercise, Grads, Misconception, check, check_grads, define, given
from dagrad.exercises import tutor

B, D, H, V = 16, 6, 10, 5           # every tensor of the chain has more than 64 elements


def mlp(seed=0):
    """h = tanh(X W1ᵀ + b1), logits = h W2ᵀ + b2, loss = cross-entropy (mean over the rows)."""
    rng = np.random.default_rng(seed)
    t = {"X": ag.tensor(rng.normal(size=(B, D)), requires_grad=True),
         "W1": ag.tensor(rng.normal(size=(H, D)) / 3, requires_grad=True),
         "b1": ag.tensor(rng.normal(size=H) / 3, requires_grad=True),
         "W2": ag.tensor(rng.normal(size=(V, H)) / 3, requires_grad=True),
         "b2": ag.tensor(rng.normal(size=V) / 3, requires_grad=True)}
    t["y"] = rng.integers(0, V, size=B)
    t["a"] = t["X"] @ t["W1"].T + t["b1"]
    t["h"] = t["a"].tanh()
    t["logits"] = t["h"] @ t["W2"].T + t["b2"]
    t["loss"] = -t["logits"].log_softmax(dim=1)[np.arange(B), t["y"]].mean()
    return t


def by_hand(t):
    """Every δ of ``mlp``, from the loss back, in NumPy."""
    v = {k: x.numpy() if hasattr(x, "numpy") else x for k, x in t.items()}
    p = np.exp(v["logits"] - v["logits"].max(1, keepdims=True))
    p /= p.sum(1, keepdims=True)
    d = {"logits": (p - np.eye(V)[v["y"]]) / B}
    d["W2"], d["b2"], d["h"] = d["logits"].T @ v["h"], d["logits"].sum(0), d["logits"] @ v["W2"]
    d["a"] = d["h"] * (1 - v["h"] ** 2)
    d["W1"], d["b1"], d["X"] = d["a"].T @ v["X"], d["a"].sum(0), d["a"] @ v["W1"]
    return d


def test_a_mistake_in_a_large_chain_is_named_where_it_enters():
    t = mlp()
    d = by_hand(t)
    d["h"] = d["logits"] @ t["W2"].numpy() * 3          # a factor of 3 enters at δ_h
    d["a"] = d["h"] * (1 - t["h"].numpy() ** 2)          # and everything after it follows
    d["W1"], d["X"] = d["a"].T @ t["X"].numpy(), d["a"] @ t["W1"].numpy()
    r = check_grads({k: d[k] for k in ("logits", "h", "a", "W1", "X")}, t["loss"], names=t)
    assert r.diagnosis == "factor"
    assert "The mistake enters at ∂L/∂h" in r.message
    assert "∂L/∂a, ∂L/∂W1, ∂L/∂X follow from your ∂L/∂h" in r.message
    cells = {row[0]: row[2] for row in r.table[1:]}
    assert cells["∂L/∂W1"] == "✗ follows from ∂L/∂h" and cells["∂L/∂logits"] == "✓ right"


def test_a_second_mistake_is_judged_against_what_your_own_deltas_give():
    """δ_W1 transposed, computed from a wrong δ_a: against the right value the two mistakes
    mix into "value"; against the chain rule from the student's δ_a it is the transpose."""
    t = mlp()
    d = by_hand(t)
    d["a"] = d["h"] * t["h"].numpy()                     # tanh's derivative taken as h
    d["W1"] = (d["a"].T @ t["X"].numpy()).T              # and δ_W1 transposed besides
    d["b1"] = d["a"].sum(0)
    r = check_grads({k: d[k] for k in ("h", "a", "W1", "b1")}, t["loss"], names=t)
    assert r.diagnoses == ["value", "transposed"], r.message
    assert "∂L/∂b1 follows from your ∂L/∂a" in r.message
    d["W1"] = d["a"].T.copy() @ t["X"].numpy() * 2      # a factor, against the carried value
    r = check_grads({k: d[k] for k in ("h", "a", "W1", "b1")}, t["loss"], names=t)
    assert "∂L/∂W1 is wrong" not in r.message and "The mistake enters at ∂L/∂W1" in r.message
    assert "exactly twice" in r.message and "from your own ∂L/∂a" in r.message


def test_a_delta_passed_on_unchanged_is_a_missing_local_derivative_at_any_size():
    t = mlp()
    d = by_hand(t)
    d["a"] = d["h"].copy()                               # the tanh's 1 − h² forgotten
    r = check_grads({"h": d["h"], "a": d["a"]}, t["loss"], names=t)
    assert r.diagnosis == "missing_local_derivative"
    assert "it is your ∂L/∂h passed on unchanged" in r.message


def test_the_carried_deltas_survive_a_backward_that_frees_the_graph():
    t = mlp()
    define(Exercise("96.1", Grads({"d_h": "h", "d_a": "a"}, loss="loss")))
    given("96.1", **t)
    t["loss"].backward()                                 # frees the graph's saved values
    d = by_hand(t)
    r = check("96.1", d["h"] * 2, d["a"] * 2)
    assert r.diagnosis == "factor" and "∂L/∂a" not in r.message
    assert "δ_a follows from your δ_h" in r.message


def pass_exercises():
    """The backward pass of ``mlp`` in two exercises sharing a progress map; the second
    lists the bias's missing batch sum, written with the student's own δ_logits."""
    define(Exercise("96.2", Grads({"d_logits": "logits"}, loss="loss", progress_map="96")),
           Exercise("96.3", Grads(
               {"d_h": "h", "d_W2": "W2", "d_b2": "b2"}, loss="loss", progress_map="96",
               misconceptions=[Misconception(
                   "missing_batch_sum", lambda g: {"d_b2": g.delta("logits")},
                   "yours for δ_b2 keeps one row per example: the bias is added to every "
                   "row, so its δ is the sum of the rows' δ's")])))
    t = mlp()
    given("96.2", **t)
    given("96.3", **t)
    return t, by_hand(t)


def test_an_exercise_of_a_pass_knows_the_earlier_answers():
    t, d = pass_exercises()
    assert not check("96.2", d["logits"] * B)            # the 1/B of the mean left out
    wrong_logits = d["logits"] * B
    steps = (wrong_logits @ t["W2"].numpy(), wrong_logits.T @ t["h"].numpy(),
             wrong_logits.sum(0))
    r = check("96.3", *steps)
    assert not r and r.diagnosis == "inherited"
    assert ("δ_h, δ_W2, δ_b2 follow from your δ_logits (exercise 96.2) by the chain rule"
            in r.message)
    assert check("96.2", d["logits"])                    # fixed there ...
    assert check("96.3", d["h"], d["W2"], d["b2"])       # ... and right here


def test_a_misconception_is_named_after_a_mistake_further_down_the_chain():
    """g.delta applies the wrong rule to the student's own δ_logits, wrong as they are."""
    t, d = pass_exercises()
    wrong_logits = d["logits"] * B
    check("96.2", wrong_logits)
    r = check("96.3", wrong_logits @ t["W2"].numpy(), wrong_logits.T @ t["h"].numpy(),
              wrong_logits)
    assert r.diagnoses == ["missing_batch_sum"], r.message
    assert "keeps one row per example" in r.message


def test_the_picture_of_a_pass_is_the_progress_map():
    """Every tensor of the pass is marked: right, wrong (red), or not answered yet, the
    earlier exercise's answers included."""
    pytest.importorskip("graphviz")
    t, d = pass_exercises()
    check("96.2", d["logits"] * B)
    svg = check("96.3", d["h"], None, None).svg
    assert "✗ δ_logits wrong" in svg and "✓ δ_h right" in svg and "#d50000" in svg
    assert "? δ_W2 not answered" in svg and "? δ_b2 not answered" in svg
    check("96.2", d["logits"])
    svg = check("96.3", d["h"], d["W2"], d["b2"]).svg
    assert "✓ δ_logits right" in svg and "✓ δ_b2 right" in svg and "#d50000" not in svg


def test_the_picture_of_large_wrong_tensors_is_drawn():
    """A wrong (64, 48) δ's tooltip holds its corners, not all 3,072 elements: Graphviz refuses
    a quoted string of more than 16,384 characters."""
    pytest.importorskip("graphviz")
    rng = np.random.default_rng(3)
    W = ag.tensor(rng.normal(size=(64, 48)), requires_grad=True)
    x = ag.tensor(rng.normal(size=(5, 48)))
    loss = (x @ W.T).tanh().sum()
    r = check_grads({"W": rng.normal(size=(64, 48))}, loss, names={"W": W})
    assert "<svg" in r._repr_html_() and "No picture" not in r._repr_html_()
    assert "✗ ∂L/∂W wrong" in r.svg


def test_an_exercise_checked_before_the_others_judges_against_the_engine():
    """Nothing answered earlier in the pass (a fresh kernel, or the exercises taken out of
    order): the δ's downstream are the engine's, and the map marks them not answered."""
    pytest.importorskip("graphviz")
    t, d = pass_exercises()
    r = check("96.3", d["h"] * 2, d["W2"], d["b2"])
    assert r.diagnosis == "factor" and "follow" not in r.message
    assert "? δ_logits not answered" in r.svg
    assert set(tutor.PROGRESS["96"]) == {"d_h", "d_W2", "d_b2"}


def test_carrying_the_deltas_back_is_linear_in_the_graph():
    """Complexity, not speed: one walk over the graph per check, so a chain 10x as long (every
    tenth tensor answered) costs about 10x, asserted with a generous bound."""
    import time

    from dagrad.exercises.carry import Snapshot

    def seconds(n):
        x = ag.tensor(np.linspace(-1, 1, 8), requires_grad=True)
        tensors, h = {}, x
        for k in range(n):
            h = (h * 0.9).tanh()
            if k % 10 == 0:
                tensors[f"h{k}"] = h
        loss = h.sum()
        snapshot = Snapshot(loss, tensors)
        mine = {k: np.ones(8) for k in tensors}
        best = float("inf")
        for _ in range(3):
            start = time.perf_counter()
            carried, _ = snapshot.carry(mine)
            best = min(best, time.perf_counter() - start)
        assert set(carried) == set(tensors)
        return best
    small, large = seconds(1_000), seconds(10_000)
    assert large / small < 30, (small, large)
