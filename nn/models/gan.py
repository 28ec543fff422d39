"""A generative adversarial network (Goodfellow et al., 2014) of two multilayer perceptrons."""
from dagrad import autograd as ag

from ..activation import LeakyReLU, Sigmoid
from ..containers import Sequential
from dagrad.autograd import as_tensor
from ..functional.loss import binary_cross_entropy_with_logits
from ..linear import Linear
from ..module import Module


def _mlp(sizes, output=None):
    layers = []
    for d_in, d_out in zip(sizes[:-1], sizes[1:]):
        layers += [Linear(d_in, d_out), LeakyReLU(0.2)]
    layers.pop()
    if output is not None:
        layers.append(output)
    return Sequential(*layers)


class GAN(Module):
    """A generator G: z -> x and a discriminator D: x -> logit, trained against each other.

    D(x) = σ(logit) is the probability that x is real. The discriminator minimises the
    cross-entropy of telling real data from generated samples,

        L_D = -E_x[log D(x)] - E_z[log(1 - D(G(z)))],       z ~ N(0, I)

    and the generator, with the non-saturating loss (the default),

        L_G = -E_z[log D(G(z))]

    instead of the minimax -L_D term E_z[log(1 - D(G(z)))] (``non_saturating=False``), whose
    gradient vanishes early in training when D rejects every sample easily: dL/dlogit is
    -(1 - D) for the non-saturating loss, near -1 when D(G(z)) ≈ 0, but -D ≈ 0 for the minimax
    one. Both are computed from logits (``binary_cross_entropy_with_logits``), exact for any
    logit.

    Networks: ``generator`` MLP latent_dim -> hidden… -> data_dim with LeakyReLU(0.2) between
    layers and a final Sigmoid (data in [0, 1], e.g. pixel intensities); ``discriminator``
    MLP data_dim -> hidden… -> 1 logit. ``hidden`` is an int or a sequence of widths (used
    reversed by the discriminator).
    """

    def __init__(self, data_dim=64, latent_dim=16, hidden=(128, 128), non_saturating=True):
        super().__init__()
        hidden = [int(hidden)] if isinstance(hidden, int) else [int(h) for h in hidden]
        if not hidden:
            raise ValueError("GAN: hidden must name at least one hidden width")
        self.data_dim, self.latent_dim = int(data_dim), int(latent_dim)
        self.non_saturating = non_saturating
        self.generator = _mlp([latent_dim, *hidden, data_dim], Sigmoid())
        self.discriminator = _mlp([data_dim, *hidden[::-1], 1])

    def sample_latent(self, n):
        """z ~ N(0, I), (n, latent_dim), from autograd's global generator."""
        return ag.randn(n, self.latent_dim, dtype=self.generator[0].weight.dtype)

    def forward(self, z):
        """G(z): (N, latent_dim) -> (N, data_dim)."""
        return self.generator(z)

    def sample(self, n):
        """n generated data points G(z), z ~ N(0, I), without recording a graph."""
        with ag.no_grad():
            return self.generator(self.sample_latent(n))

    def discriminator_loss(self, real, fake):
        """(L_D, {"real": logits of the real batch, "fake": logits of the fake batch,
        "accuracy": fraction of both batches D classifies correctly}). ``fake`` is detached:
        this loss trains D only."""
        real_logits = self.discriminator(as_tensor(real))
        fake_logits = self.discriminator(as_tensor(fake).detach())
        ones, zeros = ag.ones_like(real_logits), ag.zeros_like(fake_logits)
        loss = (binary_cross_entropy_with_logits(real_logits, ones)
                + binary_cross_entropy_with_logits(fake_logits, zeros))
        correct = (real_logits._data > 0).sum() + (fake_logits._data <= 0).sum()
        accuracy = float(correct) / (len(real_logits) + len(fake_logits))
        return loss, {"real": real_logits, "fake": fake_logits, "accuracy": accuracy}

    def generator_loss(self, fake):
        """L_G for generated samples ``fake`` = G(z) (gradients flow through D into G)."""
        logits = self.discriminator(fake)
        if self.non_saturating:
            return binary_cross_entropy_with_logits(logits, ag.ones_like(logits))
        return -binary_cross_entropy_with_logits(logits, ag.zeros_like(logits))

    def train_step(self, real, d_optimizer, g_optimizer):
        """One round of the game on a batch of real data: a step of D on L_D (real batch
        against as many fresh samples), then a step of G on L_G (new samples). The
        optimizers hold the discriminator's and the generator's parameters. Returns
        {"d_loss", "g_loss", "d_accuracy", "d_real", "d_fake"}: the losses, D's accuracy on
        the two batches and its mean probabilities D(x) on real and on fake data."""
        real = as_tensor(real)
        n = len(real)
        d_loss, parts = self.discriminator_loss(real, self.generator(self.sample_latent(n)))
        d_optimizer.zero_grad()
        d_loss.backward()
        d_optimizer.step()
        self.discriminator.requires_grad_(False)        # G's step: D is fixed, no dL/dθ_D
        try:
            g_loss = self.generator_loss(self.generator(self.sample_latent(n)))
            g_optimizer.zero_grad()
            g_loss.backward()
        finally:
            self.discriminator.requires_grad_(True)
        g_optimizer.step()
        return {"d_loss": d_loss.item(), "g_loss": g_loss.item(),
                "d_accuracy": parts["accuracy"],
                "d_real": float(ag.sigmoid(parts["real"])._data.mean()),
                "d_fake": float(ag.sigmoid(parts["fake"])._data.mean())}

    def extra_repr(self):
        return (f"data_dim={self.data_dim}, latent_dim={self.latent_dim}, "
                f"non_saturating={self.non_saturating}")
