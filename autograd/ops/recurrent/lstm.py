"""The LSTM cell (Hochreiter & Schmidhuber; forget gate of Gers et al.), PyTorch's gate order
i, f, g, o, with optional diagonal peephole weights (Gers, Schraudolph & Schmidhuber 2002)."""
from ...blas import product
from .cell import Cell, blocks, step_sum, weight_grad
from .sequence import Sequence


class LSTM(Cell):
    """One step from the input projection x (N, 4H) and the state (h, c)::

        a = x + h Wₕₕᵀ = [ãᵢ, ã_f, ã_g, ã_o]
        i = σ(ãᵢ + pᵢ ⊙ c),   f = σ(ã_f + p_f ⊙ c),   g = tanh(ã_g)
        c' = f ⊙ c + i ⊙ g,   o = σ(ã_o + p_o ⊙ c'),   h' = o ⊙ tanh(c')

    where p = [pᵢ, p_f, p_o] (3H,) are the peephole weights (the p terms are absent without
    them). Backward, with dh = dL/dh', dc = dL/dc' (from the next step) and τ = tanh(c')::

        dã_o = dh ⊙ τ ⊙ o(1 - o),   dc ← dc + dh ⊙ o ⊙ (1 - τ²) + dã_o ⊙ p_o
        dãᵢ = dc ⊙ g ⊙ i(1 - i),   dã_f = dc ⊙ c ⊙ f(1 - f),   dã_g = dc ⊙ i ⊙ (1 - g²)
        dL/dx = dã,   dL/dh = dã Wₕₕ,   dL/dc = dc ⊙ f + dãᵢ ⊙ pᵢ + dã_f ⊙ p_f
        dL/dWₕₕ = Σ_t dã_tᵀ h_{t-1},   dL/dp = Σ_t [dãᵢ ⊙ c_{t-1}, dã_f ⊙ c_{t-1}, dã_o ⊙ c_t]
    """

    name, gates, states = "LSTM", 4, ("h", "c")
    weights, products = ("w_hh", "peephole"), 1

    def step(self, xp, x, state, w, out):
        h, c = state
        size, peephole = h.shape[-1], w[1]
        a = w.times(h, 0, plus=x)                       # [ãᵢ, ã_f, ã_g, ã_o]
        if peephole is None:
            i, f = blocks(xp.sigmoid(a[..., :2 * size]), 2)
        else:
            p_i, p_f, p_o = blocks(peephole, 3)
            i = xp.sigmoid(a[..., :size] + p_i * c)
            f = xp.sigmoid(a[..., size:2 * size] + p_f * c)
        g = xp.tanh(a[..., 2 * size:3 * size])
        c_new = xp.add(f * c, i * g, out=out[1])
        a_o = a[..., 3 * size:]
        o = xp.sigmoid(a_o if peephole is None else a_o + p_o * c_new)
        tanh_c = xp.tanh(c_new)
        return (xp.multiply(o, tanh_c, out=out[0]), c_new), (i, f, g, o, tanh_c)

    def step_grads(self, xp, d_state, state, kept, w, join):
        dh, dc = d_state
        c = state[1]
        i, f, g, o, tanh_c = kept
        do = dh * tanh_c * o * (1 - o)
        dc = dc + dh * o * (1 - tanh_c * tanh_c)
        peephole = w[1]
        if peephole is not None:
            p_i, p_f, p_o = blocks(peephole, 3)
            dc = dc + do * p_o
        di = dc * g * i * (1 - i)
        df = dc * c * f * (1 - f)
        da = join(0, [di, df, dc * i * (1 - g * g), do])
        dc = dc * f
        if peephole is not None:
            dc = dc + di * p_i + df * p_f
        return product(da, w[0]), dc

    def weight_grads(self, xp, grads, history, kept, w):
        da, = grads
        hs, cs = history
        dp = None
        if w[1] is not None:
            di, df, _, do = blocks(da, 4)
            dp = xp.concatenate([step_sum(di * cs[:-1]), step_sum(df * cs[:-1]),
                                 step_sum(do * cs[1:])], axis=0)
        return weight_grad(xp, da, hs[:-1]), dp


class LSTMSequence(Sequence):
    """An LSTM layer over a sequence as one operation (``Sequence``): xs (T, N, 4H), h0 and c0
    (N, H), w_hh (4H, H), peephole (3H,) or None; returns h₁ … h_T, then c_T (T+1, N, H)."""

    cell = LSTM()


def lstm_sequence(xs, h0, c0, w_hh, peephole=None, weight_t=None):
    """(T+1, N, H): h₁ … h_T then c_T of an LSTM layer run over ``xs``: see ``LSTMSequence``."""
    return LSTMSequence.apply(xs, h0, c0, w_hh, peephole, weight_t=weight_t)
