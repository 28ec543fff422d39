"""Lesson 17, the whole backward pass by hand: the exercises' expected values, reasons and
misconceptions.

A character-level MLP (embedding, linear, batch norm, tanh, linear, cross-entropy) written out
in 20 named intermediates. 17.1-17.4 ask for every intermediate's δ, from the loss back to
the embedding, in four steps that share one progress map (each check knows the earlier
answers, judges a δ against what the chain rule gives from the student's own δ's, and draws
the whole pass); 17.5 and 17.6 fuse the cross-entropy and the batch norm backward into one
formula each (a backward for the lesson's forward, gradchecked); 17.7 compares the loss curve
of training with the student's backward against autograd's.

Every misconception is the wrong rule applied to the student's own δ's (``g.delta``), so it
is recognised after a mistake further down the chain too.
"""
import numpy as np

from ..detectors import Misconception
from ..tutor import Backward, Exercise, Grads, Value, define

MAP = "17"                          # the four exercises of the pass share one progress map
EPS = 1e-5                          # batch norm's ε, as in the lesson's forward


def batch_size(g):
    return {"the batch size B": len(g.Yb)}


def v(g, name):
    """A forward value (or parameter) of the lesson's graph as a float64 array."""
    return g.array(name)


def missing_batch_sum(answer, rows, param, use="is added to"):
    """The δ of a parameter broadcast over the batch rows, its rows left unsummed: ``rows(g)``
    is that (B, ...) array, computed from the student's own δ's."""
    return Misconception(
        "missing_batch_sum", lambda g: {answer: rows(g)},
        f"yours for δ_{param} keeps one row per example: {param} {use} every row (broadcast), "
        f"that is, it is used once per example, so its δ is the sum of the rows' δ's")


EXAMPLE_CHAR = ("example", "character")
EXAMPLE_UNIT = ("example", "hidden unit")
ROW_UNIT = ("the row", "hidden unit")

# ---------------------------------------------------------------- 17.1 the cross-entropy end
CROSS_ENTROPY_END = Grads(
    {"d_logprobs": "logprobs", "d_probs": "probs", "d_counts_sum_inv": "counts_sum_inv",
     "d_counts_sum": "counts_sum", "d_counts": "counts", "d_norm_logits": "norm_logits",
     "d_logit_maxes": "logit_maxes", "d_logits": "logits"},
    loss="loss", progress_map=MAP, sizes=batch_size,
    coords={"d_logprobs": EXAMPLE_CHAR, "d_probs": EXAMPLE_CHAR, "d_counts": EXAMPLE_CHAR,
            "d_norm_logits": EXAMPLE_CHAR, "d_logits": EXAMPLE_CHAR,
            "d_counts_sum_inv": ("example", None), "d_counts_sum": ("example", None),
            "d_logit_maxes": ("example", None)},
    rules={"d_logprobs": "L = −(1/B) Σ_i logprobs[i, y_i]: only the B picked entries enter L, "
                         "each with the factor −1/B",
           "d_probs": "logprobs = log(probs) elementwise: δ_probs = δ_logprobs / probs",
           "d_counts_sum_inv": "probs = counts ⊙ counts_sum_inv with counts_sum_inv (B, 1) "
                               "broadcast over the columns: its δ sums δ_probs ⊙ counts "
                               "along each row",
           "d_counts_sum": "counts_sum_inv = counts_sum⁻¹: δ_counts_sum = −counts_sum⁻² ⊙ "
                           "δ_counts_sum_inv",
           "d_counts": "counts is used twice, in probs and in counts_sum: δ_counts = "
                       "δ_probs ⊙ counts_sum_inv + δ_counts_sum (broadcast back to every "
                       "column)",
           "d_norm_logits": "counts = exp(norm_logits): δ_norm_logits = δ_counts ⊙ counts",
           "d_logit_maxes": "norm_logits = logits − logit_maxes, logit_maxes broadcast over "
                            "the columns: δ_logit_maxes = −Σ_j δ_norm_logits[:, j]",
           "d_logits": "logits is used twice: δ_norm_logits directly, and δ_logit_maxes at "
                       "the position of each row's maximum"},
    misconceptions=[
        Misconception("not_only_the_picked", lambda g: {
            "d_logprobs": np.full(v(g, "logprobs").shape, -1 / len(g.Yb))},
            "yours for δ_logprobs spreads −1/B over every column: only the picked entries "
            "logprobs[i, y_i] enter the loss, every other entry's δ is 0"),
        Misconception("missing_broadcast_sum", lambda g: {
            "d_counts_sum_inv": g.delta("probs") * v(g, "counts")},
            "yours for δ_counts_sum_inv keeps one column per character: counts_sum_inv "
            "(B, 1) was broadcast across the columns, that is, used once per column, so its "
            "δ sums the row (broadcasting's sum)"),
        Misconception("one_path_only", lambda g: {
            "d_counts": g.delta("probs") * v(g, "counts_sum_inv")},
            "yours for δ_counts has only the path through probs: counts is used twice, also "
            "in counts_sum, so its δ is the sum of both paths' δ's (multiple use)")],
    why="from the loss back, one local derivative per line: δ_logprobs = −1/B at the picked "
        "entries (0 elsewhere), δ_probs = δ_logprobs / probs, δ_counts_sum_inv = Σ_j δ_probs ⊙ "
        "counts, δ_counts_sum = −counts_sum⁻² δ_counts_sum_inv, δ_counts = δ_probs ⊙ "
        "counts_sum_inv + δ_counts_sum, δ_norm_logits = δ_counts ⊙ counts, δ_logit_maxes = "
        "−Σ_j δ_norm_logits, δ_logits = δ_norm_logits + one_hot(argmax) ⊙ δ_logit_maxes")

# ---------------------------------------------------------------- 17.2 linear and tanh
LINEAR_AND_TANH = Grads(
    {"d_h": "h", "d_W2": "W2", "d_b2": "b2", "d_hpreact": "hpreact"},
    loss="loss", progress_map=MAP, sizes=batch_size,
    coords={"d_h": EXAMPLE_UNIT, "d_W2": ("character", "hidden unit"), "d_b2": ("character",),
            "d_hpreact": EXAMPLE_UNIT},
    rules={"d_h": "logits = h W2ᵀ + b2: δ_h = δ_logits W2, (B, V) · (V, H)",
           "d_W2": "logits = h W2ᵀ + b2: δ_W2 = δ_logitsᵀ h, the shape of W2 (V, H)",
           "d_b2": "b2 is added to every row: δ_b2 = Σ_i δ_logits[i]",
           "d_hpreact": "h = tanh(hpreact): δ_hpreact = δ_h ⊙ (1 − h²)"},
    misconceptions=[
        missing_batch_sum("d_b2", lambda g: g.delta("logits"), "b2"),
        Misconception("tanh_of_the_input", lambda g: {
            "d_hpreact": g.delta("h") * (1 - v(g, "hpreact") ** 2)},
            "yours for δ_hpreact uses 1 − hpreact²: tanh's derivative is 1 − tanh(x)², "
            "written with the output, 1 − h²")],
    why="Y = X Wᵀ + b backward: δ_X = δ_Y W, δ_W = δ_Yᵀ X, δ_b = Σ_i δ_Y[i]; with Y = logits, "
        "X = h, W = W2; then δ_hpreact = δ_h ⊙ (1 − h²)")

# ---------------------------------------------------------------- 17.3 batch norm
BATCH_NORM = Grads(
    {"d_bngain": "bngain", "d_bnbias": "bnbias", "d_bnraw": "bnraw",
     "d_bnvar_inv": "bnvar_inv", "d_bnvar": "bnvar", "d_bndiff2": "bndiff2",
     "d_bndiff": "bndiff", "d_bnmean": "bnmean", "d_hprebn": "hprebn"},
    loss="loss", progress_map=MAP, sizes=batch_size,
    coords={"d_bngain": ("hidden unit",), "d_bnbias": ("hidden unit",),
            "d_bnraw": EXAMPLE_UNIT, "d_bnvar_inv": ROW_UNIT, "d_bnvar": ROW_UNIT,
            "d_bndiff2": EXAMPLE_UNIT, "d_bndiff": EXAMPLE_UNIT, "d_bnmean": ROW_UNIT,
            "d_hprebn": EXAMPLE_UNIT},
    rules={"d_bngain": "hpreact = bngain ⊙ bnraw + bnbias, bngain broadcast over the rows: "
                       "δ_bngain = Σ_i δ_hpreact ⊙ bnraw",
           "d_bnbias": "δ_bnbias = Σ_i δ_hpreact (bnbias is added to every row)",
           "d_bnraw": "δ_bnraw = bngain ⊙ δ_hpreact",
           "d_bnvar_inv": "bnraw = bndiff ⊙ bnvar_inv, bnvar_inv (1, H) broadcast over the "
                          "rows: δ_bnvar_inv = Σ_i δ_bnraw ⊙ bndiff",
           "d_bnvar": "bnvar_inv = (bnvar + ε)^(−1/2): δ_bnvar = −½ (bnvar + ε)^(−3/2) ⊙ "
                      "δ_bnvar_inv",
           "d_bndiff2": "bnvar = (1/B) Σ_i bndiff2: each row gets δ_bnvar / B",
           "d_bndiff": "bndiff is used twice, in bnraw and in bndiff2: δ_bndiff = δ_bnraw ⊙ "
                       "bnvar_inv + 2 bndiff ⊙ δ_bndiff2",
           "d_bnmean": "bndiff = hprebn − bnmean, bnmean broadcast over the rows: δ_bnmean = "
                       "−Σ_i δ_bndiff",
           "d_hprebn": "hprebn is used twice, in bndiff and in bnmean = (1/B) Σ_i hprebn: "
                       "δ_hprebn = δ_bndiff + δ_bnmean / B"},
    misconceptions=[
        Misconception("s_held_constant", lambda g: {
            "d_bndiff": g.delta("bnraw") * v(g, "bnvar_inv")},
            "yours for δ_bndiff has only the path through bnraw = (z − μ)/s, as if s were a "
            "constant: z − μ is used twice, also in (z − μ)² → σ² → s, and that path's δ "
            "adds to it"),
        Misconception("mu_held_constant", lambda g: {"d_hprebn": g.delta("bndiff")},
                      "yours for δ_hprebn treats μ as a constant: μ = (1/B) Σ_i z_i depends "
                      "on every z_i, so δ_z also gets δ_μ / B"),
        missing_batch_sum("d_bngain", lambda g: g.delta("hpreact") * v(g, "bnraw"), "bngain",
                          use="multiplies")],
    why="one local derivative per line, adding the δ's of a value used twice: δ_bngain = "
        "Σ_i δ_hpreact ⊙ bnraw, δ_bnbias = Σ_i δ_hpreact, δ_bnraw = bngain ⊙ δ_hpreact, "
        "δ_bnvar_inv = Σ_i δ_bnraw ⊙ bndiff, δ_bnvar = −½ (bnvar + ε)^(−3/2) δ_bnvar_inv, "
        "δ_bndiff2 = δ_bnvar / B, δ_bndiff = δ_bnraw ⊙ bnvar_inv + 2 bndiff ⊙ δ_bndiff2, "
        "δ_bnmean = −Σ_i δ_bndiff, δ_hprebn = δ_bndiff + δ_bnmean / B")


# ---------------------------------------------------------------- 17.4 linear and embedding
def overwritten(g):
    """δ_C as ``d_C[Xb] = d_emb`` (or ``+=``) gives it: a character seen several times in the
    batch keeps one of its δ's (NumPy's buffered fancy-index assignment)."""
    d_C = np.zeros(v(g, "C").shape)
    d_C[g.Xb] = g.delta("emb")
    return d_C


LINEAR_AND_EMBEDDING = Grads(
    {"d_embcat": "embcat", "d_W1": "W1", "d_b1": "b1", "d_emb": "emb", "d_C": "C"},
    loss="loss", progress_map=MAP, sizes=batch_size,
    coords={"d_embcat": ("example", "input"), "d_W1": ("hidden unit", "input"),
            "d_b1": ("hidden unit",), "d_emb": ("example", "context position", "dimension"),
            "d_C": ("character", "dimension")},
    rules={"d_embcat": "hprebn = embcat W1ᵀ + b1: δ_embcat = δ_hprebn W1",
           "d_W1": "δ_W1 = δ_hprebnᵀ embcat, the shape of W1 (H, 3d)",
           "d_b1": "δ_b1 = Σ_i δ_hprebn[i]",
           "d_emb": "embcat is emb's (B, 3, d) values viewed as (B, 3d): δ_emb is δ_embcat "
                    "viewed back",
           "d_C": "emb[i, k] = C[Xb[i, k]]: row c of δ_C adds δ_emb[i, k] over every (i, k) "
                  "with Xb[i, k] = c (np.add.at)"},
    misconceptions=[
        Misconception("repeated_indices_overwritten", lambda g: {"d_C": overwritten(g)},
                      "yours for δ_C keeps one δ per character where the batch holds it "
                      "several times: d_C[Xb] += d_emb writes each repeated row once (NumPy "
                      "buffers a fancy-index assignment). Row c of C is used once per "
                      "occurrence of c, and every use adds its δ: np.add.at(d_C, Xb, d_emb)"),
        missing_batch_sum("d_b1", lambda g: g.delta("hprebn"), "b1")],
    why="Y = X Wᵀ + b backward with Y = hprebn, X = embcat, W = W1: δ_embcat = δ_hprebn W1, "
        "δ_W1 = δ_hprebnᵀ embcat, δ_b1 = Σ_i δ_hprebn[i]; δ_emb = δ_embcat reshaped to (B, 3, "
        "d); δ_C = 0, then np.add.at(δ_C, Xb, δ_emb): an embedding is one-hot times C, so its "
        "backward is a sum over the uses of each row")


# ---------------------------------------------------------------- 17.5 cross-entropy fused
def softmax_rows(z):
    e = np.exp(z - z.max(axis=1, keepdims=True))
    return e / e.sum(axis=1, keepdims=True)


def cross_entropy_inputs(g):
    return v(g, "logits"), np.asarray(g.Yb)


def _ce(wrong):
    """A NumPy backward (grad, logits, targets, out) of the cross-entropy, wrong as ``wrong``
    (a function of p = softmax(logits), the one-hot targets Y and B) makes it."""
    def backward(grad, logits, targets, out):
        p, Y = softmax_rows(logits), np.eye(logits.shape[1])[targets]
        return grad * wrong(p, Y, len(targets)), None
    return lambda g: backward


FUSED_CROSS_ENTROPY = Backward(
    "cross_entropy_backward", cross_entropy_inputs, forward=lambda g: g.cross_entropy,
    expected_shapes=True, coords=EXAMPLE_CHAR,
    misconceptions=[
        Misconception("softmax_without_targets", _ce(lambda p, Y, B: p / B),
                      "it returns softmax(logits) / B alone: the loss also subtracts "
                      "logits[i, y_i], whose δ is −1/B at the target, so δ_logits = "
                      "(p − Y) / B with Y one-hot"),
        Misconception("mean_factor", _ce(lambda p, Y, B: p - Y),
                      "it returns p − Y without the 1/B of the mean over the batch"),
        Misconception("targets_minus_softmax", _ce(lambda p, Y, B: (Y - p) / B),
                      "it returns (Y − p) / B: the loss is the negative log-likelihood, so "
                      "the δ is (p − Y) / B, pushing p down where it is too large")],
    rule="L = (1/B) Σ_i (−logits[i, y_i] + log Σ_j exp(logits[i, j])): differentiate one "
         "row's term with respect to logits[i, j]",
    why="∂/∂logits[i, j] of −logits[i, y_i] + log Σ_k exp(logits[i, k]) is p[i, j] − [j = "
        "y_i]; with the mean's 1/B, δ_logits = (softmax(logits) − one_hot(y)) / B, times the "
        "upstream δ of L")


# ---------------------------------------------------------------- 17.6 batch norm fused
def batch_norm_inputs(g):
    return v(g, "hprebn"), v(g, "bngain"), v(g, "bnbias")


def _bn(wrong):
    """A NumPy backward (grad, z, gamma, beta, out) of batch norm whose δ_z is ``wrong(d_zhat,
    zhat, s_inv)`` (δ_gamma and δ_beta right)."""
    def backward(grad, z, gamma, beta, out):
        s_inv = (z.var(axis=0) + EPS) ** -0.5
        zhat = (z - z.mean(axis=0)) * s_inv
        return wrong(gamma * grad, zhat, s_inv), (grad * zhat).sum(axis=0), grad.sum(axis=0)
    return lambda g: backward


FUSED_BATCH_NORM = Backward(
    "batch_norm_backward", batch_norm_inputs, forward=lambda g: g.batch_norm,
    expected_shapes=True, coords=EXAMPLE_UNIT,
    misconceptions=[
        Misconception("mu_and_s_held_constant", _bn(lambda d, zh, s_inv: d * s_inv),
                      "its δ_z is the direct path only, γ δ_y / s, as if μ and s were "
                      "constants: both depend on every z_i of the column, and their two paths "
                      "add −mean(δ_ẑ)/s and −ẑ mean(δ_ẑ ẑ)/s"),
        Misconception("variance_path_missing",
                      _bn(lambda d, zh, s_inv: s_inv * (d - d.mean(axis=0))),
                      "its δ_z has the direct path and the path through μ, but not the path "
                      "through σ² (s depends on every z_i too): the term −ẑ mean(δ_ẑ ẑ) / s is "
                      "missing"),
        Misconception("mean_path_missing",
                      _bn(lambda d, zh, s_inv: s_inv * (d - zh * (d * zh).mean(axis=0))),
                      "its δ_z has the direct path and the path through σ², but not the path "
                      "through μ: the term −mean(δ_ẑ) / s is missing")],
    rule="δ_z is the sum of three paths: directly (μ and s fixed) δ_ẑ / s; through μ, "
         "−mean_i(δ_ẑ) / s; through σ², −ẑ mean_i(δ_ẑ ẑ) / s; with δ_ẑ = γ δ_y",
    why="δ_z = (1/s)(δ_ẑ − mean_i δ_ẑ − ẑ mean_i(δ_ẑ ẑ)) with δ_ẑ = γ δ_y, per column; δ_γ = "
        "Σ_i δ_y ẑ, δ_β = Σ_i δ_y")


# ---------------------------------------------------------------- 17.7 training
def curve_without_the_mean(g):
    """The loss curve a backward without the cross-entropy's 1/B gives: every parameter's δ
    B times too large (autograd's, scaled)."""
    B = len(g.Yb)
    return g.train(lambda P, X, Y: _scaled(g.autograd_gradients(P, X, Y), B))


def _scaled(result, factor):
    grads, loss = result
    return {k: factor * d for k, d in grads.items()}, loss


TRAINING = Value(
    "losses_by_hand", lambda g: g.array("losses_autograd"), name="your loss curve",
    tol=1e-6, coords=("step",),
    misconceptions=[Misconception(
        "mean_factor", curve_without_the_mean,
        "it is the curve of a backward without the 1/B of the mean: every step is B times "
        "too large")],
    why="with the same initial weights and the same batches, a right backward gives the same "
        "update at every step, so the curves agree to rounding")

define(
    Exercise("17.1", CROSS_ENTROPY_END),
    Exercise("17.2", LINEAR_AND_TANH),
    Exercise("17.3", BATCH_NORM),
    Exercise("17.4", LINEAR_AND_EMBEDDING),
    Exercise("17.5", FUSED_CROSS_ENTROPY),
    Exercise("17.6", FUSED_BATCH_NORM),
    Exercise("17.7", TRAINING),
)
