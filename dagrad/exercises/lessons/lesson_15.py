"""Lesson 15, pretraining and the Transformer block: the exercises' expected values, reasons
and misconceptions.

15.1 the first merge of byte-pair encoding on a toy corpus; 15.2 the parameters of an encoder
block; 15.4 the lengths of T5's input and target with sentinels; 15.5 what BERT's masking shows
and scores; 15.6 attention scores with a relative position bias (the 1/√d_k and the offset's
direction); 15.7 the kernel-3 convolutions one position needs to see another.
"""
import collections

import numpy as np

from ..detectors import Misconception
from ..tutor import Choice, Exercise, Value, define


def pair_counts(corpus):
    """{adjacent pair: its count over the corpus, each word weighted by its count}."""
    counts = collections.Counter()
    for word, n in corpus.items():
        symbols = tuple(word) + ("</w>",)
        for pair in zip(symbols, symbols[1:]):
            counts[pair] += n
    return counts


def first_merge(g):
    counts = pair_counts(g.corpus)
    return max(counts, key=lambda p: (counts[p], p))


def top_word_pair(k):
    """The k-th pair of the most frequent word: a first merge taken from that word alone."""
    def pair(g):
        word = max(g.corpus, key=g.corpus.get)
        symbols = tuple(word) + ("</w>",)
        pairs = list(zip(symbols, symbols[1:]))
        return pairs[k] if k < len(pairs) and pairs[k] != first_merge(g) else None
    return pair


def block_parameters(g):
    from dagrad import nn
    return sum(p.numel() for p in nn.TransformerEncoderLayer(
        g.d_model, g.nhead, g.dim_feedforward).parameters())


def weights_only(g):
    d, f = g.d_model, g.dim_feedforward
    return 4 * d * d + 2 * d * f


def relative_bias(g, sign=1):
    T, K = len(g.array("q")), (len(g.array("b")) - 1) // 2
    offsets = sign * (np.arange(T)[None, :] - np.arange(T)[:, None])
    return g.array("b")[np.clip(offsets, -K, K) + K]


def scores(g, scale=True, sign=1, bias=True):
    q, k = g.array("q"), g.array("k")
    s = q @ k.T / (np.sqrt(q.shape[1]) if scale else 1)
    return s + relative_bias(g, sign) if bias else s


def t5_lengths(g):
    """(input, target) lengths: each span one sentinel in the input; the target each sentinel
    and its span, then a closing sentinel."""
    masked, spans = sum(g.spans), len(g.spans)
    return g.length - masked + spans, masked + spans + 1


SCORE_COORDS = ("query", "key")

define(
    Exercise(
        "15.1",
        Choice("first_merge", first_merge, options=lambda g: sorted(pair_counts(g.corpus)),
               misconceptions=[Misconception(
                   "one_word_only", top_word_pair(k),
                   "yours is a pair of the most frequent word alone: a pair's count adds up "
                   "over every word it occurs in, each word weighted by its count")
                   for k in range(12)],
               rule="count every adjacent pair inside each word, </w> included, times the "
                    "word's count, and add the counts of the same pair over the words",
               why="u-g occurs in hug (10), pug (5) and hugs (5): 20 times; p-u 17 times, "
                   "u-n 16"),
        Value("first_merge_count", lambda g: pair_counts(g.corpus)[first_merge(g)],
              name="the count of the first pair",
              rule="the pair's count is Σ over the words containing it of the word's count",
              why="each word's pairs count as many times as the word occurs")),

    Exercise("15.2", Value(
        "n_params", block_parameters, name="the number of parameters",
        misconceptions=[Misconception(
            "weights_only", weights_only,
            "yours counts the weight matrices only: each Linear has a bias too, and each "
            "layer norm a gain and a shift of width d_model")],
        rule="attention: Q, K, V and the output projection, each d·d + d; FFN: d·f + f and "
             "f·d + d; two layer norms, 2d each (d = 32, f = 64)",
        why="attention: 3·32·32 + 3·32 (Q, K, V with biases) + 32·32 + 32 (output); FFN: "
            "32·64 + 64 + 64·32 + 32; two layer norms: 2·(32 + 32); the number of heads does "
            "not change the count")),

    Exercise(
        "15.4",
        Value("t5_input_length", lambda g: t5_lengths(g)[0], name="the input's length",
              misconceptions=[
                  Misconception("spans_dropped", lambda g: g.length - sum(g.spans),
                                "yours drops the spans without a trace: each span is replaced "
                                "by one sentinel token, which stays in the input"),
                  Misconception("sentinel_per_token", lambda g: g.length,
                                "yours keeps one token per corrupted character: T5 replaces a "
                                "whole span by one sentinel, so the input gets shorter")],
              rule="the characters not corrupted, plus one sentinel per span",
              why="24 − 4 corrupted characters + 2 sentinels"),
        Value("t5_target_length", lambda g: t5_lengths(g)[1], name="the target's length",
              misconceptions=[
                  Misconception("no_final_sentinel", lambda g: sum(g.spans) + len(g.spans),
                                "yours has no closing sentinel: after the last span the target "
                                "ends with one more sentinel"),
                  Misconception("spans_only", lambda g: sum(g.spans),
                                "yours counts only the corrupted characters: in the target each "
                                "span comes after its sentinel, and a sentinel closes it")],
              rule="one sentinel before each span, the span's characters, and a closing "
                   "sentinel",
              why="<X0> + 3 characters + <X1> + 1 character + <X2>")),

    Exercise(
        "15.5",
        Value("fraction_shown_mask", lambda g: g.select * g.as_mask,
              name="the fraction showing [MASK]",
              misconceptions=[Misconception(
                  "all_selected_masked", lambda g: g.select,
                  "yours counts every selected position as [MASK]: of the selected 15%, 80% "
                  "show [MASK], 10% a random token and 10% stay as they were")],
              rule="selected fraction × the share of the selected that become [MASK]",
              why="80% of the 15% selected positions are replaced by [MASK]"),
        Value("fraction_in_loss", lambda g: g.select, name="the fraction in the loss",
              misconceptions=[Misconception(
                  "only_masked_in_loss", lambda g: g.select * g.as_mask,
                  "yours counts only the positions that show [MASK]: the random and unchanged "
                  "ones were selected too, and every selected position is a target")],
              rule="which positions does the loss score: those selected, or those shown as "
                   "[MASK]?",
              why="every selected position is a target, masked, replaced or unchanged alike")),

    Exercise("15.6", Value(
        "scores", scores, name="s", tol=1e-9, coords=SCORE_COORDS,
        misconceptions=[
            Misconception("offset_reversed", lambda g: scores(g, sign=-1),
                          "yours indexes the bias by i − j: the offset is the key's position "
                          "relative to the query's, j − i (above the diagonal it is +1)"),
            Misconception("missing_sqrt_d", lambda g: scores(g, scale=False),
                          "yours leaves out the 1/√d_k: the dot products q_i · k_j are divided "
                          "by √d before the bias is added"),
            Misconception("bias_missing", lambda g: scores(g, bias=False),
                          "yours has no relative bias: each score gets b[j − i]")],
        rule="s[i, j] = q_i · k_j / √2 + b[(j − i) + 2], with row i the query and column j "
             "the key",
        why="row i is the query, column j the key; the bias depends on the key's offset from "
            "the query, j − i, so the entry above the diagonal (j = i + 1) gets b[+1]")),

    Exercise("15.7", Value(
        "conv_layers_needed", lambda g: g.n - 1, name="the number of layers",
        misconceptions=[Misconception(
            "field_on_one_side", lambda g: int(np.ceil((g.n - 1) / 2)),
            "yours lets the field 1 + 2l reach input 0 as if it all lay on one side of the "
            "last output: it is centred on the last output, so it grows towards input 0 by "
            "one position per layer")],
        rule="each layer (kernel 3, padding 1) lets the last output see one more input to its "
             "left: how many more does it need to reach input 0?",
        why="a kernel-3 layer (padding 1) lets an output see one more position on each side: "
            "after l layers output 15 sees inputs 15 − l to 15, so it reaches input 0 at "
            "l = n − 1 (the field is 1 + 2l wide, but centred on 15)")),
)
