"""LeNet-5 training step: one forward, backward and SGD update of LeNet-5 (ReLU, max pooling,
as ``nn.models.LeNet()``) on a batch of 64 random 1x28x28 images with cross-entropy, float32,
in dagrad, PyTorch (CPU) and NumPy written by hand (im2col, one matrix product per layer and
pass, col2im; the gradients derived on paper), each in its own process.

``--profile`` runs the dagrad step under cProfile in this process instead and prints where the
time goes (the functions with the most time spent in themselves).
"""
import sys

import numpy as np
from numpy.lib.stride_tricks import as_strided

from benchmarks.common import main, training_step

BATCH = 64
LR = 0.01
# (name, shape) of every parameter of nn.models.LeNet() == the same torch.nn.Sequential
SHAPES = [("0.weight", (6, 1, 5, 5)), ("0.bias", (6,)), ("3.weight", (16, 6, 5, 5)),
          ("3.bias", (16,)), ("7.weight", (120, 400)), ("7.bias", (120,)),
          ("9.weight", (84, 120)), ("9.bias", (84,)), ("11.weight", (10, 84)),
          ("11.bias", (10,))]


def _problem():
    """The same initial weights (PyTorch's default ranges) and data for every framework."""
    rng = np.random.default_rng(0)
    state = {}
    for name, shape in SHAPES:
        fan_in = int(np.prod(dict(SHAPES)[name.replace("bias", "weight")][1:]))
        bound = 1 / np.sqrt(fan_in)
        state[name] = rng.uniform(-bound, bound, shape).astype(np.float32)
    x = rng.standard_normal((BATCH, 1, 28, 28)).astype(np.float32)
    y = rng.integers(0, 10, BATCH)
    return state, x, y


def setup_dagrad():
    from dagrad import autograd as ag
    from dagrad import nn
    from dagrad import optim
    state, x, y = _problem()
    model = nn.models.LeNet()
    model.load_state_dict(state)
    loss_fn = nn.CrossEntropyLoss()
    optimizer = optim.SGD(model.parameters(), lr=LR)
    return training_step(model, loss_fn, optimizer, ag.tensor(x), ag.tensor(y))


def setup_torch():
    import torch
    from torch import nn
    state, x, y = _problem()
    model = nn.Sequential(nn.Conv2d(1, 6, 5, padding=2), nn.ReLU(), nn.MaxPool2d(2, 2),
                          nn.Conv2d(6, 16, 5), nn.ReLU(), nn.MaxPool2d(2, 2), nn.Flatten(),
                          nn.Linear(400, 120), nn.ReLU(), nn.Linear(120, 84), nn.ReLU(),
                          nn.Linear(84, 10))
    model.load_state_dict({k: torch.from_numpy(v) for k, v in state.items()})
    loss_fn = nn.CrossEntropyLoss()
    optimizer = torch.optim.SGD(model.parameters(), lr=LR)
    return training_step(model, loss_fn, optimizer, torch.from_numpy(x), torch.from_numpy(y))


# The hand-written NumPy step keeps every image batch as (C, H, W, N), the sample axis last: a
# row of a kernel window is then W·N contiguous values, so im2col copies and col2im adds long
# runs (with the samples first, (N, C, H, W), they are runs of W values and take ~3x longer).
def _windows(x, k):
    """im2col: x (C, H, W, N) -> cols (C·k·k, Ho·Wo·N), Ho = H - k + 1, Wo = W - k + 1,
    cols[(c, i, j), (h, w, n)] = x[c, h + i, w + j, n]."""
    c, h, w, n = x.shape
    sc, sh, sw, sn = x.strides
    view = as_strided(x, (c, k, k, h - k + 1, w - k + 1, n), (sc, sh, sw, sh, sw, sn),
                      writeable=False)
    return view.reshape(c * k * k, -1)


def _add_windows(dcols, shape, k):
    """col2im, the adjoint of ``_windows``: dcols (C·k·k, Ho·Wo·N) -> dx of ``shape``
    (C, H, W, N), dx[c, h + i, w + j, n] = Σ dcols[(c, i, j), (h, w, n)]: one shifted addition
    per (i, j)."""
    c, h, w, n = shape
    ho, wo = h - k + 1, w - k + 1
    per_offset = dcols.reshape(c, k, k, ho, wo, n)
    dx = np.zeros(shape, np.float32)
    for i in range(k):
        for j in range(k):
            dx[:, i:i + ho, j:j + wo] += per_offset[:, i, j]
    return dx


def _slices(a, parts):
    """(R, L) -> the (parts, R, L / parts) view of its columns in ``parts`` consecutive slices."""
    return a.reshape(a.shape[0], parts, -1).transpose(1, 0, 2)


def _conv(weight, bias, cols, parts):
    """y = W·cols + b: weight (O, C, k, k), bias (O,), cols (C·k·k, L) -> y (O, L), as one
    batched product over ``parts`` slices of the columns."""
    y = np.empty((weight.shape[0], cols.shape[1]), np.float32)
    np.matmul(weight.reshape(weight.shape[0], -1), _slices(cols, parts), out=_slices(y, parts))
    y += bias[:, None]
    return y


def _conv_weight_grad(g, cols, parts):
    """dL/dW = g·colsᵀ = Σ over ``parts`` slices of the columns: g (O, L), cols (C·k·k, L) ->
    (O, C·k·k). Each slice is computed as (cols·gᵀ)ᵀ: OpenBLAS then packs the thin gᵀ, not
    the long colsᵀ, ~1.8x faster for the second convolution."""
    return (_slices(cols, parts) @ _slices(g, parts).transpose(0, 2, 1)).sum(axis=0).T


def _max_pool(a):
    """2x2 max pooling, stride 2: a (C, H, W, N) -> (C, H/2, W/2, N), and the route of the
    gradient: ``right`` (C, H, W/2, N) where the right value of a horizontal pair is larger,
    ``down`` (C, H/2, W/2, N) where the lower row's maximum is larger. The comparisons are
    strict, so a tie goes to the first maximum in row-major order (as PyTorch's)."""
    c, h, w, n = a.shape
    pairs = a.reshape(c, h, w // 2, 2, n)
    right = pairs[:, :, :, 1] > pairs[:, :, :, 0]
    rows = np.maximum(pairs[:, :, :, 0], pairs[:, :, :, 1]).reshape(c, h // 2, 2, w // 2, n)
    down = rows[:, :, 1] > rows[:, :, 0]
    return np.maximum(rows[:, :, 0], rows[:, :, 1]), (right, down)


def _max_pool_grad(g, route):
    """dL/da of 2x2 max pooling: g (C, H/2, W/2, N) -> (C, H, W, N), each window's gradient
    on its one maximum (``route`` from ``_max_pool``), zeros elsewhere."""
    right, down = route
    c, h2, w2, n = g.shape
    rows = np.empty((c, h2, 2, w2, n), np.float32)
    np.multiply(g, down, out=rows[:, :, 1])
    np.subtract(g, rows[:, :, 1], out=rows[:, :, 0])
    rows = rows.reshape(c, 2 * h2, w2, n)
    pairs = np.empty((c, 2 * h2, w2, 2, n), np.float32)
    np.multiply(rows, right, out=pairs[:, :, :, 1])
    np.subtract(rows, pairs[:, :, :, 1], out=pairs[:, :, :, 0])
    return pairs.reshape(c, 2 * h2, 2 * w2, n)


def _relu_pool_grad(g, pooled, route):
    """dL/dz of max_pool(relu(z)): g (C, H/2, W/2, N) -> (C, H, W, N). The gradient reaches
    only a window's maximum, whose ReLU derivative is (pooled > 0), so the ReLU mask is
    applied before unpooling, on a quarter of the values."""
    return _max_pool_grad(g * (pooled > 0), route)


def numpy_step(state, x, y):
    """The LeNet-5 step in NumPy: one forward, backward and SGD update of the arrays of
    ``state`` (named as in ``SHAPES``, float32, updated in place) on images x (N, 1, 28, 28)
    and labels y (N,). Returns the step, a function of no arguments that returns the loss."""
    w1, b1, w2, b2, w3, b3, w4, b4, w5, b5 = (state[name] for name, _ in SHAPES)
    n = len(y)
    samples = np.arange(n)
    lr, inv_n = np.float32(LR), np.float32(1 / n)

    def step():
        # forward, images as (C, H, W, N)
        padded = np.zeros((1, 32, 32, n), np.float32)
        padded[:, 2:30, 2:30] = x.transpose(1, 2, 3, 0)
        cols1 = _windows(padded, 5)                                     # (25, 28·28·N)
        # One product over all 28·28·N columns of this thin 6x25 weight runs several times
        # slower in OpenBLAS than one per output row (28 of 28·N columns).
        z1 = _conv(w1, b1, cols1, 28).reshape(6, 28, 28, n)
        np.maximum(z1, 0, out=z1)
        p1, route1 = _max_pool(z1)                                      # (6, 14, 14, N)
        cols2 = _windows(p1, 5)                                         # (150, 10·10·N)
        z2 = _conv(w2, b2, cols2, 1).reshape(16, 10, 10, n)
        np.maximum(z2, 0, out=z2)
        p2, route2 = _max_pool(z2)                                      # (16, 5, 5, N)
        flat = p2.reshape(400, n).T                     # (N, 400) in Flatten's (c, h, w) order
        h3 = flat @ w3.T + b3
        np.maximum(h3, 0, out=h3)
        h4 = h3 @ w4.T + b4
        np.maximum(h4, 0, out=h4)
        logits = h4 @ w5.T + b5
        shifted = logits - logits.max(axis=1, keepdims=True)
        e = np.exp(shifted)
        total = e.sum(axis=1, keepdims=True)
        loss = np.mean(np.log(total[:, 0]) - shifted[samples, y])
        # backward: dL/dlogits = (softmax - onehot) / N
        g5 = e / total
        g5[samples, y] -= 1
        g5 *= inv_n
        g4 = (g5 @ w5) * (h4 > 0)
        g3 = (g4 @ w4) * (h3 > 0)
        g2 = _relu_pool_grad((g3 @ w3).T.reshape(16, 5, 5, n), p2, route2).reshape(16, -1)
        g1 = _add_windows(w2.reshape(16, -1).T @ g2, p1.shape, 5)
        g1 = _relu_pool_grad(g1, p1, route1).reshape(6, -1)
        grads = [_conv_weight_grad(g1, cols1, 28), g1.sum(axis=1),
                 _conv_weight_grad(g2, cols2, 1), g2.sum(axis=1),
                 g3.T @ flat, g3.sum(axis=0), g4.T @ h3, g4.sum(axis=0),
                 g5.T @ h4, g5.sum(axis=0)]
        # SGD update, in place
        for p, g in zip((w1, b1, w2, b2, w3, b3, w4, b4, w5, b5), grads):
            p -= lr * g.reshape(p.shape)
        return loss
    return step


def setup_numpy():
    return numpy_step(*_problem())


def profile(steps=300, top=18):
    """cProfile of ``steps`` dagrad steps: the functions with the most time in themselves."""
    import cProfile
    import pstats
    from dagrad.autograd import keep_freed_memory
    keep_freed_memory()                  # as the timed workers do (benchmarks.common._worker)
    step = setup_dagrad()
    for _ in range(5):
        step()
    profiler = cProfile.Profile()
    profiler.enable()
    for _ in range(steps):
        step()
    profiler.disable()
    stats = pstats.Stats(profiler).sort_stats("tottime")
    print(f"dagrad LeNet-5 step, {steps} steps: "
          f"{1e3 * stats.total_tt / steps:.2f} ms per step under the profiler")
    by_file = {}
    for (filename, _, name), (_, _, tottime, _, _) in stats.stats.items():
        where = filename.split("dagrad")[-1] if filename.startswith("/") else name
        key = "/".join(where.replace("\\", "/").split("/")[-2:])
        by_file[key] = by_file.get(key, 0.0) + tottime
    print("time spent in each file (or NumPy built-in), ms per step:")
    for key, seconds in sorted(by_file.items(), key=lambda kv: -kv[1])[:top]:
        print(f"  {1e3 * seconds / steps:7.3f}  {key}")
    stats.print_stats(top)


SETUPS = {"dagrad": setup_dagrad, "numpy": setup_numpy, "torch": setup_torch}

if __name__ == "__main__":
    if "--profile" in sys.argv:
        profile()
    else:
        main("benchmarks.lenet_step", SETUPS,
             "LeNet-5 step, batch 64 x 1x28x28, cross-entropy, SGD (float32, 2 threads)",
             rounds=5)
