"""Log-likelihoods and the Gaussian KL divergence used by latent-variable models (the VAE).

Each function sums over the event dimension(s) ``dim`` (the last one by default) and keeps the
others, so (N, D) inputs give one value per sample, shape (N,). Leading sample dimensions
broadcast: a reconstruction of shape (K, N, D) against data of shape (N, D) gives (K, N).
"""
import math
import numbers

from dagrad import autograd as ag
from dagrad.autograd import as_tensor


LOG_2PI = math.log(2 * math.pi)


def gaussian_kl(mu, logvar, dim=-1):
    """KL(N(μ, diag σ²) ‖ N(0, I)) in closed form, summed over ``dim``:

        KL = ½ Σⱼ (μⱼ² + σⱼ² - log σⱼ² - 1),   σ² = exp(logvar)

    mu, logvar: (..., D), the same shape -> (...). Zero exactly when μ = 0 and log σ² = 0.
    """
    mu, logvar = as_tensor(mu), as_tensor(logvar)
    if mu.shape != logvar.shape:
        raise ValueError(f"gaussian_kl: mu {tuple(mu.shape)} and logvar {tuple(logvar.shape)} "
                         f"must have the same shape (one mean and one log-variance per latent "
                         f"dimension)")
    return (0.5 * (mu * mu + ag.exp(logvar) - logvar - 1)).sum(dim)


def gaussian_log_likelihood(x, mean, logvar=0.0, dim=-1):
    """log N(x; μ, diag σ²), summed over ``dim``:

        log p(x) = -½ Σⱼ [log 2π + log σⱼ² + (xⱼ - μⱼ)² / σⱼ²]

    x, mean: broadcastable, (..., D); ``logvar`` log σ², a number (0 = unit variance) or a
    Tensor broadcastable against them (one per feature, or one shared scalar) -> (...).
    """
    x, mean = as_tensor(x), as_tensor(mean)
    d = x - mean
    if isinstance(logvar, numbers.Real):
        terms = (d * d) * (-0.5 * math.exp(-logvar)) - 0.5 * (LOG_2PI + logvar)
    else:
        logvar = as_tensor(logvar)
        terms = -0.5 * (LOG_2PI + logvar + d * d * ag.exp(-logvar))
    return terms.sum(dim)


def bernoulli_log_likelihood_with_logits(x, logits, dim=-1):
    """log Bernoulli(x; p = σ(l)) from logits l, summed over ``dim``:

        log p(x) = Σⱼ [xⱼ log σ(lⱼ) + (1 - xⱼ) log(1 - σ(lⱼ))] = Σⱼ [xⱼ lⱼ - softplus(lⱼ)]

    The right-hand form is exact for logits of any size (softplus never overflows), and equals
    minus ``binary_cross_entropy_with_logits(l, x, reduction="none")`` summed. x in [0, 1] (not
    only 0/1: grey levels give the continuous relaxation used for images), broadcastable
    against logits (..., D) -> (...).
    """
    x, logits = as_tensor(x), as_tensor(logits)
    return (x * logits - ag.softplus(logits, 1.0, math.inf)).sum(dim)
