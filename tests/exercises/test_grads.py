"""check_grads: hand-computed gradients against the engine's, without touching .grad."""
import numpy as np
import pytest

from dagrad import autograd as ag
from dagrad.exercises import check_grads


def small_net():
    x = ag.tensor([0.5, -1.0, 2.0], dtype=ag.float64, requires_grad=True)
    W = ag.tensor([[0.1, -0.2], [0.3, 0.4], [-0.5, 0.6]], dtype=ag.float64,
                  requires_grad=True)
    h = (x @ W).tanh()
    loss = (h * h).sum()
    return x, W, h, loss


def by_hand(x, W):
    """The gradients a student derives: L = Σ tanh(xW)², δh = 2h, δa = δh (1 - h²)."""
    a = x.numpy() @ W.numpy()
    h = np.tanh(a)
    da = 2 * h * (1 - h ** 2)
    return {"x": W.numpy() @ da, "W": np.outer(x.numpy(), da), "h": 2 * h}


def test_right_gradients_pass_and_nothing_changes():
    x, W, h, loss = small_net()
    r = check_grads(by_hand(x, W), loss, names=locals(), exercise="08.3")
    assert r.ok and r.diagnosis is None and r.exercise == "08.3"
    assert "All 3 gradients are right" in r.message
    assert x.grad is None and W.grad is None
    loss.backward()                        # the graph is still usable
    assert np.allclose(x.grad.numpy(), by_hand(x, W)["x"])


@pytest.mark.parametrize("mistake, diagnosis, words", [
    (lambda g: {**g, "W": g["W"].T}, "transposed", "transpose"),
    (lambda g: {**g, "h": -g["h"]}, "sign", "negative"),
    (lambda g: {**g, "x": 2 * g["x"]}, "factor", "factor of 2"),
    (lambda g: {**g, "x": g["x"] + [0, 0.1, 0]}, "value", "∂L/∂x[1] (yours 0.2642, too large)"),
    (lambda g: {**g, "W": g["W"][:, :1]}, "shape", "shape (3, 1)"),
    (lambda g: {**g, "x": None}, "not_answered", "Not answered yet: ∂L/∂x"),
])
def test_wrong_gradients_are_named_with_their_mistake(mistake, diagnosis, words):
    x, W, h, loss = small_net()
    r = check_grads(mistake(by_hand(x, W)), loss, names=locals())
    assert not r and r.diagnosis == diagnosis
    assert words in r.message
    wrong_rows = [row for row in r.table[1:] if not row[2].startswith("✓")]
    assert len(wrong_rows) == 1


def test_mixed_mistakes_are_a_value_diagnosis():
    x, W, h, loss = small_net()
    g = by_hand(x, W)
    r = check_grads({**g, "x": -g["x"], "h": 2 * g["h"]}, loss, names=locals())
    assert r.diagnosis == "value" and "2 of 3 gradients are wrong" in r.message
    assert r.diagnoses == ["sign", "factor"]


def test_tensors_found_by_name_in_the_graph():
    x, W, h, loss = small_net()
    x.name, W.name = "x", "W"
    g = by_hand(x, W)
    assert check_grads({"x": g["x"], "W": g["W"]}, loss)
    with pytest.raises(ValueError, match="names=locals"):
        check_grads({"h": g["h"]}, loss)


def test_all_blank_is_not_answered_and_bad_setup_is_a_clear_error():
    x, W, h, loss = small_net()
    assert check_grads({"x": None, "W": ...}, loss, names=locals()).diagnosis == "not_answered"
    assert check_grads(None, loss).diagnosis == "not_answered"
    with pytest.raises(ValueError, match="one element"):
        check_grads({"x": 1.0}, h, names=locals())
    c = ag.tensor([1.0, 2.0])
    with pytest.raises(ValueError, match="requires_grad=True"):
        check_grads({"c": 1.0}, (c * x[:2]).sum(), names=locals())


def test_a_tensor_the_loss_does_not_use_has_zero_gradient():
    x, W, h, loss = small_net()
    unused = ag.tensor([1.0, 2.0], requires_grad=True)
    assert check_grads({"unused": [0.0, 0.0]}, loss, names=locals())


def test_the_students_hooks_do_not_run_during_a_check():
    x, W, h, loss = small_net()
    calls = []
    x.register_hook(lambda g: calls.append("x"))
    h.register_hook(lambda g: calls.append("h"))
    r = check_grads(by_hand(x, W), loss, names=locals())
    assert r.ok and calls == []
    loss.backward()
    assert sorted(calls) == ["h", "x"]          # and they are back for the student's backward


def test_a_transposed_answer_of_a_square_tensor_and_swapped_gradients():
    a = ag.tensor([[1.0, 2.0], [3.0, 4.0]], dtype=ag.float64, requires_grad=True)
    b = ag.tensor([[0.5, -1.0], [2.0, 0.3]], dtype=ag.float64, requires_grad=True)
    loss = ((a @ b) ** 2).sum()
    right = {k: g.numpy() for k, g in zip("ab", ag.grad(loss, [a, b], retain_graph=True))}
    r = check_grads({"a": right["b"], "b": right["a"]}, loss, names=locals())
    assert r.diagnosis == "swapped" and "the two are swapped" in r.message
    r = check_grads({"a": right["a"].T, "b": right["b"]}, loss, names=locals())
    assert r.diagnosis == "transposed"
