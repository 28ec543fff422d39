"""Lesson 04, classification: the exercises' expected values, reasons and misconceptions.

04.1 softmax + cross-entropy's δ on the logits (p − e_y, and its sign); 04.2 the same through a
temperature (one more link of the chain) and its T → 0 limit; 04.3 the largest slopes of σ and
tanh, and the slowest learner; 04.4 dead ReLU units of the trained MLP; 04.5 dropout's scale
and backward (the mask and the scale reach δ); 04.7 one perceptron update (the thresholded
output, not the activation); 04.8 a softmax or a sigmoid per label.
"""
import numpy as np

from ..detectors import Misconception
from ..tutor import Choice, Exercise, Grads, Value, define


def _tensor(x, grad=False):
    from dagrad import autograd as ag
    return ag.tensor(np.asarray(x, dtype=np.float64), requires_grad=grad)


def _right(g):
    """The engine's gradients, as the exercise computed them when it was set up."""
    (prepared,) = g.cache.values()
    return prepared.right


def softmax(o):
    e = np.exp(o - o.max(axis=-1, keepdims=True))
    return e / e.sum(axis=-1, keepdims=True)


# --------------------------------------------------------------------- 04.1, 04.2
def ce_variant(g, key, how):
    """A wrong δ_o built from the right one, δ = p − e_y: ``how(δ)``."""
    return {key: how(_right(g)[key])}


def probabilities(delta):
    """p from δ = p − e_y: the label is the one negative entry."""
    return delta + (delta < 0)


# --------------------------------------------------------------------- 04.3
SLOPE_GRID = np.linspace(-4, 4, 401)


def largest_slope(name):
    from dagrad import autograd as ag
    z = _tensor(SLOPE_GRID, grad=True)
    getattr(ag, name)(z).sum().backward()
    return float(z.grad.numpy().max())


# --------------------------------------------------------------------- 04.4
def hidden_layer(g):
    from dagrad import autograd as ag
    with ag.no_grad():
        return ag.relu(_tensor(g.X) @ _tensor(g.W).T + _tensor(g.b)).numpy()


def dead(g):
    return int(np.sum(hidden_layer(g).max(axis=0) == 0))


# --------------------------------------------------------------------- 04.5
def kept(g):
    return g.array("out") != 0


def scale(g):
    """The factor the kept units were multiplied by, read off the engine's output."""
    k = kept(g)
    return float(np.median(g.array("out")[k] / g.array("h")[k]))


def dropout_variant(g, factor, mask=True):
    return {"d_h_p": g.array("c") * (kept(g) if mask else 1.0) * factor}


# --------------------------------------------------------------------- 04.7
def perceptron(g, thresholded=True, sign=1.0):
    """(w, b) after one perceptron update; with ``thresholded=False`` the delta rule's
    y − (w·x + b) in place of y − ŷ."""
    w, x, b, y = g.array("w"), g.array("x"), float(g.b), float(g.y)
    activation = float(w @ x + b)
    error = y - (float(activation > 0) if thresholded else activation)
    return w + sign * g.eta * error * x, b + sign * g.eta * error


HEADS = ["softmax + CrossEntropyLoss", "sigmoid + BCEWithLogitsLoss"]

define(
    Exercise("04.1", Grads(
        {"d_o_by_hand": "o"}, loss="L", labels={"d_o_by_hand": "∂ℓ/∂o"},
        coords={"d_o_by_hand": (lambda j: f"logit o_{j}",)},
        misconceptions=[
            Misconception("truth_minus_prediction",
                          lambda g: ce_variant(g, "d_o_by_hand", lambda d: -d),
                          "yours is e_y − p, truth minus prediction: that is the direction a "
                          "gradient-descent step moves the logits, the negative of the "
                          "gradient"),
            Misconception("label_term_missing",
                          lambda g: ce_variant(g, "d_o_by_hand", probabilities),
                          "yours is the probabilities p alone: ℓ = log Σ_k e^{o_k} − o_y also "
                          "has the term −o_y, whose derivative is −1 at the label")],
        rules={"d_o_by_hand": "∂ℓ/∂o_j = p_j − [j = y], with p = e^o / Σ_k e^{o_k}: here "
                              "e^o = (1, 2, 5), and y = 0"},
        why="p = e^o / S = (1, 2, 5) / 8, and δ_o = p − e_y = (1/8 − 1, 2/8, 5/8) = "
            "(−7/8, 1/4, 5/8): the three numbers sum to 0")),

    Exercise(
        "04.2",
        Grads({"d_o_T": "o"}, loss="L", labels={"d_o_T": "∂ℓ/∂o"},
              coords={"d_o_T": (None, lambda j: f"logit o_{j}")},
              misconceptions=[
                  Misconception("temperature_link_missing",
                                lambda g: ce_variant(g, "d_o_T", lambda d: d * g.T),
                                "yours is the gradient with respect to o/T: one more link of "
                                "the chain, ∂(o/T)/∂o = 1/T, multiplies it"),
                  Misconception("times_T",
                                lambda g: ce_variant(g, "d_o_T", lambda d: d * g.T ** 2),
                                "yours multiplies by T: the chain's last link is "
                                "∂(o/T)/∂o = 1/T")],
              rules={"d_o_T": "∂ℓ/∂o = (∂ℓ/∂u) (∂u/∂o) with u = o/T: ∂ℓ/∂u = softmax(u) − e_y, "
                              "∂u/∂o = 1/T"},
              why="∂ℓ/∂o = (softmax(o/T) − e_y) / T: the softmax's δ times the last link "
                  "1/T"),
        Choice("as_T_goes_to_0", "one-hot", options=["one-hot", "uniform"],
               misconceptions=[Misconception(
                   "gaps_shrink", "uniform",
                   "dividing by a small T makes the gaps between the logits larger, not "
                   "smaller: flat distributions come from a large T")],
               why="o/T multiplies the gaps between logits by 1/T; as T → 0 the largest one "
                   "wins everything")),

    Exercise(
        "04.3",
        Value("max_sigmoid_slope", lambda g: largest_slope("sigmoid"), name="Your largest σ'",
              misconceptions=[Misconception(
                  "function_value", 0.5,
                  "0.5 is σ(0), the function's value where the slope is largest, not the slope "
                  "σ(0)(1 − σ(0))")],
              rule="σ'(z) = σ(z)(1 − σ(z)) is a parabola in σ; where is it largest, and what "
                   "is it there?",
              why="σ'(z) = σ(1 − σ) is largest where σ = ½, at z = 0: ½ · ½"),
        Value("max_tanh_slope", lambda g: largest_slope("tanh"), name="Your largest tanh'",
              misconceptions=[Misconception(
                  "function_value", 0.0,
                  "0 is tanh(0), the function's value where the slope is largest, not the "
                  "slope 1 − tanh²(0)")],
              rule="tanh'(z) = 1 − tanh² z is largest where tanh z = 0",
              why="1 − tanh² z is largest where tanh z = 0, at z = 0"),
        Choice("slowest", "sigmoid", options=["sigmoid", "tanh", "relu"],
               misconceptions=[
                   Misconception("relu_dies", "relu",
                                 "ReLU's derivative is 1 wherever the unit is on: it passes δ "
                                 "on unshrunk"),
                   Misconception("tanh_saturates", "tanh",
                                 "tanh' reaches 1 at z = 0, four times σ's largest slope")],
               why="σ' ≤ ¼ shrinks every δ that crosses the layer at least fourfold; tanh' and "
                   "ReLU' reach 1")),

    Exercise("04.4", Value(
        "dead_units", dead, name="Your count of dead units",
        misconceptions=[
            Misconception("zero_somewhere", lambda g: int(np.sum(np.any(hidden_layer(g) == 0,
                                                                        axis=0))),
                          "yours counts the units that are 0 on at least one image; a dead "
                          "unit is 0 on every image"),
            Misconception("live_units", lambda g: hidden_layer(g).shape[1] - dead(g),
                          "yours counts the units that are not dead")],
        rule="a unit is dead when its largest output over all of X_train is 0: compute the "
             "hidden layer relu(X_train W₁ᵀ + b₁), shape (n, 64), then test each column",
        why="a unit is dead when its output is 0 on every image: its largest output over the "
            "set is 0, hidden.max(axis=0) == 0, counted")),

    Exercise(
        "04.5",
        Value("keep_scale", scale, name="Your scale of the kept units",
              misconceptions=[
                  Misconception("keep_probability", lambda g: 1 / scale(g),
                                "yours multiplies by the keep probability 1 − p: then "
                                "E[h'] = (1 − p)² h, smaller than h"),
                  Misconception("one_over_p", lambda g: 1 / (1 - 1 / scale(g)),
                                "yours divides by p, the drop probability: E[h'] = (1 − p) · "
                                "scale · h must equal h")],
              rule="a kept unit is h · scale, a dropped one 0: E[h'] = (1 − p) · scale · h, "
                   "and it must equal h",
              why="E[h'] = (1 − p) · scale · h must equal h, so scale = 1/(1 − p)"),
        Grads({"d_h_p": "h"}, loss="L", labels={"d_h_p": "δ_h"},
              coords={"d_h_p": (lambda i: f"unit {i}",)},
              misconceptions=[
                  Misconception("scale_missing", lambda g: dropout_variant(g, 1.0),
                                "yours is the mask times c alone: h' = m h / (1 − p), so the "
                                "scale 1/(1 − p) multiplies δ too"),
                  Misconception("mask_missing", lambda g: dropout_variant(g, scale(g),
                                                                          mask=False),
                                "yours sends δ to the dropped units too: a dropped unit's "
                                "output is the constant 0, so its δ is 0")],
              rules={"d_h_p": "δ_h = c ⊙ m / (1 − p): L = Σ_i c_i h'_i with h'_i = m_i h_i "
                              "/ (1 − p), and m = kept"},
              why="h' = m ⊙ h / (1 − p), so δ_h = c ⊙ m / (1 − p): the same mask and scale as "
                  "the forward pass")),

    Exercise(
        "04.7",
        Value("w_updated", lambda g: perceptron(g)[0], name="Your w", tol=1e-9,
              coords=(lambda i: f"w_{i + 1}",),
              misconceptions=[
                  Misconception("raw_activation", lambda g: perceptron(g, False)[0],
                                "yours uses y − (w·x + b), the activation itself (the delta "
                                "rule): the perceptron rule uses the thresholded output "
                                "ŷ = [w·x + b > 0] ∈ {0, 1}"),
                  Misconception("no_update", lambda g: g.array("w"),
                                "yours leaves w unchanged, as for a right answer: compute the "
                                "unit's output [w·x + b > 0] for this x and compare it with y"),
                  Misconception("wrong_direction", lambda g: perceptron(g, sign=-1.0)[0],
                                "yours moves w the wrong way: the rule adds η (y − ŷ) x")],
              rule="ŷ = [w·x + b > 0]; then w ← w + η (y − ŷ) x",
              why="w·x + b = 1 − 2 + 0.5 = −0.5 ≤ 0, so ŷ = 0 and y − ŷ = 1: w gains η x, "
                  "(1, −2) + 0.5 (1, 1) = (1.5, −1.5)"),
        Value("b_updated", lambda g: perceptron(g)[1], name="Your b", tol=1e-9,
              misconceptions=[
                  Misconception("raw_activation", lambda g: perceptron(g, False)[1],
                                "yours uses y − (w·x + b), the activation itself: the rule "
                                "uses the thresholded output ŷ ∈ {0, 1}"),
                  Misconception("bias_not_updated", lambda g: float(g.b),
                                "yours leaves b unchanged: the bias is a weight on a constant "
                                "input 1, and the rule updates it too")],
              rule="b ← b + η (y − ŷ), with ŷ = [w·x + b > 0]",
              why="the bias is a weight on a constant input 1: it gains η (y − ŷ) = 0.5, to "
                  "1.0")),

    Exercise(
        "04.8",
        Choice("head_for_topics", HEADS[1], options=HEADS,
               misconceptions=[Misconception(
                   "several_classes_softmax", HEADS[0],
                   "an article can have several topics at once: with a softmax the topics "
                   "compete for one unit of probability, so it cannot say yes to two")],
               why="an article can have several topics at once: 20 independent yes/no "
                   "questions, one sigmoid each"),
        Choice("head_for_letters", HEADS[0], options=HEADS,
               misconceptions=[Misconception(
                   "independent_letters", HEADS[1],
                   "a character is exactly one letter: independent sigmoids could say yes to "
                   "several letters, or to none")],
               why="a character is exactly one letter: the 26 classes compete, so softmax")),
)
