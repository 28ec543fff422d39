"""W4c, the LSTM cell unrolled by hand: the same step as ``benchmarks.lstm_step`` (input 64,
hidden 256, 32 steps, batch 32, MSE on every output, SGD), written with the framework's
elementary operations instead of its LSTM layer, in dagrad and PyTorch (and, in
``benchmarks.others``, in the other NumPy engines). It shows what a recurrent layer gains over
the cell a user writes (dagrad's ``nn.LSTM`` fuses the gates and sums the weight gradients of
all steps as one product)."""
import numpy as np

from benchmarks.common import main
from benchmarks.lstm_step import BATCH, HIDDEN, LR, NAMES, T, _problem, setup_numpy


def unrolled_loss(m, x, y, w_ih, w_hh, b_ih, b_hh, sigmoid, stack):
    """The MSE of the outputs of the LSTM cell unrolled over x (T, N, in), written once for
    any library ``m`` with PyTorch/NumPy-style operators (``sigmoid`` and ``stack`` given)."""
    h = c = None
    outputs = []
    for t in range(T):
        a = x[t] @ w_ih.T + b_ih + b_hh
        if h is not None:
            a = a + h @ w_hh.T
        i, f = sigmoid(a[:, :HIDDEN]), sigmoid(a[:, HIDDEN:2 * HIDDEN])
        g, o = m.tanh(a[:, 2 * HIDDEN:3 * HIDDEN]), sigmoid(a[:, 3 * HIDDEN:])
        c = i * g if c is None else f * c + i * g
        h = o * m.tanh(c)
        outputs.append(h)
    return m.mean((stack(outputs) - y) ** 2)


def first_loss():
    """The loss of the first step in NumPy, float64: what every framework must reproduce."""
    state, x, y = _problem()
    w = [state[n].astype(np.float64) for n in NAMES]
    return float(unrolled_loss(np, x.astype(np.float64), y, *w,
                               sigmoid=lambda v: 1 / (1 + np.exp(-v)), stack=np.stack))


def setup_dagrad():
    from dagrad import autograd as ag
    from dagrad import optim
    state, x, y = _problem()
    params = [ag.tensor(state[n], requires_grad=True) for n in NAMES]
    optimizer = optim.SGD(params, lr=LR)
    x, y = ag.tensor(x), ag.tensor(y)
    return _step(lambda: unrolled_loss(ag, x, y, *params, sigmoid=ag.sigmoid, stack=ag.stack),
                 optimizer)


def setup_torch():
    import torch
    state, x, y = _problem()
    params = [torch.tensor(state[n], requires_grad=True) for n in NAMES]
    optimizer = torch.optim.SGD(params, lr=LR)
    x, y = torch.from_numpy(x), torch.from_numpy(y)
    return _step(lambda: unrolled_loss(torch, x, y, *params, sigmoid=torch.sigmoid,
                                       stack=torch.stack), optimizer)


def _step(loss_fn, optimizer):
    loss = float(loss_fn())
    if not np.isclose(loss, first_loss(), rtol=1e-4):
        raise RuntimeError(f"W4c: first loss {loss} differs from NumPy's {first_loss()}")

    def step():
        optimizer.zero_grad()
        loss_fn().backward()
        optimizer.step()
    return step


SETUPS = {"dagrad": setup_dagrad, "numpy": setup_numpy, "torch": setup_torch}

if __name__ == "__main__":
    main("benchmarks.lstm_cell_step", SETUPS,
         f"LSTM cell unrolled by hand: input 64, hidden {HIDDEN}, sequence {T}, batch {BATCH}")
