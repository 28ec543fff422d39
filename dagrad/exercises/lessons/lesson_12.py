"""Lesson 12, embeddings and large output layers: the exercises' expected values, reasons and
misconceptions.

12.1 the gradient of a lookup (a row used several times gets the sum); 12.2 the noise
distribution count^¾; 12.3 negative sampling's gradients (v used by every dot product, the
noise words pushed away); 12.4 one leaf of a hierarchical softmax; 12.5 a Huffman tree's
depths; 12.6 the log-Q correction; 12.7 a t-SNE map affinity (ordered pairs).
"""
import numpy as np

from ..detectors import Misconception
from ..tutor import Exercise, Grads, Value, define

COUNTS_THREE = np.array([100.0, 10.0, 1.0])             # 12.2
PATH_SCORES, PATH_DIRECTIONS = np.array([0.5, 2.0]), np.array([1.0, -1.0])   # 12.4
HUFFMAN_COUNTS = np.array([4, 2, 1, 1])                 # 12.5
SAMPLES, Q_CLASS = 100, 0.001                           # 12.6
MAP_POINTS = np.array([[0.0, 0.0], [1.0, 0.0], [0.0, 2.0]])   # 12.7


def sigmoid(s):
    return 1 / (1 + np.exp(-s))


def noise_scores(g):
    v, u_o, U = g.array("v"), g.array("u_o"), g.array("U")
    return v, u_o, U, u_o @ v, U @ v


def noise_pulled(g):
    """12.3 with log σ(−s) read as log σ(s) for the noise words: pulled towards v."""
    v, u_o, U, s_o, s_k = noise_scores(g)
    return {"delta_v": -(1 - sigmoid(s_o)) * u_o - (1 - sigmoid(-s_k)) @ U,
            "delta_U": -np.outer(1 - sigmoid(-s_k), v)}


def student_t_weights():
    d2 = ((MAP_POINTS[:, None] - MAP_POINTS[None]) ** 2).sum(-1)
    w = 1 / (1 + d2)
    np.fill_diagonal(w, 0)
    return w


def overwritten_rows(g):
    """δ_W of 12.1 written with W[ids] = G: a row looked up twice keeps its last δ only."""
    out = np.zeros(g.array("weight").shape)
    out[g.array("ids").astype(int)] = g.array("G")
    return out


def huffman_depths():
    from dagrad import nn
    return nn.HierarchicalSoftmax(4, 4, counts=HUFFMAN_COUNTS).depths()


define(
    Exercise("12.1", Grads(
        {"delta_W_emb": "weight"}, loss="loss", labels={"delta_W_emb": "δ_W"},
        coords={"delta_W_emb": ("row", "column")},
        rules={"delta_W_emb": "row r of δ_W = the sum of the rows k of G with ids[k] = r; 0 for "
                              "a row never looked up"},
        misconceptions=[Misconception(
            "row_overwritten",
            lambda g: {"delta_W_emb": overwritten_rows(g)},
            "yours keeps only the last use of a row that was looked up several times (as "
            "W[ids] = G does: fancy assignment overwrites): each use adds its δ, so that row "
            "gets the sum (np.add.at)")],
        why="the backward of a lookup adds row k of G into row ids[k] of δ_W: a row used "
            "several times gets the sum, a row never used gets 0")),

    Exercise("12.2", Value(
        "Q_three", lambda g: COUNTS_THREE ** 0.75 / (COUNTS_THREE ** 0.75).sum(), name="Q",
        coords=(lambda i: f"the word of count {COUNTS_THREE[i]:g}",),
        misconceptions=[
            Misconception("unigram", lambda g: COUNTS_THREE / COUNTS_THREE.sum(),
                          "yours is the unigram distribution: Q raises the counts to the "
                          "power 3/4 first, which flattens it towards rare words"),
            Misconception("not_normalised", lambda g: COUNTS_THREE ** 0.75,
                          "yours are the powered counts: Q ∝ count^¾ still has to be divided "
                          "by their sum to be a distribution")],
        rule="Q(w) = count(w)^¾ / Σ_w' count(w')^¾",
        why="raise the counts to the power 3/4, then normalise: the rare word gets 1/32 instead "
            "of 1/111")),

    Exercise("12.3", Grads(
        {"delta_v": "v", "delta_u_o": "u_o", "delta_U": "U"}, loss="loss",
        coords={"delta_U": ("noise word", "feature")},
        rules={"delta_v": "v is in every dot product: δ_v = −(1 − σ(s_o)) u_o + Σ_k σ(s_k) u_k",
               "delta_u_o": "δ_u_o = (d/ds_o of −log σ(s_o)) · v",
               "delta_U": "row k: δ_u_k = (d/ds_k of −log σ(−s_k)) · v, with d/ds log σ(s) = "
                          "1 − σ(s)"},
        misconceptions=[
            Misconception("noise_pulled", noise_pulled,
                          "yours treats the noise words like the context word, pulling them "
                          "towards v: the loss has log σ(−u_k·v), whose derivative in s_k is "
                          "−σ(s_k), so descent pushes them away"),
            Misconception("v_one_use_only",
                          lambda g: {"delta_v": -(1 - sigmoid(noise_scores(g)[3]))
                                     * noise_scores(g)[1]},
                          "yours counts only v's use in u_o·v: v is in every noise word's dot "
                          "product too, and each adds its term (multiple use)")],
        why="d/ds[−log σ(s)] = −(1 − σ(s)) and d/ds[−log σ(−s)] = σ(s): δ_v = −(1 − σ(s_o)) u_o "
            "+ Σ_k σ(s_k) u_k, δ_u_o = −(1 − σ(s_o)) v, δ_u_k = σ(s_k) v")),

    Exercise("12.4", Value(
        "p_leaf", lambda g: float(np.prod(sigmoid(PATH_DIRECTIONS * PATH_SCORES))),
        name="p(c | h)",
        misconceptions=[
            Misconception("directions_ignored", lambda g: float(np.prod(sigmoid(PATH_SCORES))),
                          "yours goes left at both nodes: going right at a node with score s "
                          "has probability σ(−s) = 1 − σ(s)"),
            Misconception("sum_not_product",
                          lambda g: float(np.sum(sigmoid(PATH_DIRECTIONS * PATH_SCORES))),
                          "yours adds the decisions' probabilities: the walk takes both, so "
                          "they multiply (their logs add)")],
        rule="p(c | h) = Π_l σ(d_l s_l) along the path",
        why="multiply σ(d_l s_l) along the path: going right at a node with score s has "
            "probability σ(−s)")),

    Exercise("12.5", Value(
        "huffman_depths", lambda g: huffman_depths(), name="the depths",
        coords=(lambda i: f"the class of count {HUFFMAN_COUNTS[i]}",),
        misconceptions=[
            Misconception("balanced_tree", lambda g: np.full(4, 2.0),
                          "yours is a balanced tree's: Huffman's merges the two least frequent "
                          "first, so frequent classes get short paths"),
            Misconception("frequent_deepest", lambda g: huffman_depths()[::-1],
                          "yours gives the frequent classes the long paths: the first merge "
                          "takes the two least frequent, which end up deepest")],
        rule="merge the two smallest counts into one node, repeat; a leaf's depth is the number "
             "of merges above it",
        why="merge 1 + 1 = 2, then 2 + 2 = 4, then 4 + 4: each merge adds one level below it, "
            "so the rarest classes are deepest")),

    Exercise("12.6", Value(
        "logit_shift", lambda g: -np.log(SAMPLES * Q_CLASS), name="the shift",
        misconceptions=[
            Misconception("samples_left_out", lambda g: -np.log(Q_CLASS),
                          "yours leaves S out: the importance weight of one of S samples is "
                          "1/(S Q(s)), so the shift is −log(S Q(s))"),
            Misconception("log_q_added", lambda g: np.log(SAMPLES * Q_CLASS),
                          "yours adds log(S Q(s)): the correction subtracts it, so a class the "
                          "proposal rarely draws counts for more")],
        rule="each sampled logit o_s becomes o_s − log(S Q(s))",
        why="each sampled logit becomes o_s − log(S Q(s)): its importance weight 1/(S Q(s)) "
            "in the estimate of Z, here 1/0.1 = 10")),

    Exercise("12.7", Value(
        "q_01", lambda g: float((student_t_weights() / student_t_weights().sum())[0, 1]),
        name="q₀₁",
        misconceptions=[
            Misconception("pairs_counted_once",
                          lambda g: float(2 * (student_t_weights()
                                               / student_t_weights().sum())[0, 1]),
                          "yours counts each pair once in the normaliser: Σ_{k≠l} w_kl runs "
                          "over ordered pairs, so (k, l) and (l, k) both count"),
            Misconception("gaussian_kernel",
                          lambda g: float(np.exp(-1.0) / (2 * (np.exp(-1.0) + np.exp(-4.0)
                                                               + np.exp(-5.0)))),
                          "yours uses a Gaussian kernel exp(−‖y_i − y_j‖²): the map affinities "
                          "use the Student-t kernel 1/(1 + ‖y_i − y_j‖²), whose heavy tail "
                          "separates the clusters")],
        rule="w_ij = 1/(1 + ‖y_i − y_j‖²), q_ij = w_ij / (Σ of w_kl over the ordered pairs k ≠ l)",
        why="w_ij = 1/(1 + ‖y_i − y_j‖²), normalised by the sum over all ordered pairs k ≠ l "
            "(each pair counted twice)")),
)

