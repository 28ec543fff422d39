"""The workloads in MyGrad (PyTorch-like tensors: ``loss.backward()``, ``w.grad``)."""
import mygrad as mg
import numpy as np
from mygrad.nnet.activations import sigmoid
from mygrad.nnet.losses import softmax_crossentropy

from benchmarks import mlp_step, overhead
from benchmarks.lstm_cell_step import unrolled_loss
from benchmarks.lstm_step import LR, NAMES, _problem as lstm_problem
from benchmarks.others import reference


def _sgd(params, lr):
    for p in params:
        p.data -= lr * p.grad


def w1():
    x = mg.tensor(np.array([0.5], np.float32))

    def chain():
        y = x
        for _ in range(overhead.LINKS):
            y = mg.tanh((y + 1.0) * 0.5)
        return y.sum()
    reference.check("W1", chain(), reference.chain_value())
    return lambda: chain().backward()


def w2():
    layers, x, y = mlp_step._problem()
    params = [mg.tensor(a) for w, b in layers for a in (w, b)]

    def loss():
        a = x
        for k in range(0, len(params), 2):
            a = mg.matmul(a, params[k].T) + params[k + 1]
            if k < len(params) - 2:
                a = mg.maximum(a, 0)
        return softmax_crossentropy(a, y)
    reference.check("W2", loss(), reference.mlp_loss())

    def step():
        loss().backward()
        _sgd(params, mlp_step.LR)
    return step


def w4c():
    state, x, y = lstm_problem()
    params = [mg.tensor(state[n]) for n in NAMES]

    def loss():
        return unrolled_loss(mg, x, y, *params, sigmoid=sigmoid, stack=mg.stack)
    reference.check("W4c", loss(), reference.lstm_cell_loss())

    def step():
        loss().backward()
        _sgd(params, LR)
    return step


def w6():
    x = mg.tensor(np.array([0.5], np.float32))

    def step():
        y = x
        for _ in range(reference.CHAIN_LENGTH):
            y = y * reference.CHAIN_FACTOR
        y.sum().backward()
    return step


SETUPS = {"W1": w1, "W2": w2, "W4c": w4c, "W6": w6}
