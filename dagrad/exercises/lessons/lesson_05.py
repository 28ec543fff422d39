"""Lesson 05, optimizers: the exercises' expected values, reasons and misconceptions.

05.1 the best heavy-ball settings γ*, ε* for the valley (its curvatures are the Hessian's
eigenvalues, twice f's coefficients); 05.2 the spectral radii of heavy ball's and Nesterov's
recurrences along y (Nesterov's gradient at the look-ahead point); 05.3 Adagrad's effective step
sizes after 200 steps (r sums the squared gradients); 05.4 which optimizer ends lowest on the
Rosenbrock valley.
"""
import numpy as np

from ..detectors import Misconception
from ..tutor import Choice, Exercise, Value, define


# --------------------------------------------------------------------- 05.1
def curvatures(g):
    """(λ_min, λ_max): the eigenvalues of the Hessian of the valley ``g.f(x, y)``, computed by
    the engine (f is quadratic, so any point will do)."""
    from dagrad import autograd as ag
    H = ag.functional.hessian(lambda t: g.f(t[0], t[1]),
                              ag.tensor([1.0, 1.0], dtype=ag.float64)).numpy()
    lam = np.linalg.eigvalsh(H)
    return lam.min(), lam.max()


def coefficients(g):
    """f's coefficients, f(1, 0) and f(0, 1): half the curvatures (f = ½ λ x² + ...)."""
    return float(g.f(1.0, 0.0)), float(g.f(0.0, 1.0))


def best_gamma(lam_min, lam_max, squared=True):
    root = np.sqrt(lam_max / lam_min)
    rate = (root - 1) / (root + 1)
    return rate ** 2 if squared else rate


def best_eps(lam_min, lam_max):
    return 4 / (np.sqrt(lam_max) + np.sqrt(lam_min)) ** 2


CURVATURES = ("the curvatures are the eigenvalues of f's Hessian: f = 0.1 x² + 2 y² = "
              "½ (λ_x x² + λ_y y²), so each is twice f's coefficient")


# --------------------------------------------------------------------- 05.2
def recurrence(g, method, gamma_sign=-1.0):
    """The 2×2 matrix M with (y_{k+1}, y_k) = M (y_k, y_{k-1}) along y, for heavy ball
    (y_{k+1} = (1 + γ − ελ) y_k − γ y_{k−1}) or Nesterov (the gradient at y_k + γ v_k:
    y_{k+1} = (1 + γ)(1 − ελ) y_k − γ (1 − ελ) y_{k−1})."""
    eps, gamma, lam = g.eps, g.gamma, g.lam
    if method == "heavy ball":
        return np.array([[1 + gamma - eps * lam, gamma_sign * gamma], [1.0, 0.0]])
    a = 1 - eps * lam
    return np.array([[(1 + gamma) * a, -gamma * a], [1.0, 0.0]])


def radius(M):
    return float(np.abs(np.linalg.eigvals(M)).max())


def largest_real_eigenvalue(M):
    return float(np.linalg.eigvals(M).real.max())


def not_the_modulus(method):
    return Misconception(
        "not_the_modulus", lambda g: largest_real_eigenvalue(recurrence(g, method)),
        "yours is the largest eigenvalue's real part: the spectral radius is the largest "
        "|eigenvalue| of M (np.abs of np.linalg.eigvals): a complex pair of eigenvalues makes "
        "the iterates spiral, and it is their modulus that says whether they shrink")


# --------------------------------------------------------------------- 05.3
ADAGRAD_STEPS, ADAGRAD_LR, ADAGRAD_DELTA = 200, 2.0, 1e-10


def adagrad_sums(g, accumulate=lambda r, grad: r + grad * grad):
    """r after ADAGRAD_STEPS of Adagrad's rule on the valley from g.start (NumPy, f's gradient
    by the engine)."""
    from dagrad import autograd as ag
    theta, r = np.array(g.start, dtype=np.float64), np.zeros(2)
    for _ in range(ADAGRAD_STEPS):
        t = ag.tensor(theta, dtype=ag.float64, requires_grad=True)
        g.f(t[0], t[1]).backward()
        grad = t.grad.numpy()
        r = accumulate(r, grad)
        theta = theta - ADAGRAD_LR / (ADAGRAD_DELTA + np.sqrt(r)) * grad
    return r


def adagrad_by_optim(g):
    """ε/(δ + √r) with r read from optim.Adagrad's state after the same steps."""
    from dagrad import autograd as ag
    from dagrad import optim
    params = [ag.tensor(v, dtype=ag.float64, requires_grad=True) for v in g.start]
    adagrad = optim.Adagrad(params, lr=ADAGRAD_LR, eps=ADAGRAD_DELTA)
    for _ in range(ADAGRAD_STEPS):
        adagrad.zero_grad()
        g.f(*params).backward()
        adagrad.step()
    r = np.array([float(adagrad.state[p]["sum"]) for p in params])
    return ADAGRAD_LR / (ADAGRAD_DELTA + np.sqrt(r))


def adagrad_abs(g):
    r = adagrad_sums(g, accumulate=lambda r, grad: r + np.abs(grad))
    return ADAGRAD_LR / (ADAGRAD_DELTA + np.sqrt(r))


def adagrad_without_root(g):
    return ADAGRAD_LR / (ADAGRAD_DELTA + adagrad_sums(g))


def adagrad_last_gradient(g):
    r = adagrad_sums(g, accumulate=lambda r, grad: grad * grad)
    return ADAGRAD_LR / (ADAGRAD_DELTA + np.sqrt(r))


# --------------------------------------------------------------------- 05.4
ROSENBROCK_START, ROSENBROCK_STEPS = (-1.5, 2.0), 1000


def rosenbrock_finals(g):
    """{optimizer: f after ROSENBROCK_STEPS steps from ROSENBROCK_START}."""
    from dagrad import optim
    runs = {"sgd": lambda p: optim.SGD(p, lr=0.002),
            "momentum": lambda p: optim.SGD(p, lr=0.002, momentum=0.9),
            "adam": lambda p: optim.Adam(p, lr=0.05)}
    finals = {}
    for name, make in runs.items():
        path = optim.run_trajectory(make, optim.rosenbrock, ROSENBROCK_START, ROSENBROCK_STEPS)
        finals[name] = float(optim.rosenbrock(*path[-1]))
    return finals


def lowest(g):
    if "finals" not in g.cache:          # 3000 optimizer steps: once per set-up
        g.cache["finals"] = rosenbrock_finals(g)
    finals = g.cache["finals"]
    return min(finals, key=finals.get)


define(
    Exercise(
        "05.1",
        Value("gamma_star", lambda g: best_gamma(*curvatures(g)), tol=1e-9, name="Your γ*",
              misconceptions=[
                  Misconception("no_square",
                                lambda g: best_gamma(*curvatures(g), squared=False),
                                "yours is (√κ − 1)/(√κ + 1) without the square: that is the "
                                "rate √γ* at which each coordinate shrinks, not γ* itself"),
                  Misconception("gd_rate", lambda g: (lambda l, L: (L / l - 1) / (L / l + 1))(
                      *curvatures(g)),
                                "yours is (κ − 1)/(κ + 1), the rate of the best plain "
                                "gradient descent: momentum's γ* has √κ where that has κ")],
              rule="κ = λ_max/λ_min; γ* = ((√κ − 1)/(√κ + 1))²",
              why="the curvatures are the Hessian's eigenvalues 2·0.1 = 0.2 and 2·2 = 4, so "
                  "κ = 20 and γ* = ((√20 − 1)/(√20 + 1))²"),
        Value("eps_star", lambda g: best_eps(*curvatures(g)), tol=1e-9, name="Your ε*",
              misconceptions=[
                  Misconception("coefficients_as_curvatures",
                                lambda g: best_eps(*sorted(coefficients(g))),
                                "yours takes f's coefficients 0.1 and 2 as the curvatures: "
                                + CURVATURES),
                  Misconception("gd_step", lambda g: 2 / sum(curvatures(g)),
                                "yours is 2/(λ_min + λ_max), the best step of plain gradient "
                                "descent: with momentum it is 4/(√λ_max + √λ_min)²")],
              rule="ε* = 4/(√λ_max + √λ_min)², with λ the eigenvalues of f's Hessian",
              why="ε* = 4/(√λ_max + √λ_min)² with λ = 0.2 and 4 (not 0.1 and 2: f = ½ λ x²)")),

    Exercise(
        "05.2",
        Value("rho_heavy_ball", lambda g: radius(recurrence(g, "heavy ball")), tol=1e-6,
              name="Your spectral radius for heavy ball",
              misconceptions=[
                  Misconception("sign_of_gamma",
                                lambda g: radius(recurrence(g, "heavy ball", gamma_sign=1.0)),
                                "your matrix has +γ where the recurrence has −γ y_{k−1}: "
                                "v_k = y_k − y_{k−1}, so γ v_k = γ y_k − γ y_{k−1}"),
                  not_the_modulus("heavy ball")],
              rule="M = [[1 + γ − ελ, −γ], [1, 0]]; the radius is np.abs(np.linalg.eigvals(M))"
                   ".max()",
              why="heavy ball: y_{k+1} = (1 + γ − ελ) y_k − γ y_{k−1}"),
        Value("rho_nesterov", lambda g: radius(recurrence(g, "nesterov")), tol=1e-6,
              name="Your spectral radius for Nesterov",
              misconceptions=[
                  Misconception("gradient_at_y_k",
                                lambda g: radius(recurrence(g, "heavy ball")),
                                "yours is heavy ball's radius: Nesterov takes the gradient at "
                                "the look-ahead point y_k + γ v_k, not at y_k, so ελ multiplies "
                                "(y_k + γ v_k)"),
                  not_the_modulus("nesterov")],
              rule="v_{k+1} = γ v_k − ελ (y_k + γ v_k) and y_{k+1} = y_k + v_{k+1}; put "
                   "v_k = y_k − y_{k−1} in and collect y_k and y_{k−1}",
              why="Nesterov: v_{k+1} = γ v_k − ελ (y_k + γ v_k), so y_{k+1} = (1 + γ)(1 − ελ) "
                  "y_k − γ(1 − ελ) y_{k−1}")),

    Exercise("05.3", Value(
        "adagrad_step_sizes", adagrad_by_optim, tol=1e-6,
        name="Your ε/(δ + √r)", coords=(lambda i: "xy"[i],),
        misconceptions=[
            Misconception("abs_not_square", adagrad_abs,
                          "yours accumulates |g|: Adagrad's r sums the squares g ⊙ g of every "
                          "gradient so far, and the step divides by its square root"),
            Misconception("last_gradient_only", adagrad_last_gradient,
                          "yours divides by the last gradient's size alone: Adagrad's r is the "
                          "sum over all past steps, which is why its steps only shrink"),
            Misconception("no_square_root", adagrad_without_root,
                          "yours divides by δ + r: the step is ε/(δ + √r)")],
        rule="r starts at 0 and, every step, r ← r + g ⊙ g, then θ ← θ − ε/(δ + √r) ⊙ g; "
             "after 200 steps give ε/(δ + √r)",
        why="r accumulates the squares g ⊙ g of every gradient so far; the step is "
            "ε/(δ + √r)")),

    Exercise("05.4", Choice(
        "best_on_rosenbrock", lowest, options=["sgd", "momentum", "adam"],
        misconceptions=[Misconception(
            "adam_always_best", lambda g: "adam" if lowest(g) != "adam" else None,
            "Adam adapts each coordinate's step, but near the minimum its step stays about ε "
            "in size whatever the gradient: with a fixed ε it keeps moving around the valley "
            "floor. Run the three and compare f at their last points")],
        why="the lowest f after 1000 steps from (−1.5, 2) wins: momentum's velocity builds "
            "up along the curved valley floor, plain SGD with ε = 0.002 crawls along it, and "
            "Adam's steps stay about ε = 0.05 in size near the minimum, so it rattles there"))
)
