"""Fused recurrent steps: the recurrent product of one time step, and the gate nonlinearities
with the state update, each with one backward, instead of a dozen small recorded operations per
step.

The input projection ``x Wᵢₕᵀ`` of the whole sequence stays one ordinary ``linear`` node and
every step is its own few nodes, so backpropagation through time is still the engine walking
the unrolled graph. Gate order is PyTorch's: LSTM (i, f, g, o), GRU (r, z, n). The gates' σ is
``xp.sigmoid``, the same formula as the ``Sigmoid`` operation (``xp.sigmoid_array``), so a gate
and an ``nn.Sigmoid`` layer round identically.

Each backward formula runs on ndarrays (the fast path, reusing the activations the forward
saved) and on Tensors (``create_graph=True``, recomputing them from the inputs with the same
helper, so the maths is written once).
"""
import numpy as np

from ..blas import product
from ..dtypes import floating
from ..function import Function
from ..lazy_grads import ProductGrad
from ..xp import NUMPY
from .linalg import _mT


def _blocks(x, n):
    """The n equal blocks of the last axis of ``x`` (views on the fast path)."""
    size = x.shape[-1] // n
    return [x[..., k * size:(k + 1) * size] for k in range(n)]


def _lstm_input_forget(xp, gates, c_prev, peephole):
    """i, f, g of an LSTM step (peephole terms pᵢ ⊙ c₀, p_f ⊙ c₀ when given)."""
    pi, pf, pg, _ = _blocks(gates, 4)
    if peephole is not None:
        wi, wf, _ = _blocks(peephole, 3)
        pi, pf = pi + wi * c_prev, pf + wf * c_prev
    return xp.sigmoid(pi), xp.sigmoid(pf), xp.tanh(pg)


def _lstm_output(xp, gates, c, peephole):
    """o and tanh(c) of an LSTM step (peephole term p_o ⊙ c when given)."""
    po = _blocks(gates, 4)[3]
    if peephole is not None:
        po = po + _blocks(peephole, 3)[2] * c
    return xp.sigmoid(po), xp.tanh(c)


def _join(ctx, parts, like):
    """Concatenate ``parts`` along the last axis; None stands for a zero block of ``like``'s
    shape (on the fast path written straight into one new array)."""
    if not ctx.differentiable:
        size = like.shape[-1]
        out = np.empty(like.shape[:-1] + (size * len(parts),), dtype=like.dtype)
        for k, part in enumerate(parts):
            out[..., k * size:(k + 1) * size] = 0 if part is None else part
        return out
    zero = like * 0
    return ctx.xp.concatenate([zero if p is None else p for p in parts], axis=like.ndim - 1)


class LSTMCellState(Function):
    """The LSTM memory update from the gate pre-activations a = [ãᵢ, ã_f, ã_g, ã_o] (…, 4H):

        i = σ(ãᵢ + pᵢ ⊙ c₀),   f = σ(ã_f + p_f ⊙ c₀),   g = tanh(ã_g)
        c = f ⊙ c₀ + i ⊙ g

    (p = [pᵢ, p_f, p_o] (3H,) are the optional peephole weights.) With ḡ = dL/dc::

        dãᵢ = ḡ ⊙ g ⊙ i(1 - i),   dã_f = ḡ ⊙ c₀ ⊙ f(1 - f),   dã_g = ḡ ⊙ i ⊙ (1 - g²),   dã_o = 0
        dL/dc₀ = ḡ ⊙ f + dãᵢ ⊙ pᵢ + dã_f ⊙ p_f,     dpᵢ = Σ dãᵢ ⊙ c₀,   dp_f = Σ dã_f ⊙ c₀
    """

    dtype_rule = floating

    def forward(ctx, gates, c_prev, peephole=None):
        i, f, g = _lstm_input_forget(NUMPY, gates, c_prev, peephole)
        ctx.save(gates, c_prev, peephole, i=i, f=f, g=g)
        return f * c_prev + i * g

    def backward(ctx, grad):
        gates, c_prev, peephole = ctx.saved
        xp = ctx.xp
        i, f, g = (_lstm_input_forget(xp, gates, c_prev, peephole) if ctx.differentiable
                   else (ctx.i, ctx.f, ctx.g))
        need_gates, _, need_peephole = ctx.needs_input_grad
        di = grad * g * i * (1 - i)
        df = grad * c_prev * f * (1 - f)
        dg = grad * i * (1 - g * g)
        dgates = _join(ctx, [di, df, dg, None], di) if need_gates else None
        dc = grad * f
        dpeep = None
        if peephole is not None:
            wi, wf, _ = _blocks(peephole, 3)
            dc = dc + di * wi + df * wf
            if need_peephole:        # (…, 3H): the engine sums it over the batch
                dpeep = _join(ctx, [di * c_prev, df * c_prev, None], di)
        return dgates, dc, dpeep


class LSTMCellOutput(Function):
    """The LSTM output from the gate pre-activations a (…, 4H) and the new memory c:

        o = σ(ã_o + p_o ⊙ c),   h = o ⊙ tanh(c)

    With h̄ = dL/dh and τ = tanh(c)::

        dã_o = h̄ ⊙ τ ⊙ o(1 - o)   (the other gate blocks get 0)
        dL/dc = h̄ ⊙ o ⊙ (1 - τ²) + dã_o ⊙ p_o,     dp_o = Σ dã_o ⊙ c
    """

    dtype_rule = floating

    def forward(ctx, gates, c, peephole=None):
        o, tc = _lstm_output(NUMPY, gates, c, peephole)
        ctx.save(gates, c, peephole, o=o, tanh_c=tc)
        return o * tc

    def backward(ctx, grad):
        gates, c, peephole = ctx.saved
        xp = ctx.xp
        o, tc = (_lstm_output(xp, gates, c, peephole) if ctx.differentiable
                 else (ctx.o, ctx.tanh_c))
        need_gates, _, need_peephole = ctx.needs_input_grad
        do = grad * tc * o * (1 - o)
        dgates = _join(ctx, [None, None, None, do], do) if need_gates else None
        dc = grad * o * (1 - tc * tc)
        dpeep = None
        if peephole is not None:
            dc = dc + do * _blocks(peephole, 3)[2]
            if need_peephole:        # (…, 3H): the engine sums it over the batch
                dpeep = _join(ctx, [None, None, do * c], do)
        return dgates, dc, dpeep


class RecurrentGates(Function):
    """a = a_x + h Wᵀ: the gate pre-activations of a step from its input part a_x (…, G·H) (or
    a bias (G·H,), or None) and the previous state h (…, H); W (G·H, H) holds the recurrent
    weights of all gates, so this is the one product of the step.

    ``weight_t``: Wᵀ as a C-contiguous array, made once per sequence (BLAS multiplies by it
    faster than by the transposed view of W); it must hold W's current values. On the fast path
    dL/dW is returned as its factors (a ``ProductGrad``), so the engine sums the steps' weight
    gradients with one large product.

        dL/da_x = ḡ (summed to a_x's shape),   dL/dh = ḡ W,   dL/dW = ḡᵀ h
    """

    dtype_rule = floating

    def forward(ctx, x, h, weight, weight_t=None):
        out = product(h, weight.T if weight_t is None else weight_t)
        if x is not None:
            out += x
        ctx.save(h, weight)
        return out

    def backward(ctx, grad):
        h, weight = ctx.saved
        _, need_h, need_w = ctx.needs_input_grad
        dh = product(grad, weight) if need_h else None
        dw = None
        if need_w:
            g2, h2 = grad.reshape((-1, grad.shape[-1])), h.reshape((-1, h.shape[-1]))
            # fast path: the factors, so the steps' dW add up as one product (see ProductGrad)
            dw = product(_mT(ctx.xp, g2), h2) if ctx.differentiable else ProductGrad(g2, h2)
        return grad, dh, dw


def _gru_gates(xp, xg, hg):
    """r, z, n and hₙ of a GRU step from the input part xg and the hidden part hg (…, 3H)."""
    xr, xz, xn = _blocks(xg, 3)
    hr, hz, hn = _blocks(hg, 3)
    r = xp.sigmoid(xr + hr)
    z = xp.sigmoid(xz + hz)
    return r, z, xp.tanh(xn + r * hn), hn


class GRUCell(Function):
    """One GRU step from xg = x Wᵢₕᵀ + bᵢₕ and hg = h₀ Wₕₕᵀ + bₕₕ (both (…, 3H), blocks r, z, n):

        r = σ(x_r + h_r),   z = σ(x_z + h_z),   n = tanh(x_n + r ⊙ h_n)
        h = (1 - z) ⊙ n + z ⊙ h₀

    With h̄ = dL/dh::

        dñ = h̄ ⊙ (1 - z) ⊙ (1 - n²),   dz̃ = h̄ ⊙ (h₀ - n) ⊙ z(1 - z),   dr̃ = dñ ⊙ h_n ⊙ r(1 - r)
        dL/dxg = [dr̃, dz̃, dñ],   dL/dhg = [dr̃, dz̃, dñ ⊙ r],   dL/dh₀ = h̄ ⊙ z
    """

    dtype_rule = floating

    def forward(ctx, xg, hg, h_prev):
        r, z, n, hn = _gru_gates(NUMPY, xg, hg)
        ctx.save(xg, hg, h_prev, r=r, z=z, n=n)
        return n + z * (h_prev - n)

    def backward(ctx, grad):
        xg, hg, h_prev = ctx.saved
        xp = ctx.xp
        if ctx.differentiable:
            r, z, n, hn = _gru_gates(xp, xg, hg)
        else:
            r, z, n, hn = ctx.r, ctx.z, ctx.n, _blocks(hg, 3)[2]
        dn = grad * (1 - z) * (1 - n * n)
        dz = grad * (h_prev - n) * z * (1 - z)
        dr = dn * hn * r * (1 - r)
        need_xg, need_hg, need_h = ctx.needs_input_grad
        dxg = _join(ctx, [dr, dz, dn], dn) if need_xg else None
        dhg = _join(ctx, [dr, dz, dn * r], dn) if need_hg else None
        dh = grad * z if need_h else None
        return dxg, dhg, dh


def lstm_cell_state(gates, c_prev, peephole=None):
    """c = σ(ã_f + p_f c₀) ⊙ c₀ + σ(ãᵢ + pᵢ c₀) ⊙ tanh(ã_g): see ``LSTMCellState``."""
    return LSTMCellState.apply(gates, c_prev, peephole)


def lstm_cell_output(gates, c, peephole=None):
    """h = σ(ã_o + p_o c) ⊙ tanh(c): see ``LSTMCellOutput``."""
    return LSTMCellOutput.apply(gates, c, peephole)


def gru_cell(xg, hg, h_prev):
    """h = (1 - z) ⊙ n + z ⊙ h₀: see ``GRUCell``."""
    return GRUCell.apply(xg, hg, h_prev)


def recurrent_gates(x, h, weight, weight_t=None):
    """a = a_x + h Wᵀ (a_x may be None): see ``RecurrentGates``."""
    return RecurrentGates.apply(x, h, weight, weight_t=weight_t)
