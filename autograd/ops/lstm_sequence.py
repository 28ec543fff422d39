"""A whole LSTM layer over a sequence as one operation (see ``rnn_sequence`` for what the
recurrent sequence operations share and why they exist).

An LSTM's output packs what the layer returns into one array, so the operation has one output
as every other: ``out[:T]`` is h₁ … h_T and ``out[T]`` is the last memory c_T (its gradient,
if c_T is used, arrives in ``grad[T]``).
"""
import numpy as np

from ..blas import product
from ..dtypes import floating
from ..function import Function
from ..xp import sigmoid_array
from .rnn_sequence import join, stack_steps, transpose, weight_grad


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
        if ctx.create_graph:      # recompute every step as recorded operations
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
            dxs[t] = join(xp, parts, dxs, t)
            dh = product(dxs[t], w_hh)
            if t:
                dh = dh + grad[t - 1]
        if ctx.create_graph:
            dxs = stack_steps(xp, dxs)
        return dxs, dh, dc, weight_grad(xp, dxs, hs[:steps])


def _blocks4(a):
    size = a.shape[-1] // 4
    return a[:, :size], a[:, size:2 * size], a[:, 2 * size:3 * size], a[:, 3 * size:]


def _lstm_recompute(xp, xs, h0, c0, w_hh):
    """The forward again as recorded operations (``create_graph=True``): hs (T+1, N, H) from
    h0, cs (list of c0 … c_T) and the gates of every step."""
    hs, cs, gates = [h0], [c0], []
    for t in range(xs.shape[0]):
        i, f, g, o = _lstm_gates(xp, xs[t] + product(hs[-1], transpose(xp, w_hh)))
        cs.append(f * cs[-1] + i * g)
        hs.append(o * xp.tanh(cs[-1]))
        gates.append((i, f, g, o))
    return stack_steps(xp, hs), cs, gates


def lstm_sequence(xs, h0, c0, w_hh, weight_t=None):
    """(T+1, N, H): h₁ … h_T then c_T of an LSTM layer run over ``xs``: see ``LSTMSequence``."""
    return LSTMSequence.apply(xs, h0, c0, w_hh, weight_t=weight_t)
