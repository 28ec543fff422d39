"""Lesson 14, the course's code as printed: the exercises' expected values, reasons and
misconceptions.

14.1 the gradient of the book's squared loss with respect to the bias (the /2 against the
square's 2, the mean's 1/n); 14.2 the weight a lazy layer becomes (nn.Linear's (out, in)
layout); 14.4 the parameters of softmax regression (the biases, the resized images); 14.5
dropout's scaling of a kept unit; 14.6 δ_w and δ_b of one drawn training step (the mean's 1/n,
the bias's sum over the batch). (Exercises 3 and 7 are open-ended.) The expected values are
computed with dagrad; the answers may be PyTorch's numbers, tensors or shapes, since the lesson
also runs on PyTorch.
"""
import numpy as np

from ..detectors import Misconception
from ..tutor import Exercise, Grads, Shape, Value, define

# ------------------------------------------------------------- 14.1 the book's squared loss
RESIDUALS = (1.0, -1.0, 2.0, 0.0)                 # ŷ − y for the batch of four


def bias_gradient(half=True, mean=True):
    """∂L/∂b for L = (1/n) Σ (ŷ_i − y_i)² / 2 with ŷ − y = RESIDUALS, by autograd (``half``,
    ``mean`` False: the loss without the /2 or without the 1/n)."""
    from dagrad import autograd as ag
    b = ag.zeros(1, dtype=ag.float64, requires_grad=True)
    squares = (ag.tensor(np.array(RESIDUALS)[:, None]) + b) ** 2 / (2 if half else 1)
    (squares.mean() if mean else squares.sum()).backward()
    return b.grad.item()


# ------------------------------------------------------------------ 14.2 a lazy layer
LAZY_INPUT = (32, 2)


def lazy_weight_shape(g):
    """The shape of LazyLinear(1)'s weight after its first call on a (32, 2) batch."""
    from dagrad import autograd as ag
    from dagrad import nn
    layer = nn.LazyLinear(1)
    layer(ag.zeros(*LAZY_INPUT))
    return tuple(layer.weight.shape)


# ---------------------------------------------------------- 14.4 softmax regression's size
def softmax_parameters(g, image_shape=None, biases=True):
    """Parameters of Flatten → LazyLinear(10) on the lesson's images (``image_shape``, ``biases``:
    the mistakes), counted on the materialised model."""
    from dagrad import autograd as ag
    from dagrad import nn
    shape = tuple(g.images.shape[1:]) if image_shape is None else image_shape
    model = nn.Sequential(nn.Flatten(), nn.LazyLinear(10))
    model(ag.zeros(1, *shape))
    return sum(p.numel() for name, p in model.named_parameters()
               if biases or not name.endswith("bias"))


# ---------------------------------------------------------------------- 14.5 dropout
DROP_P, UNIT = 0.5, 0.8


def kept_unit(g):
    """What nn.Dropout(0.5) in training mode passes on for a kept unit of value 0.8."""
    from dagrad import autograd as ag
    from dagrad import nn
    dropout = nn.Dropout(DROP_P)
    dropout.train()
    out = dropout(ag.full((1000,), UNIT)).numpy()
    return float(out[out != 0][0])


# -------------------------------------------------------------- 14.6 the drawn step's δ's
def per_example_delta(g):
    """δ_ŷ of the step, one row per example: (ŷ − y) / n."""
    y_hat, y = g.array("y_hat"), g.array("y")
    return (y_hat - y) / len(y)


define(
    Exercise("14.1", Value(
        "dL_db", lambda g: bias_gradient(), name="∂L/∂b",
        sizes={"the batch size n": len(RESIDUALS)},
        misconceptions=[
            Misconception("square_factor_kept", lambda g: bias_gradient(half=False),
                          "yours keeps the 2 of the square's derivative: the book's loss "
                          "divides each square by 2, and the two cancel"),
            Misconception("mean_forgotten", lambda g: bias_gradient(mean=False),
                          "yours is the sum over the batch: the loss is the mean, l.mean(), so "
                          "every example's term carries 1/n")],
        rule="∂L/∂b = (1/n) Σ_i ∂/∂b (ŷ_i − y_i)² / 2 = (1/n) Σ_i (ŷ_i − y_i), with n = 4",
        why="the 1/2 cancels the 2 of the square: ∂L/∂b = (1/n) Σ (ŷ_i − y_i)")),

    Exercise("14.2", Shape(
        "lazy_weight_shape", lazy_weight_shape, name="the lazy layer's weight",
        misconceptions=[
            Misconception("in_out_layout", lambda g: lazy_weight_shape(g)[::-1],
                          "yours is (in_features, out_features), the layout of the scratch "
                          "model's w, used as X w: nn.Linear stores weight as (out_features, "
                          "in_features) and computes X Wᵀ + b"),
            Misconception("batch_in_the_weight", lambda g: (LAZY_INPUT[0], 1),
                          "yours has the batch's 32 rows: a layer's weight does not depend on "
                          "the batch size, only on the number of input features")],
        rule="nn.Linear(in_features, out_features).weight has shape (out_features, "
             "in_features); the lazy layer reads in_features from the batch's last axis",
        why="nn.Linear stores weight as (out_features, in_features) and computes X Wᵀ + b; the "
            "scratch model's w is (2, 1) because it computes X w")),

    Exercise("14.4", Value(
        "softmax_params", softmax_parameters, tol=0, name="the number of parameters",
        misconceptions=[
            Misconception("biases_forgotten", lambda g: softmax_parameters(g, biases=False),
                          "yours counts the weight only: LazyLinear(10) has 10 biases too, one "
                          "per class"),
            Misconception("digits_original_size",
                          lambda g: softmax_parameters(g, image_shape=(1, 8, 8)),
                          "yours counts the digits' 8 × 8 pixels: d2l.FashionMNIST resizes "
                          "them to Fashion-MNIST's size (look at X.shape)")],
        rule="Flatten gives C·H·W inputs (X.shape[1:]); LazyLinear(10) holds a 10 × (C·H·W) "
             "weight and 10 biases",
        why="Flatten gives C·H·W inputs; LazyLinear(10) holds a 10 × C·H·W weight and 10 "
            "biases")),

    Exercise("14.5", Value(
        "kept_value", kept_unit, name="the kept unit's value",
        misconceptions=[
            Misconception("not_rescaled", lambda g: UNIT,
                          "yours is the unit unchanged: in training, nn.Dropout divides every "
                          "kept unit by 1 − p, so that the expected output stays 0.8 and "
                          "evaluation needs no rescaling"),
            Misconception("multiplied_by_keep", lambda g: UNIT * (1 - DROP_P),
                          "yours multiplies by 1 − p, the expected value of the mask: a kept "
                          "unit is divided by 1 − p, which makes up for the units dropped")],
        rule="in training a kept unit is h / (1 − p), with p = 0.5",
        why="kept units are divided by 1 − p, so the expected value stays 0.8 and evaluation "
            "(dropout off) needs no rescaling")),

    Exercise("14.6", Grads(
        {"delta_w": "w", "delta_b": "b"}, loss="step_loss",
        labels={"delta_w": "δ_w", "delta_b": "δ_b"},
        coords={"delta_w": ("input", None), "delta_b": (None,)},
        sizes=lambda g: {"the batch size n": len(g.array("y"))},
        rules={"delta_w": "δ_ŷ = (ŷ − y) / n for L = (1/n) Σ (ŷ_i − y_i)² / 2; ŷ = X w + b "
                          "gives δ_w = Xᵀ δ_ŷ, (2, n) times (n, 1)",
               "delta_b": "b is added to every row of X w: δ_b = Σ_i δ_ŷ_i, with δ_ŷ = (ŷ − y) "
                          "/ n"},
        misconceptions=[Misconception(
            "missing_batch_sum", lambda g: {"delta_b": per_example_delta(g)},
            "yours keeps one row per example for δ_b: b is added to every row of the batch "
            "(used once per example), so its δ is the sum of the rows' δ's")],
        why="δ_ŷ = (ŷ − y)/n; ŷ = X w + b, so δ_w = Xᵀ δ_ŷ and δ_b = Σ_i δ_ŷ_i (b is broadcast "
            "over the batch)")),
)
