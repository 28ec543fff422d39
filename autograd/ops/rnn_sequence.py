"""A whole LSTM or GRU layer over a sequence as one operation: the forward runs the T steps
over preallocated buffers, the backward runs backpropagation through time in one loop that
reuses the forward's gate activations (the same maths as ``rnn_ops``' per-step operations,
which ``nn.LSTM`` and ``nn.GRU`` still use where the steps themselves are wanted: under
``viz.record()``, and with peepholes).

Why: per step, the unrolled graph costs four recorded operations, gate gradients assembled
from zero blocks and summed by the engine, and a slice of the input projections; on the W4
benchmark (hidden 256, 32 steps, batch 32) the layer took 1.32x the CPU time of the same step
written by hand in NumPy, and takes about 1.1x as one operation (docs/performance.md).

An LSTM's output packs what the layer returns into one array, so the operation has one output
as every other: ``out[:T]`` is h₁ … h_T and ``out[T]`` is the last memory c_T (its gradient,
if c_T is used, arrives in ``grad[T]``).
"""
import numpy as np

from ..blas import product
from ..dtypes import floating
from ..function import Function
from ..xp import sigmoid_array


def _lstm_gates(xp, a):
    """i, f, g, o from the pre-activations a (…, 4H), PyTorch's gate order."""
    size = a.shape[-1] // 4
    return (xp.sigmoid(a[..., :size]), xp.sigmoid(a[..., size:2 * size]),
            xp.tanh(a[..., 2 * size:3 * size]), xp.sigmoid(a[..., 3 * size:]))


def _lstm_gate_grads(dh, dc, c_prev, tanh_c, i, f, g, o):
    """One step of BPTT: with dh = dL/dh_t and dc = dL/dc_t (the part through c_{t+1})::

        dc ← dc + dh ⊙ o ⊙ (1 - τ²)                        (τ = tanh c_t)
        dãᵢ = dc ⊙ g ⊙ i(1 - i),   dã_f = dc ⊙ c_{t-1} ⊙ f(1 - f)
        dã_g = dc ⊙ i ⊙ (1 - g²),   dã_o = dh ⊙ τ ⊙ o(1 - o)
        dL/dc_{t-1} = dc ⊙ f

    Returns ([dãᵢ, dã_f, dã_g, dã_o], dL/dc_{t-1})."""
    dc = dc + dh * o * (1 - tanh_c * tanh_c)
    parts = [dc * g * i * (1 - i), dc * c_prev * f * (1 - f), dc * i * (1 - g * g),
             dh * tanh_c * o * (1 - o)]
    return parts, dc * f


class LSTMSequence(Function):
    """A one-direction LSTM layer over T steps, from the input projections (biases included)::

        a_t = xs_t + h_{t-1} Wₕₕᵀ,   [i, f, g, o] = [σ, σ, tanh, σ](a_t)
        c_t = f ⊙ c_{t-1} + i ⊙ g,   h_t = o ⊙ tanh(c_t)

    Shapes: xs (T, N, 4H), h0 and c0 (N, H), w_hh (4H, H); ``weight_t`` is Wₕₕᵀ as a
    C-contiguous array (faster in BLAS; it must hold w_hh's values). Returns (T+1, N, H):
    h₁ … h_T, then c_T. Backward (BPTT, ``_lstm_gate_grads`` per step, from t = T down)::

        dL/dxs_t = dã_t,   dL/dh_{t-1} = dã_t Wₕₕ (+ the output's gradient at t - 1),
        dL/dWₕₕ = Σ_t dã_tᵀ h_{t-1},   dL/dh0, dL/dc0 what is left after step 1
    """

    dtype_rule = floating

    def forward(ctx, xs, h0, c0, w_hh, weight_t=None):
        steps, batch, width = xs.shape
        size = width // 4
        w_t = w_hh.T if weight_t is None else weight_t
        states = np.empty((steps + 2, batch, size), xs.dtype)   # h0, h1 … h_T, c_T
        memory = np.empty((steps + 1, batch, size), xs.dtype)   # c0 … c_T
        acts = np.empty((steps, batch, width), xs.dtype)        # i, f, g, o of every step
        states[0], memory[0] = h0, c0
        for t in range(steps):
            a = acts[t]
            product(states[t], w_t, out=a)
            a += xs[t]
            a[:, :2 * size] = sigmoid_array(a[:, :2 * size])
            np.tanh(a[:, 2 * size:3 * size], out=a[:, 2 * size:3 * size])
            a[:, 3 * size:] = sigmoid_array(a[:, 3 * size:])
            i, f, g, o = a[:, :size], a[:, size:2 * size], a[:, 2 * size:3 * size], a[:, 3 * size:]
            c = memory[t + 1]
            np.multiply(f, memory[t], out=c)
            c += i * g
            h = states[t + 1]
            np.tanh(c, out=h)
            h *= o
        states[steps + 1] = memory[steps]
        out = states[1:]
        ctx.save(xs, h0, c0, w_hh, output=out, acts=acts, memory=memory, states=states)
        return out

    def backward(ctx, grad):
        xs, h0, c0, w_hh, _ = ctx.saved
        xp = ctx.xp
        steps = xs.shape[0]
        if ctx.differentiable:      # recompute every step as recorded operations
            hs, cs, gates = _lstm_recompute(xp, xs, h0, c0, w_hh)
            dxs = [None] * steps
        else:
            hs, cs, acts = ctx.states, ctx.memory, ctx.acts
            gates = [_blocks4(acts[t]) for t in range(steps)]
            dxs = np.empty_like(acts)       # each step's gate gradients written in place
        dh = grad[steps - 1] * 1        # the output's gradient at the last step
        dc = grad[steps] * 1            # and c_T's
        for t in range(steps - 1, -1, -1):
            i, f, g, o = gates[t]
            parts, dc = _lstm_gate_grads(dh, dc, cs[t], xp.tanh(cs[t + 1]), i, f, g, o)
            dxs[t] = _join(xp, parts, dxs, t)
            dh = product(dxs[t], w_hh)
            if t:
                dh = dh + grad[t - 1]
        if ctx.differentiable:
            dxs = xp.concatenate([d[None] for d in dxs], axis=0)
        flat = dxs.reshape((-1, dxs.shape[-1]))
        dw = product(_transpose(xp, flat), hs[:steps].reshape((-1, hs.shape[-1])))
        return dxs, dh, dc, dw


def _join(xp, parts, out, t):
    """[dãᵢ, dã_f, dã_g, dã_o] joined along the last axis: written into ``out[t]`` on the fast
    path (an ndarray buffer), a new recorded ``cat`` on the differentiable one (a list)."""
    if isinstance(out, np.ndarray):
        return np.concatenate(parts, axis=-1, out=out[t])
    return xp.concatenate(parts, axis=parts[0].ndim - 1)


def _blocks4(a):
    size = a.shape[-1] // 4
    return a[:, :size], a[:, size:2 * size], a[:, 2 * size:3 * size], a[:, 3 * size:]


def _transpose(xp, a):
    return xp.transpose(a, (1, 0))


def _lstm_recompute(xp, xs, h0, c0, w_hh):
    """The forward again as recorded operations (``create_graph=True``): hs (T+1, N, H) from
    h0, cs (list of c0 … c_T) and the gates of every step."""
    hs, cs, gates = [h0], [c0], []
    for t in range(xs.shape[0]):
        i, f, g, o = _lstm_gates(xp, xs[t] + product(hs[-1], _transpose(xp, w_hh)))
        cs.append(f * cs[-1] + i * g)
        hs.append(o * xp.tanh(cs[-1]))
        gates.append((i, f, g, o))
    return xp.concatenate([h[None] for h in hs], axis=0), cs, gates


def lstm_sequence(xs, h0, c0, w_hh, weight_t=None):
    """(T+1, N, H): h₁ … h_T then c_T of an LSTM layer run over ``xs``: see ``LSTMSequence``."""
    return LSTMSequence.apply(xs, h0, c0, w_hh, weight_t=weight_t)


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
        if ctx.differentiable:      # recompute every step as recorded operations
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
            dxg[t] = _join(xp, input_parts, dxg, t)
            dhg[t] = _join(xp, hidden_parts, dhg, t)
            dh = dh + product(dhg[t], w_hh)
            if t:
                dh = dh + grad[t - 1]
        if ctx.differentiable:
            dxg = xp.concatenate([d[None] for d in dxg], axis=0)
            dhg = xp.concatenate([d[None] for d in dhg], axis=0)
        flat = dhg.reshape((-1, dhg.shape[-1]))
        dw = product(_transpose(xp, flat), hs[:steps].reshape((-1, hs.shape[-1])))
        return dxg, dh, dw, None if b_hh is None else flat.sum(axis=0)


def _gru_recompute(xp, xg, h0, w_hh, b_hh):
    """The GRU forward again as recorded operations: hs (T+1, N, H) and each step's gates."""
    hs, gates = [h0], []
    size = h0.shape[-1]
    for t in range(xg.shape[0]):
        hg = product(hs[-1], _transpose(xp, w_hh))
        hg = hg if b_hh is None else hg + b_hh
        x = xg[t]
        r = xp.sigmoid(x[..., :size] + hg[..., :size])
        z = xp.sigmoid(x[..., size:2 * size] + hg[..., size:2 * size])
        hn = hg[..., 2 * size:]
        n = xp.tanh(x[..., 2 * size:] + r * hn)
        hs.append(n + z * (hs[-1] - n))
        gates.append((r, z, n, hn))
    return xp.concatenate([h[None] for h in hs], axis=0), gates


def gru_sequence(xg, h0, w_hh, b_hh, weight_t=None):
    """(T, N, H): h₁ … h_T of a GRU layer run over ``xg``: see ``GRUSequence``."""
    return GRUSequence.apply(xg, h0, w_hh, b_hh, weight_t=weight_t)
