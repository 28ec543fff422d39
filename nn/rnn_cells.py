"""Recurrent cells: one time step of a vanilla RNN, an LSTM (optionally with peephole
connections), a GRU and a minimal gated unit (MGU), with PyTorch's parameter layout; and what
the layers of ``nn.rnn`` share with them.

A step is split in two so that a layer can do the input half for a whole sequence at once:

* the input projection  a_x = x Wᵢₕᵀ + b   (one ``linear`` for all time steps of a layer), and
* the recurrence: the cell's step from a_x[t] and the state, written once per cell in
  ``autograd/ops/recurrent/`` (``rnn.py``, ``lstm.py``, ``gru.py``, ``mgu.py``).

A layer runs each of its layers and directions as one operation over the whole sequence (the
cell's ``Sequence``: the steps and backpropagation through time each one loop), and a cell its
one step as the same operation over one step. Under ``viz.record()``, whose pictures (and ONNX
export) want every step, the steps run as recorded operations instead: one product h Wₕₕᵀ
for all gates (``RecurrentGates``) and the gate arithmetic, and backpropagation through time
is the engine walking the unrolled graph.

Gate order and shapes follow PyTorch: ``weight_ih`` (G·H, in), ``weight_hh`` (G·H, H),
``bias_ih``, ``bias_hh`` (G·H,), with G = 1 (RNN), 4 (LSTM: i, f, g, o), 3 (GRU: r, z, n) and
2 (MGU: f, n). Every weight and bias starts as U(-1/√H, 1/√H), PyTorch's default.
"""
import numpy as np

from dagrad import autograd as ag
from dagrad.autograd.default_dtype import float_dtype
from dagrad.autograd.grad_mode import STATE
from dagrad.autograd.ops.recurrent import (GRUSequence, LSTMSequence, MGUSequence, RNNSequence,
                                           run_steps)

from . import init
from .module import Module
from .parameter import Parameter


class Recurrence:
    """A layer family's recurrence: the sequence operation that runs its cell (with the
    operation's ``options``), and what a layer reads of the cell.

    gates: G, the blocks of the input projection; parts: 1 (state h) or 2 (h, c);
    fold_hh_bias: bₕₕ joins the input projection (the cell does not read it itself)."""

    def __init__(self, operation, **options):
        self.operation, self.options = operation, options
        self.cell = operation.cell.configured(**options)
        self.gates, self.parts = self.cell.gates, len(self.cell.states)
        self.fold_hh_bias = "b_hh" not in self.cell.weights

    def weights(self, w_hh, b_hh, w_ch, whole_sequence):
        """(the operation's weights from the layer's parameters, their matrices' transposes):
        Wᵀ made C-contiguous once for the steps of a whole sequence (faster in BLAS than W's
        transposed view), None for a single step."""
        weights = self.cell.layer_weights(w_hh, b_hh, w_ch)
        matrices = weights[:self.cell.products]
        transposed = ([np.ascontiguousarray(w._data.T) for w in matrices] if whole_sequence
                      else None)
        return weights, transposed

    def run(self, xs, state, weights, transposed):
        """The recurrence over the time-first ``xs`` (T, N, G·H) from ``state`` (a tuple):
        (h₁ … h_T (T, N, H), the final state tuple). One operation, or under ``viz.record()``
        each step its own operations."""
        steps = xs.shape[0]
        if STATE.values:
            states = run_steps(self.cell, [xs[t] for t in range(steps)], state, weights,
                               transposed)
            return ag.stack([s[0] for s in states[1:]]), states[-1]
        out = self.operation.apply(xs, *state, *weights, weight_t=transposed, **self.options)
        final = (out[steps - 1],) + tuple(out[steps + k] for k in range(self.parts - 1))
        return (out if self.parts == 1 else out[:steps]), final


RECURRENCES = {
    "RNN_TANH": Recurrence(RNNSequence, nonlinearity="tanh"),
    "RNN_RELU": Recurrence(RNNSequence, nonlinearity="relu"),
    "LSTM": Recurrence(LSTMSequence),
    "GRU": Recurrence(GRUSequence),
    "MGU": Recurrence(MGUSequence),
}


def run_layer(recurrence, xs, state, weights, transposed, reverse, time_axis):
    """One layer in one direction over the whole sequence ``xs`` (its input projections, time
    along ``time_axis``) from ``state`` (a tuple): (h_t stacked in time order, final state)."""
    xs = xs.transpose(0, 1) if time_axis else xs
    xs = xs.flip(0) if reverse else xs
    hs, final = recurrence.run(xs, state, weights, transposed)
    hs = hs.flip(0) if reverse else hs
    return (hs.transpose(0, 1) if time_axis else hs), final


def input_projection(x, w_ih, b_ih, b_hh, recurrence):
    """a_x = x Wᵢₕᵀ + bᵢₕ (+ bₕₕ where the recurrence allows): one product for every time
    step of ``x`` (…, in) -> (…, G·H)."""
    if b_ih is None:
        return ag.linear(x, w_ih)
    bias = b_ih + b_hh if recurrence.fold_hh_bias else b_ih
    return ag.linear(x, w_ih, bias)


def recurrence_for(mode, nonlinearity="tanh"):
    """The ``Recurrence`` of a layer family ("RNN", "LSTM", "GRU", "MGU")."""
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
    # rebuilt when a saved cell is loaded (nn/torchfile), not saved: it follows from the mode
    _derived_attributes = ("recurrence",)

    def _after_load(self):
        """Complete a cell loaded from a ``.pt`` file: the recurrence is rebuilt (a cell
        pickled by PyTorch has no peephole, and a nonlinearity only if it is an RNNCell)."""
        d = self.__dict__
        d.setdefault("nonlinearity", "tanh")
        d.setdefault("peephole", False)
        d["recurrence"] = recurrence_for(self.mode, self.nonlinearity)

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
        """One step: h' of hx's shape, for an LSTMCell (h', c')."""
        name = type(self).__name__
        x = check_input(name, input, self.input_size, 2)
        r = self.recurrence
        shape = x.shape[:-1] + (self.hidden_size,)
        given = (hx if hx is not None else (None, None)) if r.parts == 2 else (hx,)
        state = tuple(initial_state(s, shape, x, name, what)
                      for s, what in zip(given, ("h", "c")))
        b_ih, b_hh = (self.bias_ih, self.bias_hh) if self.bias else (None, None)
        xt = input_projection(x, self.weight_ih, b_ih, b_hh, r)
        weights, _ = r.weights(self.weight_hh, b_hh, self.weight_ch if self.peephole else None,
                               False)
        unbatched = x.ndim == 1
        if unbatched:
            xt, state = xt[None], tuple(s[None] for s in state)
        _, state = r.run(xt[None], state, weights, None)      # a sequence of one step
        if unbatched:
            state = tuple(s[0] for s in state)
        return state if r.parts == 2 else state[0]

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
