"""Lesson 08, recurrent networks: the exercises' expected values, reasons and misconceptions.

08.1 δ of a hidden state of the unrolled scalar RNN; 08.2 tanh as an operation; 08.3 BPTT for a
vector RNN (a step's term missing, W_hh not transposed); 08.4 what survives along the LSTM's
memory; 08.5 the exploding gradient of a linear recurrence; 08.6 clipping by the norm; 08.7 one
LSTM step; 08.9 one GRU step; 08.10 the shapes of a bidirectional GRU; 08.11 sequence
topologies; 08.12 an attention step. (Exercises 8 and 13 are open-ended.)
"""
import numpy as np

from ..detectors import Misconception
from ..tutor import Backward, Choice, Exercise, Grads, Shape, Value, define


def _or(g, name, default):
    """The exercise's given object ``name`` as a float64 array, or the lesson's ``default``."""
    return g.array(name) if name in g else np.asarray(default, dtype=np.float64)


# ------------------------------------------------------------------ 08.1 δ of a hidden state
def _scalar_steps(g):
    """(δ_h3, h_1, h_2, h_3, u) of the unrolled RNN L = (h_3 − y)², from its given tensors."""
    h1, h2, h3 = (float(g.array(f"h_{t}")) for t in (1, 2, 3))
    return 2 * (h3 - float(g.array("y"))), h1, h2, h3, float(g.array("u"))


def _delta_h1(g, tanh_factor_of_step_2=None, steps_back=2, factor=None):
    """δ_h1 with the mistakes of 08.1: ``tanh_factor_of_step_2`` replaces 1 − h_2², ``steps_back``
    stops early, ``factor`` replaces u on the last step back."""
    d_h3, h1, h2, h3, u = _scalar_steps(g)
    d_a3 = d_h3 * (1 - h3 ** 2)
    d_h2 = d_a3 * u
    if steps_back == 1:
        return d_h2
    d_a2 = d_h2 * (1 - h2 ** 2 if tanh_factor_of_step_2 is None else tanh_factor_of_step_2(g))
    return d_a2 * (u if factor is None else factor(g))


MISSING_TANH = Misconception(
    "missing_tanh_derivative",
    lambda g: {"delta_h1": _scalar_steps(g)[0] * _scalar_steps(g)[4] ** 2},
    "yours multiplies δ_h3 by u at each step back and leaves out tanh's local derivative: a "
    "step back from h_t to h_{t−1} multiplies δ by (1 − h_t²) · u")

# ------------------------------------------------------------------------------ 08.3 BPTT
def bptt(g, skip=(), only=None, transpose=True):
    """The gradients of L = c · h_T for the vector RNN of 08.3, by backpropagation through time
    in NumPy, with the mistakes of the exercise: the terms of the steps in ``skip`` left out,
    ``only`` one step's term, ``transpose=False`` carrying δ back with W_hh instead of W_hhᵀ."""
    Wx, Wh, b = g.array("W_xh"), g.array("W_hh"), g.array("b_h")
    xs, c = g.array("x_steps"), g.array("c")
    steps = len(xs)
    if any(t > steps for t in skip) or (only is not None and only > steps):
        raise ValueError("no such step")
    hs = [np.zeros(len(b))]
    for x in xs:
        hs.append(np.tanh(Wx @ x + Wh @ hs[-1] + b))
    d_Wx, d_Wh, d_b = np.zeros_like(Wx), np.zeros_like(Wh), np.zeros_like(b)
    d_h = c
    for t in range(steps, 0, -1):
        d_a = d_h * (1 - hs[t] ** 2)
        if t not in skip and only in (None, t):
            d_Wx += np.outer(d_a, xs[t - 1])
            d_Wh += np.outer(d_a, hs[t - 1])
            d_b += d_a
        d_h = (Wh.T if transpose else Wh) @ d_a
    return {"d_W_xh": d_Wx, "d_W_hh": d_Wh, "d_b": d_b}


def missing_step(t):
    """The misconception "the term of step t is missing" for 08.3."""
    if t == 1:
        sentence = ("yours has no term of step t = 1: the loop back through time stops before "
                    "t = 1 (range(T, 1, −1) ends at 2). δ_W_hh does not show it, since h_0 = 0 "
                    "makes step 1's term of δ_W_hh zero, but δ_W_xh and δ_b get a term at step 1 "
                    "too")
    else:
        sentence = (f"yours has no term of step t = {t}: a shared weight's δ is the sum of its "
                    f"terms at every step, t = T down to 1")
    return Misconception("missing_term", lambda g: bptt(g, skip=(t,)), sentence)


BPTT_MISCONCEPTIONS = [missing_step(t) for t in range(1, 5)] + [
    Misconception("last_step_only", lambda g: bptt(g, only=len(g.array("x_steps"))),
                  "yours is the term of the last step alone: the weights are shared by every "
                  "step, so δ goes on back (δ_h_{t−1} = W_hhᵀ δ_a_t) and each step adds its "
                  "term"),
    Misconception("not_transposed", lambda g: bptt(g, transpose=False),
                  "yours carries δ back with W_hh itself: h_t reads W_hh h_{t−1}, so δ_h_{t−1} "
                  "= W_hhᵀ δ_a_t, the transpose (as δ_x = Wᵀ δ_y for y = W x)")]

# ---------------------------------------------------------------- 08.4 and 08.5: products
FORGET, MEMORY_STEPS = (0.95, 0.5), 40


def memory_orders(steps=MEMORY_STEPS, kept=True):
    """log10 of the fraction of δ that reaches c_0 from c_steps with each forget gate."""
    fractions = np.array([f ** steps for f in FORGET])
    return np.log10(fractions if kept else 1 - fractions)


LINEAR_U, LINEAR_T = 1.5, 20


def linear_recurrence_gradient(g):
    """∂L/∂x_1 for h_t = u h_{t−1} + x_t, L = h_T, by the engine."""
    from dagrad import autograd as ag
    u, steps = float(_or(g, "u", LINEAR_U)), int(_or(g, "T", LINEAR_T))
    x = ag.tensor(np.full(steps, 0.1), dtype=ag.float64, requires_grad=True)
    h = ag.zeros((), dtype=ag.float64)
    for t in range(steps):
        h = u * h + x[t]
    h.backward()
    return x.grad.numpy()[0]


def _power_of_u(exponent):
    return lambda g: float(_or(g, "u", LINEAR_U)) ** (int(_or(g, "T", LINEAR_T)) + exponent)


# ------------------------------------------------------------------------- 08.6 clipping
GRADIENTS, MAX_NORM = (30.0, -40.0), 5.0


def clipped_by_norm(g):
    from dagrad import autograd as ag
    from dagrad import nn
    p = ag.tensor(np.zeros(len(GRADIENTS)), requires_grad=True)
    p.grad = ag.tensor(np.array(GRADIENTS))
    nn.utils.clip_grad_norm_([p], max_norm=MAX_NORM)
    return p.grad.numpy()


# ----------------------------------------------------------------------- 08.7 LSTM step
LSTM_STEP = {"i": [0.2, 0.8], "f": [0.9, 0.1], "o": [1.0, 0.5], "g": [0.5, -1.0],
             "c_prev": [1.0, 1.0]}


def lstm_step(swap_gates=False, tanh=True, old_memory=False):
    """[c_t, h_t] of 08.7's step, with the mistakes of the exercise."""
    i, f, o, g, c_prev = (np.array(LSTM_STEP[k]) for k in ("i", "f", "o", "g", "c_prev"))
    if swap_gates:
        i, f = f, i
    c = f * c_prev + i * g
    shown = c_prev if old_memory else c
    return np.array([c, o * (np.tanh(shown) if tanh else shown)])


# ------------------------------------------------------------------------ 08.9 GRU step
# W_ir, W_iz, W_in; W_hr, W_hz, W_hn; b_hn (every other bias 0); the input x and state h
GRU_W_IH, GRU_W_HH, GRU_B_HN, GRU_X, GRU_H = (1.0, -1.0, 2.0), (0.5, 0.5, 1.0), 0.5, 1.0, 0.5


def gru_step_engine(g):
    """h' of 08.9's step, by nn.GRUCell with the exercise's weights."""
    from dagrad import autograd as ag
    from dagrad import nn
    cell = nn.GRUCell(1, 1)
    with ag.no_grad():
        cell.weight_ih.numpy()[:] = np.array(GRU_W_IH)[:, None]
        cell.weight_hh.numpy()[:] = np.array(GRU_W_HH)[:, None]
        cell.bias_ih.numpy()[:] = 0.0
        cell.bias_hh.numpy()[:] = [0.0, 0.0, GRU_B_HN]
        return cell(ag.tensor([[GRU_X]]), ag.tensor([[GRU_H]])).item()


def gru_step(reset="pytorch", z_keeps_old=True):
    """h' by the equations, with the mistakes of the exercise: ``reset`` "pytorch" (r
    multiplies W_hn h + b_hn), "cho" (r multiplies h before W_hn) or "none"."""
    sigma = lambda a: 1 / (1 + np.exp(-a))                                  # noqa: E731
    (w_ir, w_iz, w_in), (w_hr, w_hz, w_hn), x, h = GRU_W_IH, GRU_W_HH, GRU_X, GRU_H
    r, z = sigma(w_ir * x + w_hr * h), sigma(w_iz * x + w_hz * h)
    recurrent = {"pytorch": r * (w_hn * h + GRU_B_HN), "cho": w_hn * (r * h) + GRU_B_HN,
                 "none": w_hn * h + GRU_B_HN}[reset]
    n = np.tanh(w_in * x + recurrent)
    return (1 - z) * n + z * h if z_keeps_old else z * n + (1 - z) * h


# ---------------------------------------------------------------- 08.10 bidirectional GRU
def bidirectional_shapes(g):
    """(output shape, h_n shape) of 08.10's layer, by running it."""
    from dagrad import autograd as ag
    from dagrad import nn
    with ag.no_grad():
        out, h_n = nn.GRU(6, 10, num_layers=2, bidirectional=True, batch_first=True)(
            ag.zeros(3, 7, 6))
    return tuple(out.shape), tuple(h_n.shape)


# --------------------------------------------------------------------- 08.12 attention step
SCORES, ENCODER_STATES = [1.0, 2.0, 0.5], [[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]]


def attention_context(g):
    from dagrad import autograd as ag
    scores = ag.tensor(SCORES, dtype=ag.float64)
    return (ag.softmax(scores, dim=0) @ ag.tensor(ENCODER_STATES, dtype=ag.float64)).numpy()


TOPOLOGIES = ["one-to-many", "many-to-one", "many-to-many aligned", "seq2seq"]

define(
    Exercise("08.1", Grads(
        {"delta_h1": "h_1"}, loss="L", labels={"delta_h1": "δ_h1"},
        rules={"delta_h1": "δ_h3 = 2 (h_3 − y) = 2 ({h_3} − {y}); each step back multiplies by "
                           "the local derivative of a_t = w x_t + u h_{t−1} + b and h_t = tanh "
                           "a_t: δ_h_{t−1} = δ_h_t · (1 − h_t²) · u, with u = {u}"},
        misconceptions=[
            MISSING_TANH,
            Misconception("one_step_short", lambda g: {"delta_h1": _delta_h1(g, steps_back=1)},
                          "yours is δ_h2: one step back is missing, the one through step t = 2 "
                          "(δ_h1 = δ_h2 · (1 − h_2²) · u)"),
            Misconception("wrong_step_tanh",
                          lambda g: {"delta_h1": _delta_h1(
                              g, tanh_factor_of_step_2=lambda g: 1 - _scalar_steps(g)[1] ** 2)},
                          "yours uses 1 − h_1² on the step back from h_2 to h_1: that step "
                          "passes through the tanh of step 2, whose output is h_2"),
            Misconception("other_factor",
                          lambda g: {"delta_h1": _delta_h1(
                              g, factor=lambda g: _scalar_steps(g)[1])},
                          "yours multiplies δ_a2 by h_1, which gives u's δ at step 2: in the "
                          "product u · h_1, the δ of h_1 is δ_a2 times the other factor, u")],
        why="δ_h3 = 2 (h_3 − y); a step back multiplies by (1 − h_t²) u: δ_h2 = δ_h3 (1 − h_3²) "
            "u, then δ_h1 = δ_h2 (1 − h_2²) u")),

    Exercise("08.2", Backward(
        "StepTanh", lambda g: (np.random.default_rng(2).normal(size=(3, 4)),),
        misconceptions=[
            Misconception("sigmoid_derivative", lambda g: lambda grad, a, y: (grad * y * (1 - y),),
                          "it multiplies by y (1 − y), the sigmoid's derivative: tanh's is "
                          "1 − y²"),
            Misconception("derivative_of_input",
                          lambda g: lambda grad, a, y: (grad * (1 - np.tanh(y) ** 2),),
                          "it takes tanh' at y, 1 − tanh²(y): y is already tanh(a), so tanh'(a) "
                          "= 1 − y²")],
        rule="δ_a = δ_y · dy/da, and dy/da = 1 − tanh(a)² = 1 − y²: backward returns grad times "
             "(1 − y · y)",
        why="the chain rule: δ_a = δ_y (1 − y²), so backward returns grad * (1 - y * y)")),

    Exercise("08.3", Grads(
        {"d_W_xh": "W_xh", "d_W_hh": "W_hh", "d_b": "b_h"}, loss="rnn_loss",
        labels={"d_W_xh": "δ_W_xh", "d_W_hh": "δ_W_hh", "d_b": "δ_b"},
        coords={"d_W_xh": ("hidden unit", "input"),
                "d_W_hh": ("hidden unit", lambda j: f"unit {j} of h_(t−1)"),
                "d_b": ("hidden unit",)},
        rules={"d_W_xh": "δ_W_xh = Σ over t = 4, 3, 2, 1 of δ_a_t x_tᵀ, with δ_a_t = δ_h_t ⊙ "
                         "(1 − h_t²), δ_h_4 = c and δ_h_(t−1) = W_hhᵀ δ_a_t",
               "d_W_hh": "δ_W_hh = Σ over t = 4, 3, 2, 1 of δ_a_t h_(t−1)ᵀ (h_0 = 0)",
               "d_b": "δ_b = Σ over t = 4, 3, 2, 1 of δ_a_t"},
        misconceptions=BPTT_MISCONCEPTIONS,
        why="for t = 4, 3, 2, 1: δ_a_t = δ_h_t ⊙ (1 − h_t²), add δ_a_t x_tᵀ to δ_W_xh, δ_a_t "
            "h_(t−1)ᵀ to δ_W_hh and δ_a_t to δ_b, and pass δ_h_(t−1) = W_hhᵀ δ_a_t on")),

    Exercise("08.4", Value(
        "memory_orders", lambda g: memory_orders(), tol=1e-3,
        name="the pair [log10 0.95⁴⁰, log10 0.5⁴⁰]", coords=(lambda k: f"f = {FORGET[k]}",),
        misconceptions=[
            Misconception("natural_log", lambda g: memory_orders() * np.log(10),
                          "yours is the natural logarithm: orders of magnitude are log10"),
            Misconception("one_factor_too_few", lambda g: memory_orders(MEMORY_STEPS - 1),
                          "yours has one factor f too few: from c_40 back to c_0 is 40 steps, "
                          "each multiplying δ by f"),
            Misconception("fraction_lost", lambda g: memory_orders(kept=False),
                          "yours is the fraction lost on the way, 1 − f⁴⁰: the question asks "
                          "what reaches c_0")],
        rule="each step back multiplies δ by f: after 40 steps the fraction is f⁴⁰, and log10(f⁴⁰) "
             "= 40 · log10 f",
        why="40 steps back multiply 40 Jacobians diag(f): the fraction is f⁴⁰, log10 f⁴⁰ = "
            "40 log10 f")),

    Exercise("08.5", Value(
        "dL_dx1", linear_recurrence_gradient, tol=1e-9, name="∂L/∂x_1",
        misconceptions=[
            Misconception("one_factor_too_many", _power_of_u(0),
                          "yours is u^T, one factor of u too many: x_1 enters h_1 with the "
                          "factor 1, and only the T − 1 steps back from h_T to h_1 multiply by u"),
            Misconception("one_factor_too_few", _power_of_u(-2),
                          "yours is u^(T − 2), one factor of u too few: every one of the steps "
                          "back from h_T to h_1 multiplies by u")],
        rule="∂L/∂x_1 = (∂h_T/∂h_(T−1)) ⋯ (∂h_2/∂h_1) · ∂h_1/∂x_1: count the steps from h_T back "
             "to h_1, each a factor u = 1.5, and ∂h_1/∂x_1 = 1",
        why="x_1 enters at step 1 with the factor 1 and is multiplied by u at each of the T − 1 "
            "= 19 later steps: u^19")),

    Exercise("08.6", Value(
        "clipped", clipped_by_norm, name="[g_1, g_2] after clipping",
        coords=(lambda k: f"g_{k + 1}",),
        misconceptions=[
            Misconception("clipped_by_value",
                          lambda g: np.clip(GRADIENTS, -MAX_NORM, MAX_NORM),
                          "yours clips each entry to [−5, 5]: that is clip_grad_value_, which "
                          "changes the direction; clip_grad_norm_ scales the whole vector by "
                          "max_norm / ‖g‖ when ‖g‖ > max_norm"),
            Misconception("normalised_to_one",
                          lambda g: np.array(GRADIENTS) / np.linalg.norm(GRADIENTS),
                          "yours has length 1: clipping scales the vector to length max_norm = "
                          "5, not 1")],
        rule="‖g‖ = √(g_1² + g_2²); if it exceeds max_norm, every gradient is multiplied by "
             "max_norm / ‖g‖",
        why="the norm is √(30² + 40²) = 50 > 5, so every gradient is multiplied by 5/50 = 0.1; "
            "the direction is kept (clip_grad_value_ would clip each entry instead)")),

    Exercise("08.7", Value(
        "c_and_h", lambda g: lstm_step(), name="[c_t, h_t]",
        coords=(lambda k: ("c_t", "h_t")[k], "unit"),
        misconceptions=[
            Misconception("h_without_tanh", lambda g: lstm_step(tanh=False),
                          "yours writes h_t = o ⊙ c_t: the memory goes through tanh before the "
                          "output gate, h_t = o ⊙ tanh(c_t)"),
            Misconception("gates_swapped", lambda g: lstm_step(swap_gates=True),
                          "yours swaps the forget and input gates: f keeps the old memory "
                          "(f ⊙ c_(t−1)), i writes the candidate (i ⊙ g)"),
            Misconception("old_memory_shown", lambda g: lstm_step(old_memory=True),
                          "yours computes h_t from the old memory c_(t−1): h_t shows the new one, "
                          "o ⊙ tanh(c_t)")],
        rule="c_t = f ⊙ c_(t−1) + i ⊙ g elementwise, then h_t = o ⊙ tanh(c_t)",
        why="c_t = f ⊙ c_(t−1) + i ⊙ g, then h_t = o ⊙ tanh(c_t)")),

    Exercise("08.9", Value(
        "gru_h_new", gru_step_engine, tol=1e-4, name="h'",
        misconceptions=[
            Misconception("update_gate_reversed", lambda g: gru_step(z_keeps_old=False),
                          "yours keeps 1 − z of the old state and writes z of the candidate: in "
                          "PyTorch's GRU, h' = (1 − z) ⊙ n + z ⊙ h, so z is the share of the "
                          "old state kept"),
            Misconception("reset_before_product", lambda g: gru_step(reset="cho"),
                          "yours puts r on h before the product, W_hn (r ⊙ h) + b_hn (Cho et "
                          "al.'s form): PyTorch's r multiplies W_hn h + b_hn, bias included"),
            Misconception("reset_left_out", lambda g: gru_step(reset="none"),
                          "yours leaves out the reset gate: the candidate reads r ⊙ (W_hn h + "
                          "b_hn)")],
        rule="r = σ(W_ir x + W_hr h), z = σ(W_iz x + W_hz h), n = tanh(W_in x + r · (W_hn h + "
             "b_hn)), h' = (1 − z) · n + z · h, with x = 1 and h = 0.5",
        why="r = σ(1 + 0.25), z = σ(−1 + 0.25), n = tanh(2 + r · (0.5 + 0.5)) (r multiplies "
            "W_hn h + b_hn), then h' = (1 − z) · n + z · h: z is the share of the old state "
            "kept")),

    Exercise(
        "08.10",
        Shape("bi_output_shape", lambda g: bidirectional_shapes(g)[0], name="output",
              misconceptions=[
                  Misconception("one_direction", (3, 7, 10),
                                "yours has one direction's 10 features: a bidirectional layer "
                                "concatenates both directions' states at every step"),
                  Misconception("time_first", (7, 3, 20),
                                "yours puts the steps first: with batch_first=True the output "
                                "is (batch, steps, features)")],
              why="batch_first puts the batch first; each step concatenates the two directions' "
                  "10 features (the last layer's): (3, 7, 20)"),
        Shape("bi_h_n_shape", lambda g: bidirectional_shapes(g)[1], name="h_n",
              misconceptions=[
                  Misconception("h_n_batch_first", (3, 4, 10),
                                "yours puts the batch first: batch_first does not apply to h_n, "
                                "which is (directions · layers, batch, hidden)"),
                  Misconception("one_entry_per_direction", (2, 3, 10),
                                "yours has one entry per direction: h_n holds the last state of "
                                "each direction of every layer"),
                  Misconception("directions_concatenated", (2, 3, 20),
                                "yours concatenates the directions in h_n: h_n keeps each "
                                "direction's state apart, one entry each")],
              why="h_n is (directions · layers, batch, hidden) = (2 · 2, 3, 10): batch_first "
                  "does not apply to it, and each direction keeps its own 10 features")),

    Exercise(
        "08.11",
        Choice("review_topology", "many-to-one", options=TOPOLOGIES,
               misconceptions=[Misconception(
                   "tag_per_word", "many-to-many aligned",
                   "a review gets one label for all its words, not one tag per word")],
               why="the whole review gives one label: the state after the last word, h_n, "
                   "summarises it"),
        Choice("tagging_result", "output", options=["output", "h_n"],
               misconceptions=[Misconception(
                   "last_state_only", "h_n",
                   "the state h_n is the last step's alone: a tag for every word needs the "
                   "state at every step")],
               why="one tag per word at the same step: many-to-many aligned, which reads every "
                   "step's output; h_n is only the last step")),

    Exercise("08.12", Value(
        "context", attention_context, name="the context vector", coords=("component",),
        misconceptions=[
            Misconception("no_softmax", lambda g: np.array(SCORES) @ np.array(ENCODER_STATES),
                          "yours weights the states by the raw scores e: attention turns them "
                          "into weights with a softmax first, α = softmax(e)"),
            Misconception("uniform_weights",
                          lambda g: np.mean(ENCODER_STATES, axis=0),
                          "yours averages the states with equal weights: the weights are "
                          "α = softmax(e), larger for larger scores"),
            Misconception("scores_normalised_by_sum",
                          lambda g: np.array(SCORES) / np.sum(SCORES) @ np.array(ENCODER_STATES),
                          "yours divides the scores by their sum: the softmax exponentiates "
                          "them first, α_j = exp(e_j) / Σ exp(e_j')")],
        rule="α_j = exp(e_j) / Σ_j' exp(e_j'), then c = Σ_j α_j h_j",
        why="the weights are α = softmax(e) (they sum to 1), and c = Σ_j α_j h_j")),
)
