"""Recurrent cells: one time step of a vanilla RNN, an LSTM (optionally with peephole
connections), a GRU and a minimal gated unit (MGU), with PyTorch's parameter layout.

A step is split in two so that a layer can do the input half for a whole sequence at once:

* the input projection  a_x = x Wᵢₕᵀ + b   (one ``linear`` for all time steps of a layer), and
* the recurrence, one of four step functions (``rnn_step``, ``lstm_step``, ``gru_step``,
  ``mgu_step``) called as ``step(a_x[t], state, weights)``: one fused product h Wₕₕᵀ for all
  gates, then the gate nonlinearities and the state update.

A layer (``nn.RNN``, ``nn.LSTM``, ``nn.GRU``, ``nn.MGU``) runs each of its layers and directions
as one operation over the whole sequence (``rnn_layer``, ``lstm_layer``, ``gru_layer``,
``mgu_layer``: ``autograd/ops/*_sequence.py``, backpropagation through time in one loop), and
runs these steps instead where the steps themselves are wanted (under ``viz.record()``, and an
LSTM with peepholes); then backpropagation through time is the engine walking the unrolled
graph of the steps.

Gate order and shapes follow PyTorch: ``weight_ih`` (G·H, in), ``weight_hh`` (G·H, H),
``bias_ih``, ``bias_hh`` (G·H,), with G = 1 (RNN), 4 (LSTM: i, f, g, o), 3 (GRU: r, z, n) and
2 (MGU: f, n). Every weight and bias starts as U(-1/√H, 1/√H), PyTorch's default.
"""
from collections import namedtuple

import numpy as np

from dagrad import autograd as ag
from dagrad.autograd.default_dtype import float_dtype
from dagrad.autograd.grad_mode import STATE
from dagrad.autograd.ops import rnn_ops
from dagrad.autograd.ops.gru_sequence import gru_sequence
from dagrad.autograd.ops.lstm_sequence import lstm_sequence
from dagrad.autograd.ops.mgu_sequence import mgu_sequence
from dagrad.autograd.ops.rnn_sequence import rnn_sequence

from . import init
from .module import Module
from .parameter import Parameter


# ---- the four step functions: one time step from a_x[t] and the state, given the weights
# their ``*_weights`` function prepared once per sequence
def rnn_step(xt, h, weights):
    """h' = φ(a_x + h Wₕₕᵀ)  (both biases are already in a_x; φ = tanh or relu)."""
    w_hh, w_t, nonlinearity = weights
    return ACTIVATIONS[nonlinearity](rnn_ops.recurrent_gates(xt, h, w_hh, w_t))


def lstm_step(xt, state, weights):
    """a = a_x + h Wₕₕᵀ = [ãᵢ, ã_f, ã_g, ã_o];  c' = σ(ã_f) ⊙ c + σ(ãᵢ) ⊙ tanh(ã_g);
    h' = σ(ã_o) ⊙ tanh(c')  (with peepholes, + pᵢ ⊙ c, + p_f ⊙ c and + p_o ⊙ c' inside σ)."""
    h, c = state
    w_hh, w_t, w_ch = weights
    gates = rnn_ops.recurrent_gates(xt, h, w_hh, w_t)
    c = rnn_ops.lstm_cell_state(gates, c, w_ch)
    return rnn_ops.lstm_cell_output(gates, c, w_ch), c


def gru_step(xt, h, weights):
    """r = σ(x_r + h_r), z = σ(x_z + h_z), n = tanh(x_n + r ⊙ h_n), h' = (1 - z) ⊙ n + z ⊙ h,
    with [h_r, h_z, h_n] = h Wₕₕᵀ + bₕₕ (the reset gate multiplies h_n including its bias, as
    PyTorch and cuDNN do)."""
    w_hh, w_t, b_hh = weights
    return rnn_ops.gru_cell(xt, rnn_ops.recurrent_gates(b_hh, h, w_hh, w_t), h)


def mgu_step(xt, h, weights):
    """f = σ(x_f + h W_hfᵀ), ñ = tanh(x_n + (f ⊙ h) W_hnᵀ), h' = (1 - f) ⊙ h + f ⊙ ñ.

    The candidate reads the forget-gated state, so its product waits for f: two products of
    H columns per step instead of one of 2H (the same arithmetic)."""
    w_hf, wt_f, w_hn, wt_n = weights
    size = w_hf.shape[0]
    f = rnn_ops.recurrent_gates(xt[..., :size], h, w_hf, wt_f).sigmoid()
    n = rnn_ops.recurrent_gates(xt[..., size:], f * h, w_hn, wt_n).tanh()
    return h + f * (n - h)


def _transposed(w, whole_sequence):
    """Wᵀ as a C-contiguous array for the per-step products of a whole sequence (made once:
    faster in BLAS than W's transposed view); None for a single step."""
    return np.ascontiguousarray(w._data.T) if whole_sequence else None


# ---- what each step function reads besides the state, made once per sequence from Wₕₕ, bₕₕ,
# the peepholes and whether a whole sequence follows (then Wₕₕᵀ is made contiguous once)
ACTIVATIONS = {"tanh": ag.tanh, "relu": ag.relu}


def rnn_tanh_weights(w_hh, b_hh, w_ch, whole_sequence):
    return w_hh, _transposed(w_hh, whole_sequence), "tanh"


def rnn_relu_weights(w_hh, b_hh, w_ch, whole_sequence):
    return w_hh, _transposed(w_hh, whole_sequence), "relu"


def lstm_weights(w_hh, b_hh, w_ch, whole_sequence):
    return w_hh, _transposed(w_hh, whole_sequence), w_ch


def gru_weights(w_hh, b_hh, w_ch, whole_sequence):
    return w_hh, _transposed(w_hh, whole_sequence), b_hh


def mgu_weights(w_hh, b_hh, w_ch, whole_sequence):
    size = w_hh.shape[0] // 2
    w_hf, w_hn = w_hh[:size], w_hh[size:]
    return w_hf, _transposed(w_hf, whole_sequence), w_hn, _transposed(w_hn, whole_sequence)


# ---- a whole sequence as one operation, where the family has one (see ``run_layer``)

def rnn_layer(xs, state, weights, reverse, time_axis):
    """(h_t of every step in time order, h_T): the RNN over all of ``xs`` as one
    ``RNNSequence`` operation."""
    w_hh, w_t, nonlinearity = weights
    return _hidden_state_layer(rnn_sequence, xs, state, reverse, time_axis, w_hh, w_t,
                               nonlinearity)


def lstm_layer(xs, state, weights, reverse, time_axis):
    """(h_t of every step in time order, (h_T, c_T)): the LSTM over all of ``xs`` as one
    ``LSTMSequence`` operation, or None where the steps must stay separate operations
    (peepholes)."""
    w_hh, w_t, w_ch = weights
    if w_ch is not None:
        return None
    xs = _time_first(xs, reverse, time_axis)
    steps = xs.shape[0]
    packed = lstm_sequence(xs, state[0], state[1], w_hh, w_t)
    return _time_back(packed[:steps], reverse, time_axis), (packed[steps - 1], packed[steps])


def gru_layer(xs, state, weights, reverse, time_axis):
    """(h_t of every step in time order, h_T): the GRU over all of ``xs`` as one
    ``GRUSequence`` operation."""
    w_hh, w_t, b_hh = weights
    return _hidden_state_layer(gru_sequence, xs, state, reverse, time_axis, w_hh, b_hh, w_t)


def mgu_layer(xs, state, weights, reverse, time_axis):
    """(h_t of every step in time order, h_T): the MGU over all of ``xs`` as one
    ``MGUSequence`` operation (it takes Wₕₕ's two halves, as the steps do)."""
    w_hf, wt_f, w_hn, wt_n = weights
    w_t = None if wt_f is None else (wt_f, wt_n)
    return _hidden_state_layer(mgu_sequence, xs, state, reverse, time_axis, w_hf, w_hn, w_t)


def _hidden_state_layer(sequence, xs, state, reverse, time_axis, *weights):
    """A layer whose state is h alone, run by the ``sequence`` operation (h₁ … h_T from the
    time-first input projections, the initial h and ``weights``): (h_t in time order, h_T)."""
    xs = _time_first(xs, reverse, time_axis)
    hs = sequence(xs, state, *weights)
    return _time_back(hs, reverse, time_axis), hs[xs.shape[0] - 1]


def _time_first(xs, reverse, time_axis):
    """The sequence with time first and, for the reverse direction, the last step first."""
    xs = xs.transpose(0, 1) if time_axis else xs
    return xs.flip(0) if reverse else xs


def _time_back(hs, reverse, time_axis):
    """Outputs of ``_time_first``'s order back in the input's order and layout."""
    hs = hs.flip(0) if reverse else hs
    return hs.transpose(0, 1) if time_axis else hs


# gates: G; fold_hh_bias: bₕₕ joins the input projection (it is outside every product with a
# gate); lstm: the state is (h, c); step and weights: the two functions above; layer: the
# whole sequence as one operation (it returns None where the steps must stay separate).
Recurrence = namedtuple("Recurrence", "gates fold_hh_bias lstm step weights layer")

RECURRENCES = {
    "RNN_TANH": Recurrence(1, True, False, rnn_step, rnn_tanh_weights, rnn_layer),
    "RNN_RELU": Recurrence(1, True, False, rnn_step, rnn_relu_weights, rnn_layer),
    "LSTM": Recurrence(4, True, True, lstm_step, lstm_weights, lstm_layer),
    "GRU": Recurrence(3, False, False, gru_step, gru_weights, gru_layer),
    "MGU": Recurrence(2, True, False, mgu_step, mgu_weights, mgu_layer),
}


def run_layer(recurrence, xs, state, weights, reverse, time_axis):
    """One layer in one direction over the whole sequence ``xs`` (its input projections):
    (h_t stacked in time order, final state). As one operation, except under
    ``viz.record()``, whose pictures show every step, and where the family's ``layer`` declines
    (peepholes); then step by step, each step its own few operations."""
    if not STATE.values:
        result = recurrence.layer(xs, state, weights, reverse, time_axis)
        if result is not None:
            return result
    steps = xs.shape[time_axis]
    lead = (slice(None),) * time_axis
    hs = [None] * steps
    for t in (range(steps - 1, -1, -1) if reverse else range(steps)):
        state = recurrence.step(xs[lead + (t,)], state, weights)
        hs[t] = state[0] if recurrence.lstm else state
    return ag.stack(hs, dim=time_axis), state


def input_projection(x, w_ih, b_ih, b_hh, recurrence):
    """a_x = x Wᵢₕᵀ + bᵢₕ (+ bₕₕ where the recurrence allows): one product for every time
    step of ``x`` (…, in) -> (…, G·H)."""
    if b_ih is None:
        return ag.linear(x, w_ih)
    bias = b_ih + b_hh if recurrence.fold_hh_bias else b_ih
    return ag.linear(x, w_ih, bias)


def recurrence_for(mode, nonlinearity="tanh"):
    """The Recurrence of a layer family ("RNN", "LSTM", "GRU", "MGU")."""
    if mode == "RNN":
        if nonlinearity not in ("tanh", "relu"):
            raise ValueError(f"RNN: nonlinearity must be 'tanh' or 'relu', got "
                             f"{nonlinearity!r}")
        mode = "RNN_" + nonlinearity.upper()
    return RECURRENCES[mode]


def new_weights(module, suffix, input_size, hidden_size, gates, bias, peephole, dtype):
    """Register weight_ih{suffix}, weight_hh{suffix}, bias_ih{suffix}, bias_hh{suffix} (and
    weight_ch{suffix}, the (3H,) peephole weights [pᵢ, p_f, p_o]) on ``module``."""
    dtype = float_dtype(dtype)
    rows = gates * hidden_size
    shapes = [("weight_ih", (rows, input_size)), ("weight_hh", (rows, hidden_size))]
    if bias:
        shapes += [("bias_ih", (rows,)), ("bias_hh", (rows,))]
    if peephole:
        shapes.append(("weight_ch", (3 * hidden_size,)))
    for name, shape in shapes:
        p = Parameter(np.empty(shape, dtype))
        init.uniform_fan_in_(p, hidden_size)
        setattr(module, name + suffix, p)


def check_input(name, x, input_size, batched_ndim):
    """``x`` as a Tensor, checked: (…, input_size) with batched_ndim or batched_ndim - 1 dims."""
    x = x if isinstance(x, ag.Tensor) else ag.tensor(x)
    if x.ndim not in (batched_ndim - 1, batched_ndim) or x.shape[-1] != input_size:
        layout = ("(L, N, {0}) ((N, L, {0}) with batch_first=True)" if batched_ndim == 3
                  else "(N, {0})").format(input_size)
        raise ValueError(f"{name}: expected input of shape {layout} or without the batch "
                         f"dimension, whose last dimension is input_size={input_size}; got "
                         f"{tuple(x.shape)}")
    return x


def initial_state(state, shape, x, owner, what, unbatched=False):
    """The initial ``what`` (h or c) of ``owner``: zeros of ``shape``, or ``state`` (with its
    batch dimension added back for an ``unbatched`` input) checked to have that shape."""
    if state is None:
        return ag.zeros(*shape, dtype=x.dtype)
    state = state if isinstance(state, ag.Tensor) else ag.tensor(state)
    if unbatched:
        state = state.unsqueeze(1)
    if tuple(state.shape) != tuple(shape):
        raise ValueError(f"{owner}: expected {what} of shape {tuple(shape)} for an input of "
                         f"shape {tuple(x.shape)}, got {tuple(state.shape)}")
    return state


class RNNCellBase(Module):
    """Shared part of the cells: parameters, state checks and one step."""

    mode = None

    def __init__(self, input_size, hidden_size, bias=True, nonlinearity="tanh", peephole=False,
                 dtype=None):
        super().__init__()
        self.input_size, self.hidden_size, self.bias = input_size, hidden_size, bias
        self.nonlinearity, self.peephole = nonlinearity, peephole
        self.recurrence = recurrence_for(self.mode, nonlinearity)
        new_weights(self, "", input_size, hidden_size, self.recurrence.gates, bias, peephole,
                    dtype)

    def reset_parameters(self):
        for p in self.parameters():
            init.uniform_fan_in_(p, self.hidden_size)

    def forward(self, input, hx=None):
        x = check_input(type(self).__name__, input, self.input_size, 2)
        r = self.recurrence
        shape = x.shape[:-1] + (self.hidden_size,)
        given = (hx if hx is not None else (None, None)) if r.lstm else (hx,)
        state = tuple(initial_state(s, shape, x, type(self).__name__, what)
                      for s, what in zip(given, ("h", "c")))
        state = state if r.lstm else state[0]
        b_ih = self.bias_ih if self.bias else None
        b_hh = self.bias_hh if self.bias else None
        xt = input_projection(x, self.weight_ih, b_ih, b_hh, r)
        weights = r.weights(self.weight_hh, b_hh, self.weight_ch if self.peephole else None,
                            False)
        return r.step(xt, state, weights)

    def extra_repr(self):
        extra = "" if self.bias else ", bias=False"
        if self.mode == "RNN" and self.nonlinearity != "tanh":
            extra += f", nonlinearity={self.nonlinearity!r}"
        if self.peephole:
            extra += ", peephole=True"
        return f"{self.input_size}, {self.hidden_size}{extra}"


class RNNCell(RNNCellBase):
    """Elman RNN cell: h' = φ(x Wᵢₕᵀ + bᵢₕ + h Wₕₕᵀ + bₕₕ), φ = tanh or relu.

    Input x (N, input_size) or (input_size,), hx (N, hidden_size) (zeros when omitted);
    returns h' of hx's shape. ``weight_ih`` (H, in), ``weight_hh`` (H, H), biases (H,).
    """
    mode = "RNN"

    def __init__(self, input_size, hidden_size, bias=True, nonlinearity="tanh", dtype=None):
        super().__init__(input_size, hidden_size, bias, nonlinearity, dtype=dtype)


class LSTMCell(RNNCellBase):
    """Long short-term memory cell (Hochreiter & Schmidhuber; forget gate of Gers et al.)::

        [ãᵢ, ã_f, ã_g, ã_o] = x Wᵢₕᵀ + bᵢₕ + h Wₕₕᵀ + bₕₕ
        i = σ(ãᵢ),  f = σ(ã_f),  g = tanh(ã_g),  o = σ(ã_o)
        c' = f ⊙ c + i ⊙ g,    h' = o ⊙ tanh(c')

    With ``peephole=True`` the gates also see the memory (Gers, Schraudolph & Schmidhuber
    2002): i = σ(ãᵢ + pᵢ ⊙ c), f = σ(ã_f + p_f ⊙ c), o = σ(ã_o + p_o ⊙ c'), with the diagonal
    peephole weights ``weight_ch`` = [pᵢ, p_f, p_o] (3H,) (not in PyTorch).

    Input x (N, in) or (in,), hx = (h, c) each (N, H) (zeros when omitted); returns (h', c').
    ``weight_ih`` (4H, in), ``weight_hh`` (4H, H), biases (4H,), gate order i, f, g, o.
    """
    mode = "LSTM"

    def __init__(self, input_size, hidden_size, bias=True, peephole=False, dtype=None):
        super().__init__(input_size, hidden_size, bias, peephole=peephole, dtype=dtype)


class GRUCell(RNNCellBase):
    """Gated recurrent unit cell (Cho et al. 2014), PyTorch's form::

        r = σ(x Wᵢᵣᵀ + bᵢᵣ + h Wₕᵣᵀ + bₕᵣ),   z = σ(x Wᵢ𝓏ᵀ + bᵢ𝓏 + h Wₕ𝓏ᵀ + bₕ𝓏)
        n = tanh(x Wᵢₙᵀ + bᵢₙ + r ⊙ (h Wₕₙᵀ + bₕₙ)),   h' = (1 - z) ⊙ n + z ⊙ h

    Input x (N, in) or (in,), hx (N, H) (zeros when omitted); returns h'. ``weight_ih``
    (3H, in), ``weight_hh`` (3H, H), biases (3H,), gate order r, z, n.
    """
    mode = "GRU"

    def __init__(self, input_size, hidden_size, bias=True, dtype=None):
        super().__init__(input_size, hidden_size, bias, dtype=dtype)


class MGUCell(RNNCellBase):
    """Minimal gated unit (Zhou et al. 2016): a GRU with one gate, the forget gate f::

        f = σ(x W_ifᵀ + b_if + h W_hfᵀ + b_hf)
        ñ = tanh(x W_inᵀ + b_in + (f ⊙ h) W_hnᵀ + b_hn),    h' = (1 - f) ⊙ h + f ⊙ ñ

    Input x (N, in) or (in,), hx (N, H) (zeros when omitted); returns h'. ``weight_ih``
    (2H, in), ``weight_hh`` (2H, H), biases (2H,), gate order f, n (PyTorch's layout
    conventions; PyTorch has no MGU).
    """
    mode = "MGU"

    def __init__(self, input_size, hidden_size, bias=True, dtype=None):
        super().__init__(input_size, hidden_size, bias, dtype=dtype)
