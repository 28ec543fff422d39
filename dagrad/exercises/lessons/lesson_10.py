"""Lesson 10, autoencoders: the exercises' expected values, reasons and misconceptions.

10.1 how many principal components explain 90%; 10.2 the tied autoencoder's weight, used twice
(multiple use); 10.4 the best denoiser for two points (the posterior mean, not the nearest
point); 10.5 the KL sparsity penalty's gradient (the 1/N of the mean activation); 10.7 the
size after a transposed convolution; 10.8 the best decoder output for code 1 (a centroid).
"""
import numpy as np

from ..detectors import Misconception
from ..tutor import Exercise, Grads, Value, define

# 10.4: data ±1 with equal probability, noise σ, the corrupted point x̃
DATA_POINTS, SIGMA_NOISE, X_TILDE = np.array([-1.0, 1.0]), 0.5, 0.5

# 10.7: (input side, kernel, stride, padding, output_padding) of (a) and (b)
TRANSPOSED = [(4, 3, 2, 1, 1), (7, 4, 2, 1, 0)]


def posterior_mean(x_tilde, noise_std):
    """E[x | x̃] for x = ±1 with equal priors, x̃ = x + σε: Bayes' rule with the two Gaussian
    likelihoods."""
    likelihood = np.exp(-(x_tilde - DATA_POINTS) ** 2 / (2 * noise_std ** 2))
    return float(likelihood / likelihood.sum() @ DATA_POINTS)


def transposed_side(n, k, s, p, op):
    from dagrad import autograd as ag
    import dagrad.nn.functional as F
    return F.conv_transpose2d(ag.zeros(1, 1, n, n), ag.zeros(1, 1, k, k), stride=s, padding=p,
                              output_padding=op).shape[-1]


def tied_terms(g):
    """The two terms of δ_W for L = ‖X Wᵀ W − X‖²: (from X̂ = H W, from H = X Wᵀ)."""
    X, W = g.array("X"), g.array("W")
    H = X @ W.T
    d_xhat = 2 * (H @ W - X)
    return H.T @ d_xhat, (d_xhat @ W.T).T @ X


def codes_one(g):
    return g.array("X") @ g.array("w") + float(g.array("b")) >= 0


define(
    Exercise("10.1", Value(
        "k_90", lambda g: int(np.argmax(g.array("explained") >= 0.9)) + 1,
        name="the number of components",
        misconceptions=[Misconception(
            "index_not_count", lambda g: int(np.argmax(g.array("explained") >= 0.9)),
            "yours is the index into explained, which starts at 0: explained[k − 1] belongs to "
            "k components")],
        rule="explained[k − 1] is the fraction of k components: find the first index where it "
             "reaches 0.9",
        why="explained is cumulative and explained[k − 1] belongs to k components: the first "
            "index where it reaches 0.9, plus one")),

    Exercise("10.2", Grads(
        {"delta_W_tied": "W"}, loss="loss", labels={"delta_W_tied": "δ_W"},
        coords={"delta_W_tied": ("code unit", "input")},
        rules={"delta_W_tied": "δ_W = (term from X̂ = HW) + (term from H = XWᵀ): δ_X̂ = 2R, "
                               "the first is Hᵀ δ_X̂, the second (δ_X̂ Wᵀ)ᵀ X"},
        misconceptions=[
            Misconception("decoder_use_only",
                          lambda g: {"delta_W_tied": tied_terms(g)[0]},
                          "yours counts only the decoder's use of W (X̂ = HW): W is used twice, "
                          "and the encoder's use (H = XWᵀ) adds its own term (multiple use)"),
            Misconception("encoder_use_only",
                          lambda g: {"delta_W_tied": tied_terms(g)[1]},
                          "yours counts only the encoder's use of W (H = XWᵀ): W is used twice, "
                          "and the decoder's use (X̂ = HW) adds its own term (multiple use)")],
        why="δ_X̂ = 2R with R = HW − X; from X̂ = HW the term Hᵀ δ_X̂, from H = XWᵀ the term "
            "(δ_X̂ Wᵀ)ᵀ X; δ_W is their sum")),

    Exercise("10.4", Value(
        "r_half", lambda g: posterior_mean(X_TILDE, SIGMA_NOISE), name="r(0.5)",
        misconceptions=[
            Misconception("nearest_point", lambda g: 1.0,
                          "yours is the nearest data point, the most likely clean x: the best "
                          "denoiser in squared error is the mean E[x | x̃], which weighs both "
                          "points by their posterior probability"),
            Misconception("std_for_variance", lambda g: np.tanh(X_TILDE / SIGMA_NOISE),
                          "yours divides by σ where the Gaussian's exponent has 2σ²: the ratio "
                          "of the two likelihoods is exp(2x̃/σ²)")],
        rule="p(x = ±1 | x̃) ∝ exp(−(x̃ ∓ 1)²/2σ²); r(x̃) = (+1)·p(+1 | x̃) + (−1)·p(−1 | x̃)",
        why="E[x | x̃] weighs both data points by their posterior probability: tanh(x̃/σ²), "
            "not the nearest point")),

    Exercise("10.5", Grads(
        {"delta_H_kl": "H"}, loss="loss", labels={"delta_H_kl": "δ_H"},
        coords={"delta_H_kl": ("row", "code unit")},
        sizes=lambda g: {"the number of rows N": len(g.array("H"))},
        rules={"delta_H_kl": "δ_h_nj = dΩ/dπ̂_j · ∂π̂_j/∂h_nj, with dΩ/dπ̂_j = −π/π̂_j + "
                             "(1 − π)/(1 − π̂_j) and π̂_j the mean of column j"},
        why="dΩ/dπ̂_j = −π/π̂_j + (1 − π)/(1 − π̂_j), and π̂_j is a mean over the N rows, so "
            "∂π̂_j/∂h_nj = 1/N for every row n")),

    Exercise("10.7", Value(
        "transposed_sizes", lambda g: [transposed_side(*t) for t in TRANSPOSED],
        name="[side for (a), side for (b)]", coords=(lambda i: "(a)" if i == 0 else "(b)",),
        misconceptions=[
            Misconception("convolution_formula",
                          lambda g: [(n + 2 * p - k) // s + 1 for n, k, s, p, _ in TRANSPOSED],
                          "yours uses the convolution's size formula ⌊(n + 2p − k)/s⌋ + 1: the "
                          "transposed convolution runs it backwards, from the convolution's "
                          "output size to its input size"),
            Misconception("output_padding_missing",
                          lambda g: [(n - 1) * s - 2 * p + k for n, k, s, p, _ in TRANSPOSED],
                          "yours leaves out output_padding, the extra row and column that pick "
                          "one of the input sizes a stride-2 convolution maps to the same size")],
        rule="a convolution maps side m to ⌊(m + 2p − k)/s⌋ + 1; the transposed one maps n back "
             "to the m it came from, (n − 1)s − 2p + k, plus output_padding",
        why="the transposed convolution maps the size a convolution would produce back to its "
            "input size: (n − 1)s − 2p + k + output_padding")),

    Exercise("10.8", Value(
        "c1_best", lambda g: g.array("X")[codes_one(g)].mean(0), name="c₁",
        coords=(lambda i: "xy"[i],),
        misconceptions=[
            Misconception("mean_of_all_data", lambda g: g.array("X").mean(0),
                          "yours is the mean of all the data: with the codes fixed, c₁ only "
                          "reconstructs the points whose code is 1"),
            Misconception("other_code", lambda g: g.array("X")[~codes_one(g)].mean(0),
                          "yours is the mean of the points with code 0: code 1 is the side "
                          "where w·x + b ≥ 0")],
        rule="with the codes fixed, ∂L/∂c₁ = −2 Σ (x_n − c₁) over the points n with code z_n = 1, = 0",
        why="∂L/∂c₁ = −2 Σ over the points with code 1 of (x_n − c₁) = 0: the mean of those "
            "points only, not of all the data")),
)
