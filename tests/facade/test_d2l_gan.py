"""The GAN steps of dagrad.d2l: each step lowers its own network's loss, the two agree with
PyTorch given the same weights and data, and alternating them on a 1-D Gaussian moves the
generator onto the data while both losses settle at log 2 (the equilibrium the book's chapter
reaches, where the discriminator can no longer tell real from generated)."""
import math

import numpy as np

from dagrad import d2l, torch
from dagrad.torch import nn
from tests.facade.book_programs import compare


def _gan(small_init=True):
    torch.manual_seed(0)
    net_G = nn.Sequential(nn.Linear(1, 1))
    net_D = nn.Sequential(nn.Linear(1, 5), nn.Tanh(), nn.Linear(5, 3), nn.Tanh(),
                          nn.Linear(3, 1))
    if small_init:                     # N(0, 0.02²), as DCGAN starts
        for w in list(net_D.parameters()) + list(net_G.parameters()):
            nn.init.normal_(w, 0, 0.02)
    return net_G, net_D


def test_each_step_lowers_its_own_networks_loss_and_only_trains_that_network():
    net_G, net_D = _gan(small_init=False)
    loss = nn.BCEWithLogitsLoss(reduction="sum")
    X, Z = torch.normal(0, 1, (32, 1)) * 0.5 + 3, torch.normal(0, 1, (32, 1))
    trainer_D = torch.optim.SGD(net_D.parameters(), lr=0.005)
    trainer_G = torch.optim.SGD(net_G.parameters(), lr=0.01)
    G_before = [p.detach().clone() for p in net_G.parameters()]
    loss_D = d2l.update_D(X, Z, net_D, net_G, loss, trainer_D)
    assert all(torch.equal(a, b) for a, b in zip(G_before, net_G.parameters()))
    with torch.no_grad():
        real_Y, fake_Y = net_D(X), net_D(net_G(Z))
        after = (loss(real_Y, torch.ones_like(real_Y)) + loss(fake_Y, torch.zeros_like(fake_Y)))
    assert after.item() / 2 < loss_D.item()
    D_before = [p.detach().clone() for p in net_D.parameters()]
    loss_G = d2l.update_G(Z, net_D, net_G, loss, trainer_G)
    assert all(torch.equal(a, b) for a, b in zip(D_before, net_D.parameters()))
    with torch.no_grad():
        fake_Y = net_D(net_G(Z))
        after = loss(fake_Y, torch.ones_like(fake_Y))
    assert after.item() < loss_G.item()


def test_alternating_steps_on_a_1d_gaussian_learn_it():
    """Data N(3, 0.5²); G(z) = w z + b starts near 0. After 8 epochs G's samples have the
    data's mean and spread, and both losses sit at log 2 after starting far from it."""
    net_G, net_D = _gan()
    data = torch.normal(0.0, 1, (1000, 1)) * 0.5 + 3
    loss = nn.BCEWithLogitsLoss(reduction="sum")
    trainer_D = torch.optim.Adam(net_D.parameters(), lr=0.05)
    trainer_G = torch.optim.Adam(net_G.parameters(), lr=0.02)
    losses = []
    for _ in range(8):
        metric = d2l.Accumulator(3)
        for (X,) in d2l.load_array((data,), 25):
            Z = torch.normal(0, 1, size=(X.shape[0], 1))
            metric.add(d2l.update_D(X, Z, net_D, net_G, loss, trainer_D),
                       d2l.update_G(Z, net_D, net_G, loss, trainer_G), X.shape[0])
        losses.append((metric[0] / metric[2], metric[1] / metric[2]))
    with torch.no_grad():
        fake = net_G(torch.normal(0, 1, size=(4000, 1)))
    assert abs(fake.mean().item() - 3) < 0.4 and 0.25 < fake.std().item() < 0.75
    assert losses[0][1] > 1.5                          # G starts far from fooling D
    np.testing.assert_allclose(losses[-1], [math.log(2)] * 2, atol=0.02)


GAN_SECTION = """
# §20.1: a GAN learns a 2-D Gaussian (the book's data, networks and optimisers)
X = torch.normal(0.0, 1, (200, 2))          # the bridge replays torch.normal
A = d2l.tensor([[1, 2], [-0.1, 0.5]])
b = d2l.tensor([1, 2])
data = d2l.matmul(X, A) + b
data_iter = d2l.load_array((data,), 8)
net_G = nn.Sequential(nn.Linear(2, 2))
net_D = nn.Sequential(nn.Linear(2, 5), nn.Tanh(), nn.Linear(5, 3), nn.Tanh(), nn.Linear(3, 1))
share(net_G)
share(net_D)
loss = nn.BCEWithLogitsLoss(reduction='sum')
trainer_D = torch.optim.Adam(net_D.parameters(), lr=0.05)
trainer_G = torch.optim.Adam(net_G.parameters(), lr=0.005)
losses = []
for epoch in range(3):
    metric = d2l.Accumulator(3)
    for (X,) in data_iter:
        batch_size = X.shape[0]
        Z = torch.normal(0, 1, size=(batch_size, 2))
        metric.add(d2l.update_D(X, Z, net_D, net_G, loss, trainer_D),
                   d2l.update_G(Z, net_D, net_G, loss, trainer_G), batch_size)
    losses.append([metric[0] / metric[2], metric[1] / metric[2]])
result = {"losses": losses, "G": net_G[0].weight, "G_bias": net_G[0].bias,
          "D_out": net_D[4].weight}
"""


def test_the_books_gan_section_gives_pytorchs_numbers(monkeypatch):
    compare(GAN_SECTION, monkeypatch, rtol=2e-4)
