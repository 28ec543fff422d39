"""The gated recurrent unit (Cho et al. 2014) in PyTorch's form: gate order r, z, n, and the
reset gate multiplies the hidden part of the candidate including its bias (as cuDNN does)."""
from ...blas import product
from .cell import Cell, blocks, step_sum, weight_grad
from .sequence import Sequence


class GRU(Cell):
    """One step from the input projection x = [x_r, x_z, x_n] (N, 3H) (x Wᵢₕᵀ + bᵢₕ) and h::

        [h_r, h_z, h_n] = h Wₕₕᵀ + bₕₕ,   r = σ(x_r + h_r),   z = σ(x_z + h_z)
        n = tanh(x_n + r ⊙ h_n),   h' = (1 - z) ⊙ n + z ⊙ h   (computed as n + z ⊙ (h - n))

    Backward, with dh = dL/dh'::

        dñ = dh ⊙ (1 - z) ⊙ (1 - n²),   dz̃ = dh ⊙ (h - n) ⊙ z(1 - z),   dr̃ = dñ ⊙ h_n ⊙ r(1 - r)
        dL/dx = [dr̃, dz̃, dñ],   dL/d[h_r, h_z, h_n] = [dr̃, dz̃, dñ ⊙ r] =: dg
        dL/dh = dh ⊙ z + dg Wₕₕ,   dL/dWₕₕ = Σ_t dg_tᵀ h_{t-1},   dL/dbₕₕ = Σ_t dg_t
    """

    name, gates = "GRU", 3
    weights, products = ("w_hh", "b_hh"), 1

    def step(self, xp, x, state, w, out):
        h, = state
        size = h.shape[-1]
        hidden = w.times(h, 0, plus=w[1])               # [h_r, h_z, h_n]
        r, z = blocks(xp.sigmoid(x[..., :2 * size] + hidden[..., :2 * size]), 2)
        h_n = hidden[..., 2 * size:]
        n = xp.tanh(x[..., 2 * size:] + r * h_n)
        return (xp.add(n, z * (h - n), out=out[0]),), (r, z, n, h_n)

    def step_grads(self, xp, d_state, state, kept, w, join):
        dh, = d_state
        h, = state
        r, z, n, h_n = kept
        dn = dh * (1 - z) * (1 - n * n)
        dz = dh * (h - n) * z * (1 - z)
        dr = dn * h_n * r * (1 - r)
        join(0, [dr, dz, dn])
        dg = join(1, [dr, dz, dn * r])
        return (dh * z + product(dg, w[0]),)

    def weight_grads(self, xp, grads, history, kept, w):
        _, dg = grads
        return weight_grad(xp, dg, history[0][:-1]), None if w[1] is None else step_sum(dg)


class GRUSequence(Sequence):
    """A GRU layer over a sequence as one operation (``Sequence``): xs (T, N, 3H), h0 (N, H),
    w_hh (3H, H), b_hh (3H,) or None; returns h₁ … h_T (T, N, H)."""

    cell = GRU()


def gru_sequence(xs, h0, w_hh, b_hh=None, weight_t=None):
    """(T, N, H): h₁ … h_T of a GRU layer run over ``xs``: see ``GRUSequence``."""
    return GRUSequence.apply(xs, h0, w_hh, b_hh, weight_t=weight_t)
