"""The GAN: losses equal their formulas, the non-saturating generator loss keeps its gradient where
the minimax one vanishes, each player's step leaves the other alone, and a few hundred steps on
the digits give varied samples that a digit classifier recognises, with the game in balance."""
import numpy as np
import pytest

from dagrad import autograd as ag
from dagrad import nn
import dagrad.nn.functional as F
from dagrad import optim
from dagrad.nn.models import GAN
from tests.helpers import one_blas_thread  # noqa: F401

pytestmark = pytest.mark.usefixtures("one_blas_thread")


def _log_sigmoid(x):
    return -np.logaddexp(0, -x)


def test_shapes_and_sampling():
    ag.manual_seed(0)
    g = GAN(data_dim=64, latent_dim=8, hidden=32)
    z = g.sample_latent(5)
    assert z.shape == (5, 8)
    x = g(z)
    assert x.shape == (5, 64) and x.dtype == np.float32
    assert np.all((x.numpy() > 0) & (x.numpy() < 1))               # sigmoid output: pixels in [0, 1]
    s = g.sample(4)
    assert s.shape == (4, 64) and s.grad_fn is None
    assert g.discriminator(x).shape == (5, 1)


def test_losses_equal_their_formulas():
    ag.manual_seed(0)
    g = GAN(data_dim=6, latent_dim=3, hidden=(5, 4)).double()
    rng = np.random.default_rng(0)
    real, fake = rng.random((4, 6)), rng.random((3, 6))
    d_loss, parts = g.discriminator_loss(real, fake)
    lr, lf = g.discriminator(ag.tensor(real)).numpy(), g.discriminator(ag.tensor(fake)).numpy()
    expected = -_log_sigmoid(lr).mean() - _log_sigmoid(-lf).mean()
    assert d_loss.item() == pytest.approx(expected)
    assert parts["accuracy"] == pytest.approx(((lr > 0).sum() + (lf <= 0).sum()) / 7)
    assert g.generator_loss(ag.tensor(fake)).item() == pytest.approx(-_log_sigmoid(lf).mean())
    g.non_saturating = False
    assert g.generator_loss(ag.tensor(fake)).item() == pytest.approx(_log_sigmoid(-lf).mean())


def test_non_saturating_loss_keeps_its_gradient_when_the_discriminator_wins():
    """At D(G(z)) = σ(-6) ≈ 0.0025: d/dlogit of -log D is -(1 - D) ≈ -1, but of log(1 - D) it
    is -D ≈ -0.0025: the minimax generator would barely learn."""
    g = GAN(data_dim=2, latent_dim=1, hidden=2).double()
    logit = ag.tensor(np.array([[-6.0]]), requires_grad=True)
    for non_saturating, expected in ((True, -(1 - 1 / (1 + np.exp(6)))),
                                     (False, -1 / (1 + np.exp(6)))):
        g.non_saturating = non_saturating
        g.discriminator = nn.Identity()
        logit.grad = None
        g.generator_loss(logit).backward()
        assert logit.grad.item() == pytest.approx(expected)


def test_each_step_trains_only_its_player():
    ag.manual_seed(0)
    g = GAN(data_dim=8, latent_dim=2, hidden=8)
    real = np.random.default_rng(0).random((16, 8)).astype(np.float32)
    d_loss, _ = g.discriminator_loss(real, g(g.sample_latent(16)))
    d_loss.backward()
    assert all(p.grad is None for p in g.generator.parameters())     # fake was detached
    d_before = [p.numpy().copy() for p in g.discriminator.parameters()]
    g_before = [p.numpy().copy() for p in g.generator.parameters()]

    class Recorder:                       # an optimizer that records what it would update
        def __init__(self, params):
            self.params = list(params)
            self.stepped = None

        def zero_grad(self):
            for p in self.params:
                p.grad = None

        def step(self):
            self.stepped = [p.grad is not None for p in self.params]

    d_opt, g_opt = Recorder(g.discriminator.parameters()), Recorder(g.generator.parameters())
    out = g.train_step(real, d_opt, g_opt)
    assert all(d_opt.stepped) and all(g_opt.stepped)
    assert all(p.grad is not None for p in g.discriminator.parameters())   # from D's step only
    assert all(p.requires_grad for p in g.discriminator.parameters())      # unfrozen again
    for p, before in zip(g.discriminator.parameters(), d_before):
        np.testing.assert_array_equal(p.numpy(), before)                # the recorder never updates
    for p, before in zip(g.generator.parameters(), g_before):
        np.testing.assert_array_equal(p.numpy(), before)
    assert set(out) == {"d_loss", "g_loss", "d_accuracy", "d_real", "d_fake"}


def _nearest_distance(samples, data):
    d2 = (samples ** 2).sum(1)[:, None] + (data ** 2).sum(1) - 2 * samples @ data.T
    return float(np.sqrt(np.maximum(d2.min(1), 0)).mean())


@pytest.mark.slow
def test_learns_digits_the_game_stays_balanced_and_samples_are_varied():
    X, y = nn.datasets.load_digits()
    X_train, X_test, y_train, _ = nn.datasets.train_test_split(X, y, seed=0)
    ag.manual_seed(0)
    g = GAN(data_dim=64, latent_dim=16, hidden=(128, 128))
    untrained = g.sample(500).numpy()
    d_opt = optim.Adam(g.discriminator.parameters(), lr=2e-3, betas=(0.5, 0.999))
    g_opt = optim.Adam(g.generator.parameters(), lr=2e-3, betas=(0.5, 0.999))
    rng = np.random.default_rng(0)
    history = [g.train_step(X_train[rng.integers(0, len(X_train), 64)], d_opt, g_opt)
               for _ in range(600)]
    last = {k: np.mean([h[k] for h in history[-100:]]) for k in history[0]}
    # neither player wins outright: D is better than chance but does not reject every sample
    assert 0.55 < last["d_accuracy"] < 0.95
    assert last["d_fake"] > 0.1 and last["d_real"] < 0.95
    assert np.isfinite(last["d_loss"]) and np.isfinite(last["g_loss"])
    samples = g.sample(500).numpy()
    # generated digits sit near the training set (within twice the distance of held-out real
    # digits; measured 1.9 vs 1.03 after 600 steps, 1.3 after 3000) and far closer than the
    # untrained generator's blobs (3.0)
    real_gap = _nearest_distance(X_test, X_train)
    assert _nearest_distance(samples, X_train) < 2 * real_gap
    assert _nearest_distance(samples, X_train) < 0.7 * _nearest_distance(untrained, X_train)
    # a digit classifier recognises them confidently, and they are not all one digit
    ag.manual_seed(1)
    clf = nn.models.MLP([64, 64, 10])
    opt = optim.Adam(clf.parameters(), lr=1e-2)
    for _ in range(150):
        loss = F.cross_entropy(clf(X_train), y_train)
        opt.zero_grad()
        loss.backward()
        opt.step()
    with ag.no_grad():
        p = ag.softmax(clf(samples), -1).numpy()
    assert p.max(1).mean() > 0.75
    assert (np.bincount(p.argmax(1), minlength=10) >= 10).sum() >= 8
