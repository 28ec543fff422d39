"""The course-notes update rules in the docstrings give the same numbers as the optimizers.

Each test runs an optimizer on narrow_valley, f(x, y) = 0.1 x² + 2 y² (gradient (0.2 x, 4 y)),
and replays the textbook rule by hand in NumPy.
"""
import numpy as np

from dagrad import optim
from dagrad.optim.testfunctions import narrow_valley, run_trajectory

START, STEPS = (-4.0, 1.5), 40


def grad(theta):
    return np.array([0.2, 4.0]) * theta


def replay(rule):
    """Trajectory of a hand-written rule ``theta, memory = rule(theta, g, memory, t)``."""
    theta, memory, path = np.array(START), None, [np.array(START)]
    for t in range(1, STEPS + 1):
        theta, memory = rule(theta, grad(theta), memory, t)
        path.append(theta)
    return np.array(path)


def run(make):
    return run_trajectory(make, narrow_valley, START, STEPS)


def test_momentum_is_v_update():
    """v <- γ v - ε g, θ <- θ + v."""
    eps, gamma = 0.1, 0.8

    def rule(theta, g, v, t):
        v = gamma * (0 if v is None else v) - eps * g
        return theta + v, v

    np.testing.assert_allclose(run(lambda p: optim.SGD(p, lr=eps, momentum=gamma)),
                               replay(rule), rtol=1e-12, atol=1e-14)


def test_nesterov_tracks_the_look_ahead_point():
    """θ̃ = θ + γ v, v <- γ v - ε ∇f(θ̃), θ <- θ + v; PyTorch's iterate is θ + γ v."""
    eps, gamma = 0.1, 0.8
    theta, v = np.array(START), np.zeros(2)
    look_ahead = [theta.copy()]
    for _ in range(STEPS):
        v = gamma * v - eps * grad(theta + gamma * v)
        theta = theta + v
        look_ahead.append(theta + gamma * v)
    ours = run(lambda p: optim.SGD(p, lr=eps, momentum=gamma, nesterov=True))
    np.testing.assert_allclose(ours, look_ahead, rtol=1e-12, atol=1e-14)


def test_adagrad_is_r_update():
    """r <- r + g ⊙ g, θ <- θ - ε / (δ + √r) ⊙ g."""
    eps, delta = 0.5, 1e-10

    def rule(theta, g, r, t):
        r = (0 if r is None else r) + g * g
        return theta - eps / (delta + np.sqrt(r)) * g, r

    np.testing.assert_allclose(run(lambda p: optim.Adagrad(p, lr=eps)), replay(rule),
                               rtol=1e-12, atol=1e-14)


def test_rmsprop_is_r_update_with_eps_outside_the_root():
    """r <- ρ r + (1 - ρ) g ⊙ g, θ <- θ - ε g / (√r + δ)."""
    eps, rho, delta = 0.05, 0.9, 1e-8

    def rule(theta, g, r, t):
        r = rho * (0 if r is None else r) + (1 - rho) * g * g
        return theta - eps * g / (np.sqrt(r) + delta), r

    np.testing.assert_allclose(run(lambda p: optim.RMSprop(p, lr=eps, alpha=rho)),
                               replay(rule), rtol=1e-12, atol=1e-14)


def test_adam_is_bias_corrected_moments():
    """s, r moments; ŝ = s / (1 - ρ1^t), r̂ = r / (1 - ρ2^t), θ <- θ - ε ŝ / (√r̂ + δ)."""
    eps, rho1, rho2, delta = 0.1, 0.9, 0.999, 1e-8

    def rule(theta, g, memory, t):
        s, r = memory or (0, 0)
        s = rho1 * s + (1 - rho1) * g
        r = rho2 * r + (1 - rho2) * g * g
        s_hat, r_hat = s / (1 - rho1 ** t), r / (1 - rho2 ** t)
        return theta - eps * s_hat / (np.sqrt(r_hat) + delta), (s, r)

    np.testing.assert_allclose(run(lambda p: optim.Adam(p, lr=eps)), replay(rule),
                               rtol=1e-12, atol=1e-14)


def test_adadelta_is_zeiler_rule():
    """r <- ρ r + (1-ρ) g², Δθ = -√(s+δ)/√(r+δ) g, s <- ρ s + (1-ρ) Δθ², θ <- θ + Δθ."""
    rho, delta = 0.9, 1e-6

    def rule(theta, g, memory, t):
        r, s = memory or (0, 0)
        r = rho * r + (1 - rho) * g * g
        step = -np.sqrt(s + delta) / np.sqrt(r + delta) * g
        s = rho * s + (1 - rho) * step * step
        return theta + step, (r, s)

    np.testing.assert_allclose(run(lambda p: optim.Adadelta(p)), replay(rule),
                               rtol=1e-12, atol=1e-14)
