"""The variational autoencoder (Kingma and Welling, 2014)."""
import numpy as np

from dagrad import autograd as ag
from dagrad.autograd import as_tensor
from dagrad.autograd.default_dtype import get_default_dtype

from ..functional.distributions import (bernoulli_log_likelihood_with_logits, gaussian_kl,
                                        gaussian_log_likelihood)
from ..linear import Linear
from ..module import Module
from ..parameter import Parameter
from .autoencoders import _stack, _widths

LIKELIHOODS = ("bernoulli", "gaussian")


class VAE(Module):
    """A variational autoencoder with a Gaussian encoder q(z|x) = N(μ(x), diag σ²(x)), the
    prior p(z) = N(0, I) and a decoder p(x|z), trained by minimising the negative evidence
    lower bound (ELBO), per sample:

        L(x) = E_q[-log p(x|z)] + β KL(q(z|x) ‖ p(z))
             ≈ -(1/K) Σₖ log p(x | zₖ) + β · ½ Σⱼ (μⱼ² + σⱼ² - log σⱼ² - 1)

        zₖ = μ + σ ⊙ εₖ,   εₖ ~ N(0, I)      (the reparameterisation trick: z is a
                                               differentiable function of μ, σ and noise)

    The KL term is exact (closed form); the reconstruction term is a K-sample Monte-Carlo
    estimate. β = 1 gives the ELBO; β > 1 the β-VAE.

    Networks (``hidden`` an int or a sequence of widths, ``activation`` after each hidden
    layer): ``encoder`` MLP in_features -> hidden…, then two linear heads ``fc_mu`` and
    ``fc_logvar`` (hidden[-1] -> latent) giving μ and log σ²; ``decoder`` MLP latent ->
    hidden reversed -> in_features.

    ``likelihood``:
        "bernoulli": the decoder outputs logits l, p(x|z) = Πⱼ σ(lⱼ)^xⱼ (1 - σ(lⱼ))^(1-xⱼ), for
            data in [0, 1] (binary, or grey levels as a relaxation);
        "gaussian": the decoder outputs the mean m, p(x|z) = N(x; m, s² I) with one learned
            log-variance ``obs_logvar`` = log s² shared by all features (initialised to 0; at
            its optimum s² is the mean squared reconstruction error). Freeze it with
            ``model.obs_logvar.requires_grad_(False)`` for a fixed variance.

    Shapes: x (N, in_features); μ, log σ², z (N, latent); K samples of z (K, N, latent).
    """

    def __init__(self, in_features, hidden=400, latent=20, likelihood="bernoulli", beta=1.0,
                 activation="relu"):
        super().__init__()
        if likelihood not in LIKELIHOODS:
            raise ValueError(f"VAE: likelihood must be one of {LIKELIHOODS}, got "
                             f"{likelihood!r}")
        if beta < 0:
            raise ValueError(f"VAE: beta weights the KL term and must be >= 0, got {beta}")
        hidden = _widths(hidden)
        if not hidden:
            raise ValueError("VAE: hidden must name at least one hidden width, e.g. 400")
        self.in_features, self.latent = int(in_features), int(latent)
        self.likelihood, self.beta = likelihood, float(beta)
        self.encoder = _stack([in_features, *hidden], activation, activation, "VAE")
        self.fc_mu = Linear(hidden[-1], latent)
        self.fc_logvar = Linear(hidden[-1], latent)
        self.decoder = _stack([latent, *hidden[::-1], in_features], activation, None, "VAE")
        if likelihood == "gaussian":
            self.obs_logvar = Parameter(np.zeros((), get_default_dtype()))

    # ------------------------------------------------------------------ the parts
    def encode(self, x):
        """(μ, log σ²) of q(z|x), each (N, latent)."""
        h = self.encoder(x)
        return self.fc_mu(h), self.fc_logvar(h)

    def reparameterize(self, mu, logvar, eps=None, k=None):
        """z = μ + σ ⊙ ε with σ = exp(½ log σ²) and ε ~ N(0, I) from autograd's global
        generator, or the given ``eps``; with ``k`` samples per input: (k, N, latent)."""
        if eps is None:
            shape = (mu.shape if k is None else (k, *mu.shape))
            eps = ag.randn(*shape, dtype=mu.dtype)
        return mu + ag.exp(0.5 * logvar) * as_tensor(eps)

    def decode(self, z):
        """The decoder's output for codes z (..., latent): logits (bernoulli) or means
        (gaussian) of p(x|z), (..., in_features)."""
        return self.decoder(z)

    def log_likelihood(self, x, out):
        """log p(x|z) summed over features, from the decoder's output ``out`` (..., N, D)
        against x (N, D) -> (..., N)."""
        if self.likelihood == "bernoulli":
            return bernoulli_log_likelihood_with_logits(x, out)
        return gaussian_log_likelihood(x, out, self.obs_logvar)

    def mean(self, out):
        """E[x|z] from the decoder's output: σ(logits) or the Gaussian mean."""
        return ag.sigmoid(out) if self.likelihood == "bernoulli" else out

    def forward(self, x):
        """(decoder output for one sampled z, μ, log σ²), as in PyTorch's VAE example."""
        mu, logvar = self.encode(x)
        return self.decode(self.reparameterize(mu, logvar)), mu, logvar

    # ---------------------------------------------------------------- the objective
    def loss(self, x, k=1, eps=None):
        """(L, {"reconstruction": R, "kl": KL}): the negative ELBO averaged over the batch,
        L = R + β KL, with R = -(1/K) Σₖ log p(x|zₖ) and KL = KL(q(z|x) ‖ N(0, I)), each
        averaged over the N samples of the batch (nats per sample).

        ``k``: Monte-Carlo samples of z per input. ``eps``: the standard normal noise to use,
        shape (k, N, latent) (or (N, latent) when k = 1), instead of fresh noise: fixing it
        makes the loss a deterministic function of x and the weights (for gradcheck).
        """
        x = as_tensor(x)
        if x.ndim != 2 or x.shape[1] != self.in_features:
            raise ValueError(f"VAE.loss: x must be (N, {self.in_features}), got "
                             f"{tuple(x.shape)}")
        if k < 1:
            raise ValueError(f"VAE.loss: k (Monte-Carlo samples) must be >= 1, got {k}")
        mu, logvar = self.encode(x)
        if eps is not None:
            eps = as_tensor(eps)
            if eps.shape == mu.shape and k == 1:
                eps = eps.unsqueeze(0)
            if eps.shape != (k, *mu.shape):
                raise ValueError(f"VAE.loss: eps must have shape {(k, *mu.shape)} (k, N, "
                                 f"latent), got {tuple(eps.shape)}")
        z = self.reparameterize(mu, logvar, eps, k)
        reconstruction = -self.log_likelihood(x, self.decode(z)).mean()
        kl = gaussian_kl(mu, logvar).mean()
        return reconstruction + self.beta * kl, {"reconstruction": reconstruction, "kl": kl}

    # ------------------------------------------------------------------- using it
    def reconstruct(self, x):
        """E[x|z = μ(x)]: decode the posterior mean (no sampling), (N, in_features)."""
        mu, _ = self.encode(x)
        return self.mean(self.decode(mu))

    def sample(self, n):
        """n new data points: z ~ N(0, I), returned as E[x|z] (probabilities for bernoulli),
        shape (n, in_features)."""
        z = ag.randn(n, self.latent, dtype=self.fc_mu.weight.dtype)
        return self.mean(self.decode(z))

    def interpolate(self, x0, x1, steps=8):
        """Decode the straight line between the posterior means of x0 and x1 (each
        (in_features,) or (N, in_features)): z_t = (1 - t) μ(x0) + t μ(x1) for ``steps``
        values of t from 0 to 1 -> E[x|z_t], (steps, in_features) or (steps, N, in_features).
        """
        z0, _ = self.encode(as_tensor(x0))
        z1, _ = self.encode(as_tensor(x1))
        t = np.linspace(0, 1, steps, dtype=z0.dtype).reshape((steps,) + (1,) * z0.ndim)
        return self.mean(self.decode(z0 * (1 - t) + z1 * t))

    def extra_repr(self):
        return f"likelihood={self.likelihood!r}, beta={self.beta}"
