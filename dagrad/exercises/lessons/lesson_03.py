"""Lesson 03, linear regression: the exercises' expected values, reasons and misconceptions.

03.1 the minibatch gradient of the mean ½-squared loss (the mean's 1/B, the ½); 03.2 the
stability limit 2/λ_max of gradient descent (the Hessian of the mean keeps its 1/n) and the
fate of ε = 3; 03.3 the learning rates that make nn.MSELoss (mean and sum) take the steps of
the hand-written loss; 03.4 the Huber loss' derivative; 03.6 ridge regression in closed form
(the n that the mean puts in front of λ).
"""
import numpy as np

from ..detectors import Misconception
from ..tutor import Choice, Exercise, Grads, Value, define


def _tensor(x, grad=False):
    from dagrad import autograd as ag
    return ag.tensor(np.asarray(x, dtype=np.float64), requires_grad=grad)


# --------------------------------------------------------------------- 03.1
def half_gradients(g):
    """{answer: wrong value} for a loss without the ½: twice the right gradients (read from
    what the exercise computed when it was set up)."""
    (prepared,) = g.cache.values()
    return {k: 2 * v for k, v in prepared.right.items()}


# --------------------------------------------------------------------- 03.2
def with_ones(features):
    return np.c_[features, np.ones(len(features))]


def largest_curvature(features, mean=True):
    """λ_max of the Hessian X̃ᵀX̃ / n of the mean ½-squared loss (of X̃ᵀX̃ without the 1/n)."""
    X = with_ones(np.asarray(features, dtype=np.float64))
    return np.linalg.eigvalsh(X.T @ X / (len(X) if mean else 1)).max()


def stability_limit(g):
    return 2 / largest_curvature(g.features)


# --------------------------------------------------------------------- 03.3
def gradient_size(loss_of, B):
    """|∂L/∂w| of a loss at fixed weights on a fixed batch of B examples (the loss is linear
    regression's; the ratios between losses do not depend on the numbers)."""
    from dagrad import autograd as ag
    rng = np.random.default_rng(3)
    X, y = _tensor(rng.normal(size=(B, 2))), _tensor(rng.normal(size=(B, 1)))
    w = _tensor(rng.normal(size=(2, 1)), grad=True)
    (grad,) = ag.grad(loss_of(X @ w, y), [w])
    return np.linalg.norm(grad.numpy())


def matching_lr(g, loss_of):
    """The learning rate with which ``loss_of`` takes the steps of §3 (ε = g.lr on the mean
    of ½(ŷ − y)² over g.batch_size examples): ε times the ratio of the gradients."""
    B = g.batch_size
    hand = gradient_size(lambda p, y: ((p - y) ** 2 / 2).mean(), B)
    return g.lr * hand / gradient_size(loss_of, B)


def mse(reduction):
    from dagrad import nn
    return lambda p, y: nn.MSELoss(reduction=reduction)(p, y)


SAME_STEPS = ("a step is ε times the gradient; write each loss as a constant c times the "
              "hand-written mean of ½(ŷ − y)² over B examples: its gradient is c times as "
              "large, and ε/c takes the same steps")


# --------------------------------------------------------------------- 03.4
R_GRID = np.linspace(-3, 3, 25)


def huber_derivative(g):
    from dagrad import nn
    r = _tensor(R_GRID, grad=True)
    nn.HuberLoss(reduction="sum")(r, _tensor(np.zeros(len(R_GRID)))).backward()
    return r.grad.numpy()


# --------------------------------------------------------------------- 03.6
def ridge(g, n_times_lambda=True):
    X, y = g.array("X"), g.array("y")
    lam = g.lam * (len(X) if n_times_lambda else 1)
    return np.linalg.solve(X.T @ X + lam * np.eye(X.shape[1]), X.T @ y)


define(
    Exercise("03.1", Grads(
        {"grad_w": "w", "grad_b": "b"}, loss="L",
        labels={"grad_w": "∂L/∂w", "grad_b": "∂L/∂b"},
        coords={"grad_w": (lambda i: f"w_{i + 1}", lambda j: "its only column"),
                "grad_b": ("b",)},
        sizes=lambda g: {"the batch size B": len(g.array("X"))},
        misconceptions=[Misconception(
            "no_half", half_gradients,
            "yours are twice the right gradients: the loss of one example is ½(ŷ − y)², and "
            "the ½ cancels the 2 of the square's derivative")],
        rules={"grad_w": "∂L/∂w = (1/B) X_Bᵀ (ŷ − y), with B = 10 rows and ŷ = X_B w + b",
               "grad_b": "∂L/∂b = (1/B) Σ_i (ŷ_i − y_i), with B = 10"},
        why="L = (1/B) Σ_i ½ (ŷ_i − y_i)², so ∂L/∂w = (1/B) X_Bᵀ (ŷ − y) (shape (2, 1)) and "
            "∂L/∂b = (1/B) Σ_i (ŷ_i − y_i) (shape (1,)): the ½ cancels the square's 2, the "
            "1/B of the mean stays")),

    Exercise(
        "03.2",
        Value("lr_limit", stability_limit, name="Your 2/λ_max", tol=1e-3,
              misconceptions=[
                  Misconception("hessian_of_sum",
                                lambda g: 2 / largest_curvature(g.features, mean=False),
                                "yours is the limit for X̃ᵀX̃, the Hessian of the sum: the loss "
                                "is a mean, and its Hessian keeps the 1/n, X̃ᵀX̃ / n"),
                  Misconception("one_over_lambda", lambda g: 1 / largest_curvature(g.features),
                                "yours is 1/λ_max, the step that lands exactly on the minimum "
                                "along the steepest direction: steps up to twice that still "
                                "shrink the error there (|1 − ελ| < 1)")],
              rule="the gradient of the mean ½-squared loss is (1/n) X̃ᵀ(X̃θ − y), so the "
                   "Hessian is X̃ᵀX̃ / n; take the largest eigenvalue λ_max of it and 2/λ_max",
              why="the Hessian of the mean ½-squared loss is X̃ᵀX̃ / n: the 1/n of the mean "
                  "stays in it"),
        Choice("with_lr_3",
               lambda g: "diverges" if 3 > stability_limit(g) else "converges",
               options=["converges", "diverges"],
               misconceptions=[Misconception(
                   "limit_not_compared",
                   lambda g: "converges" if 3 > stability_limit(g) else "diverges",
                   "compare ε = 3 with your limit 2/λ_max: above it, every step multiplies the "
                   "error along the steepest direction by |1 − ελ_max| > 1")],
               why="gradient descent on a quadratic converges exactly when ε < 2/λ_max; above "
                   "it the steepest direction overshoots by more every step")),

    Exercise(
        "03.3",
        Value("lr_for_mse_mean", lambda g: matching_lr(g, mse("mean")), tol=1e-9,
              name="Your learning rate for nn.MSELoss()",
              misconceptions=[
                  Misconception("no_half", lambda g: g.lr,
                                "nn.MSELoss() has no ½: its gradient is twice that of the "
                                "hand-written mean of ½(ŷ − y)², so the same steps need a "
                                "different ε"),
                  Misconception("larger_for_larger", lambda g: 4 * matching_lr(g, mse("mean")),
                                "a gradient twice as large needs ε halved, not doubled: the "
                                "step is ε times the gradient")],
              rule=SAME_STEPS,
              why="the mean of (ŷ − y)² is twice the mean of ½(ŷ − y)², so its gradient is "
                  "twice as large and ε/2 takes the same steps"),
        Value("lr_for_mse_sum", lambda g: matching_lr(g, mse("sum")), tol=1e-9,
              name="Your learning rate for nn.MSELoss(reduction=\"sum\")",
              misconceptions=[
                  Misconception("sum_without_half", lambda g: g.lr / g.batch_size,
                                "yours accounts for the sum over the B = 10 examples but not "
                                "for the ½: MSELoss has none, which doubles the gradient too"),
                  Misconception("half_without_sum", lambda g: g.lr / 2,
                                "yours accounts for the ½ but not for the sum: the sum over B "
                                "examples is B times their mean")],
              rule=SAME_STEPS,
              why="the sum of (ŷ − y)² over B = 10 examples is 2B times the mean of ½(ŷ − y)², "
                  "so ε/(2B) = ε/20 takes the same steps")),

    Exercise("03.4", Value(
        "huber_prime", huber_derivative, name="Your ℓ'(r)", at=R_GRID, coords=("r", R_GRID),
        misconceptions=[
            Misconception("squared_loss_derivative", lambda g: R_GRID,
                          "yours is r everywhere, the squared loss' derivative: beyond "
                          "|r| = 1 the Huber loss is |r| − ½, a straight line"),
            Misconception("absolute_loss_derivative", lambda g: np.sign(R_GRID),
                          "yours is sign(r) everywhere, the absolute loss' derivative: "
                          "within |r| ≤ 1 the Huber loss is ½ r²"),
            Misconception("the_loss_itself",
                          lambda g: np.where(np.abs(R_GRID) <= 1, R_GRID ** 2 / 2,
                                             np.abs(R_GRID) - 0.5),
                          "yours is the Huber loss itself, not its derivative")],
        rule="differentiate each piece: d(½ r²)/dr inside [−1, 1], d(|r| − ½)/dr outside",
        why="ℓ'(r) = r inside [−1, 1] and sign(r) outside, np.clip(r, -1, 1): an outlier "
            "pulls with force 1, not r")),

    Exercise("03.6", Value(
        "w_ridge", ridge, name="Your w*", tol=1e-6, coords=(lambda i: f"w_{i + 1}", None),
        misconceptions=[
            Misconception("lambda_without_n", lambda g: ridge(g, n_times_lambda=False),
                          "yours solves (XᵀX + λI) w = Xᵀy: multiplying (1/n) Xᵀ(Xw − y) + λw "
                          "= 0 by n multiplies λ by n too"),
            Misconception("no_penalty", lambda g: np.linalg.pinv(g.array("X")) @ g.array("y"),
                          "yours is the least-squares solution of smallest norm, without the "
                          "penalty λ")],
        rule="(1/n) Xᵀ(Xw − y) + λw = 0, multiplied by n: (XᵀX + nλI) w = Xᵀy; solve it "
             "with np.linalg.solve",
        why="(1/n) Xᵀ(Xw − y) + λw = 0 gives (XᵀX + nλI) w = Xᵀy: the n comes from the 1/n "
            "of the mean")),
)
