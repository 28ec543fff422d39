"""RNN training step: one forward, backward and SGD update of a 1-layer Elman RNN (tanh; input
64, hidden 256) over a sequence of 32 steps, batch 32, with a mean-squared-error loss on every
output, float32, in dagrad (``nn.RNN``), PyTorch's ``nn.RNN`` (a fused kernel for the whole
sequence) and NumPy written by hand (h_t = tanh(x_t Wᵢₕᵀ + bᵢₕ + bₕₕ + h_{t-1} Wₕₕᵀ), BPTT
derived on paper, the weight gradients as one product over all steps).
"""
import numpy as np

from benchmarks.lstm_step import (BATCH, HIDDEN, INPUT, LR, NAMES, T, layer_main,
                                  layer_step)
from benchmarks.lstm_step import _problem as lstm_problem


def _problem():
    """The LSTM workload's input and target, with weights for the RNN's one block."""
    return lstm_problem(gates=1)


def setup_dagrad():
    return layer_step("dagrad", "RNN", _problem)


def setup_torch():
    return layer_step("torch", "RNN", _problem)


def numpy_step(state, x, y):
    """One hand-written step on ``state`` (updated in place)."""
    w_ih, w_hh, b_ih, b_hh = (state[n] for n in NAMES)
    H = HIDDEN
    scale = np.float32(2.0 / y.size)

    def step():
        xs = x @ w_ih.T + (b_ih + b_hh)                      # all input parts in one product
        hs = np.zeros((T + 1, BATCH, H), np.float32)
        for t in range(T):
            h = np.matmul(hs[t], w_hh.T, out=hs[t + 1])
            h += xs[t]
            np.tanh(h, out=h)
        dh_out = scale * (hs[1:] - y)
        da = np.empty((T, BATCH, H), np.float32)             # dL/d(pre-activation) per step
        dh = np.zeros((BATCH, H), np.float32)
        for t in range(T - 1, -1, -1):
            dh += dh_out[t]
            h = hs[t + 1]
            np.multiply(dh, 1 - h * h, out=da[t])
            dh = da[t] @ w_hh
        flat = da.reshape(T * BATCH, H)
        g_b = flat.sum(axis=0)
        grads = (flat.T @ x.reshape(T * BATCH, INPUT), flat.T @ hs[:-1].reshape(T * BATCH, H),
                 g_b, g_b)
        for p, g in zip((w_ih, w_hh, b_ih, b_hh), grads):
            p -= LR * g
    return step


def setup_numpy():
    return numpy_step(*_problem())


SETUPS = {"dagrad": setup_dagrad, "numpy": setup_numpy, "torch": setup_torch}

if __name__ == "__main__":
    layer_main("benchmarks.rnn_step", "RNN", SETUPS)
