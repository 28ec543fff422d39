"""A whole minimal-gated-unit layer over a sequence as one operation (see ``rnn_sequence`` for
what the recurrent sequence operations share and why they exist).

The candidate reads the forget-gated state f ⊙ h, so a step makes two products (h W_hfᵀ, then
(f ⊙ h) W_hnᵀ), and the operation takes the two halves of the layer's ``weight_hh`` as two
inputs: the engine routes their gradients back into the one parameter.
"""
import numpy as np

from ..blas import product
from ..dtypes import floating
from ..function import Function
from ..xp import sigmoid_array
from .rnn_sequence import join, stack_steps, transpose, weight_grad


def _mgu_gate_grads(dh, h_prev, f, n, w_hn):
    """One step of MGU BPTT, with dh = dL/dh_t (f, n the step's gates)::

        dñ = dh ⊙ f ⊙ (1 - n²),   du = dñ W_hn   (u = f ⊙ h_{t-1})
        df̃ = (dh ⊙ (n - h_{t-1}) + du ⊙ h_{t-1}) ⊙ f(1 - f)

    Returns (df̃, dñ, dh ⊙ (1 - f) + du ⊙ f: dL/dh_{t-1} but for df̃ W_hf)."""
    dn = dh * f * (1 - n * n)
    du = product(dn, w_hn)
    df = (dh * (n - h_prev) + du * h_prev) * f * (1 - f)
    return df, dn, dh * (1 - f) + du * f


class MGUSequence(Function):
    """A one-direction minimal gated unit layer over T steps, from the input projections
    xs_t = [x_f, x_n] (both biases included: bₕₙ is outside the product)::

        f = σ(x_f + h_{t-1} W_hfᵀ),   u = f ⊙ h_{t-1},   n = tanh(x_n + u W_hnᵀ)
        h_t = h_{t-1} + f ⊙ (n - h_{t-1})

    Shapes: xs (T, N, 2H), h0 (N, H), w_hf and w_hn (H, H) (the halves of the layer's
    ``weight_hh``); ``weight_t`` is (W_hfᵀ, W_hnᵀ) as C-contiguous arrays. Returns h₁ … h_T
    (T, N, H). Backward: ``_mgu_gate_grads`` per step, from t = T down::

        dL/dh_{t-1} = dh ⊙ (1 - f) + du ⊙ f + df̃ W_hf (+ the output's gradient at t - 1)
        dL/dxs_t = [df̃, dñ],   dL/dW_hf = Σ_t df̃ᵀ h_{t-1},   dL/dW_hn = Σ_t dñᵀ u_t
    """

    dtype_rule = floating

    def forward(ctx, xs, h0, w_hf, w_hn, weight_t=None):
        steps, batch, width = xs.shape
        size = width // 2
        wt_f, wt_n = (w_hf.T, w_hn.T) if weight_t is None else weight_t
        states = np.empty((steps + 1, batch, size), xs.dtype)   # h0, h1 … h_T
        forget, cand, gated = (np.empty((steps, batch, size), xs.dtype) for _ in range(3))
        states[0] = h0
        for t in range(steps):
            h, f, n, u = states[t], forget[t], cand[t], gated[t]
            product(h, wt_f, out=f)
            f += xs[t, :, :size]
            f[...] = sigmoid_array(f)
            np.multiply(f, h, out=u)
            product(u, wt_n, out=n)
            n += xs[t, :, size:]
            np.tanh(n, out=n)
            new = states[t + 1]
            np.subtract(n, h, out=new)
            new *= f
            new += h
        out = states[1:]
        ctx.save(xs, h0, w_hf, w_hn, output=out, states=states, forget=forget, cand=cand,
                 gated=gated)
        return out

    def backward(ctx, grad):
        xs, h0, w_hf, w_hn, _ = ctx.saved
        xp = ctx.xp
        steps = xs.shape[0]
        if ctx.create_graph:      # recompute every step as recorded operations
            hs, gates, gated = _mgu_recompute(xp, xs, h0, w_hf, w_hn)
            dxs = [None] * steps
        else:
            hs, gated = ctx.states, ctx.gated
            gates = list(zip(ctx.forget, ctx.cand))
            dxs = np.empty_like(xs)         # each step's [df̃, dñ] written in place
        dh = grad[steps - 1]                # the output's gradient at the last step
        for t in range(steps - 1, -1, -1):
            f, n = gates[t]
            df, dn, dh = _mgu_gate_grads(dh, hs[t], f, n, w_hn)
            dxs[t] = join(xp, [df, dn], dxs, t)
            dh = dh + product(df, w_hf)
            if t:
                dh = dh + grad[t - 1]
        if ctx.create_graph:
            dxs = stack_steps(xp, dxs)
        size = hs.shape[-1]
        return (dxs, dh, weight_grad(xp, dxs[..., :size], hs[:steps]),
                weight_grad(xp, dxs[..., size:], gated))


def _mgu_recompute(xp, xs, h0, w_hf, w_hn):
    """The MGU forward again as recorded operations: hs (T+1, N, H), each step's (f, n), and
    u = f ⊙ h_{t-1} of every step (T, N, H)."""
    hs, gates, gated = [h0], [], []
    size = h0.shape[-1]
    wt_f, wt_n = transpose(xp, w_hf), transpose(xp, w_hn)
    for t in range(xs.shape[0]):
        h = hs[-1]
        f = xp.sigmoid(xs[t][..., :size] + product(h, wt_f))
        gated.append(f * h)
        n = xp.tanh(xs[t][..., size:] + product(gated[-1], wt_n))
        hs.append(h + f * (n - h))
        gates.append((f, n))
    return stack_steps(xp, hs), gates, stack_steps(xp, gated)


def mgu_sequence(xs, h0, w_hf, w_hn, weight_t=None):
    """(T, N, H): h₁ … h_T of an MGU layer run over ``xs``: see ``MGUSequence``."""
    return MGUSequence.apply(xs, h0, w_hf, w_hn, weight_t=weight_t)
