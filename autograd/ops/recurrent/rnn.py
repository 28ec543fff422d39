"""The Elman RNN cell, with tanh or relu."""
from ...blas import product
from .cell import Cell, weight_grad
from .sequence import Sequence

NONLINEARITIES = ("tanh", "relu")


class RNN(Cell):
    """One step from the input projection x (N, H) (x Wᵢₕᵀ + bᵢₕ + bₕₕ) and h::

        h' = φ(x + h Wₕₕᵀ),   φ = tanh or relu

    Backward, with dh = dL/dh' and φ' read from h' (1 - h'² for tanh, [h' > 0] for relu)::

        dã = dh ⊙ φ'(h'),   dL/dx = dã,   dL/dh = dã Wₕₕ,   dL/dWₕₕ = Σ_t dã_tᵀ h_{t-1}
    """

    name, gates = "RNN", 1
    weights, products = ("w_hh",), 1

    def __init__(self, nonlinearity="tanh"):
        if nonlinearity not in NONLINEARITIES:
            raise ValueError(f"nonlinearity must be 'tanh' or 'relu', got {nonlinearity!r}")
        self.nonlinearity = nonlinearity

    def configured(self, nonlinearity=None):
        same = nonlinearity is None or nonlinearity == self.nonlinearity
        return self if same else RNN(nonlinearity)

    def step(self, xp, x, state, w, out):
        a = w.times(state[0], 0, plus=x, out=out[0])
        h = (xp.tanh if self.nonlinearity == "tanh" else xp.relu)(a, out=out[0])
        return (h,), h

    def step_grads(self, xp, d_state, state, h, w, join):
        row = join.row(0, h)        # this step's dã (fast path: 1 - h'² is computed in it too)
        if self.nonlinearity == "tanh":
            slope = xp.subtract(1, xp.multiply(h, h, out=row), out=row)
        else:
            slope = h > 0
        da = join(0, [xp.multiply(d_state[0], slope, out=row)])
        return (product(da, w[0]),)

    def weight_grads(self, xp, grads, history, kept, w):
        return (weight_grad(xp, grads[0], history[0][:-1]),)


class RNNSequence(Sequence):
    """An Elman RNN layer over a sequence as one operation (``Sequence``): xs (T, N, H),
    h0 (N, H), w_hh (H, H); ``nonlinearity`` "tanh" or "relu"; returns h₁ … h_T (T, N, H)."""

    cell = RNN()


def rnn_sequence(xs, h0, w_hh, weight_t=None, nonlinearity="tanh"):
    """(T, N, H): h₁ … h_T of an Elman RNN layer run over ``xs``: see ``RNNSequence``."""
    return RNNSequence.apply(xs, h0, w_hh, weight_t=weight_t, nonlinearity=nonlinearity)
