"""Recurrent layers RNN, LSTM, GRU and MGU: stacked, optionally bidirectional, with dropout
between layers and PyTorch's parameter names (``weight_ih_l0``, ``weight_hh_l1_reverse``, ...),
so a PyTorch ``state_dict`` converted to NumPy loads directly.

For each layer and direction the input projections of all time steps are one matrix product;
then the recurrence over all steps is one operation (forward and backpropagation through time
each one loop; see ``nn.rnn_cells``). Under ``viz.record()`` the steps run as recorded
operations instead, each with one product h Wₕₕᵀ for all gates, and backpropagation through
time is the engine walking the unrolled graph.
"""
from dagrad import autograd as ag

from . import functional as F
from . import init
from .module import Module
from .rnn_cells import (GRUCell, LSTMCell, MGUCell, RNNCell,  # noqa: F401  (re-exported)
                        check_input, initial_state, input_projection, new_weights,
                        recurrence_for, run_layer)


class RNNBase(Module):
    """Shared part of the recurrent layers.

    Shapes (L: sequence length, N: batch, D: 2 if bidirectional else 1, H: hidden_size)::

        input  (L, N, input_size), or (N, L, input_size) with batch_first, or (L, input_size)
        h_0    (D·num_layers, N, H), or (D·num_layers, H) for an unbatched input (zeros if None)
        output (L, N, D·H) (batch_first: (N, L, D·H)): the last layer's h_t, both directions
               concatenated (forward first)
        h_n    (D·num_layers, N, H): the final state of every layer and direction, ordered
               l0, l0_reverse, l1, ...; the reverse direction's final state is at t = 0
    """

    mode = None
    # rebuilt when a saved layer is loaded (nn/formats/modules.py), not saved: it follows from
    # the mode
    _derived_attributes = ("recurrence",)

    def _after_load(self):
        """Complete a layer loaded from a file (.pt or .npz): the recurrence is rebuilt; a layer
        pickled by PyTorch names its mode its own way ("RNN_TANH") and has no peephole."""
        d = self.__dict__
        if d.pop("mode", None) == "RNN_RELU":
            d.setdefault("nonlinearity", "relu")
        d.setdefault("nonlinearity", "tanh")
        d.setdefault("peephole", False)
        d["recurrence"] = recurrence_for(self.mode, self.nonlinearity)

    def __init__(self, input_size, hidden_size, num_layers=1, bias=True, batch_first=False,
                 dropout=0.0, bidirectional=False, nonlinearity="tanh", peephole=False,
                 dtype=None):
        super().__init__()
        name = type(self).__name__
        if not isinstance(num_layers, int) or num_layers < 1:
            raise ValueError(f"{name}: num_layers must be a positive integer, got {num_layers!r}")
        if not isinstance(hidden_size, int) or hidden_size < 1:
            raise ValueError(f"{name}: hidden_size must be a positive integer, got "
                             f"{hidden_size!r}")
        if not 0.0 <= dropout <= 1.0:
            raise ValueError(f"{name}: dropout must be in [0, 1], got {dropout}")
        self.input_size, self.hidden_size, self.num_layers = input_size, hidden_size, num_layers
        self.bias, self.batch_first, self.dropout = bias, batch_first, float(dropout)
        self.bidirectional, self.nonlinearity, self.peephole = bidirectional, nonlinearity, peephole
        self.recurrence = recurrence_for(self.mode, nonlinearity)
        directions = 2 if bidirectional else 1
        for layer in range(num_layers):
            layer_input = input_size if layer == 0 else hidden_size * directions
            for d in range(directions):
                new_weights(self, self._suffix(layer, d), layer_input, hidden_size,
                            self.recurrence.gates, bias, peephole, dtype)

    @staticmethod
    def _suffix(layer, direction):
        return f"_l{layer}" + ("_reverse" if direction else "")

    def reset_parameters(self):
        """Every weight and bias ~ U(-1/√H, 1/√H) (PyTorch's default)."""
        for p in self.parameters():
            init.uniform_fan_in_(p, self.hidden_size)

    @property
    def all_weights(self):
        """The parameters of every layer and direction: [[w_ih, w_hh, b_ih, b_hh], ...]."""
        directions = 2 if self.bidirectional else 1
        return [[p for name, p in self.named_parameters()
                 if name.endswith(self._suffix(layer, d))]
                for layer in range(self.num_layers) for d in range(directions)]

    @property
    def _flat_weights_names(self):
        """PyTorch's names of the recurrent parameters, layer by layer and direction by
        direction (weight_ih, weight_hh, bias_ih, bias_hh), as code that initialises them
        by name reads them: ``module._parameters[name]`` for each."""
        return list(self._parameters)

    @property
    def _flat_weights(self):
        return list(self._parameters.values())

    def flatten_parameters(self):
        """Does nothing, as PyTorch's on the CPU: it packs the weights into one block of GPU
        memory for cuDNN, and dagrad's weights are the parameters themselves. Programs call it
        before every forward (pytorch/examples' word_language_model)."""

    def forward(self, input, hx=None):
        """Run the whole sequence; returns (output, h_n), for an LSTM (output, (h_n, c_n))."""
        name = type(self).__name__
        x = check_input(name, input, self.input_size, 3)
        batched = x.ndim == 3
        time_axis = 1 if batched and self.batch_first else 0
        if x.shape[time_axis] == 0:                   # PyTorch's error (no last step to return)
            raise RuntimeError(f"Expected sequence length to be larger than 0 in RNN: {name} "
                               f"got input of shape {tuple(x.shape)} (batch_first="
                               f"{self.batch_first}), whose time axis {time_axis} is empty")
        if not batched:
            x = x.unsqueeze(1)
        r = self.recurrence
        directions = 2 if self.bidirectional else 1
        shape = (directions * self.num_layers, x.shape[1 - time_axis], self.hidden_size)
        given = (hx if hx is not None else (None, None)) if r.parts == 2 else (hx,)
        owner = f"{name} (batch_first={self.batch_first})"
        states = [initial_state(s, shape, x, owner, what, unbatched=not batched)
                  for s, what in zip(given, ("h_0", "c_0"))]
        finals = []
        for layer in range(self.num_layers):
            outputs = []
            for d in range(directions):
                k = layer * directions + d
                state = tuple(s[k] for s in states)
                out, state = self._run_direction(x, state, self._suffix(layer, d), d, time_axis)
                outputs.append(out)
                finals.append(state)
            x = outputs[0] if directions == 1 else ag.cat(outputs, dim=-1)
            if self.dropout and self.training and layer < self.num_layers - 1:
                x = F.dropout(x, self.dropout, True)
        h_n = tuple(ag.stack([s[part] for s in finals]) for part in range(r.parts))
        if not batched:
            x = x.squeeze(1)
            h_n = tuple(s.squeeze(1) for s in h_n)
        return x, (h_n if r.parts == 2 else h_n[0])

    def _run_direction(self, x, state, suffix, reverse, time_axis):
        """One layer in one direction over the whole sequence: (outputs stacked in time order,
        final state)."""
        r = self.recurrence
        p = self._parameters
        b_ih, b_hh = p.get("bias_ih" + suffix), p.get("bias_hh" + suffix)
        xs = input_projection(x, p["weight_ih" + suffix], b_ih, b_hh, r)
        weights, transposed = r.weights(p["weight_hh" + suffix], b_hh,
                                        p.get("weight_ch" + suffix), x.shape[time_axis] > 1)
        return run_layer(r, xs, state, weights, transposed, reverse, time_axis)

    def extra_repr(self):
        s = f"{self.input_size}, {self.hidden_size}"
        if self.num_layers != 1:
            s += f", num_layers={self.num_layers}"
        if self.mode == "RNN" and self.nonlinearity != "tanh":
            s += f", nonlinearity={self.nonlinearity!r}"
        for flag, default in (("bias", True), ("batch_first", False), ("dropout", 0.0),
                              ("bidirectional", False), ("peephole", False)):
            if getattr(self, flag) != default:
                s += f", {flag}={getattr(self, flag)}"
        return s


class RNN(RNNBase):
    """Elman RNN, stacked: h_t = φ(x_t Wᵢₕᵀ + bᵢₕ + h_{t-1} Wₕₕᵀ + bₕₕ), φ = tanh or relu
    (``nonlinearity``); layer l > 0 reads layer l-1's h_t. Returns (output, h_n); shapes as in
    ``RNNBase``. Parameters ``weight_ih_l{k}`` (H, in), ``weight_hh_l{k}`` (H, H),
    ``bias_ih_l{k}``, ``bias_hh_l{k}`` (H,), plus ``_reverse`` ones when bidirectional."""
    mode = "RNN"

    def __init__(self, input_size, hidden_size, num_layers=1, nonlinearity="tanh", bias=True,
                 batch_first=False, dropout=0.0, bidirectional=False, dtype=None):
        super().__init__(input_size, hidden_size, num_layers, bias, batch_first, dropout,
                         bidirectional, nonlinearity=nonlinearity, dtype=dtype)


class LSTM(RNNBase):
    """Stacked LSTM (``nn.LSTMCell`` per step, gate order i, f, g, o). ``forward(input,
    (h_0, c_0))`` returns (output, (h_n, c_n)); shapes as in ``RNNBase``, c like h.
    ``peephole=True`` adds the diagonal peephole weights ``weight_ch_l{k}`` (3H,) (not in
    PyTorch). ``proj_size`` is not supported."""
    mode = "LSTM"

    def __init__(self, input_size, hidden_size, num_layers=1, bias=True, batch_first=False,
                 dropout=0.0, bidirectional=False, proj_size=0, peephole=False, dtype=None):
        if proj_size:
            raise ValueError("LSTM: proj_size is not supported; add an nn.Linear on the output "
                             "instead")
        super().__init__(input_size, hidden_size, num_layers, bias, batch_first, dropout,
                         bidirectional, peephole=peephole, dtype=dtype)


class _GatedUnit(RNNBase):
    """A layer whose only option beyond RNNBase's is none (GRU, MGU)."""

    def __init__(self, input_size, hidden_size, num_layers=1, bias=True, batch_first=False,
                 dropout=0.0, bidirectional=False, dtype=None):
        super().__init__(input_size, hidden_size, num_layers, bias, batch_first, dropout,
                         bidirectional, dtype=dtype)


class GRU(_GatedUnit):
    """Stacked GRU (``nn.GRUCell`` per step, gate order r, z, n). Returns (output, h_n); shapes
    as in ``RNNBase``; ``weight_ih_l{k}`` (3H, in), ``weight_hh_l{k}`` (3H, H)."""
    mode = "GRU"


class MGU(_GatedUnit):
    """Stacked minimal gated unit (``nn.MGUCell`` per step, gate order f, n). Returns (output,
    h_n); shapes as in ``RNNBase``; ``weight_ih_l{k}`` (2H, in), ``weight_hh_l{k}`` (2H, H)."""
    mode = "MGU"


def init_forget_bias_(module, value=1.0):
    """Set the forget-gate bias of every LSTM layer and LSTMCell in ``module`` to ``value``
    (bias_ih's forget block to ``value``, bias_hh's to 0, so their sum is ``value``); returns
    ``module``.

    With PyTorch's default initialisation the forget gate starts near σ(0) = ½, so the memory
    halves at every step and after 40 steps keeps 2⁻⁴⁰ of what it held: the gradient that would
    teach the network to remember vanishes too. A bias of 1 to 3 (Gers et al. 2000; Jozefowicz
    et al. 2015) starts the memory near σ(b) per step instead (σ(3) ≈ 0.95).
    """
    for m in module.modules():
        if getattr(m, "mode", None) != "LSTM" or not m.bias:
            continue
        size = m.hidden_size
        for name, p in m.named_parameters(recurse=False):
            if name.startswith("bias_"):
                with ag.no_grad():
                    p[size:2 * size] = value if name.startswith("bias_ih") else 0.0
    return module
