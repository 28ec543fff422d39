"""A whole GRU layer over a sequence as one operation (see ``rnn_sequence`` for what the
recurrent sequence operations share and why they exist)."""
import numpy as np

from ..blas import product
from ..dtypes import floating
from ..function import Function
from ..xp import sigmoid_array
from .rnn_sequence import join, stack_steps, transpose, weight_grad


def _gru_gate_grads(dh, h_prev, r, z, n, hn):
    """One step of GRU BPTT, with dh = dL/dh_t (r, z, n the gates, hn = h_{t-1}Wₕₙᵀ + bₕₙ)::

        dñ = dh ⊙ (1 - z) ⊙ (1 - n²),   dz̃ = dh ⊙ (h_{t-1} - n) ⊙ z(1 - z),
        dr̃ = dñ ⊙ hn ⊙ r(1 - r)

    Returns ([dr̃, dz̃, dñ] (the input part's gradient), [dr̃, dz̃, dñ ⊙ r] (the hidden part's),
    dh ⊙ z (dL/dh_{t-1} before the product))."""
    dn = dh * (1 - z) * (1 - n * n)
    dz = dh * (h_prev - n) * z * (1 - z)
    dr = dn * hn * r * (1 - r)
    return [dr, dz, dn], [dr, dz, dn * r], dh * z


class GRUSequence(Function):
    """A one-direction GRU layer over T steps (PyTorch's form, gates r, z, n), from the input
    parts xg_t = x_t Wᵢₕᵀ + bᵢₕ::

        [h_r, h_z, h_n] = h_{t-1} Wₕₕᵀ + bₕₕ,   r = σ(x_r + h_r),   z = σ(x_z + h_z)
        n = tanh(x_n + r ⊙ h_n),   h_t = (1 - z) ⊙ n + z ⊙ h_{t-1}

    Shapes: xg (T, N, 3H), h0 (N, H), w_hh (3H, H), b_hh (3H,); ``weight_t`` is Wₕₕᵀ as a
    C-contiguous array. Returns h₁ … h_T (T, N, H). Backward: ``_gru_gate_grads`` per step,
    from t = T down; dL/dh_{t-1} = dh ⊙ z + dhg_t Wₕₕ, dL/dWₕₕ = Σ_t dhg_tᵀ h_{t-1},
    dL/dbₕₕ = Σ_t dhg_t.
    """

    dtype_rule = floating

    def forward(ctx, xg, h0, w_hh, b_hh, weight_t=None):
        steps, batch, width = xg.shape
        size = width // 3
        w_t = w_hh.T if weight_t is None else weight_t
        states = np.empty((steps + 1, batch, size), xg.dtype)   # h0, h1 … h_T
        acts = np.empty((steps, batch, width), xg.dtype)        # r, z, n of every step
        hidden_n = np.empty((steps, batch, size), xg.dtype)     # h_{t-1}Wₕₙᵀ + bₕₙ
        states[0] = h0
        for t in range(steps):
            hg = product(states[t], w_t)
            if b_hh is not None:
                hg += b_hh
            a = acts[t]
            np.add(xg[t, :, :2 * size], hg[:, :2 * size], out=a[:, :2 * size])
            a[:, :2 * size] = sigmoid_array(a[:, :2 * size])
            r, z, n = a[:, :size], a[:, size:2 * size], a[:, 2 * size:]
            hidden_n[t] = hg[:, 2 * size:]
            np.multiply(r, hidden_n[t], out=n)
            n += xg[t, :, 2 * size:]
            np.tanh(n, out=n)
            h = states[t + 1]
            np.subtract(states[t], n, out=h)
            h *= z
            h += n
        out = states[1:]
        ctx.save(xg, h0, w_hh, b_hh, output=out, acts=acts, hidden_n=hidden_n, states=states)
        return out

    def backward(ctx, grad):
        xg, h0, w_hh, b_hh, _ = ctx.saved
        xp = ctx.xp
        steps = xg.shape[0]
        if ctx.create_graph:      # recompute every step as recorded operations
            hs, gates = _gru_recompute(xp, xg, h0, w_hh, b_hh)
            dxg, dhg = [None] * steps, [None] * steps
        else:
            hs, acts, hidden_n = ctx.states, ctx.acts, ctx.hidden_n
            size = hs.shape[-1]
            gates = [(acts[t, :, :size], acts[t, :, size:2 * size], acts[t, :, 2 * size:],
                      hidden_n[t]) for t in range(steps)]
            dxg, dhg = np.empty_like(acts), np.empty_like(acts)
        dh = grad[steps - 1] * 1
        for t in range(steps - 1, -1, -1):
            r, z, n, hn = gates[t]
            input_parts, hidden_parts, dh = _gru_gate_grads(dh, hs[t], r, z, n, hn)
            dxg[t] = join(xp, input_parts, dxg, t)
            dhg[t] = join(xp, hidden_parts, dhg, t)
            dh = dh + product(dhg[t], w_hh)
            if t:
                dh = dh + grad[t - 1]
        if ctx.create_graph:
            dxg, dhg = stack_steps(xp, dxg), stack_steps(xp, dhg)
        db = None if b_hh is None else dhg.reshape((-1, dhg.shape[-1])).sum(axis=0)
        return dxg, dh, weight_grad(xp, dhg, hs[:steps]), db


def _gru_recompute(xp, xg, h0, w_hh, b_hh):
    """The GRU forward again as recorded operations: hs (T+1, N, H) and each step's gates."""
    hs, gates = [h0], []
    size = h0.shape[-1]
    for t in range(xg.shape[0]):
        hg = product(hs[-1], transpose(xp, w_hh))
        hg = hg if b_hh is None else hg + b_hh
        x = xg[t]
        r = xp.sigmoid(x[..., :size] + hg[..., :size])
        z = xp.sigmoid(x[..., size:2 * size] + hg[..., size:2 * size])
        hn = hg[..., 2 * size:]
        n = xp.tanh(x[..., 2 * size:] + r * hn)
        hs.append(n + z * (hs[-1] - n))
        gates.append((r, z, n, hn))
    return stack_steps(xp, hs), gates


def gru_sequence(xg, h0, w_hh, b_hh, weight_t=None):
    """(T, N, H): h₁ … h_T of a GRU layer run over ``xg``: see ``GRUSequence``."""
    return GRUSequence.apply(xg, h0, w_hh, b_hh, weight_t=weight_t)
