"""GRU training step: one forward, backward and SGD update of a 1-layer GRU (input 64, hidden
256) over a sequence of 32 steps, batch 32, with a mean-squared-error loss on every output,
float32, in dagrad (``nn.GRU``), PyTorch's ``nn.GRU`` (a fused kernel for the whole sequence)
and NumPy written by hand (PyTorch's GRU equations, BPTT derived on paper, the weight gradients
as one product over all steps).
"""
import numpy as np

from benchmarks.lstm_step import (BATCH, HIDDEN, INPUT, LR, NAMES, T, _sigmoid, layer_main,
                                  layer_step)
from benchmarks.lstm_step import _problem as lstm_problem


def _problem():
    """The LSTM workload's input and target, with weights for the GRU's 3 gate blocks."""
    return lstm_problem(gates=3)


def setup_dagrad():
    return layer_step("dagrad", "GRU", _problem)


def setup_torch():
    return layer_step("torch", "GRU", _problem)


def numpy_step(state, x, y):
    """One hand-written step on ``state`` (updated in place): r, z, n = PyTorch's gates."""
    w_ih, w_hh, b_ih, b_hh = (state[n] for n in NAMES)
    H = HIDDEN
    scale = np.float32(2.0 / y.size)

    def step():
        xg = x @ w_ih.T + b_ih                               # all input parts in one product
        hs = np.zeros((T + 1, BATCH, H), np.float32)
        acts = np.empty((T, BATCH, 3 * H), np.float32)       # r, z, n
        hns = np.empty((T, BATCH, H), np.float32)            # h W_hnᵀ + b_hn
        for t in range(T):
            hg = hs[t] @ w_hh.T + b_hh
            acts[t, :, :2 * H] = _sigmoid(xg[t, :, :2 * H] + hg[:, :2 * H])
            r, z = acts[t, :, :H], acts[t, :, H:2 * H]
            hns[t] = hg[:, 2 * H:]
            n = acts[t, :, 2 * H:]
            n[...] = np.tanh(xg[t, :, 2 * H:] + r * hns[t])
            hs[t + 1] = n + z * (hs[t] - n)
        dh_out = scale * (hs[1:] - y)
        dxg = np.empty_like(acts)
        dhg = np.empty_like(acts)
        dh = np.zeros((BATCH, H), np.float32)
        for t in range(T - 1, -1, -1):
            r, z, n = acts[t, :, :H], acts[t, :, H:2 * H], acts[t, :, 2 * H:]
            dh = dh + dh_out[t]
            dn = dh * (1 - z) * (1 - n * n)
            dz = dh * (hs[t] - n) * z * (1 - z)
            dr = dn * hns[t] * r * (1 - r)
            dxg[t, :, :H] = dhg[t, :, :H] = dr
            dxg[t, :, H:2 * H] = dhg[t, :, H:2 * H] = dz
            dxg[t, :, 2 * H:] = dn
            dhg[t, :, 2 * H:] = dn * r
            dh = dh * z + dhg[t] @ w_hh
        flat_x, flat_h = dxg.reshape(T * BATCH, 3 * H), dhg.reshape(T * BATCH, 3 * H)
        grads = (flat_x.T @ x.reshape(T * BATCH, INPUT), flat_h.T @ hs[:-1].reshape(T * BATCH, H),
                 flat_x.sum(axis=0), flat_h.sum(axis=0))
        for p, g in zip((w_ih, w_hh, b_ih, b_hh), grads):
            p -= LR * g
    return step


def setup_numpy():
    return numpy_step(*_problem())


SETUPS = {"dagrad": setup_dagrad, "numpy": setup_numpy, "torch": setup_torch}

if __name__ == "__main__":
    layer_main("benchmarks.gru_step", "GRU", SETUPS)
