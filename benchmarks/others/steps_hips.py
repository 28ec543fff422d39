"""The workloads in HIPS autograd (``grad`` of a function written with ``autograd.numpy``).

``autograd`` here is the PyPI package HIPS autograd, not dagrad's ``dagrad.autograd``: this
module runs only in ``benchmarks/.venv-others``, where dagrad is not installed, and the worker
takes the repository's root off ``sys.path`` first (``benchmarks.others.worker``)."""
import importlib

import numpy as np

from benchmarks import mlp_step, overhead
from benchmarks.lstm_cell_step import unrolled_loss
from benchmarks.lstm_step import LR, NAMES, _problem as lstm_problem
from benchmarks.others import reference

# Imported by name: the third-party package shares its name with dagrad's own `autograd`
# folder, and a written `import autograd` would read as an import of dagrad's engine.
anp = importlib.import_module("autograd.numpy")
grad = importlib.import_module("autograd").grad


def _sigmoid(v):
    return 1 / (1 + anp.exp(-v))


def _sgd(params, grads, lr):
    for p, g in zip(params, grads):
        p -= lr * g


def w1():
    def chain(x):
        y = x
        for _ in range(overhead.LINKS):
            y = anp.tanh((y + 1.0) * 0.5)
        return anp.sum(y)
    x = np.array([0.5], np.float32)
    reference.check("W1", chain(x), reference.chain_value())
    d_chain = grad(chain)
    return lambda: d_chain(x)


def w2():
    layers, x, y = mlp_step._problem()
    params = [a for w, b in layers for a in (w, b)]
    rows = np.arange(len(y))

    def loss(params):
        a = x
        for k in range(0, len(params), 2):
            a = anp.dot(a, params[k].T) + params[k + 1]
            if k < len(params) - 2:
                a = anp.maximum(a, 0)
        a = a - anp.max(a, axis=1, keepdims=True)
        log_p = a - anp.log(anp.sum(anp.exp(a), axis=1, keepdims=True))
        return -anp.mean(log_p[rows, y])
    reference.check("W2", loss(params), reference.mlp_loss())
    d_loss = grad(loss)
    return lambda: _sgd(params, d_loss(params), mlp_step.LR)


def w4c():
    state, x, y = lstm_problem()
    params = [state[n] for n in NAMES]

    def loss(params):
        return unrolled_loss(anp, x, y, *params, sigmoid=_sigmoid, stack=anp.stack)
    reference.check("W4c", loss(params), reference.lstm_cell_loss())
    d_loss = grad(loss)
    return lambda: _sgd(params, d_loss(params), LR)


def w6():
    def chain(x):
        y = x
        for _ in range(reference.CHAIN_LENGTH):
            y = y * reference.CHAIN_FACTOR
        return anp.sum(y)
    d_chain = grad(chain)
    x = np.array([0.5], np.float32)
    return lambda: d_chain(x)


SETUPS = {"W1": w1, "W2": w2, "W4c": w4c, "W6": w6}
