"""A whole recurrent layer over a sequence as one operation: the vanilla RNN's here, with what
the four such operations share; the LSTM's, GRU's and MGU's in ``lstm_sequence``,
``gru_sequence`` and ``mgu_sequence``.

Each forward runs the T steps of one layer in one direction over preallocated buffers; each
backward runs backpropagation through time in one loop that reuses the forward's activations.
The maths is that of the per-step operations (``rnn_ops``), which ``nn.RNN``, ``nn.LSTM``,
``nn.GRU`` and ``nn.MGU`` still use where the steps themselves are wanted: under
``viz.record()``, and for an LSTM with peepholes. Under ``create_graph=True`` a backward
recomputes its forward as recorded operations and runs the same recurrences on them, so the
gradient is itself differentiable.

Why: per step, the unrolled graph costs a few recorded operations, gate gradients assembled
from zero blocks and summed by the engine, and a slice of the input projections; on the W4
benchmark (hidden 256, 32 steps, batch 32) the LSTM layer took 1.32x the CPU time of the same
step written by hand in NumPy, and takes about 1.1x as one operation (docs/performance.md).
"""
import numpy as np

from ..blas import product
from ..dtypes import floating
from ..function import Function

NONLINEARITIES = ("tanh", "relu")


def join(xp, parts, out, t):
    """Gate gradients joined along the last axis: written into ``out[t]`` on the fast path (an
    ndarray buffer), a new recorded ``cat`` on the differentiable one (a list)."""
    if isinstance(out, np.ndarray):
        return np.concatenate(parts, axis=-1, out=out[t])
    return xp.concatenate(parts, axis=parts[0].ndim - 1)


def transpose(xp, a):
    """aᵀ of a matrix (a view on the fast path)."""
    return xp.transpose(a, (1, 0))


def stack_steps(xp, steps):
    """A list of T recorded (N, K) steps as one (T, N, K) tensor."""
    return xp.concatenate([s[None] for s in steps], axis=0)


def weight_grad(xp, dgates, inputs):
    """Σ_t dgates_tᵀ inputs_t as one product over all steps: (T, N, G), (T, N, K) -> (G, K)."""
    flat = dgates.reshape((-1, dgates.shape[-1]))
    return product(transpose(xp, flat), inputs.reshape((-1, inputs.shape[-1])))


def _slope(h, nonlinearity):
    """φ'(a) read from h = φ(a): 1 - h² for tanh, [h > 0] for relu."""
    return 1 - h * h if nonlinearity == "tanh" else h > 0


class RNNSequence(Function):
    """A one-direction Elman RNN layer over T steps, from the input projections (both biases
    included)::

        h_t = φ(xs_t + h_{t-1} Wₕₕᵀ),   φ = tanh or relu (``nonlinearity``)

    Shapes: xs (T, N, H), h0 (N, H), w_hh (H, H); ``weight_t`` is Wₕₕᵀ as a C-contiguous
    array (faster in BLAS; it must hold w_hh's values). Returns h₁ … h_T (T, N, H). Backward
    (BPTT, from t = T down), with φ' read from the output (1 - h_t² or [h_t > 0])::

        dã_t = dL/dh_t ⊙ φ'(h_t),   dL/dxs_t = dã_t,
        dL/dh_{t-1} = dã_t Wₕₕ (+ the output's gradient at t - 1),
        dL/dWₕₕ = Σ_t dã_tᵀ h_{t-1},   dL/dh0 what is left after step 1
    """

    dtype_rule = floating

    def forward(ctx, xs, h0, w_hh, weight_t=None, nonlinearity="tanh"):
        if nonlinearity not in NONLINEARITIES:
            raise ValueError(f"nonlinearity must be 'tanh' or 'relu', got {nonlinearity!r}")
        steps, batch, size = xs.shape
        w_t = w_hh.T if weight_t is None else weight_t
        states = np.empty((steps + 1, batch, size), xs.dtype)   # h0, h1 … h_T
        states[0] = h0
        for t in range(steps):
            h = states[t + 1]
            product(states[t], w_t, out=h)
            h += xs[t]
            if nonlinearity == "tanh":
                np.tanh(h, out=h)
            else:
                np.maximum(h, 0, out=h)
        out = states[1:]
        ctx.save(xs, h0, w_hh, output=out, states=states)
        ctx.nonlinearity = nonlinearity
        return out

    def backward(ctx, grad):
        xs, h0, w_hh, _ = ctx.saved
        xp, nonlinearity = ctx.xp, ctx.nonlinearity
        steps = xs.shape[0]
        if ctx.create_graph:      # recompute every step as recorded operations
            hs = _rnn_recompute(xp, xs, h0, w_hh, nonlinearity)
            dxs = [None] * steps
        else:
            hs = ctx.states
            dxs = np.empty_like(xs)         # each step's dã written in place
        dh = grad[steps - 1]                # the output's gradient at the last step
        for t in range(steps - 1, -1, -1):
            dxs[t] = dh * _slope(hs[t + 1], nonlinearity)
            dh = product(dxs[t], w_hh)
            if t:
                dh = dh + grad[t - 1]
        if ctx.create_graph:
            dxs = stack_steps(xp, dxs)
        return dxs, dh, weight_grad(xp, dxs, hs[:steps])


def _rnn_recompute(xp, xs, h0, w_hh, nonlinearity):
    """The forward again as recorded operations (``create_graph=True``): h0 … h_T (T+1, N, H)."""
    hs, w_t = [h0], transpose(xp, w_hh)
    for t in range(xs.shape[0]):
        a = xs[t] + product(hs[-1], w_t)
        hs.append(xp.tanh(a) if nonlinearity == "tanh" else xp.where(a > 0, a, 0))
    return stack_steps(xp, hs)


def rnn_sequence(xs, h0, w_hh, weight_t=None, nonlinearity="tanh"):
    """(T, N, H): h₁ … h_T of an Elman RNN layer run over ``xs``: see ``RNNSequence``."""
    return RNNSequence.apply(xs, h0, w_hh, weight_t=weight_t, nonlinearity=nonlinearity)
