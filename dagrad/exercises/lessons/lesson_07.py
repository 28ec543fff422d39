"""Lesson 07, convolutional networks: the exercises' expected values, reasons and misconceptions.

07.1 a true convolution (the kernel flipped) against the cross-correlation; 07.2 a convolution's
δ_K and δ_X (the flip, the sum over output positions); 07.3 output sizes; 07.4 two input
channels (their sum); 07.5 where max pooling sends δ; 07.6 a dilated stack's receptive field;
07.8 what a max pool does to the rms of δ; 07.9 the multiplications of a full and of a
depthwise-separable convolution; 07.11 the shape of a dense block. (Exercises 7 and 10 are
open-ended.)
"""
import numpy as np

from ..detectors import Misconception
from ..tutor import Exercise, Grads, Shape, Value, define


def _or(g, name, default):
    return g.array(name) if name in g else np.asarray(default, dtype=np.float64)


def correlate(X, K):
    """Y[i, j] = Σ_ab K[a, b] X[i + a, j + b] by the engine's conv2d (one channel, no padding)."""
    from dagrad import autograd as ag
    import dagrad.nn.functional as F
    X, K = np.asarray(X, dtype=np.float64), np.asarray(K, dtype=np.float64)
    return F.conv2d(ag.tensor(X[None, None]), ag.tensor(np.ascontiguousarray(K)[None, None])
                    ).numpy()[0, 0]


OUTPUT_COORDS = ("output row", "column")

# ----------------------------------------------------------------- 07.1 a true convolution
X_SMALL, K_SMALL = np.arange(9.0).reshape(3, 3), np.array([[0.0, 1.0], [2.0, 3.0]])


def small(g):
    return _or(g, "X", X_SMALL), _or(g, "K", K_SMALL)


def flipped(flip):
    """The correlation of 07.1's image with its kernel flipped by ``flip`` (a slice pair)."""
    return lambda g: correlate(small(g)[0], small(g)[1][flip])


# ------------------------------------------------------------ 07.2 a convolution's gradient
def conv_terms(g):
    """{output position (i, j): (its term of δ_K, its term of δ_X)}: output pixel (i, j) used
    the window X[i:i+k, j:j+k] and every kernel weight once."""
    X, K, G = g.array("X"), g.array("K"), g.array("G")
    kh, kw = K.shape
    terms = {}
    for i in range(G.shape[0]):
        for j in range(G.shape[1]):
            term_X = np.zeros_like(X)
            term_X[i:i + kh, j:j + kw] = G[i, j] * K
            terms[i, j] = (G[i, j] * X[i:i + kh, j:j + kw], term_X)
    return terms


def conv_gradients(g, leave_out=None, only=None):
    """(δ_K, δ_X) as the sum of the output positions' terms, with one left out or one alone."""
    terms = conv_terms(g)
    if leave_out is not None or only is not None:
        p = leave_out if leave_out is not None else only
        if p not in terms or not np.any(terms[p][0]):
            raise ValueError("no such term")
    picked = [t for p, t in terms.items() if p != leave_out and only in (None, p)]
    return sum(t[0] for t in picked), sum(t[1] for t in picked)


def position_misconceptions(count=4, side=2):
    """For each output position: δ_K or δ_X without its term, and δ_K of its term alone."""
    found = []
    for p in [(i, j) for i in range(side) for j in range(side)][:count]:
        where = f"output position ({p[0]}, {p[1]})"
        found += [
            Misconception("missing_term", lambda g, p=p: {"delta_K": conv_gradients(g, p)[0]},
                          f"yours has no term of {where}: every output pixel uses every kernel "
                          f"weight once, so δ_K sums δ_Y[i, j] X[i + a, j + b] over all the "
                          f"output positions"),
            Misconception("missing_term", lambda g, p=p: {"delta_X": conv_gradients(g, p)[1]},
                          f"δ_X has no term of {where}: an input pixel receives δ from every "
                          f"output whose window covers it"),
            Misconception("one_position", lambda g, p=p: {"delta_K": conv_gradients(g, only=p)[0]},
                          f"yours is the term of {where} alone: every output pixel uses every "
                          f"kernel weight, so δ_K sums over all the output positions")]
    return found


def _flip(a):
    return np.asarray(a)[::-1, ::-1]


CONV_MISCONCEPTIONS = [
    Misconception("kernel_not_flipped",
                  lambda g: {"delta_X": correlate(np.pad(g.array("G"), 1), g.array("K"))},
                  "yours correlates the padded δ_Y with K itself: the full convolution flips the "
                  "kernel, pad(δ_Y) ⋆ flip(K)"),
    Misconception("upstream_flipped",
                  lambda g: {"delta_K": correlate(g.array("X"), _flip(g.array("G")))},
                  "yours flips δ_Y: δ_K[a, b] = Σ_ij δ_Y[i, j] X[i + a, j + b] correlates the "
                  "input with δ_Y as it is"),
] + position_misconceptions()

# -------------------------------------------------------------------- 07.3 output sizes
SIZE_CASES = [dict(n=32, k=5, p=2, s=2), dict(n=32, k=3, p=0, s=1, d=4),
              dict(n=28, k=4, p=1, s=3)]


def library_sizes(g, **change):
    """Each case's output side, by running nn.Conv2d on zeros (``change``: what a mistake
    does to every case)."""
    from dagrad import autograd as ag
    from dagrad import nn
    sides = []
    for case in SIZE_CASES:
        c = {"d": 1, **case, **change}
        layer = nn.Conv2d(1, 1, c["k"], stride=c["s"], padding=c["p"], dilation=c["d"])
        sides.append(layer(ag.zeros(1, 1, c["n"], c["n"])).shape[-1])
    return sides


def size_formula(**mistake):
    """The sides by the formula with a mistake: ``ceil``, ``one_pad`` (p once), ``no_dilation``."""
    sides = []
    for case in SIZE_CASES:
        n, k, p, s, d = case["n"], case["k"], case["p"], case["s"], case.get("d", 1)
        if mistake.get("no_dilation"):
            d = 1
        pad = p if mistake.get("one_pad") else 2 * p
        top = n + pad - d * (k - 1) - 1
        sides.append(-(-top // s) + 1 if mistake.get("ceil") else top // s + 1)
    return np.array(sides, dtype=np.float64)


# ---------------------------------------------------------------- 07.4 two input channels
X_CHANNELS = np.array([[[1.0, 0.0, 2.0], [0.0, 1.0, 0.0], [2.0, 0.0, 1.0]],
                       [[0.0, 1.0, 1.0], [1.0, 0.0, 0.0], [1.0, 1.0, 0.0]]])
K_CHANNELS = np.array([[[1.0, -1.0], [0.0, 2.0]], [[2.0, 0.0], [1.0, -1.0]]])


def channels(g):
    return _or(g, "X", X_CHANNELS), _or(g, "K", K_CHANNELS)


def channels_engine(g):
    """Y = Σ_c X[c] ⋆ K[0, c] by F.conv2d with one output channel."""
    from dagrad import autograd as ag
    import dagrad.nn.functional as F
    X, K = channels(g)
    return F.conv2d(ag.tensor(X[None]), ag.tensor(K[None])).numpy()[0, 0]


def channel_terms(g):
    X, K = channels(g)
    return [(f"input channel {c}", correlate(X[c], K[c])) for c in range(len(X))]


# -------------------------------------------------------------------- 07.5 max pooling
def pool_gradient(g, rule="max"):
    """δ_X of 2×2 max pooling with upstream G, by the rule: "max" (the engine), "average",
    "min" or "mask" (the maxima marked, G left out)."""
    X, G = g.array("X"), g.array("G")
    if rule == "max":
        from dagrad import autograd as ag
        import dagrad.nn.functional as F
        x = ag.tensor(X, dtype=ag.float64, requires_grad=True)
        (F.max_pool2d(x[None, None], 2)[0, 0] * ag.tensor(G)).sum().backward()
        return x.grad.numpy()
    if rule == "average":
        return np.kron(G, np.ones((2, 2))) / 4
    out = np.zeros_like(X)
    for i in range(G.shape[0]):
        for j in range(G.shape[1]):
            window = X[2 * i:2 * i + 2, 2 * j:2 * j + 2]
            pick = np.argmin if rule == "min" else np.argmax
            a, b = np.unravel_index(pick(window), (2, 2))
            out[2 * i + a, 2 * j + b] = 1.0 if rule == "mask" else G[i, j]
    return out


def pool_misconception(tag, rule, sentence):
    return Misconception(tag, lambda g: {"delta_X_mp": pool_gradient(g, rule)}, sentence)


# ------------------------------------------------------------- 07.6 the receptive field
DILATIONS = (1, 2, 4, 8)


def dilated_field(g, dilations=DILATIONS):
    from dagrad import nn
    from dagrad.nn.utils import receptive_field
    stack = nn.Sequential(*[nn.Conv2d(1, 1, 3, dilation=d, padding="same") for d in dilations])
    return receptive_field(stack).size[0]


# ------------------------------------------------------------- 07.8 the pool and δ's rms
def pool_rms_ratio(g):
    """rms(δ at a 2×2 max pool's input) / rms(δ at its output), measured by the engine."""
    from dagrad import autograd as ag
    import dagrad.nn.functional as F
    rng = np.random.default_rng(0)
    x = ag.tensor(rng.normal(size=(1, 3, 8, 8)), dtype=ag.float64, requires_grad=True)
    upstream = rng.normal(size=(1, 3, 4, 4))
    (F.max_pool2d(x, 2) * ag.tensor(upstream)).sum().backward()
    rms = lambda a: np.sqrt(np.mean(a ** 2))                            # noqa: E731
    return rms(x.grad.numpy()) / rms(upstream)


# ------------------------------------------------------------- 07.9 the multiplications
C_IN, C_OUT, SIDE = 64, 128, 32


def multiplications(g, separable):
    """Multiplications of the layer on a SIDE × SIDE image (padding 1): every weight is used
    once per output pixel, so each convolution does (its weights) × (its output pixels)."""
    from dagrad import nn
    layer = nn.DepthwiseSeparableConv2d(C_IN, C_OUT, 3, padding=1, bias=False) if separable \
        else nn.Conv2d(C_IN, C_OUT, 3, padding=1, bias=False)
    convolutions = [m for m in layer.modules() if isinstance(m, nn.Conv2d)]
    return sum(m.weight.numel() * SIDE * SIDE for m in convolutions)


# -------------------------------------------------------------------- 07.11 a dense block
def dense_block_shape(g, layers=4):
    from dagrad import autograd as ag
    from dagrad import nn
    block = nn.Sequential(*[g.DenseLayer(16 + i * 8, 8) for i in range(layers)])
    with ag.no_grad():
        return tuple(block(ag.zeros(2, 16, 8, 8)).shape)


define(
    Exercise("07.1", Value(
        "true_conv_2d", flipped((slice(None, None, -1), slice(None, None, -1))),
        name="the true convolution", coords=OUTPUT_COORDS,
        misconceptions=[
            Misconception("cross_correlation", lambda g: correlate(*small(g)),
                          "yours is the cross-correlation X ⋆ K, what conv2d computes: the true "
                          "convolution flips the kernel in both directions first"),
            Misconception("flipped_rows_only", flipped((slice(None, None, -1), slice(None))),
                          "yours flips the kernel upside down only: the true convolution flips "
                          "it in both directions, K[::-1, ::-1]"),
            Misconception("flipped_columns_only", flipped((slice(None), slice(None, None, -1))),
                          "yours flips the kernel left to right only: the true convolution flips "
                          "it in both directions, K[::-1, ::-1]")],
        rule="(X ∗ K)[i, j] = Σ_ab K[a, b] X[i − a, j − b]: flip K to K[::-1, ::-1], then slide it "
             "over X as in the cross-correlation",
        why="a true convolution correlates with the kernel flipped in both directions, "
            "K[::-1, ::-1] = [[3, 2], [1, 0]]; without the flip it is the cross-correlation")),

    Exercise("07.2", Grads(
        {"delta_K": "K", "delta_X": "X"}, loss="loss",
        labels={"delta_K": "δ_K", "delta_X": "δ_X"},
        coords={"delta_K": ("kernel row", "column"), "delta_X": ("input row", "column")},
        rules={"delta_K": "δ_K[a, b] = Σ_ij δ_Y[i, j] X[i + a, j + b]: corr2d(X, δ_Y)",
               "delta_X": "δ_X = pad_(k−1)(δ_Y) ⋆ flip(K): corr2d(np.pad(δ_Y, 1), K[::-1, ::-1])"},
        misconceptions=CONV_MISCONCEPTIONS,
        why="δ_K = X ⋆ δ_Y (each weight meets the input pixel it multiplied, at every output "
            "position); δ_X = pad(δ_Y) ⋆ flip(K), the full convolution")),

    Exercise("07.3", Value(
        "sizes", library_sizes, name="the list of output sides",
        coords=(lambda k: f"({'abc'[k]})",),
        misconceptions=[
            Misconception("dilation_ignored", lambda g: size_formula(no_dilation=True),
                          "yours leaves the dilation out: a dilated k × k kernel covers "
                          "d (k − 1) + 1 pixels per side"),
            Misconception("padding_once", lambda g: size_formula(one_pad=True),
                          "yours adds the padding once: p rows or columns of zeros go on each "
                          "side, 2p in all"),
            Misconception("rounded_up", lambda g: size_formula(ceil=True),
                          "yours rounds up: a window that would stick out past the input is not "
                          "computed, so the division by s is rounded down")],
        rule="n_out = floor((n + 2p − d (k − 1) − 1) / s) + 1 for each case",
        why="n_out = floor((n + 2p − d(k − 1) − 1) / s) + 1: the dilated kernel covers "
            "d(k − 1) + 1 pixels")),

    Exercise("07.4", Value(
        "Y_channels", channels_engine, name="Y", coords=OUTPUT_COORDS, terms=channel_terms,
        misconceptions=[
            Misconception("kernel_flipped",
                          lambda g: sum(correlate(x, _flip(k)) for x, k in zip(*channels(g))),
                          "yours flips the kernels: conv2d is a cross-correlation, each channel's "
                          "slice slides as it is"),
            Misconception("channels_paired_wrong",
                          lambda g: sum(correlate(x, k) for x, k in
                                        zip(channels(g)[0], channels(g)[1][::-1])),
                          "yours pairs each input channel with the other channel's kernel "
                          "slice: channel c is correlated with K[o, c]")],
        rule="Y = X[0] ⋆ K[0, 0] + X[1] ⋆ K[0, 1]: one 2-D correlation per input channel, "
             "added up",
        why="a kernel for c_i input channels has one slice per channel; the output sums the "
            "channels' correlations, Y = Σ_c X[c] ⋆ K[0, c]")),

    Exercise("07.5", Grads(
        {"delta_X_mp": "X"}, loss="loss", labels={"delta_X_mp": "δ_X"},
        coords={"delta_X_mp": ("input row", "column")},
        rules={"delta_X_mp": "each 2×2 window's δ_Y[i, j] goes to the position of the window's "
                             "maximum; the other three inputs of the window get 0"},
        misconceptions=[
            pool_misconception("average_pool_rule", "average",
                               "yours spreads each window's δ over its four inputs (average "
                               "pooling's rule): max pooling sends it to the window's maximum "
                               "only"),
            pool_misconception("upstream_missing", "mask",
                               "yours marks where the maxima are but leaves out δ_Y: each "
                               "maximum receives its window's δ_Y[i, j]"),
            pool_misconception("minimum", "min",
                               "yours sends each window's δ to its smallest input: the max "
                               "passes δ to the input that achieved the maximum")],
        why="each window's δ goes to the position of its maximum (derivative 1 there, 0 "
            "elsewhere)")),

    Exercise(
        "07.6",
        Value("rf_side", dilated_field, name="the receptive field's side",
              misconceptions=[
                  Misconception("dilation_ignored", lambda g: 1 + 2 * len(DILATIONS),
                                "yours treats every layer as an ordinary 3×3 one: a dilation d "
                                "adds d (k − 1) pixels"),
                  Misconception("k_minus_one_forgotten", lambda g: 1 + sum(DILATIONS),
                                "yours adds d per layer: a layer adds d (k − 1) j, twice d for a "
                                "3×3 kernel")],
              rule="r_out = r_in + d (k − 1) j_in, from r_0 = 1 and j = 1 (stride 1 keeps the "
                   "jump at 1)",
              why="each layer adds d(k − 1) j = 2d (the jump stays 1): 1 + 2(1 + 2 + 4 + 8)"),
        Value("ordinary_layers", lambda g: (dilated_field(g) - 1) // 2,
              name="the number of ordinary 3×3 layers",
              misconceptions=[
                  Misconception("three_per_layer", lambda g: (dilated_field(g) - 1) / 3,
                                "yours counts 3 pixels per ordinary layer: a 3×3 layer with "
                                "stride 1 adds k − 1 = 2"),
                  Misconception("r0_forgotten", lambda g: dilated_field(g) / 2,
                                "yours leaves out r_0 = 1: n ordinary layers give a field of "
                                "1 + 2n")],
              rule="n ordinary 3×3 layers give a field of 1 + 2n",
              why="an ordinary 3×3 layer adds 2: 1 + 2n = 31 gives n = 15")),

    Exercise("07.8", Value(
        "pool_rms_ratio", pool_rms_ratio, name="the rms ratio",
        misconceptions=[
            Misconception("mean_square_ratio", lambda g: pool_rms_ratio(g) ** 2,
                          "yours is the ratio of the mean squares: the rms is the square root "
                          "of the mean square"),
            Misconception("sum_of_squares_kept", 1.0,
                          "the sum of squares is the same on both sides, but the rms divides "
                          "it by the number of entries, 4 times as many at the input"),
            Misconception("upside_down", lambda g: 1 / pool_rms_ratio(g),
                          "yours is the output's rms over the input's: the question asks for "
                          "the input's over the output's")],
        rule="every δ of the output lands on one of its window's 4 inputs: compare Σ δ² and the "
             "number of entries on both sides",
        why="every δ of the output goes to exactly one of the 4 inputs of its window: the sum of "
            "squares is kept, the count is 4 times larger, so the mean square is 1/4 and the rms "
            "1/2")),

    Exercise(
        "07.9",
        Value("full_multiplications", lambda g: multiplications(g, separable=False),
              name="the full convolution's count",
              misconceptions=[
                  Misconception("one_pixel", lambda g: multiplications(g, False) / SIDE ** 2,
                                "yours counts one output pixel: the layer computes 32 × 32 of "
                                "them (padding 1 keeps the size)"),
                  Misconception("channel_sum_missing",
                                lambda g: multiplications(g, False) / C_IN,
                                "yours leaves out the sum over the 64 input channels: each "
                                "output value sums c_i k² products")],
              rule="per output pixel and output channel c_i k² products; times c_o channels "
                   "and 32 × 32 pixels",
              why="per output pixel the full convolution does c_i c_o k² multiplications, times "
                  "32 · 32 pixels"),
        Value("separable_multiplications", lambda g: multiplications(g, separable=True),
              name="the separable block's count",
              misconceptions=[
                  Misconception("one_pixel", lambda g: multiplications(g, True) / SIDE ** 2,
                                "yours counts one output pixel: the block computes 32 × 32 of "
                                "them"),
                  Misconception("depthwise_mixes", lambda g: SIDE ** 2 * (C_IN * C_IN * 9
                                                                        + C_IN * C_OUT),
                                "yours counts the depthwise step as a full 64 → 64 convolution: "
                                "it has one k × k kernel per channel, c_i k² weights"),
                  Misconception("pointwise_missing", lambda g: SIDE ** 2 * C_IN * 9,
                                "yours counts the depthwise step alone: the pointwise 1×1 "
                                "convolution adds c_i c_o per pixel")],
              rule="per output pixel c_i k² (depthwise) + c_i c_o (pointwise), times 32 × 32",
              why="per output pixel the separable block does c_i k² (depthwise) + c_i c_o "
                  "(pointwise) multiplications, times 32 · 32 pixels")),

    Exercise("07.11", Shape(
        "dense_block_shape", dense_block_shape, name="the dense block's output",
        misconceptions=[
            Misconception("new_channels_only", (2, 8, 8, 8),
                          "yours has only the last layer's 8 new channels: each layer "
                          "concatenates its new channels to everything it received"),
            Misconception("one_layer_of_growth", (2, 24, 8, 8),
                          "yours adds one layer's 8 channels: each of the 4 layers adds 8"),
            Misconception("channels_last", (2, 8, 8, 48),
                          "yours puts the channels last: dagrad, like PyTorch, keeps them "
                          "second, (N, C, H, W)")],
        why="each layer concatenates its 8 new channels to everything it received: 16 + 4 · 8 "
            "= 48 channels; padding 1 keeps 8 × 8, and the batch stays 2")),
)
