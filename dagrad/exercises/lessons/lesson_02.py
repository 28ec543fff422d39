"""Lesson 02, backpropagation step by step: the exercises' expected values, reasons and
misconceptions.

02.2 the two-layer network's parameter gradients on a batch (the mean's 1/B, the biases' sum
over the batch); 02.3 ReLU in place of tanh, and the unit that passes no gradient; 02.4 softmax
over rows as a Function (its Jacobian's off-diagonal terms, rows kept apart); 02.5 how many
passes each mode needs for a wide Jacobian, and the Jacobian itself.
"""
import numpy as np

from ..detectors import Misconception
from ..tutor import Backward, Choice, Exercise, Grads, Value, define

LOGITS = np.random.default_rng(2).normal(size=(3, 5))     # 02.4's batch: 3 rows of 5 logits


def batch_deltas(g):
    """(δ_ŷ, δ_z) of 02.2's batch, by hand: L = (1/B) Σ_i (ŷ_i − y_i)²."""
    X, Y = g.array("X"), g.array("Y")
    W1, b1, W2, b2 = (g.array(k) for k in ("W1", "b1", "W2", "b2"))
    H = np.tanh(X @ W1.T + b1)
    d_yhat = 2 * (H @ W2.T + b2 - Y) / len(X)
    return d_yhat, (d_yhat @ W2) * (1 - H ** 2)


def relu_delta_h(g):
    """δ_h of 02.3's ReLU network (one example, target y): 2 (ŷ − y) W2."""
    h = np.maximum(g.array("z"), 0)
    y_hat = h @ g.array("W2").T + g.array("b2")
    return 2 * (y_hat - g.array("y")) @ g.array("W2"), h


def dead_units(g):
    return {int(i) for i in np.flatnonzero(g.array("z").reshape(-1) <= 0)}


def wide_tanh(g):
    a, t = g.array("a"), float(g.array("t"))
    return a, np.tanh(a * t)


define(
    Exercise("02.2", Grads(
        {"grad_W1": "W1", "grad_b1": "b1", "grad_W2": "W2", "grad_b2": "b2"}, loss="loss",
        labels={"grad_W1": "δ_W1", "grad_b1": "δ_b1", "grad_W2": "δ_W2", "grad_b2": "δ_b2"},
        coords={"grad_W1": ("hidden unit", "input"), "grad_b1": ("hidden unit",),
                "grad_W2": ("output", "hidden unit"), "grad_b2": ("output",)},
        sizes=lambda g: {"the batch size B": len(g.array("X"))},
        rules={"grad_W2": "δ_W2 = δ_Ŷᵀ H, with δ_Ŷ = 2 (Ŷ − Y) / B: a sum over the B rows",
               "grad_b2": "δ_b2 = Σ_i δ_ŷ_i, with δ_Ŷ = 2 (Ŷ − Y) / B",
               "grad_W1": "δ_W1 = δ_Zᵀ X, with δ_Z = (δ_Ŷ W2) ⊙ (1 − H²)",
               "grad_b1": "δ_b1 = Σ_i δ_z_i, with δ_Z = (δ_Ŷ W2) ⊙ (1 − H²)"},
        misconceptions=[Misconception(
            "missing_batch_sum",
            lambda g: {"grad_b1": batch_deltas(g)[1], "grad_b2": batch_deltas(g)[0]},
            "yours keep one row per example for the biases: each bias is added to every row "
            "of the batch (used once per example), so its δ is the sum of the rows' δ's")],
        why="the 1/4 of the mean enters at the first δ, δ_Ŷ = 2 (Ŷ − Y) / 4, and every later "
            "δ inherits it; a parameter's δ sums its rows' contributions: δ_W2 = δ_Ŷᵀ H, "
            "δ_b2 = Σ_i δ_ŷ_i, δ_Z = (δ_Ŷ W2) ⊙ (1 − H²), δ_W1 = δ_Zᵀ X, δ_b1 = Σ_i δ_z_i")),

    Exercise(
        "02.3",
        Grads({"relu_d_z": "z", "relu_d_W1": "W1"}, loss="loss",
              labels={"relu_d_z": "δ_z", "relu_d_W1": "δ_W1"},
              coords={"relu_d_z": ("example", "hidden unit"),
                      "relu_d_W1": ("hidden unit", "input")},
              rules={"relu_d_z": "δ_z = δ_h ⊙ [z > 0] with z = {z}",
                     "relu_d_W1": "δ_W1 = δ_zᵀ x, with your δ_z = {relu_d_z}"},
              misconceptions=[
                  Misconception("kept_tanh_derivative",
                                lambda g: {"relu_d_z": relu_delta_h(g)[0]
                                           * (1 - relu_delta_h(g)[1] ** 2)},
                                "yours keeps tanh's local derivative 1 − h²: for h = relu(z) "
                                "the local derivative is [z > 0], 1 where the unit is on and 0 "
                                "where it is off"),
                  Misconception("relu_value_as_derivative",
                                lambda g: {"relu_d_z": relu_delta_h(g)[0] * relu_delta_h(g)[1]},
                                "yours multiplies δ_h by h = relu(z) itself: ReLU's derivative "
                                "is the step [z > 0], not the function")],
              why="ReLU's local derivative is [z > 0]: δ_z = δ_h ⊙ [z > 0] with δ_h = 2 (ŷ − y) "
                  "W2, and δ_W1 = δ_zᵀ x"),
        Choice("dead_unit", dead_units, options=[0, 1, 2],
               misconceptions=[Misconception(
                   "largest_z", lambda g: int(np.argmax(g.array("z"))),
                   "the unit with the largest z passes the most gradient back, not none")],
               why="ReLU's derivative is [z > 0]: a unit with z < 0 multiplies its δ by 0, so "
                   "its row of δ_W1 is 0")),

    Exercise("02.4", Backward(
        "SoftmaxRows", (LOGITS,), coords=("row", "logit"),
        misconceptions=[
            Misconception("diagonal_only", lambda g: lambda grad, o, s: (grad * s * (1 - s),),
                          "it uses only the diagonal s_i (1 − s_i) of softmax's Jacobian, as "
                          "if softmax acted elementwise; every s_i depends on every o_j, and "
                          "the off-diagonal −s_i s_j add the term −s (s·δ)"),
            Misconception("dot_term_missing", lambda g: lambda grad, o, s: (s * grad,),
                          "it returns s ⊙ δ alone: the term −s (s·δ) that the off-diagonal "
                          "entries −s_i s_j of the Jacobian give is missing")],
        rule="(δ J)_j = Σ_i (s_i [i = j] − s_i s_j) δ_i: split the sum into its i = j term "
             "and the rest, per row",
        why="(δ J)_j = s_j δ_j − s_j Σ_i s_i δ_i, so backward returns s * (grad − (s * "
            "grad).sum(axis=-1, keepdims=True)), each row on its own")),

    Exercise(
        "02.5",
        Value("passes_forward_mode", lambda g: g.t.numel(),
              why="one JVP per input direction, and f has one input"),
        Value("passes_reverse_mode", lambda g: g.a.numel(),
              why="one VJP (one backward pass) per output, and f has one output per a_i"),
        Value("J_wide", lambda g: wide_tanh(g)[0] * (1 - wide_tanh(g)[1] ** 2), name="∂f/∂t",
              coords=(lambda i: f"output {i}",),
              misconceptions=[
                  Misconception("inner_derivative_only", lambda g: wide_tanh(g)[0],
                                "yours is the inner derivative a_i alone: the chain rule "
                                "multiplies it by tanh's derivative, 1 − tanh²(a_i t)"),
                  Misconception("outer_derivative_only",
                                lambda g: 1 - wide_tanh(g)[1] ** 2,
                                "yours is tanh's derivative 1 − tanh²(a_i t) alone: the chain "
                                "rule multiplies it by the inner derivative, a_i")],
              rule="∂ tanh(a_i t)/∂t = tanh'(a_i t) · a_i, the outer derivative at a_i t times "
                   "the inner one",
              why="∂ tanh(a_i t)/∂t = a_i (1 − tanh²(a_i t)): the outer derivative times the "
                  "inner a_i")),
)
