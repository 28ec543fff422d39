"""Lesson 01, autograd basics: the exercises' expected values, reasons and misconceptions.

01.1 softplus' derivative on a grid; 01.2 a two-neuron chain of δ's by hand; 01.3 softmax's
Jacobian and a vector–Jacobian product; 01.4 a linear layer on a batch (the bias broadcast:
multiple use); 01.5 the reciprocal as a Function; 01.6 the best ε of a central difference.
"""
import numpy as np

from ..detectors import Misconception
from ..tutor import Backward, Choice, Exercise, Grads, Value, define

GRID = np.linspace(-4, 4, 17)


def softplus_derivative(x):
    """d/dx log(1 + eˣ), by the engine (not by the formula the student is asked for)."""
    from dagrad import autograd as ag
    t = ag.tensor(x, dtype=ag.float64, requires_grad=True)
    ag.log(1 + ag.exp(t)).sum().backward()
    return t.grad.numpy()


def softmax_jacobian(g):
    from dagrad import autograd as ag
    return ag.functional.jacobian(lambda u: ag.softmax(u, dim=0), g.x.detach()).numpy()


def softmax_diagonal(g):
    s = np.exp(g.array("x")) / np.exp(g.array("x")).sum()
    return np.diag(s * (1 - s))


SOFTMAX_COORDS = (lambda i: f"row {i} (output s_{i})", lambda j: f"column {j} (input x_{j})")

# f(x) = x² sin x at x = 1.5, its central difference at ε in a float type, and the ε's offered
X0, EPSILONS = 1.5, [1e-2, 1e-5, 1e-8, 1e-11]


def central_error(dtype, eps):
    x, e = dtype(X0), dtype(eps)
    f = lambda u: u ** 2 * np.sin(u)                              # noqa: E731
    exact = 2 * X0 * np.sin(X0) + X0 ** 2 * np.cos(X0)
    return abs(float((f(x + e) - f(x - e)) / (2 * e)) - exact)


def best_epsilon(dtype):
    return min(EPSILONS, key=lambda e: central_error(dtype, e))


def errors_text(dtype):
    return (f"in {dtype.__name__} the errors are "
            + ", ".join(f"{central_error(dtype, e):.1e} at ε = {e:g}" for e in EPSILONS))


ERRORS_RULE = ("compute the four errors |(f(x0 + ε) − f(x0 − ε)) / 2ε − f'(x0)| with x0 and ε "
               "cast to the float type, and take the ε of the smallest: truncation ~ε² and "
               "rounding ~u/ε balance where ε³ ≈ u")
SMALLEST_IS_BEST = Misconception(
    "smallest_epsilon", 1e-11,
    "a smaller ε is not always more accurate: the truncation error falls as ε², but the "
    "rounding error grows as u/ε, and below the point where they balance it wins")

define(
    Exercise("01.1", Value(
        "softplus_prime", lambda g: softplus_derivative(GRID), name="f'(x)", at=GRID,
        coords=("x", GRID),
        misconceptions=[
            Misconception("outer_derivative_only", lambda g: 1 / (1 + np.exp(GRID)),
                          "yours is the outer derivative 1/u = 1/(1 + eˣ) alone: the chain "
                          "rule multiplies it by the inner derivative du/dx = eˣ"),
            Misconception("inner_derivative_only", lambda g: np.exp(GRID),
                          "yours is the inner derivative eˣ alone: the chain rule multiplies "
                          "it by the outer derivative 1/u with u = 1 + eˣ"),
            Misconception("softplus_itself", lambda g: np.log1p(np.exp(GRID)),
                          "yours is softplus itself, log(1 + eˣ), not its derivative")],
        rule="f = log u with u = 1 + eˣ: f'(x) = (1/u) · du/dx, the outer derivative 1/u "
             "times the inner one du/dx",
        why="the chain rule multiplies the outer derivative 1/(1 + eˣ) by the inner one, eˣ: "
            "f'(x) = eˣ / (1 + eˣ) = 1 / (1 + e⁻ˣ) = σ(x)")),

    Exercise("01.2", Grads(
        {"d_y2": "y2", "d_z2": "z2", "d_w2": "w2", "d_b2": "b2", "d_y": "y", "d_z": "z",
         "d_w": "w", "d_b": "b"}, loss="L2",
        rules={"d_y2": "δ_y2 = ∂(y2 − t)²/∂y2 = 2 (y2 − t) = 2 · ({y2} − 0.8)",
               "d_z2": "δ_z2 = δ_y2 · (1 − y2²) = {d_y2} · (1 − {y2}²)",
               "d_w2": "δ_w2 = δ_z2 · y = {d_z2} · {y}",
               "d_b2": "δ_b2 = δ_z2 · 1 = {d_z2}",
               "d_y": "δ_y = δ_z2 · w2 = {d_z2} · {w2}",
               "d_z": "δ_z = δ_y · (1 − y²) = {d_y} · (1 − {y}²)",
               "d_w": "δ_w = δ_z · x = {d_z} · {x}",
               "d_b": "δ_b = δ_z · 1 = {d_z}"},
        misconceptions=[Misconception(
            "error_sign", lambda g: {"d_y2": 2 * (0.8 - g.array("y2"))},
            "yours starts from δ_y2 = 2 (t − y2): the derivative of (y2 − t)² with respect to "
            "y2 is 2 (y2 − t)")],
        why="each δ is the δ of the line before times one local derivative: δ_z2 = δ_y2 (1 − "
            "y2²), δ_w2 = δ_z2 y, δ_b2 = δ_z2, δ_y = δ_z2 w2, δ_z = δ_y (1 − y²), δ_w = δ_z x, "
            "δ_b = δ_z")),

    Exercise(
        "01.3",
        Value("J_softmax", softmax_jacobian, name="J", coords=SOFTMAX_COORDS,
              misconceptions=[Misconception(
                  "diagonal_only", softmax_diagonal,
                  "yours is only the diagonal, s_i (1 − s_i): that is the Jacobian of an "
                  "elementwise function such as the sigmoid. Every softmax output depends on "
                  "every input, so ∂s_i/∂x_j = −s_i s_j ≠ 0 off the diagonal")],
              rule="∂s_i/∂x_j = s_i ([i = j] − s_j): on the diagonal s_i (1 − s_i), off it "
                   "−s_i s_j",
              why="∂s_i/∂x_j = s_i([i = j] − s_j): J = diag(s) − s sᵀ; the off-diagonal "
                  "entries are −s_i s_j, not 0"),
        Value("vjp", lambda g: softmax_jacobian(g).T @ g.array("v"), name="Jᵀv",
              coords=(lambda j: f"input x_{j}",),
              misconceptions=[Misconception(
                  "diagonal_only", lambda g: softmax_diagonal(g).T @ g.array("v"),
                  "yours is the product with the diagonal s_i (1 − s_i) alone, as if softmax "
                  "acted elementwise")],
              rule="backward(gradient=v) on s = softmax(x4) starts the backward pass with "
                   "δ_s = v = {v}; x4.grad is then Jᵀv",
              why="backward(gradient=v) starts the backward pass with δ_s = v and leaves Jᵀv "
                  "in x4.grad (cleared first: x4.grad = None)")),

    Exercise("01.4", Grads(
        {"d_W4": "W", "d_b4": "b"}, loss="L",
        labels={"d_W4": "δ_W", "d_b4": "δ_b"},
        coords={"d_W4": ("output unit", "input"), "d_b4": ("output unit",)},
        rules={"d_W4": "δ_W[j, k] = Σ_i δ_Y[i, j] X[i, k]: a sum over the batch rows i",
               "d_b4": "δ_b[j] = Σ_i δ_Y[i, j]: b[j] is added to every row i"},
        misconceptions=[Misconception(
            "missing_batch_sum", lambda g: {"d_b4": g.array("Y")},
            "yours for δ_b keeps one row per example: b was added to every row (broadcast), "
            "that is, used once per example, so its δ is the sum of the rows' δ's (multiple "
            "use)")],
        why="Y_ij = Σ_k X_ik W_jk + b_j with δ_Y = Y: δ_W = δ_Yᵀ X (2, 3) and δ_b = Σ_i δ_Y[i] "
            "(2,), the sum over the batch")),

    Exercise("01.5", Backward(
        "Reciprocal", (np.array([0.5, 1.5, -2.0, 3.0]),), coords=(("x", [0.5, 1.5, -2.0, 3.0]),),
        misconceptions=[Misconception(
            "power_rule_exponent", lambda g: lambda grad, x, out: (-grad / x,),
            "it returns −δ_y / x: the power rule takes x⁻¹ to −1 · x⁻², the exponent goes "
            "down by one")],
        rule="y = x⁻¹, so dy/dx = −1 · x⁻² (the power rule), and δ_x = δ_y · dy/dx",
        why="y = x⁻¹, dy/dx = −x⁻², so backward returns −grad / x²")),

    Exercise(
        "01.6",
        Choice("best_eps_float64", lambda g: best_epsilon(np.float64), options=EPSILONS,
               misconceptions=[SMALLEST_IS_BEST], rule=ERRORS_RULE,
               why=errors_text(np.float64)),
        Choice("best_eps_float32", lambda g: best_epsilon(np.float32), options=EPSILONS,
               misconceptions=[SMALLEST_IS_BEST, Misconception(
                   "same_as_float64", 1e-5,
                   "float32's rounding error u ≈ 6·10⁻⁸ is a billion times float64's, so the "
                   "balance moves to a larger ε")],
               rule=ERRORS_RULE, why=errors_text(np.float32))),
)
