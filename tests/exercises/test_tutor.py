"""The checks as a tutor: exercises defined apart from the check cell, the hint ladder (what
and where, then the rule with the student's numbers, the right value only on request or after
three attempts), misconceptions named, and exercises that keep their own references."""
import numpy as np
import pytest

from dagrad import autograd as ag
from dagrad.exercises import (Backward, Choice, Exercise, Grads, Misconception, Shape, Value,
                              check, check_value, define, given, reveal)
from dagrad.exercises.result import REVEAL_AFTER

GRID = np.linspace(-4, 4, 17)


def sigmoid(x):
    return 1 / (1 + np.exp(-x))


def softplus_exercise():
    define(Exercise("91.1", Value(
        "softplus_prime", lambda g: sigmoid(GRID), name="f'(x)", at=GRID, coords=("x", GRID),
        misconceptions=[Misconception(
            "outer_derivative_only", lambda g: 1 / (1 + np.exp(GRID)),
            "yours is the outer derivative 1/u alone: multiply by the inner one, du/dx = eˣ")],
        rule="f'(x) = (1/u) · du/dx with u = 1 + eˣ",
        why="f'(x) = eˣ / (1 + eˣ) = σ(x)")))


def test_the_first_attempt_says_what_and_where_never_the_right_value():
    softplus_exercise()
    r = check("91.1", lambda x: np.tanh(x))
    assert not r and r.diagnosis == "value" and r.attempt == 1
    assert "the worst at x = -1.5 (yours -0.9051, the wrong sign); at x = -2" in r.message
    assert "17 of 17" not in r.message and "Every element is wrong" in r.message
    assert "σ(x)" not in r.message and "(1/u)" not in r.message
    assert not any(s in r.message for s in r.secrets) and r.secrets
    assert 'reveal("91.1")' in r.message and "dagrad-reveal" in r._repr_html_()


def test_the_ladder_climbs_with_the_attempts_and_reveal_shows_the_answer_on_request():
    softplus_exercise()
    wrong = lambda x: np.tanh(x)          # noqa: E731 (an answer as a student writes it)
    first = check("91.1", wrong)
    second = check("91.1", wrong)
    assert second.attempt == 2 and "f'(x) = (1/u) · du/dx" in second.message
    assert "σ(x)" not in second.message
    shown = reveal("91.1")
    assert "f'(x) should be [" in shown.message and "Why: f'(x) = eˣ / (1 + eˣ)" in shown.message
    assert "should be" in first.reveal().message
    third = check("91.1", wrong)
    assert third.attempt == REVEAL_AFTER == 3
    assert "After 3 attempts, the right value:" in third.message and "σ(x)" in third.message
    assert "dagrad-reveal" not in third._repr_html_()
    right = check("91.1", sigmoid)
    assert right.ok and right.attempt is None


def test_a_listed_misconception_is_named():
    softplus_exercise()
    r = check("91.1", lambda x: 1 / (1 + np.exp(x)))
    assert r.diagnosis == "outer_derivative_only"
    assert "the outer derivative 1/u alone" in r.message


def test_an_answer_that_is_not_a_function_and_one_that_raises():
    softplus_exercise()
    assert check("91.1", 0.5).diagnosis == "type"
    r = check("91.1", lambda x: x.nope)
    assert r.diagnosis == "error" and "AttributeError" in r.message
    assert check("91.1", None).diagnosis == "not_answered"


def test_the_same_answer_twice_is_said_and_a_cell_with_two_checks_is_one_attempt():
    check_value(3.0, 6.0, exercise="92.1")
    r = check_value(3.0, 6.0, exercise="92.1")
    assert r.attempt == 2 and "the same answer as before" in r.message
    r = check_value(4.0, 6.0, exercise="92.1")
    assert r.attempt == 3 and "the same answer" not in r.message


def test_check_takes_the_answers_in_order_or_by_name():
    define(Exercise("93.1", Value("a", 1.0), Value("b", 2.0)))
    assert check("93.1", 1.0, 2.0) and check("93.1", b=2.0, a=1.0)
    r = check("93.1", 1.0, 5.0)
    assert not r and r.diagnoses == ["value"]
    assert r.message.splitlines()[0].startswith("✓ a is right")
    assert r.message.splitlines()[1].startswith("✗ b is wrong")
    with pytest.raises(TypeError, match="takes 2 answers"):
        check("93.1", 1, 2, 3)
    with pytest.raises(TypeError, match="no answer called 'c'"):
        check("93.1", 1, c=2)
    with pytest.raises(TypeError, match="missing: b"):
        check("93.1", 1)
    with pytest.raises(ValueError, match="no exercise '93.9'"):
        check("93.9", 1)
    assert check("93.1", None, None).diagnosis == "not_answered"
    partly = check("93.1", 1.0, None)
    assert not partly and partly.diagnosis == "not_answered" and "b: not answered" in \
        partly.message


def test_two_answers_swapped_are_named():
    define(Exercise("93.2", Value("passes_forward", 1), Value("passes_reverse", 64)))
    r = check("93.2", 64, 1)
    assert r.diagnosis == "swapped" and r.diagnoses == ["swapped", "swapped"]
    assert "the two are swapped" in r.message and "64 is" not in r.message


def neuron():
    x = ag.tensor(0.5, dtype=ag.float64, requires_grad=True)
    w = ag.tensor(-1.2, dtype=ag.float64, requires_grad=True)
    b = ag.tensor(0.3, dtype=ag.float64, requires_grad=True)
    z = w * x + b
    y = ag.tanh(z)
    L = (y - 0.8) ** 2
    return dict(x=x, w=w, b=b, z=z, y=y, L=L)


def neuron_exercise():
    define(Exercise("94.1", Grads(
        {"d_y": "y", "d_z": "z", "d_w": "w", "d_b": "b"}, loss="L",
        rules={"d_z": "δ_z = δ_y · (1 − y²) = {d_y} · (1 − {y}²)"},
        misconceptions=[Misconception("sign_of_the_error",
                                      lambda g: {"d_y": 2 * (0.8 - g.array("y"))},
                                      "yours is 2(t − y): the derivative of (y − t)² is "
                                      "2(y − t)")])))


def hand(net, forget_tanh=False):
    y = net["y"].item()
    d_y = 2 * (y - 0.8)
    d_z = d_y if forget_tanh else d_y * (1 - y * y)
    return d_y, d_z, d_z * 0.5, d_z


def test_a_chain_of_deltas_says_where_the_mistake_enters_and_what_follows_from_it():
    neuron_exercise()
    net = neuron()
    given("94.1", **net)
    r = check("94.1", *hand(net, forget_tanh=True))
    assert r.diagnosis == "missing_local_derivative"
    assert "The mistake enters at δ_z: it is your δ_y passed on unchanged" in r.message
    assert "δ_w, δ_b follow from your δ_z" in r.message
    cells = {row[0]: row[2] for row in r.table[1:]}
    assert cells["δ_y"] == "✓ right" and cells["δ_w"] == "✗ follows from δ_z"
    second = check("94.1", *hand(net, forget_tanh=True))
    y = net["y"].item()
    assert f"δ_z = δ_y · (1 − y²) = ({2 * (y - 0.8):.4g}) · (1 − ({y:.4g})²)" in second.message
    assert check("94.1", *hand(net))


def test_a_misconception_of_several_gradients_is_named():
    neuron_exercise()
    net = neuron()
    given("94.1", **net)
    d_y, d_z, d_w, d_b = hand(net)
    r = check("94.1", -d_y, -d_z, -d_w, -d_b)
    assert r.diagnosis == "sign_of_the_error" and "2(t − y)" in r.message


def test_an_exercise_keeps_its_own_references():
    """A later cell reuses the names and runs backward() on the exercise's graph: the check
    still judges the graph it was given, and says nothing about a released graph."""
    neuron_exercise()
    net = neuron()
    given("94.1", **net)
    answers = hand(net)
    net["L"].backward()                         # releases the graph's saved values
    net = neuron()                              # and the names now mean other tensors
    net["w"].data.fill_(5.0)
    assert check("94.1", *answers)


def test_a_check_before_its_set_up_cell_says_so():
    neuron_exercise()
    r = check("94.1", 1.0, 2.0, 3.0, 4.0)
    assert r.diagnosis == "not_set_up" and 'given("94.1"' not in r.message
    assert "given('94.1', ...)" in r.message


def test_accumulation_is_named_when_the_answer_is_a_grad_filled_twice():
    define(Exercise("95.1", Value("vjp", lambda g: 2 * g.array("x") + 3)))
    x = ag.tensor([2.0, -1.0], dtype=ag.float64, requires_grad=True)
    given("95.1", x=x)
    for _ in range(2):
        (x * x + 3 * x).sum().backward()
    r = check("95.1", x.grad.numpy())
    assert r.diagnosis == "accumulation"
    assert "exactly 2 times" in r.message and "x.grad = None" in r.message
    x.grad = None
    (x * x + 3 * x).sum().backward()
    assert check("95.1", x.grad.numpy())
    plain = check("95.1", 2 * (2 * np.array([2.0, -1.0]) + 3))     # not read from a .grad
    assert plain.diagnosis == "value" and "exactly twice" in plain.message


def test_a_mean_left_out_a_missing_term_and_normalisation():
    rows = np.array([[0.5, -1.0], [1.0, 0.3], [-0.7, 0.8], [0.2, 0.1]])
    define(Exercise("95.2", Value("g", lambda g: rows.mean(axis=0), sizes={
        "the batch size B": 4}, terms=[(f"row {i}", rows[i] / 4) for i in range(4)])))
    assert check("95.2", rows.sum(axis=0)).diagnosis == "mean_factor"
    r = check("95.2", rows[:3].sum(axis=0) / 4)
    assert r.diagnosis == "missing_term" and "row 3" in r.message
    s = np.array([0.2, 0.3, 0.5])
    define(Exercise("95.3", Value("d_o", lambda g: s * (np.array([1.0, 0, -1]) - s @ [1, 0, -1]))))
    r = check("95.3", np.array([1.0, 0.0, -1.0]) * s * (1 - s))
    assert r.diagnosis == "value" and "sums to 0" in r.message


def test_worst_elements_in_the_lessons_coordinates_with_enough_digits():
    define(Exercise("95.4", Value("W", np.array([[1.0, 2.0], [3.0, 4.0]]),
                                  coords=("hidden unit", "input"))))
    r = check("95.4", np.array([[1.0, 2.0], [3.0, 4.0004]]))
    assert "1 of 4 elements is wrong, at hidden unit 1, input 1 (yours 4.0004, too large)" \
        in r.message
    assert "should be [[1, 2], [3, 4]]" in r.reveal().message
    about = check_value(0.2501, 0.5)
    assert "about half the right value" in about.message and "2.00" not in about.message


def test_choice_and_shape_misconceptions():
    define(Exercise("96.1", Choice("unit", 2, options=[0, 1, 2], misconceptions=[
        Misconception("largest", 1, "the unit with the largest z passes the most gradient")]),
        Shape("shape", (4, 3, 10), misconceptions=[
            Misconception("directions_in_batch", (3, 7, 10), "the directions are layers")])))
    r = check("96.1", 1, (3, 7, 10))
    assert r.diagnoses == ["largest", "directions_in_batch"]
    assert "largest z" in r.message and "(4, 3, 10)" not in r.message


class SoftmaxRows(ag.Function):
    def forward(ctx, o):
        e = np.exp(o - o.max(axis=-1, keepdims=True))
        s = e / e.sum(axis=-1, keepdims=True)
        ctx.save(output=s)
        return s

    def backward(ctx, grad):
        (s,) = ctx.saved
        return s * (grad - (s * grad).sum(axis=-1, keepdims=True))


def softmax_with(backward):
    return type("SoftmaxRows", (SoftmaxRows,), {"backward": backward})


def softmax_exercise():
    define(Exercise("97.1", Backward("SoftmaxRows", (np.random.default_rng(2).normal(
        size=(3, 5)),), misconceptions=[Misconception(
            "diagonal_only", lambda g: lambda grad, o, s: grad * s * (1 - s),
            "it uses only the diagonal s(1 − s) of softmax's Jacobian")])))


def test_backward_misconception_and_rows_mixed():
    softmax_exercise()
    assert check("97.1", SoftmaxRows)

    def diagonal(ctx, grad):
        (s,) = ctx.saved
        return grad * s * (1 - s)
    r = check("97.1", softmax_with(diagonal))
    assert r.diagnosis == "diagonal_only" and "only the diagonal" in r.message

    def mixed(ctx, grad):
        (s,) = ctx.saved
        return s * (grad - (s * grad).sum())          # a sum over the whole batch
    r = check("97.1", softmax_with(mixed))
    assert r.diagnosis == "rows_mixed" and "right on each row of the input alone" in r.message
