"""Lesson 09, Transformers: the exercises' expected values, reasons and misconceptions.

09.1 attention weights by hand (the 1/√d_k, the softmax along rows); 09.2 backward through one
head (the softmax's Jacobian, Aᵀ for the values); 09.3 the scaled scores as an operation;
09.4 the variance of a score; 09.5 multi-head attention's parameters; 09.6 a causal mask on
equal scores (the mask before the softmax); 09.7 the period of a sinusoidal column pair; 09.9 a GPT block, line by line (the causal mask
before the softmax, the 1/√d_h of a head, pre-norm residuals).
"""
import numpy as np

from ..detectors import Misconception
from ..result import CheckResult, is_blank
from ..tutor import Backward, Exercise, Grads, Value, define

# 09.1: the two tokens of the exercise's text, d_k = 2
Q_TWO = np.array([[1.0, 0.0], [0.0, 1.0]])
K_TWO = np.array([[1.0, 0.0], [1.0, 1.0]])


def softmax_rows(s):
    e = np.exp(s - s.max(axis=-1, keepdims=True))
    return e / e.sum(axis=-1, keepdims=True)


def softmax_columns(s):
    return softmax_rows(s.T).T


# 09.3's inputs: three queries and four keys of width 2
_SCORES_RNG = np.random.default_rng(3)
SCORES_INPUTS = (_SCORES_RNG.normal(size=(3, 2)), _SCORES_RNG.normal(size=(4, 2)))

D_SCORE = 64                    # 09.4: the width of q and k
MHA_D, MHA_HEADS = 8, (2, 4)    # 09.5
CAUSAL_N = 4                    # 09.6
PERIOD_D, PERIOD_PAIR = 32, 4   # 09.7: d and the column pair i


def mha_parameters(d, heads):
    from dagrad import nn
    return sum(p.numel() for p in nn.MultiheadAttention(d, heads).parameters())


def causal_weights(n):
    from dagrad import autograd as ag
    from dagrad import nn
    return ag.softmax(ag.zeros(n, n) + nn.functional.attention.causal_mask(n), dim=-1).numpy()


def measured_period(d, pair):
    """The period of column 2i of the sinusoidal encoding, from its upward zero crossings."""
    from dagrad import nn
    column = nn.positional.sinusoidal_encoding(400, d).astype(np.float64)[:, 2 * pair]
    crossings = np.flatnonzero((column[:-1] < 0) & (column[1:] >= 0))
    return float(np.diff(crossings).mean())


def block_variant(layer, h, *, causal=True, mask_after_softmax=False, scale="head",
                  pre_norm=True):
    """A pre-norm GPT block, h + SA(LN1(h)) then h + FFN(LN2(h)), from the weights of an
    ``nn.TransformerEncoderLayer(norm_first=True, activation="gelu", batch_first=True)``, h of
    shape (B, T, d): the right one by default, or one of the mistakes 09.9 names (no mask, the
    mask after the softmax, the scale 1 or 1/√d, post-norm). A NumPy array."""
    from dagrad import autograd as ag
    import dagrad.nn.functional as F
    from dagrad.nn.functional.attention import causal_mask
    attn = layer.self_attn
    B, T, d = h.shape
    heads = attn.num_heads
    d_h = d // heads
    W, b = attn.in_proj_weight, attn.in_proj_bias

    def attention(x):
        q, k, v = ((x @ W[i * d:(i + 1) * d].T + b[i * d:(i + 1) * d])
                   .reshape(B, T, heads, d_h).transpose(1, 2) for i in range(3))
        divide = {"head": np.sqrt(d_h), "width": np.sqrt(d), "none": 1.0}[scale]
        S = q @ k.transpose(-2, -1) / divide
        if causal and not mask_after_softmax:
            S = S + causal_mask(T, dtype=S.dtype)
        A = ag.softmax(S, dim=-1)
        if mask_after_softmax:
            A = A * ag.tensor(np.tril(np.ones((T, T))), dtype=A.dtype)
        return attn.out_proj((A @ v).transpose(1, 2).reshape(B, T, d))

    def ffn(x):
        return layer.linear2(F.gelu(layer.linear1(x)))

    with ag.no_grad():
        if pre_norm:
            h = h + attention(layer.norm1(h))
            out = h + ffn(layer.norm2(h))
        else:
            h = layer.norm1(h + attention(h))
            out = layer.norm2(h + ffn(h))
    return out.numpy()


def layer_output(g):
    """What the layer's own forward gives with the causal mask: the expected block output."""
    from dagrad import autograd as ag
    from dagrad.nn.functional.attention import causal_mask
    T = g.h.shape[1]
    with ag.no_grad():
        return g.layer(g.h, src_mask=causal_mask(T, dtype=g.h.dtype), is_causal=True).numpy()


class BlockOutput(Value):
    """The answer is a function ``block(layer, h)``, judged by its output on the layer and h the
    exercise was given."""

    def judge(self, ident, values, given):
        fn = values[self.answers[0]]
        if not is_blank(fn):
            if not callable(fn):
                return CheckResult(False, f"{self.answers[0]} should be a function (layer, h) -> "
                                   f"the block's output; yours is a {type(fn).__name__}.", "type",
                                   ident)
            try:
                out = fn(given.layer, given.h)
            except Exception as e:      # the student's function: report it, never crash
                return CheckResult(False, f"Your {self.answers[0]} raised {type(e).__name__} on "
                                   f"a batch h of shape {tuple(given.h.shape)}: {e}.", "error",
                                   ident)
            values = {**values, self.answers[0]: out}
        return super().judge(ident, values, given)


MISSING_SCALE = ("yours leaves out the 1/√d_k: the scores are QKᵀ/√d_k, so that their "
                 "variance stays 1 whatever the width")

define(
    Exercise("09.1", Value(
        "A_ex", lambda g: softmax_rows(Q_TWO @ K_TWO.T / np.sqrt(2)), name="A",
        coords=("query token", "key token"),
        misconceptions=[
            Misconception("missing_scale", lambda g: softmax_rows(Q_TWO @ K_TWO.T),
                          MISSING_SCALE),
            Misconception("softmax_over_columns",
                          lambda g: softmax_columns(Q_TWO @ K_TWO.T / np.sqrt(2)),
                          "yours normalises each column: the softmax runs along each row, "
                          "over the keys a query attends to, so each row sums to one")],
        rule="S = QKᵀ/√d_k with d_k = 2, then A = softmax of each row of S",
        why="S = QKᵀ/√d_k = [[1, 1], [0, 1]]/√2, then a softmax along each row")),

    Exercise("09.2", Grads(
        {"delta_V": "V", "delta_A": "A", "delta_S": "S"}, loss="loss",
        coords={"delta_V": ("token", "feature"), "delta_A": ("query token", "key token"),
                "delta_S": ("query token", "key token")},
        rules={"delta_V": "δ_V = Aᵀ δ_O, with δ_O = G",
               "delta_A": "δ_A = δ_O Vᵀ, with δ_O = G",
               "delta_S": "per row, δ_s_ij = a_ij (δ_a_ij − Σ_j' a_ij' δ_a_ij'), with your "
                          "δ_A = {delta_A}"},
        misconceptions=[
            Misconception("diagonal_only",
                          lambda g: {"delta_S": g.array("A") * (1 - g.array("A"))
                                     * g.delta("A")},
                          "yours uses only the diagonal a_ij (1 − a_ij) of the softmax's "
                          "Jacobian, as if it acted elementwise: every weight of a row depends "
                          "on every score of that row, and the off-diagonal −a_ij a_ij' give "
                          "the term −a_ij Σ_j' a_ij' δ_a_ij'"),
            Misconception("weights_not_transposed",
                          lambda g: {"delta_V": g.array("A") @ g.array("G")},
                          "yours multiplies δ_O by A, not Aᵀ: value j is used by every query i "
                          "with the weight a_ij, so its δ sums column j of A times δ_O")],
        why="δ_V = Aᵀ G, δ_A = G Vᵀ, and each row of δ_S = A ⊙ (δ_A − (δ_A ⊙ A) 1 1ᵀ): the "
            "softmax's Jacobian diag(a) − a aᵀ")),

    Exercise("09.3", Backward(
        "Scores", SCORES_INPUTS, coords=("row", "feature"),
        misconceptions=[Misconception(
            "missing_scale", lambda g: lambda grad, Q, K, out: (grad @ K, grad.T @ Q),
            "its backward leaves out the 1/√d_k: the forward multiplies every score by it, so "
            "δ_Q and δ_K carry it too")],
        rule="S_ij = Σ_l Q_il K_jl / √d_k: δ_Q collects δ_S times K's rows, δ_K δ_Sᵀ times "
             "Q's rows, each divided by √d_k",
        why="δ_Q = δ_S K / √d_k (n_q × d_k), δ_K = δ_Sᵀ Q / √d_k (n_k × d_k)")),

    Exercise("09.4", Value(
        "score_variances", lambda g: [float(D_SCORE), D_SCORE / D_SCORE],
        name="[var q·k, var q·k/√d]", coords=(lambda i: ["var q·k", "var q·k/√d"][i],),
        misconceptions=[Misconception(
            "std_for_variance", lambda g: [np.sqrt(D_SCORE), 1.0],
            "yours gives the standard deviation √d of q·k: the variance of a sum of d "
            "independent terms of variance 1 is d")],
        rule="q·k = Σ_l q_l k_l: d independent products, each of variance E[q_l²] E[k_l²]; "
             "dividing by √d divides the variance by (√d)²",
        why="q·k sums d independent products q_l k_l of variance E[q²]E[k²] = 1; dividing by "
            "√d divides the variance by d")),

    Exercise("09.5", Value(
        "mha_params", lambda g: [mha_parameters(MHA_D, h) for h in MHA_HEADS],
        name="[parameters with 2 heads, with 4 heads]",
        coords=(lambda i: f"{MHA_HEADS[i]} heads",),
        misconceptions=[Misconception(
            "projections_per_head",
            lambda g: [h * (3 * MHA_D ** 2 + 3 * MHA_D) + MHA_D ** 2 + MHA_D for h in MHA_HEADS],
            "yours gives every head its own full-width projections: the heads split the d "
            "features of one set of projections between them, d/h each")],
        rule="in_proj_weight is (3d, d) with 3d biases, out_proj (d, d) with d biases; the "
             "heads share them",
        why="in_proj is 3d × d plus 3d biases, out_proj d × d plus d: the heads split the d "
            "features between them, so their number does not change the count")),

    Exercise("09.6", Value(
        "A_causal", lambda g: causal_weights(CAUSAL_N), name="A",
        coords=("query token", "key token"),
        misconceptions=[
            Misconception("mask_after_softmax",
                          lambda g: np.tril(np.ones((CAUSAL_N, CAUSAL_N))) / CAUSAL_N,
                          "yours applies the mask after the softmax: zeroing the future "
                          "weights leaves rows that no longer sum to one. The mask adds −∞ to "
                          "the scores before the softmax, which then renormalises each row"),
            Misconception("mask_transposed",
                          lambda g: causal_weights(CAUSAL_N).T,
                          "yours lets each token see the future, not the past: token i "
                          "attends to tokens 0..i, the weights below and on the diagonal")],
        rule="row i: the scores of tokens i + 1.. are −∞; the softmax of the rest, all equal",
        why="token i sees tokens 0..i; equal scores spread the weight evenly over those i + 1 "
            "(the softmax renormalises after the −∞ entries become 0)")),

    Exercise("09.7", Value(
        "period", lambda g: measured_period(PERIOD_D, PERIOD_PAIR), name="the period",
        tol=0.02,
        misconceptions=[Misconception(
            "period_in_radians", lambda g: 10000 ** (2 * PERIOD_PAIR / PERIOD_D),
            "yours is 1/frequency, in radians per turn: one turn of the clock hand is 2π "
            "radians, so it takes 2π times as many tokens")],
        rule="the pair turns by 1/10000^(2i/d) radians per token; one turn is 2π radians",
        why="the pair turns at the frequency 1/10000^(2i/d) radians per token, so one turn "
            "takes 2π·10000^(2i/d) tokens")),

    Exercise("09.9", BlockOutput(
        "gpt_block", layer_output, name="the block's output", tol=1e-6,
        coords=("sequence", "position", "feature"),
        misconceptions=[
            Misconception("no_causal_mask", lambda g: block_variant(g.layer, g.h, causal=False),
                          "yours lets every position attend to the positions after it: the "
                          "causal mask adds −∞ to the scores of the future, so position t sees "
                          "only positions ≤ t"),
            Misconception("mask_after_softmax",
                          lambda g: block_variant(g.layer, g.h, mask_after_softmax=True),
                          "yours applies the mask after the softmax: the zeroed weights leave "
                          "rows that no longer sum to one; add −∞ to the scores before it"),
            Misconception("missing_scale", lambda g: block_variant(g.layer, g.h, scale="none"),
                          "yours leaves out the 1/√d_h: each head's scores are q·k/√d_h"),
            Misconception("scale_by_width", lambda g: block_variant(g.layer, g.h, scale="width"),
                          "yours divides the scores by √d, the model's width: each head works in "
                          "d_h = d/h dimensions, so its scores are divided by √d_h"),
            Misconception("post_norm", lambda g: block_variant(g.layer, g.h, pre_norm=False),
                          "yours normalises after the residual sum (the original Transformer's "
                          "post-norm): GPT's block is pre-norm, h + SA(LN1(h)), then "
                          "h + FFN(LN2(h)), so the residual stream itself is never normalised")],
        rule="x = LN1(h); Q, K, V = x W_qᵀ + b_q, ... from in_proj (rows 0:d, d:2d, 2d:3d), split "
             "into h heads of d_h columns; per head softmax(QKᵀ/√d_h + M) V with M = −∞ above the "
             "diagonal; heads joined, then out_proj; h = h + that; h = h + linear2(gelu(linear1("
             "LN2(h))))",
        why="pre-norm: h = h + out_proj(concat_i softmax(Q_i K_iᵀ/√d_h + M) V_i) with Q, K, V from "
            "LN1(h), then h = h + linear2(gelu(linear1(LN2(h))))")),
)
