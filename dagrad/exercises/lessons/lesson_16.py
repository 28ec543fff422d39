"""Lesson 16, diffusion: the exercises' expected values, reasons and misconceptions.

16.1 ᾱ_t from the schedule β; 16.2 one closed-form draw x_25; 16.3 the posterior variance
β̃_t by completing the square; 16.4 the posterior mean μ̃_t; 16.5 the weight λ_t that turns
the ELBO's KL term into the noise-prediction loss; 16.6 one reverse step (σ_t² = β̃_t or β_t,
both valid). Steps t count from 1; the lesson's arrays hold step t at index t − 1, which is
where the off-by-one mistake of the noise schedule comes from.
"""
import numpy as np

from ..detectors import Misconception
from ..result import CheckResult
from ..tutor import Exercise, Value, define
from ..values import judge_value


class Schedule:
    """The schedule given to an exercise (``betas``, index t − 1 holds β_t), read by step."""

    def __init__(self, g):
        self.betas = g.array("betas")
        self.alphas = 1 - self.betas
        self.alpha_bars = np.cumprod(self.alphas)

    def beta(self, t):
        return self.betas[t - 1]

    def alpha(self, t):
        return self.alphas[t - 1]

    def alpha_bar(self, t):
        """ᾱ_t, with ᾱ_0 = 1 (no noise before the first step)."""
        return 1.0 if t == 0 else self.alpha_bars[t - 1]

    def shifted(self, by):
        """The same schedule read one step off: step t's values taken from step t + by."""
        s = object.__new__(Schedule)
        s.betas, s.alphas = np.roll(self.betas, -by), np.roll(self.alphas, -by)
        s.alpha_bars = np.roll(self.alpha_bars, -by)
        return s


OFF_BY_ONE = ("the step index is off by one: step t's β_t, α_t and ᾱ_t are at index t − 1 "
              "of betas, alphas and alpha_bars (the steps count from 1, the arrays from 0), "
              "and ᾱ_{t−1} is one index further back")


def off_by_one(compute):
    """Misconceptions computing ``compute(schedule, g)`` with the schedule read one step
    early and one step late."""
    return [Misconception("schedule_index_off_by_one",
                          lambda g, by=by: compute(Schedule(g).shifted(by), g), OFF_BY_ONE)
            for by in (1, -1)]


# 16.1 ---------------------------------------------------------------------------------------
def alpha_bar_one_step_late(g):
    s = Schedule(g)
    return np.concatenate([[1.0], s.alpha_bars[:-1]])


# 16.2 ---------------------------------------------------------------------------------------
def closed_form(s, g):
    ab = s.alpha_bar(g.t)
    return np.sqrt(ab) * g.array("x0") + np.sqrt(1 - ab) * g.array("eps")


def one_step(g):
    b = Schedule(g).beta(g.t)
    return np.sqrt(1 - b) * g.array("x0") + np.sqrt(b) * g.array("eps")


# 16.3-16.5 ----------------------------------------------------------------------------------
def posterior_variance(s, t):
    """β̃_t = 1 / (α_t/β_t + 1/(1 − ᾱ_{t−1})): the precisions of the two Gaussians add."""
    return 1 / (s.alpha(t) / s.beta(t) + 1 / (1 - s.alpha_bar(t - 1)))


def linear_coefficient(s, g):
    """b in the exponent −½(a x² − 2 b x): √α_t x_t / β_t + √ᾱ_{t−1} x_0 / (1 − ᾱ_{t−1})."""
    t = g.t
    return (np.sqrt(s.alpha(t)) * g.array("x_t") / s.beta(t)
            + np.sqrt(s.alpha_bar(t - 1)) * g.array("x0") / (1 - s.alpha_bar(t - 1)))


def posterior_mean(s, g):
    return posterior_variance(s, g.t) * linear_coefficient(s, g)


def kl_weight(s, t, variance=None):
    """λ_t in KL = λ_t ‖ε − ε_θ‖²: the ε-coefficient of μ̃ squared, over 2σ_t²."""
    variance = posterior_variance(s, t) if variance is None else variance
    return s.beta(t) ** 2 / (2 * variance * s.alpha(t) * (1 - s.alpha_bar(t)))


# 16.6 ---------------------------------------------------------------------------------------
def reverse_mean(s, g, eps_coefficient=None, divide=True):
    t = g.t
    c = s.beta(t) / np.sqrt(1 - s.alpha_bar(t)) if eps_coefficient is None else eps_coefficient
    mean = g.array("x_t") - c * g.array("eps_hat")
    return mean / np.sqrt(s.alpha(t)) if divide else mean


def reverse_step(s, g, variance=None, std=None):
    variance = posterior_variance(s, g.t) if variance is None else variance
    std = np.sqrt(variance) if std is None else std
    return reverse_mean(s, g) + std * g.array("z")


class EitherVariance(Value):
    """A reverse step judged right with either valid variance: σ_t² = β̃_t (``expected``) or
    σ_t² = β_t (``alternative``), with ``note`` saying why the second is right too."""

    def __init__(self, answer, expected, alternative, note, **options):
        super().__init__(answer, expected, **options)
        self.alternative, self.note = alternative, note

    def judge(self, ident, values, given):
        result = super().judge(ident, values, given)
        if result.ok or result.diagnosis != "value":
            return result
        other = judge_value(values[self.answers[0]], self.alternative(given), self.tol)
        if other.ok:
            return CheckResult(True, f"{self.name} is right, with σ_t² = β_t: {self.note}",
                               None, ident)
        return result


COORDINATE = ("coordinate",)

define(
    Exercise("16.1", Value(
        "alpha_bar", lambda g: Schedule(g).alpha_bars, name="ᾱ", tol=1e-10,
        coords=(lambda i: f"t = {i + 1}",),
        misconceptions=[
            Misconception("variances_subtracted", lambda g: 1 - np.cumsum(g.array("betas")),
                          "yours is 1 − (β_1 + ⋯ + β_t): the β's do not subtract from 1 step "
                          "after step; each step multiplies the mean by √α_s, so ᾱ_t is the "
                          "product α_1 α_2 ⋯ α_t"),
            Misconception("betas_multiplied", lambda g: np.cumprod(g.array("betas")),
                          "yours multiplies the β's: ᾱ_t is the product of the α's, "
                          "α_s = 1 − β_s"),
            Misconception("schedule_index_off_by_one", alpha_bar_one_step_late,
                          "yours is one step late (ᾱ_1 = 1): ᾱ_t = α_1 ⋯ α_t includes step "
                          "t's own α_t, so ᾱ_1 = α_1")],
        rule="ᾱ_t = α_1 · α_2 ⋯ α_t with α_s = 1 − β_s: a running product over the steps",
        why="ᾱ_t is the product of α_s = 1 − β_s over s = 1..t (np.cumprod(1 - betas)): the "
            "means multiply step after step (each step scales x by √α_s)")),

    Exercise("16.2", Value(
        "x_25", lambda g: closed_form(Schedule(g), g), name="x_25", tol=1e-5, coords=COORDINATE,
        misconceptions=[
            Misconception("one_step_only", one_step,
                          "yours takes one forward step with β_25 alone, as if x_24 were x_0: "
                          "x_25 is 25 steps away from x_0, so it uses ᾱ_25, the product of the "
                          "first 25 α's"),
            Misconception("variance_as_scale",
                          lambda g: (Schedule(g).alpha_bar(g.t) * g.array("x0")
                                     + (1 - Schedule(g).alpha_bar(g.t)) * g.array("eps")),
                          "yours scales x_0 by ᾱ_t and ε by 1 − ᾱ_t: those are the variances' "
                          "factors; the point and the noise are scaled by their square roots"),
            *off_by_one(closed_form)],
        rule="x_t = √ᾱ_t · x_0 + √(1 − ᾱ_t) · ε with t = 25: ᾱ_25 is alpha_bars[24]",
        why="x_t = √ᾱ_t x_0 + √(1 − ᾱ_t) ε with ᾱ_25 = alpha_bars[24], the product of the first "
            "25 α's")),

    Exercise("16.3", Value(
        "beta_tilde", lambda g: posterior_variance(Schedule(g), g.t), name="β̃_25",
        misconceptions=[
            Misconception("forward_variance", lambda g: Schedule(g).beta(g.t),
                          "yours is β_t, the variance of the forward step q(x_t | x_{t−1}): "
                          "knowing x_0 as well narrows the reverse step"),
            Misconception("marginal_variance", lambda g: 1 - Schedule(g).alpha_bar(g.t - 1),
                          "yours is 1 − ᾱ_{t−1}, the variance of q(x_{t−1} | x_0) alone: "
                          "x_t tells more about x_{t−1}, and the two precisions add"),
            Misconception("variances_added",
                          lambda g: (Schedule(g).beta(g.t) / Schedule(g).alpha(g.t)
                                     + 1 - Schedule(g).alpha_bar(g.t - 1)),
                          "yours adds the two variances: a product of two Gaussian densities "
                          "in x_{t−1} adds their precisions, 1/β̃_t = α_t/β_t + "
                          "1/(1 − ᾱ_{t−1})"),
            *off_by_one(lambda s, g: posterior_variance(s, g.t))],
        rule="1/β̃_t = a, the coefficient of −½ x_{t−1}²: a = α_t/β_t + 1/(1 − ᾱ_{t−1}), with "
             "t = 25: α_25 = alphas[24], β_25 = betas[24], ᾱ_24 = alpha_bars[23]",
        why="q(x_{t−1} | x_t, x_0) ∝ q(x_t | x_{t−1}) q(x_{t−1} | x_0); the exponent's x_{t−1}² "
            "coefficient is −½(α_t/β_t + 1/(1 − ᾱ_{t−1})), so β̃_t = 1/(α_t/β_t + 1/(1 − "
            "ᾱ_{t−1})) = β_t (1 − ᾱ_{t−1}) / (1 − ᾱ_t)")),

    Exercise("16.4", Value(
        "mu_tilde", lambda g: posterior_mean(Schedule(g), g), name="μ̃_25", coords=COORDINATE,
        misconceptions=[
            Misconception("variance_factor_missing",
                          lambda g: linear_coefficient(Schedule(g), g),
                          "yours is b, the coefficient of x_{t−1} in the exponent: the mean is "
                          "b/a, b times the variance β̃_t"),
            Misconception("x0_ignored",
                          lambda g: g.array("x_t") / np.sqrt(Schedule(g).alpha(g.t)),
                          "yours undoes the forward step's shrinking, x_t/√α_t, and ignores "
                          "x_0: knowing x_0 pulls the mean towards √ᾱ_{t−1} x_0"),
            *off_by_one(posterior_mean)],
        rule="μ̃_t = b/a = β̃_t · (√α_t x_t / β_t + √ᾱ_{t−1} x_0 / (1 − ᾱ_{t−1})), with "
             "x_t = {x_t}, x_0 = {x0}",
        why="completing the square: the exponent is −½(a x² − 2 b x) with a = 1/β̃_t and "
            "b = √α_t x_t/β_t + √ᾱ_{t−1} x_0/(1 − ᾱ_{t−1}), so μ̃_t = b/a")),

    Exercise("16.5", Value(
        "lambda_t", lambda g: kl_weight(Schedule(g), g.t), name="λ_25",
        misconceptions=[
            Misconception("coefficient_not_squared",
                          lambda g: (Schedule(g).beta(g.t) / np.sqrt(
                              Schedule(g).alpha(g.t) * (1 - Schedule(g).alpha_bar(g.t)))
                              / (2 * posterior_variance(Schedule(g), g.t))),
                          "yours has the coefficient of (ε − ε_θ) in μ̃_t − μ_θ unsquared: "
                          "‖c (ε − ε_θ)‖² = c² ‖ε − ε_θ‖²"),
            Misconception("kl_half_missing",
                          lambda g: 2 * kl_weight(Schedule(g), g.t),
                          "yours is without the ½: the KL of two Gaussians with variance σ² "
                          "is ‖μ̃ − μ_θ‖² / (2σ²)"),
            Misconception("sigma_not_squared",
                          lambda g: kl_weight(Schedule(g), g.t) * np.sqrt(
                              posterior_variance(Schedule(g), g.t)),
                          "yours divides by 2σ_t with σ_t = √β̃_t: the KL divides by twice the "
                          "variance, 2σ_t² = 2β̃_t"),
            *off_by_one(lambda s, g: kl_weight(s, g.t))],
        rule="μ̃_t − μ_θ = c (ε_θ − ε) with c = β_t / (√α_t √(1 − ᾱ_t)); the KL is "
             "‖μ̃_t − μ_θ‖² / (2σ_t²) with σ_t² = β̃_25 (exercise 3)",
        why="μ̃_t − μ_θ = β_t/(√α_t √(1 − ᾱ_t)) (ε_θ − ε), so the KL ‖μ̃_t − μ_θ‖²/(2σ_t²) is "
            "λ_t ‖ε − ε_θ‖² with λ_t = β_t² / (2σ_t² α_t (1 − ᾱ_t))")),

    Exercise("16.6", EitherVariance(
        "x_24", lambda g: reverse_step(Schedule(g), g),
        lambda g: reverse_step(Schedule(g), g, variance=Schedule(g).beta(g.t)),
        "β_t is the other valid choice of the reverse step's variance (Ho et al., §3.2): β̃_t "
        "is right when x_0 is one fixed point, β_t when x_0 is drawn from N(0, I), the two "
        "extremes of what the data can be, and both give similar samples.",
        name="x_24", coords=COORDINATE,
        misconceptions=[
            Misconception("no_division_by_sqrt_alpha",
                          lambda g: (reverse_mean(Schedule(g), g, divide=False)
                                     + np.sqrt(posterior_variance(Schedule(g), g.t))
                                     * g.array("z")),
                          "yours does not divide the mean by √α_t: the forward step shrank "
                          "x_{t−1} by √α_t, and the reverse step undoes it"),
            Misconception("all_noise_removed",
                          lambda g: (reverse_mean(Schedule(g), g, eps_coefficient=np.sqrt(
                              1 - Schedule(g).alpha_bar(g.t)))
                              + np.sqrt(posterior_variance(Schedule(g), g.t)) * g.array("z")),
                          "yours subtracts √(1 − ᾱ_t) ε̂, all the noise x_t holds: one "
                          "reverse step removes only β_t/√(1 − ᾱ_t) ε̂, one step's share"),
            Misconception("variance_as_std",
                          lambda g: reverse_step(Schedule(g), g, std=posterior_variance(
                              Schedule(g), g.t)),
                          "yours adds β̃_t z: z has variance 1, so the noise of variance β̃_t "
                          "is √β̃_t z"),
            *off_by_one(reverse_step)],
        rule="x_{t−1} = (x_t − β_t/√(1 − ᾱ_t) · ε̂) / √α_t + σ_t z, with σ_t² = β̃_t "
             "(or β_t), t = 25, x_t = {x_t}, ε̂ = {eps_hat}, z = {z}",
        why="x_{t−1} = (x_t − β_t/√(1 − ᾱ_t) ε̂)/√α_t + √β̃_t z with β̃_t = β_t (1 − ᾱ_{t−1}) / "
            "(1 − ᾱ_t) (or σ_t² = β_t): the division by √α_t undoes the shrinking of the "
            "forward step")),
)
