"""The minimal gated unit (Zhou et al. 2016): a GRU with one gate, the forget gate f."""
from ...blas import product
from .cell import Cell, blocks, stack_steps, weight_grad
from .sequence import Sequence


class MGU(Cell):
    """One step from the input projection x = [x_f, x_n] (N, 2H) (both biases included) and h,
    with Wₕₕ's two halves W_hf and W_hn (H, H) as two weights::

        f = σ(x_f + h W_hfᵀ),   u = f ⊙ h,   n = tanh(x_n + u W_hnᵀ),   h' = h + f ⊙ (n - h)

    The candidate reads the forget-gated state, so its product waits for f: two products of H
    columns per step. Backward, with dh = dL/dh'::

        dñ = dh ⊙ f ⊙ (1 - n²),   du = dñ W_hn,   df̃ = (dh ⊙ (n - h) + du ⊙ h) ⊙ f(1 - f)
        dL/dx = [df̃, dñ],   dL/dh = dh ⊙ (1 - f) + du ⊙ f + df̃ W_hf
        dL/dW_hf = Σ_t df̃_tᵀ h_{t-1},   dL/dW_hn = Σ_t dñ_tᵀ u_t
    """

    name, gates = "MGU", 2
    weights, products = ("w_hf", "w_hn"), 2

    def layer_weights(self, w_hh, b_hh, peephole):
        """W_hf and W_hn: the halves of the layer's Wₕₕ (2H, H) (its biases are in x)."""
        size = w_hh.shape[0] // 2
        return w_hh[:size], w_hh[size:]

    def step(self, xp, x, state, w, out):
        h, = state
        x_f, x_n = blocks(x, 2)
        f = xp.sigmoid(w.times(h, 0, plus=x_f))
        u = f * h
        n = xp.tanh(w.times(u, 1, plus=x_n))
        return (xp.add(h, f * (n - h), out=out[0]),), (f, n, u)

    def step_grads(self, xp, d_state, state, kept, w, join):
        dh, = d_state
        h, = state
        f, n, _ = kept
        dn = dh * f * (1 - n * n)
        du = product(dn, w[1])
        df = (dh * (n - h) + du * h) * f * (1 - f)
        join(0, [df, dn])
        return (dh * (1 - f) + du * f + product(df, w[0]),)

    def weight_grads(self, xp, grads, history, kept, w):
        df, dn = blocks(grads[0], 2)
        gated = stack_steps(xp, [k[2] for k in kept])          # u_t of every step
        return weight_grad(xp, df, history[0][:-1]), weight_grad(xp, dn, gated)


class MGUSequence(Sequence):
    """An MGU layer over a sequence as one operation (``Sequence``): xs (T, N, 2H), h0 (N, H),
    w_hf and w_hn (H, H); returns h₁ … h_T (T, N, H)."""

    cell = MGU()


def mgu_sequence(xs, h0, w_hf, w_hn, weight_t=None):
    """(T, N, H): h₁ … h_T of an MGU layer run over ``xs``: see ``MGUSequence``."""
    return MGUSequence.apply(xs, h0, w_hf, w_hn, weight_t=weight_t)
