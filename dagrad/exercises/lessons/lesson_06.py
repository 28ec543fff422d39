"""Lesson 06, deep networks: the exercises' expected values, reasons and misconceptions.

06.1 the factor by which each sigmoid layer shrinks δ; 06.2 Kaiming's and PyTorch's default
weight variances; 06.3 whether clipping makes an exploding network learn; 06.4 batch norm's δ_z
for one batch by hand (its three paths, the 1/B of its means); 06.5 the three paths' terms in
NumPy; 06.6 batch norm's backward as a Function; 06.7 layer norm's backward as a Function (the
statistics along each row, γ inside the means); 06.9 one proximal L1 step and one max-norm
projection. (Exercise 8 is open-ended.)
"""
import numpy as np

from ..detectors import Misconception
from ..tutor import Backward, Choice, Exercise, Value, define

# ------------------------------------------------------------------- 06.1 the depth factor
DEPTHS = (2, 4, 6, 8)


def depth_ratios(g):
    """‖δ_W1‖ / ‖δ_Wout‖ at the first step of the sigmoid network for each of ``DEPTHS``
    hidden layers, with the lesson's ``make_net`` and ``first_step`` (computed once)."""
    if "ratios" not in g.cache:
        from dagrad import autograd as ag
        ratios = []
        for depth in DEPTHS:
            ag.manual_seed(0)
            norms = g.first_step(g.make_net("sigmoid", depth=depth))
            ratios.append(norms[0] / norms[-1])
        g.cache["ratios"] = np.array(ratios)
    return g.cache["ratios"]


def depth_factor(g, log=np.log10, base=10.0):
    """The factor per layer, ``base`` to the slope of ``log``(ratio) against depth."""
    return base ** np.polyfit(DEPTHS, log(depth_ratios(g)), 1)[0]


# ----------------------------------------------------------- 06.2 the weights' variances
FAN_IN = 64

# ----------------------------------------------------------------------- 06.3 clipping
CLIP_STEPS = 200


def clipped_losses(g):
    """The training losses of the ReLU network at N(0, 1) weights, SGD with momentum and
    clip_grad_norm_(…, 1.0) before every step: the loop Exercise 3 asks for (computed once)."""
    if "losses" not in g.cache:
        from dagrad import autograd as ag
        from dagrad import nn, optim
        ag.manual_seed(0)
        net = g.make_net("relu", init=g.init)
        X, y = g.data
        loader = nn.data.DataLoader(nn.data.TensorDataset(X, y), batch_size=64, shuffle=True,
                                    seed=0)
        opt = optim.SGD(net.parameters(), lr=0.01, momentum=0.9)
        losses = []
        while len(losses) < CLIP_STEPS:
            for xb, yb in loader:
                loss = nn.functional.cross_entropy(net(xb), yb)
                opt.zero_grad()
                loss.backward()
                nn.utils.clip_grad_norm_(net.parameters(), 1.0)
                opt.step()
                losses.append(loss.item())
                if len(losses) == CLIP_STEPS:
                    break
        g.cache["losses"] = np.array(losses)
    return g.cache["losses"]


def clipping_verdict(g):
    return "fixes" if clipped_losses(g)[-20:].mean() < np.log(10) else "symptom"


# ------------------------------------------------------------- batch norm and layer norm
def normalise_backward(z, d_z_hat, axis, eps=1e-5, direct=True, mean=True, variance=True,
                       ddof=0, mean_of=np.mean):
    """δ_z of ẑ = (z − μ)/s, s = √(σ² + ε), the statistics over ``axis`` (0: batch norm, down
    each column; −1: layer norm, along each row), given δ_ẑ: the sum of the three paths, with
    the mistakes the lesson names: a path left out, the variance with ``ddof`` = 1, and
    ``mean_of`` a sum where the formula takes a mean (the 1/B or 1/n left out)."""
    s = np.sqrt(z.var(axis=axis, ddof=ddof, keepdims=True) + eps)
    z_hat = (z - z.mean(axis=axis, keepdims=True)) / s
    d_z = d_z_hat / s if direct else np.zeros_like(z)
    if mean:
        d_z = d_z - mean_of(d_z_hat, axis=axis, keepdims=True) / s
    if variance:
        d_z = d_z - z_hat * mean_of(d_z_hat * z_hat, axis=axis, keepdims=True) / s
    return d_z


# 06.4: one feature, a batch of four, γ = 2, β = 0.5, ε = 0, L = y_1
BATCH, GAMMA, BETA = np.array([1.0, 3.0, 3.0, 9.0]), 2.0, 0.5
UPSTREAM = np.array([1.0, 0.0, 0.0, 0.0])


def one_batch_engine(g):
    """δ_z of 06.4 by nn.BatchNorm1d (float64, ε = 0)."""
    from dagrad import autograd as ag
    from dagrad import nn
    z = ag.tensor(BATCH.reshape(4, 1), dtype=ag.float64, requires_grad=True)
    bn = nn.BatchNorm1d(1, eps=0.0, dtype="float64")
    with ag.no_grad():
        bn.weight.fill_(GAMMA)
        bn.bias.fill_(BETA)
    bn(z)[0, 0].backward()
    return z.grad.numpy().reshape(4)


def one_batch(**mistake):
    """δ_z of 06.4 by the formula, with one of ``normalise_backward``'s mistakes."""
    return normalise_backward(BATCH.reshape(4, 1), GAMMA * UPSTREAM.reshape(4, 1), 0, eps=0.0,
                              **mistake).reshape(4)


HELD_CONSTANT = ("yours is the direct path only: μ and s depend on every z_j too (the paths "
                 "through μ and through σ² add their terms)")


def bn_path_misconceptions(compute, held_constant=HELD_CONSTANT, sum_words="B"):
    """The misconceptions of a batch (or layer) norm backward, each computed by ``compute(**
    mistake)``."""
    return [
        Misconception("direct_path_only",
                      lambda g: compute(mean=False, variance=False), held_constant),
        Misconception("variance_path_missing", lambda g: compute(variance=False),
                      "yours has the direct path and the path through μ, but not the path "
                      "through σ²: s depends on every z_j too"),
        Misconception("mean_path_missing", lambda g: compute(mean=False),
                      "yours has the direct path and the path through σ², but not the path "
                      "through μ"),
        Misconception("mean_factor", lambda g: compute(mean_of=np.sum),
                      f"yours sums where the formula takes means: ∂μ/∂z_j = 1/{sum_words} and "
                      f"∂σ²/∂z_j = 2(z_j − μ)/{sum_words}, so the 1/{sum_words} is missing"),
        Misconception("unbiased_variance", lambda g: compute(ddof=1),
                      f"yours uses the unbiased variance (dividing by {sum_words} − 1): the "
                      f"forward divides by {sum_words}, and the backward follows it")]


# 06.5: the same batch with γ = 1.5, ε = 1e-5 and δ_y = (1, −1, 0.5, 0), on the edges of the
# graph the lesson's player steps through
STEPS_Z, STEPS_GAMMA, STEPS_BETA = BATCH, 1.5, 0.25
STEPS_UPSTREAM = np.array([1.0, -1.0, 0.5, 0.0])


def _steps_arrays(g):
    z = g.array("z") if "z" in g else STEPS_Z
    gamma = float(g.array("gamma")) if "gamma" in g else STEPS_GAMMA
    dy = g.array("dy") if "dy" in g else STEPS_UPSTREAM
    return z, gamma, dy


def path_terms(g):
    """{"direct", "mean", "variance", "sum"}: the δ's on the edges Div → z − μ, Mean → z and
    Pow → z − μ of batch norm built from primitive operations, and δ_z, by the engine."""
    if "paths" not in g.cache:
        from dagrad import autograd as ag
        from dagrad import viz
        z_np, gamma_np, dy = _steps_arrays(g)
        z = ag.tensor(z_np, dtype=ag.float64, requires_grad=True)
        gamma = ag.tensor(gamma_np, dtype=ag.float64, requires_grad=True)
        with viz.record():
            mu = z.mean()
            centred = z - mu
            var = (centred ** 2).mean()
            s = (var + 1e-5).sqrt()
            loss = ((gamma * (centred / s) + STEPS_BETA) * ag.tensor(dy)).sum()
        graph = viz.trace(loss, grads=True, names={"z": z})

        def edge(source, op):
            (node,) = graph.find(source)
            names = {n.id: n.name for n in graph.nodes}
            (e,) = [e for e in graph.edges_from(node.id) if names[e.dst] == op]
            return np.asarray(e.grad, dtype=np.float64)
        (d_z,) = ag.grad(loss, [z])
        g.cache["paths"] = {"direct": edge("Sub", "Div"), "mean": edge("z", "Mean"),
                            "variance": edge("Sub", "Pow"), "sum": d_z.numpy()}
    return g.cache["paths"]


def path_term_list(g):
    p = path_terms(g)
    return [("the direct path", p["direct"]), ("the path through μ", p["mean"]),
            ("the path through σ²", p["variance"])]


def steps_batch_size(g):
    return {"the batch size B": len(_steps_arrays(g)[0])}


STEPS_COORDS = (lambda i: f"example {i + 1}",)

# 06.6 and 06.7: the inputs the student's operations are checked at
BN_INPUT = np.random.default_rng(4).normal(2.0, 3.0, size=(6, 4))
LN_INPUT = np.random.default_rng(8).normal(1.0, 2.0, size=(5, 4))
LN_GAMMA = np.random.default_rng(9).normal(1.0, 0.5, size=4)


def bn_backward(**mistake):
    """A NumPy backward (grad, z, out) -> (δ_z,) of batch norm without scale and shift."""
    return lambda g: lambda grad, z, out: (normalise_backward(z, grad, 0, **mistake),)


def ln_backward(gamma_inside=True, axis=-1, **mistake):
    """A NumPy backward (grad, z, γ, out) -> (δ_z, δ_γ) of layer norm with a scale γ."""
    def backward(grad, z, gamma, out):
        s = np.sqrt(z.var(axis=-1, keepdims=True) + 1e-5)
        z_hat = (z - z.mean(axis=-1, keepdims=True)) / s
        if gamma_inside:
            d_z = normalise_backward(z, gamma * grad, axis, **mistake)
        else:                                       # γ taken out of the means, as in batch norm
            d_z = gamma * normalise_backward(z, grad, axis, **mistake)
        return d_z, (grad * z_hat).sum(axis=0)
    return lambda g: backward


def ln_misconception(tag, sentence, **how):
    return Misconception(tag, ln_backward(**how), sentence)


# ------------------------------------------------------------------ 06.9 L1 and max-norm
L1_WEIGHTS, L1_THRESHOLD = np.array([0.3, -0.05, 0.12, -0.4]), 0.1
MAX_NORM_W, MAX_NORM_C = np.array([[3.0, 4.0], [0.6, -0.8]]), 2.0


def soft_threshold(g):
    """The proximal step of ελ|w|, by the engine's operations."""
    from dagrad import autograd as ag
    w = ag.tensor(L1_WEIGHTS, dtype=ag.float64)
    return (w.sign() * (w.abs() - L1_THRESHOLD).clamp(min=0.0)).numpy()


def max_norm(g, axis=1, every_row=False):
    norms = np.linalg.norm(MAX_NORM_W, axis=axis, keepdims=True)
    scale = MAX_NORM_C / norms if every_row else np.minimum(1.0, MAX_NORM_C / norms)
    return MAX_NORM_W * scale


define(
    Exercise("06.1", Value(
        "q_per_layer", depth_factor, tol=1e-3, name="q",
        misconceptions=[
            Misconception("slope_not_factor", lambda g: np.log10(depth_factor(g)),
                          "yours is the slope of the line, log10 q: the factor per layer is 10 "
                          "to the power of the slope"),
            Misconception("ratio_upside_down", lambda g: 1 / depth_factor(g),
                          "yours is 1/q, from ‖δ_Wout‖ / ‖δ_W1‖: δ shrinks towards the input, "
                          "so the factor per layer is below 1"),
            Misconception("natural_log_slope",
                          lambda g: depth_factor(g, log=np.log, base=10.0),
                          "yours fits the natural logarithm and raises 10 to its slope: with "
                          "np.log the factor is e to the slope (or fit np.log10)")],
        rule="fit log10(ratio) = slope · depth + c with np.polyfit(depths, np.log10(ratios), "
             "1), one ratio ‖δ_W1‖ / ‖δ_Wout‖ per depth; then q = 10 ** slope",
        why="fit log10(ratio) = slope · depth + c; the factor per layer is 10 ** slope")),

    Exercise(
        "06.2",
        Value("kaiming_variance", lambda g: 2 / FAN_IN, tol=1e-9, name="Kaiming's variance",
              misconceptions=[
                  Misconception("relu_half_forgotten", lambda g: 1 / FAN_IN,
                                "yours is 1/n, which keeps the variance of a linear unit: the "
                                "ReLU keeps only half of E[z'²], and the 2 makes up for it"),
                  Misconception("standard_deviation", lambda g: np.sqrt(2 / FAN_IN),
                                "yours is the standard deviation √(2/n): the question asks for "
                                "the variance σ²")],
              rule="n σ² E[z'²] / 2 = E[z'²] holds for σ² = 2/n, with n = 64",
              why="n σ² E[z'²]/2 = E[z'²] needs σ² = 2/n: the 2 makes up for the half the ReLU "
                  "zeroes"),
        Value("default_variance", lambda g: (1 / np.sqrt(FAN_IN)) ** 2 / 3, tol=1e-9,
              name="the default's variance",
              misconceptions=[
                  Misconception("bound_not_squared", lambda g: 1 / np.sqrt(FAN_IN) / 3,
                                "yours is a/3: U(−a, a) has variance a²/3, with a = 1/√n"),
                  Misconception("third_forgotten", lambda g: 1 / FAN_IN,
                                "yours is a² = 1/n: U(−a, a) has variance a²/3 (the mean of x² "
                                "over [−a, a])"),
                  Misconception("bound_one_over_n", lambda g: (1 / FAN_IN) ** 2 / 3,
                                "yours takes a = 1/n: PyTorch's bound is a = 1/√n")],
              rule="for U(−a, a) the variance is a²/3; here a = 1/√n with n = 64",
              why="U(−a, a) has variance a²/3; with a = 1/√n that is 1/(3n), a sixth of "
                  "Kaiming's")),

    Exercise("06.3", Choice(
        "clipping_verdict", clipping_verdict, options=["fixes", "symptom"],
        misconceptions=[Misconception(
            "clipping_cures", "fixes",
            "clipping bounds every step, but it does not change the weights' scale: run the "
            "clipped loop and compare the loss of its last 20 steps with ln 10")],
        why="with clipping every step is short, but at N(0, 1) weights the logits are still "
            "astronomically large: the loss of the last 20 steps stays above chance, ln 10 ≈ "
            "2.30; the cure is the initialisation")),

    Exercise("06.4", Value(
        "dz_by_hand", one_batch_engine, name="δ_z",
        coords=(lambda i: f"z_{i + 1} = {BATCH[i]:g}",),
        sizes={"the batch size B": len(BATCH)},
        misconceptions=bn_path_misconceptions(one_batch),
        rule="δ_ẑ = γ δ_y; δ_z = (δ_ẑ − mean(δ_ẑ) − ẑ · mean(δ_ẑ ẑ)) / s, the means over the "
             "batch of 4, with μ = mean(z), s = √(mean((z − μ)²))",
        why="μ = 4, s = 3, ẑ = (−1, −1/3, −1/3, 5/3), δ_ẑ = (2, 0, 0, 0); the means are "
            "mean(δ_ẑ) = 0.5 and mean(δ_ẑ ẑ) = −0.5, so δ_z = (δ_ẑ − 0.5 + 0.5 ẑ)/3. L = y_1 "
            "depends on z_2..z_4 through μ and s")),

    Exercise(
        "06.5",
        Value("path_direct", lambda g: path_terms(g)["direct"],
              name="the direct term (the δ from Div to z − μ)", coords=STEPS_COORDS,
              sizes=steps_batch_size,
              rule="ẑ = (z − μ)/s with s held fixed: the term is δ_ẑ / s, with δ_ẑ = γ δ_y",
              why="ẑ = (z − μ)/s with s held fixed: the local derivative is 1/s, times δ_ẑ = "
                  "γ δ_y"),
        Value("path_mean", lambda g: path_terms(g)["mean"],
              name="the term through μ (the δ from Mean to z)", coords=STEPS_COORDS,
              sizes=steps_batch_size,
              rule="μ receives −Σ_i δ_ẑ_i / s, and the mean hands 1/B of it to every z_j",
              why="μ receives −Σ δ_ẑ / s, and the mean hands 1/B of it to every z_j"),
        Value("path_variance", lambda g: path_terms(g)["variance"],
              name="the term through σ² (the δ from Pow to z − μ)", coords=STEPS_COORDS,
              sizes=steps_batch_size,
              rule="∂L/∂σ² = −Σ_i δ_ẑ_i ẑ_i / (2s²) and ∂σ²/∂z_j = 2 s ẑ_j / B",
              why="∂L/∂σ² = −Σ δ_ẑ ẑ / (2s²) and ∂σ²/∂z_j = 2 s ẑ_j / B"),
        Value("dz_steps", lambda g: path_terms(g)["sum"], name="δ_z", coords=STEPS_COORDS,
              terms=path_term_list, sizes=steps_batch_size,
              misconceptions=[Misconception("direct_path_only",
                                            lambda g: path_terms(g)["direct"], HELD_CONSTANT)],
              rule="δ_z is the sum of the three terms: z's two edges (into Mean and into "
                   "z − μ) add up",
              why="the three paths add up: δ_z = (γ/s)(δ_y − mean(δ_y) − ẑ mean(δ_y ẑ))")),

    Exercise("06.6", Backward(
        "BatchNormNoAffine", (BN_INPUT,),
        coords=("example", "feature"),
        misconceptions=[
            Misconception("direct_path_only", bn_backward(mean=False, variance=False),
                          HELD_CONSTANT),
            Misconception("variance_path_missing", bn_backward(variance=False),
                          "it has the direct path and the path through μ, but not the path "
                          "through σ²: s depends on every z_j too"),
            Misconception("mean_factor", bn_backward(mean_of=np.sum),
                          "it sums over the batch where the formula takes means: the 1/B of "
                          "∂μ/∂z_j and ∂σ²/∂z_j is missing"),
            Misconception("layer_norm_axis",
                          lambda g: lambda grad, z, out: (normalise_backward(z, grad, -1),),
                          "it takes the means along each row (over the features, layer norm's "
                          "axis): batch norm's statistics, and so the means of its backward, "
                          "run down each column, over the batch (axis=0)")],
        rule="per column: s = √(mean((z − μ)²) + ε), ẑ = (z − μ)/s, and δ_z = (δ_ẑ − "
             "mean(δ_ẑ) − ẑ · mean(δ_ẑ ẑ)) / s, every mean .mean(axis=0, keepdims=True)",
        why="recompute μ, σ² and ẑ from the saved z per column; δ_z = (g − g.mean(0) − ẑ (g ẑ)"
            ".mean(0)) / s, written with operators and .mean so that it runs on tensors too")),

    Exercise("06.7", Backward(
        "LayerNormScale", (LN_INPUT, LN_GAMMA), expected_shapes=True,
        coords=("example", "feature"),
        misconceptions=[
            ln_misconception("gamma_outside_the_means",
                             "it takes γ out of the means, as batch norm can: in layer norm γ_j "
                             "changes along the row the means run over, so δ_ẑ = γ ⊙ δ_y goes "
                             "inside them", gamma_inside=False),
            ln_misconception("batch_norm_axis",
                             "it takes the means down each column (over the batch, batch norm's "
                             "axis): layer norm's statistics run along each row, over the "
                             "features (axis=-1)", axis=0),
            ln_misconception("direct_path_only",
                             "it is the direct path only: μ and s of a row depend on every z_j of "
                             "that row too", mean=False, variance=False),
            ln_misconception("mean_factor",
                             "it sums over the features where the formula takes means: the 1/n "
                             "of ∂μ/∂z_j and ∂σ²/∂z_j is missing", mean_of=np.sum)],
        rule="per row: s = √(mean((z − μ)²) + ε), ẑ = (z − μ)/s, δ_ẑ = γ δ_y, δ_z = (δ_ẑ − "
             "mean(δ_ẑ) − ẑ · mean(δ_ẑ ẑ)) / s with every mean over axis=-1; δ_γ = Σ over the "
             "rows of δ_y ẑ",
        why="the three paths as in batch norm, the means along each row: with δ_ẑ = γ δ_y, "
            "δ_z = (δ_ẑ − δ_ẑ.mean(-1) − ẑ (δ_ẑ ẑ).mean(-1)) / s; δ_γ = (δ_y ẑ).sum(0), since "
            "γ is used once per row")),

    Exercise(
        "06.9",
        Value("w_after_l1", soft_threshold, tol=1e-9, name="w after the soft threshold",
              coords=(lambda i: f"w = {L1_WEIGHTS[i]:g}",),
              misconceptions=[
                  Misconception("subgradient_step",
                                lambda g: L1_WEIGHTS - L1_THRESHOLD * np.sign(L1_WEIGHTS),
                                "yours is the subgradient step w − ελ sign(w): it carries a "
                                "small weight past zero to the other sign; the soft threshold "
                                "stops at zero"),
                  Misconception("hard_threshold",
                                lambda g: np.where(np.abs(L1_WEIGHTS) <= L1_THRESHOLD, 0.0,
                                                   L1_WEIGHTS),
                                "yours zeroes the small weights and leaves the others where "
                                "they were (a hard threshold): the soft threshold also moves "
                                "them ελ towards zero")],
              rule="sign(w) · max(|w| − ελ, 0) for each weight, with ελ = 0.1",
              why="the soft threshold moves each weight 0.1 towards zero and stops at zero: "
                  "|w| ≤ 0.1 gives exactly 0, it never crosses to the other sign"),
        Value("W_after_max_norm", max_norm, tol=1e-9, name="W after max-norm",
              coords=("unit", "input"),
              misconceptions=[
                  Misconception("every_row_onto_the_sphere", lambda g: max_norm(g, every_row=True),
                                "yours scales every row to norm c: rows inside the ball are "
                                "left alone, min(1, c/‖w_k‖)"),
                  Misconception("entries_clipped",
                                lambda g: np.clip(MAX_NORM_W, -MAX_NORM_C, MAX_NORM_C),
                                "yours clips each weight to [−c, c]: max-norm scales a whole "
                                "row, keeping its direction"),
                  Misconception("columns", lambda g: max_norm(g, axis=0),
                                "yours measures the norm of each column: a unit's incoming "
                                "weights are a row of W, shape (out, in)")],
              rule="each row w_k is multiplied by min(1, c / ‖w_k‖), c = 2",
              why="each row is scaled by min(1, c/‖row‖): the row (3, 4) has norm 5, so it is "
                  "scaled by 2/5; the row (0.6, −0.8) has norm 1 ≤ 2 and stays as it is")),
)
