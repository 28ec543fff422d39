"""Lesson 11, variational autoencoders: the exercises' expected values, reasons and
misconceptions.

11.1 the gap between log p(x) and the ELBO at q = the prior (the KL with q first); 11.2 the
reparameterised gradient by hand (both paths: through z and the KL's direct one); 11.3 the
variance of the reparameterised estimate; 11.4 the closed-form KL; 11.5 what one importance
sample estimates; 11.6 the shape of K samples of z.
"""
import numpy as np

from ..detectors import Misconception
from ..tutor import Choice, Exercise, Grads, Shape, Value, define

MU_REPARAM, SIGMA_REPARAM = 3.0, 0.5                 # 11.3
MU_KL, LOGVAR_KL = [1.0, 0.0], [0.0, np.log(2.0)]   # 11.4
K_SAMPLES = 10                                       # 11.6


def gaussian_kl_1d(m, v, m2, v2):
    """KL(N(m, v) ‖ N(m2, v2)) between two 1-D Gaussians."""
    return 0.5 * (np.log(v2 / v) + (v + (m - m2) ** 2) / v2 - 1)


def elbo_paths(g):
    """The two paths of 11.2's one-sample ELBO = log p(x | z) − KL(q ‖ p), z = m + √v ε:
    (∂ log p(x|z)/∂m, ∂ log p(x|z)/∂log v) through z, and (∂KL/∂m, ∂KL/∂log v) directly."""
    m, logv, eps = (float(g.array(k).reshape(-1)[0]) for k in ("m", "logv", "eps"))
    w, x, s2 = g.array("w"), g.array("x"), float(g.array("s2"))
    sd = np.exp(0.5 * logv)
    d_loglik_dz = float(w @ (x - w * (m + sd * eps)) / s2)
    return (d_loglik_dz, d_loglik_dz * 0.5 * sd * eps), (m, 0.5 * (np.exp(logv) - 1))


def kl_closed(mu, logvar):
    mu, logvar = np.asarray(mu), np.asarray(logvar)
    return float(0.5 * (mu ** 2 + np.exp(logvar) - logvar - 1).sum())


def samples_shape(g):
    from dagrad import autograd as ag
    with ag.no_grad():
        mu, logvar = g.vae.encode(ag.tensor(g.X))
        return tuple(g.vae.reparameterize(mu, logvar, k=K_SAMPLES).shape)


ONE_SAMPLE_OPTIONS = {"a": "log p(x) exactly", "b": "a one-sample ELBO", "c": "an upper bound"}

define(
    Exercise("11.1", Value(
        "gap_at_prior", lambda g: float(g.log_evidence) - float(g.elbo_at_prior),
        name="the gap log p(x) − ELBO(0, 1)",
        misconceptions=[Misconception(
            "kl_reversed",
            lambda g: gaussian_kl_1d(g.m_post, g.v_post, 0.0, 1.0),
            "yours is KL(p(z|x) ‖ q), the KL the other way round: the gap is KL(q ‖ p(z|x)), "
            "with q = N(0, 1) first, and the KL is not symmetric")],
        rule="the gap is KL(q ‖ p(z|x)) with q = N(m, v) = N(0, 1) and p(z|x) = N(m*, v*): "
             "½ (log(v*/v) + (v + (m − m*)²)/v* − 1)",
        why="the gap is KL(q ‖ p(z|x)), with q first: KL(N(0, 1) ‖ N(m*, v*))")),

    Exercise("11.2", Grads(
        {"d_elbo_d_m": "m", "d_elbo_d_logv": "logv"}, loss="loss",
        labels={"d_elbo_d_m": "∂ELBO/∂m", "d_elbo_d_logv": "∂ELBO/∂log v"},
        rules={"d_elbo_d_m": "∂ELBO/∂m = (∂ log p(x|z)/∂z) · ∂z/∂m − ∂KL/∂m, with z = m + √v ε "
                             "and KL = ½(m² + v − log v − 1)",
               "d_elbo_d_logv": "∂ELBO/∂log v = (∂ log p(x|z)/∂z) · ∂z/∂log v − ∂KL/∂log v, "
                                "with ∂z/∂log v = ½ √v ε"},
        misconceptions=[
            Misconception("missing_kl_path",
                          lambda g: {"d_elbo_d_m": elbo_paths(g)[0][0],
                                     "d_elbo_d_logv": elbo_paths(g)[0][1]},
                          "yours follows only the path through z into the likelihood: m and "
                          "log v also enter the KL term ½(m² + v − log v − 1) directly, and its "
                          "derivative is subtracted"),
            Misconception("missing_reparameterisation_path",
                          lambda g: {"d_elbo_d_m": -elbo_paths(g)[1][0],
                                     "d_elbo_d_logv": -elbo_paths(g)[1][1]},
                          "yours is the KL term's derivative alone, as if the sample z were a "
                          "constant: with z = m + √v ε the likelihood depends on m and log v "
                          "through z (the reparameterisation path)")],
        why="z = m + √v ε = 1.0 here; ∂ log p(x|z)/∂z = Σ_j w_j (x_j − w_j z)/s²; ∂ELBO/∂m = "
            "that · 1 − m, ∂ELBO/∂log v = that · ½ √v ε − ½ (v − 1)")),

    Exercise("11.3", Value(
        "reparam_variance", lambda g: 4 * SIGMA_REPARAM ** 2, name="Var(2z)",
        misconceptions=[
            Misconception("second_moment", lambda g: 4 * (MU_REPARAM ** 2 + SIGMA_REPARAM ** 2),
                          "yours is the second moment E[(2z)²] = 4(μ² + σ²): the variance "
                          "subtracts the squared mean, and the constant 2μ does not vary"),
            Misconception("variance_of_z", lambda g: SIGMA_REPARAM ** 2,
                          "yours is the variance of z: the estimate is 2z, and scaling by 2 "
                          "scales the variance by 4")],
        rule="2z = 2μ + 2σε: a constant plus 2σ times a standard normal; Var(a + bε) = b²",
        why="2z = 2μ + 2σε has variance 4σ² whatever μ is")),

    Exercise("11.4", Value(
        "kl_by_hand", lambda g: kl_closed(MU_KL, LOGVAR_KL), name="KL(q ‖ p)",
        misconceptions=[
            Misconception("missing_minus_one",
                          lambda g: kl_closed(MU_KL, LOGVAR_KL) + 0.5 * len(MU_KL),
                          "yours leaves out the −1 of each dimension: without it the KL would "
                          "not be 0 at q = p (μ = 0, σ = 1)")],
        rule="½ Σ_j (μ_j² + σ_j² − log σ_j² − 1), with σ_j² = exp(log σ_j²)",
        why="½ Σ_j (μ_j² + σ_j² − log σ_j² − 1); each term is 0 at μ = 0, σ = 1")),

    Exercise("11.5", Choice(
        "one_sample_is", "b", options=ONE_SAMPLE_OPTIONS,
        misconceptions=[
            Misconception("exact_from_one_sample", "a",
                          "one sample of z from q does not integrate over every cause: its "
                          "log-weight is random, and its mean is the ELBO, below log p(x)"),
            Misconception("upper_bound", "c",
                          "by Jensen's inequality E[log ŵ] ≤ log E[ŵ] = log p(x): the estimate "
                          "is a lower bound on average, never an upper one")],
        rule="with K = 1 the log of the average is the log of one weight, log p(x|z) + log p(z) "
             "− log q(z|x) at z ~ q: what is its mean over z?",
        why="with one sample, log of p(x|z) p(z) / q(z|x) at z ~ q is the ELBO's integrand: its "
            "mean is the ELBO, a lower bound")),

    Exercise("11.6", Shape(
        "z_shape", samples_shape, name="the shape of z",
        misconceptions=[Misconception(
            "samples_not_first", lambda g: (len(g.X), K_SAMPLES, 2),
            "yours puts the digits first: the K samples come first, so that logsumexp over "
            "dim 0 averages them per digit")],
        rule="reparameterize(mu, logvar, k=K) adds a new first axis of the K samples to the "
             "shape (N, latent) of mu",
        why="the K samples come first, so that logsumexp over dim 0 averages them per digit")),
)
