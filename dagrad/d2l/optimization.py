"""Optimisation algorithms (the book's chapter 12): the 2-D traces of gradient descent and
the minibatch experiments on the airfoil self-noise data (``get_data_ch11``, ``train_ch11``,
``train_concise_ch11``)."""
import os

import numpy as np

from dagrad import torch
from dagrad.torch import nn

from .files import DATA_HUB, missing, open_data, present
from .linear import evaluate_loss, linreg, load_array, squared_loss
from .plotting import Animator
from .utils import Timer


def train_2d(trainer, steps=20, f_grad=None):
    """Run ``trainer(x1, x2, s1, s2[, f_grad])`` ``steps`` times from (-5, -2); returns the
    visited points [(x1, x2), ...]."""
    x1, x2, s1, s2 = -5, -2, 0, 0
    results = [(x1, x2)]
    for i in range(steps):
        if f_grad:
            x1, x2, s1, s2 = trainer(x1, x2, s1, s2, f_grad)
        else:
            x1, x2, s1, s2 = trainer(x1, x2, s1, s2)
        results.append((x1, x2))
    print(f"epoch {i + 1}, x1: {float(x1):f}, x2: {float(x2):f}")
    return results


def get_data_ch11(batch_size=10, n=1500, root="../data"):
    """(a shuffled loader of the first ``n`` airfoil examples, 5 features and the sound
    level, each column standardised; the number of features). Reads
    ``root/airfoil_self_noise.dat`` (tab-separated, six columns)."""
    path = os.path.join(root, "airfoil_self_noise.dat")
    if not present(path):
        raise missing("get_data_ch11", path, DATA_HUB["airfoil"][0],
                      "pass root=<the folder holding airfoil_self_noise.dat>")
    with open_data("get_data_ch11", path) as f:
        data = np.genfromtxt(f, dtype=np.float32, delimiter="\t")
    if data.ndim != 2 or data.shape[1] < 2 or np.isnan(data).any():
        raise ValueError(f"get_data_ch11: the airfoil file must hold rows of tab-separated "
                         f"numbers (6 columns), got an array of shape {data.shape}"
                         + (" with missing values" if np.isnan(data).any() else ""))
    data = torch.from_numpy((data - data.mean(axis=0)) / data.std(axis=0))
    data_iter = load_array((data[:n, :-1], data[:n, -1]), batch_size, is_train=True)
    return data_iter, data.shape[1] - 1


def train_ch11(trainer_fn, states, hyperparams, data_iter, feature_dim, num_epochs=2):
    """Linear regression w ~ N(0, 0.01²), b = 0 on ``data_iter`` with the update
    ``trainer_fn([w, b], states, hyperparams)`` after each backward; every 200 examples the
    loss over the whole data is plotted. Returns (cumulative times, losses)."""
    w = torch.normal(mean=0.0, std=0.01, size=(feature_dim, 1), requires_grad=True)
    b = torch.zeros((1), requires_grad=True)

    def net(X):
        return linreg(X, w, b)
    loss = squared_loss
    animator = Animator(xlabel="epoch", ylabel="loss", xlim=[0, num_epochs], ylim=[0.22, 0.35])
    n, timer = 0, Timer()
    for _ in range(num_epochs):
        for X, y in data_iter:
            l = loss(net(X), y).mean()  # noqa: E741
            l.backward()
            trainer_fn([w, b], states, hyperparams)
            n += X.shape[0]
            if n % 200 == 0:
                timer.stop()
                animator.add(n / X.shape[0] / len(data_iter),
                             (evaluate_loss(net, data_iter, loss),))
                timer.start()
    print(f"loss: {animator.Y[0][-1]:.3f}, {timer.sum() / num_epochs:.3f} sec/epoch")
    return timer.cumsum(), animator.Y[0]


def train_concise_ch11(trainer_fn, hyperparams, data_iter, num_epochs=4):
    """The same with ``nn.Linear(5, 1)`` (weights ~ N(0, 0.01²)) and the optimiser
    ``trainer_fn(net.parameters(), **hyperparams)``; plots half the MSE (the squared loss)."""
    net = nn.Sequential(nn.Linear(5, 1))

    def init_weights(module):
        if type(module) is nn.Linear:
            nn.init.normal_(module.weight, std=0.01)
    net.apply(init_weights)
    optimizer = trainer_fn(net.parameters(), **hyperparams)
    loss = nn.MSELoss(reduction="none")
    animator = Animator(xlabel="epoch", ylabel="loss", xlim=[0, num_epochs], ylim=[0.22, 0.35])
    n, timer = 0, Timer()
    for _ in range(num_epochs):
        for X, y in data_iter:
            optimizer.zero_grad()
            out = net(X)
            y = y.reshape(out.shape)
            l = loss(out, y)  # noqa: E741
            l.mean().backward()
            optimizer.step()
            n += X.shape[0]
            if n % 200 == 0:
                timer.stop()
                animator.add(n / X.shape[0] / len(data_iter),
                             (evaluate_loss(net, data_iter, loss) / 2,))
                timer.start()
    print(f"loss: {animator.Y[0][-1]:.3f}, {timer.sum() / num_epochs:.3f} sec/epoch")
