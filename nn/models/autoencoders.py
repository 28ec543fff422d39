"""Autoencoders: an encoder f maps x to a code h, a decoder g maps h back, and training
minimises the reconstruction error ‖g(f(x)) - x‖² (plus a penalty, for the sparse one).

Every model here has ``.encoder`` and ``.decoder`` children, ``encode(x)``, ``decode(h)``,
``forward(x) = decode(encode(x))`` and ``loss(x) -> (loss, parts)``, where ``parts`` names the
terms of the loss ({"reconstruction": ...} and, for the sparse autoencoder, "sparsity"). One
training loop therefore fits them all::

    loss, parts = model.loss(x)
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()

The reconstruction error is ``F.mse_loss`` (the mean over all elements, as PyTorch).
"""
from dagrad import autograd as ag

from .. import functional as F
from ..containers import Sequential
from ..conv import Conv2d, ConvTranspose2d
from dagrad.autograd import as_tensor
from ..linear import Linear
from ..module import Module
from .mlp import ACTIVATIONS, MLP


def make_activation(activation, model):
    """A fresh activation Module from a name in ``mlp.ACTIVATIONS``, a Module class or a
    factory; None gives None (no activation)."""
    if activation is None:
        return None
    if isinstance(activation, str):
        if activation not in ACTIVATIONS:
            raise ValueError(f"{model}: unknown activation {activation!r}; choose one of "
                             f"{sorted(ACTIVATIONS)}, None, or pass a Module class")
        activation = ACTIVATIONS[activation]
    act = activation()
    if not isinstance(act, Module):
        raise TypeError(f"{model}: activation must create a Module, got {type(act).__name__}")
    return act


def _widths(hidden):
    return [int(hidden)] if isinstance(hidden, int) else [int(h) for h in hidden]


def _stack(sizes, activation, final, model):
    """MLP(sizes, activation) followed by the activation ``final`` (if any), as one Sequential
    whose children are numbered like ``torch.nn.Sequential``."""
    layers = list(MLP(sizes, activation))
    act = make_activation(final, model)
    return Sequential(*layers, *([act] if act is not None else []))


class AutoencoderBase(Module):
    """What every autoencoder shares: encode, decode, forward and the reconstruction loss.
    Subclasses assign ``self.encoder`` and ``self.decoder``."""

    def encode(self, x):
        """h = f(x), the code."""
        return self.encoder(x)

    def decode(self, h):
        """x̂ = g(h), the reconstruction."""
        return self.decoder(h)

    def forward(self, x):
        return self.decode(self.encode(x))

    def loss(self, x):
        """(L, {"reconstruction": L}) with L = mean((g(f(x)) - x)²)."""
        reconstruction = F.mse_loss(self(x), x)
        return reconstruction, {"reconstruction": reconstruction}


class LinearAutoencoder(AutoencoderBase):
    """x̂ = W₂ (W₁ x + b₁) + b₂: one linear encoder (in_features -> latent) and one linear
    decoder (latent -> in_features), no activation.

    Trained on centred data with the squared error, its optimum is principal component
    analysis (Baldi and Hornik, 1989): the columns of the decoder's weight W₂ (in_features,
    latent) span the subspace of the top ``latent`` principal components (they need not be
    orthogonal, nor the components themselves: any invertible mixing of the code is optimal).

    Shapes: x (..., in_features) -> code (..., latent) -> x̂ (..., in_features).
    """

    def __init__(self, in_features, latent, bias=True):
        super().__init__()
        self.encoder = Linear(in_features, latent, bias=bias)
        self.decoder = Linear(latent, in_features, bias=bias)


class Autoencoder(AutoencoderBase):
    """A deep autoencoder of two MLPs, the decoder mirroring the encoder:

        encoder: in_features -> hidden[0] -> … -> hidden[-1] -> latent   (then latent_activation)
        decoder: latent -> hidden[-1] -> … -> hidden[0] -> in_features   (then output_activation)

    with ``activation`` after every hidden layer. ``hidden`` is an int or a sequence of widths
    (``()`` for one linear layer each way); ``latent_activation`` (e.g. "sigmoid" for codes in
    (0, 1)) and ``output_activation`` (e.g. "sigmoid" for pixels in [0, 1]) default to None:
    a linear code and output. Activations are names from ``nn.models.mlp.ACTIVATIONS``
    ("relu", "tanh", "sigmoid", ...) or Module classes.

    Shapes: x (..., in_features) -> code (..., latent) -> x̂ (..., in_features).
    """

    def __init__(self, in_features, hidden=(128,), latent=32, activation="relu",
                 latent_activation=None, output_activation=None):
        super().__init__()
        name = type(self).__name__
        hidden = _widths(hidden)
        self.encoder = _stack([in_features, *hidden, latent], activation, latent_activation,
                              name)
        self.decoder = _stack([latent, *hidden[::-1], in_features], activation,
                              output_activation, name)


NOISES = ("gaussian", "masking")


class DenoisingAutoencoder(Autoencoder):
    """An Autoencoder trained to undo a corruption (Vincent et al., 2008): the loss feeds it
    the corrupted x̃ and compares its output with the clean x,

        L = mean((g(f(x̃)) - x)²),   x̃ = x + σ ε, ε ~ N(0, I)          (noise="gaussian")
                                     x̃ = x ⊙ m, mⱼ ~ Bernoulli(1 - p)   (noise="masking")

    ``noise_level`` is σ (Gaussian) or the probability p of zeroing an input (masking). The
    noise comes from autograd's global generator (``ag.manual_seed``). ``forward(x)`` does not
    corrupt: it denoises the input it is given. Other arguments as ``Autoencoder``.
    """

    def __init__(self, in_features, hidden=(128,), latent=32, noise="gaussian",
                 noise_level=0.3, **kwargs):
        if noise not in NOISES:
            raise ValueError(f"DenoisingAutoencoder: noise must be one of {NOISES}, got "
                             f"{noise!r}")
        if noise_level < 0 or (noise == "masking" and noise_level >= 1):
            raise ValueError(f"DenoisingAutoencoder: noise_level must be >= 0 (a standard "
                             f"deviation) for gaussian noise and in [0, 1) (a probability) for "
                             f"masking, got {noise_level} for {noise!r}")
        super().__init__(in_features, hidden, latent, **kwargs)
        self.noise, self.noise_level = noise, float(noise_level)

    def corrupt(self, x):
        """x̃: x plus Gaussian noise of standard deviation σ, or x with each element zeroed
        with probability p. Same shape and dtype as x."""
        x = as_tensor(x)
        if self.noise == "gaussian":
            return x + self.noise_level * ag.randn(*x.shape, dtype=x.dtype)
        keep = ag.generator().random(x.shape) >= self.noise_level
        return x * keep.astype(x.dtype)

    def loss(self, x):
        """(L, {"reconstruction": L}) with L = mean((g(f(x̃)) - x)²) for a fresh corruption x̃."""
        reconstruction = F.mse_loss(self(self.corrupt(x)), x)
        return reconstruction, {"reconstruction": reconstruction}

    def extra_repr(self):
        return f"noise={self.noise!r}, noise_level={self.noise_level}"


PENALTIES = ("kl", "l1")


class SparseAutoencoder(Autoencoder):
    """An Autoencoder whose code is pushed towards sparsity by a penalty on its activations:

        L = mean((g(h) - x)²) + β Ω(h),   h = f(x) of shape (N, latent)

        Ω = Σⱼ KL(π ‖ π̂ⱼ) = Σⱼ [π log(π / π̂ⱼ) + (1 - π) log((1 - π) / (1 - π̂ⱼ))]  (penalty="kl")
        Ω = (1/N) Σₙ Σⱼ |hₙⱼ|                                                       (penalty="l1")

    where π̂ⱼ = (1/N) Σₙ hₙⱼ is unit j's mean activation over the batch and π
    (``sparsity_target``) the activation wanted, e.g. 0.05. The KL penalty treats each unit as
    a Bernoulli variable, so its code must lie in (0, 1): ``latent_activation`` is "sigmoid" by
    default (π̂ is clipped to [1e-6, 1 - 1e-6] inside the logarithms). β is
    ``sparsity_weight``. Often overcomplete (latent > in_features) with ``hidden=()``, its
    default: one sigmoid layer in, one linear layer out. Other arguments as ``Autoencoder``.
    """

    def __init__(self, in_features, hidden=(), latent=64, penalty="kl", sparsity_target=0.05,
                 sparsity_weight=0.1, latent_activation="sigmoid", **kwargs):
        if penalty not in PENALTIES:
            raise ValueError(f"SparseAutoencoder: penalty must be one of {PENALTIES}, got "
                             f"{penalty!r}")
        if not 0 < sparsity_target < 1:
            raise ValueError(f"SparseAutoencoder: sparsity_target π must be in (0, 1), got "
                             f"{sparsity_target}")
        super().__init__(in_features, hidden, latent, latent_activation=latent_activation,
                         **kwargs)
        self.penalty = penalty
        self.sparsity_target, self.sparsity_weight = float(sparsity_target), float(sparsity_weight)

    def sparsity(self, h):
        """Ω(h) for codes h (..., latent): the KL or L1 penalty above, a scalar."""
        h = h.reshape(-1, h.shape[-1])
        if self.penalty == "l1":
            return h.abs().sum(-1).mean()
        pi, pi_hat = self.sparsity_target, h.mean(0).clamp(1e-6, 1 - 1e-6)
        return (pi * ag.log(pi / pi_hat) + (1 - pi) * ag.log((1 - pi) / (1 - pi_hat))).sum()

    def loss(self, x):
        """(L, {"reconstruction": mean((g(h) - x)²), "sparsity": Ω(h)}), L = reconstruction +
        β · sparsity."""
        h = self.encode(x)
        reconstruction = F.mse_loss(self.decode(h), x)
        sparsity = self.sparsity(h)
        return (reconstruction + self.sparsity_weight * sparsity,
                {"reconstruction": reconstruction, "sparsity": sparsity})

    def extra_repr(self):
        return (f"penalty={self.penalty!r}, sparsity_target={self.sparsity_target}, "
                f"sparsity_weight={self.sparsity_weight}")


class ConvAutoencoder(AutoencoderBase):
    """A convolutional autoencoder for images: stride-2 convolutions halve the height and width
    on the way down, stride-2 transposed convolutions double them on the way up,

        encoder: Conv2d(in_channels -> c₁, k, stride 2, padding k//2) -> act -> … -> c_L -> act
        decoder: ConvTranspose2d(c_L -> c_{L-1}, k, stride 2, padding k//2, output_padding 1)
                 -> act -> … -> ConvTranspose2d(c₁ -> in_channels)   (then output_activation)

    with ``channels`` = (c₁, …, c_L) and an odd ``kernel_size`` k. Shapes: x (N, in_channels,
    H, W) -> code (N, c_L, H/2ᴸ, W/2ᴸ) -> x̂ (N, in_channels, H, W); H and W must be divisible
    by 2ᴸ (8x8 digits with the default two levels give 2x2 codes).
    """

    def __init__(self, in_channels=1, channels=(16, 32), kernel_size=3, activation="relu",
                 output_activation=None):
        super().__init__()
        channels = _widths(channels)
        if kernel_size % 2 != 1 or not channels:
            raise ValueError(f"ConvAutoencoder: kernel_size must be odd (so that each level "
                             f"exactly halves and doubles the size) and channels non-empty, got "
                             f"kernel_size={kernel_size}, channels={channels}")
        name, pad = type(self).__name__, kernel_size // 2
        widths = [in_channels, *channels]
        down, up = [], []
        for c_in, c_out in zip(widths[:-1], widths[1:]):
            down += [Conv2d(c_in, c_out, kernel_size, stride=2, padding=pad),
                     make_activation(activation, name)]
        for c_in, c_out in zip(widths[:0:-1], widths[-2::-1]):
            up += [ConvTranspose2d(c_in, c_out, kernel_size, stride=2, padding=pad,
                                   output_padding=1), make_activation(activation, name)]
        up[-1] = make_activation(output_activation, name)
        self.encoder = Sequential(*down)
        self.decoder = Sequential(*(m for m in up if m is not None))
        self.levels = len(channels)

    def encode(self, x):
        x = as_tensor(x)
        factor = 2 ** self.levels
        if x.ndim != 4 or x.shape[-1] % factor or x.shape[-2] % factor:
            raise ValueError(f"ConvAutoencoder: input must be (N, C, H, W) with H and W "
                             f"divisible by {factor} (2 ** {self.levels} levels), got shape "
                             f"{tuple(x.shape)}; reshape flat images, e.g. x.reshape(-1, 1, 8, 8)")
        return self.encoder(x)
