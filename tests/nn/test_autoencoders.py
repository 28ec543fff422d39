"""Autoencoders: the linear one finds PCA's subspace, the denoising one denoises, the sparse one
reaches its target activation; layouts match the same stacks in PyTorch; float64 gradcheck of
every model's loss."""
import numpy as np
import pytest

from dagrad import autograd as ag
from dagrad import nn
from dagrad import optim
from dagrad.nn.models import (Autoencoder, ConvAutoencoder, DenoisingAutoencoder, LinearAutoencoder,
                       SparseAutoencoder)
from tests.helpers import (module_parity, one_blas_thread, one_torch_thread,  # noqa: F401
                           torch_or_skip)

pytestmark = pytest.mark.usefixtures("one_torch_thread", "one_blas_thread")


@pytest.fixture(scope="module")
def digits():
    X, _ = nn.datasets.load_digits()
    return X


def fit(model, x, steps, lr):
    """Full-batch Adam on model.loss; returns the last (loss, parts)."""
    opt = optim.Adam(model.parameters(), lr=lr)
    for _ in range(steps):
        loss, parts = model.loss(x)
        opt.zero_grad()
        loss.backward()
        opt.step()
    return loss, parts


def largest_principal_angle(a, b):
    """Largest angle (degrees) between the column spaces of a and b: with orthonormal bases
    Q₁, Q₂, the cosines of the principal angles are the singular values of Q₁ᵀQ₂."""
    q1, _ = np.linalg.qr(a)
    q2, _ = np.linalg.qr(b)
    cosines = np.linalg.svd(q1.T @ q2, compute_uv=False)
    return float(np.degrees(np.arccos(np.clip(cosines.min(), -1.0, 1.0))))


def test_principal_angle_helper():
    e = np.eye(3)
    assert largest_principal_angle(e[:, :2], e[:, :2] @ [[2, 1], [0, 3]]) < 1e-6
    assert largest_principal_angle(e[:, :2], e[:, [0, 2]]) == pytest.approx(90)
    tilted = np.stack([e[0], np.cos(0.3) * e[1] + np.sin(0.3) * e[2]], 1)
    assert largest_principal_angle(e[:, :2], tilted) == pytest.approx(np.degrees(0.3))


# ------------------------------------------------------------------------- linear = PCA
@pytest.mark.slow
def test_linear_autoencoder_spans_the_top_two_principal_components(digits):
    centred = digits - digits.mean(0)
    _, _, vt = np.linalg.svd(centred, full_matrices=False)
    ag.manual_seed(0)
    model = LinearAutoencoder(64, 2)
    loss, _ = fit(model, ag.tensor(centred), steps=300, lr=0.05)
    angle = largest_principal_angle(model.decoder.weight.numpy(), vt[:2].T)
    assert angle < 5.0, f"decoder columns are {angle:.2f}° away from PCA's top-2 subspace"
    # and the error is PCA's: the variance left outside the top two components
    pca_error = np.mean((centred - centred @ vt[:2].T @ vt[:2]) ** 2)
    assert loss.item() == pytest.approx(pca_error, rel=1e-3)


def test_linear_autoencoder_layout():
    model = LinearAutoencoder(6, 2)
    assert isinstance(model.encoder, nn.Linear) and isinstance(model.decoder, nn.Linear)
    assert {k: v.shape for k, v in model.state_dict().items()} == {
        "encoder.weight": (2, 6), "encoder.bias": (2,),
        "decoder.weight": (6, 2), "decoder.bias": (6,)}
    x = ag.randn(3, 6)
    np.testing.assert_allclose(model(x).numpy(), model.decode(model.encode(x)).numpy())
    assert [n for n, _ in LinearAutoencoder(6, 2, bias=False).named_parameters()] == [
        "encoder.weight", "decoder.weight"]


# ------------------------------------------------------------- layouts match PyTorch
def torch_autoencoder(torch, encoder, decoder):
    """A torch.nn.Module with ``encoder`` and ``decoder`` children: x -> decoder(encoder(x))."""
    class Reference(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.encoder, self.decoder = encoder, decoder

        def forward(self, x):
            return self.decoder(self.encoder(x))

    return Reference()


def test_autoencoder_matches_pytorch_stack():
    torch = torch_or_skip()
    t = torch.nn
    reference = torch_autoencoder(
        torch, t.Sequential(t.Linear(6, 5), t.Tanh(), t.Linear(5, 4), t.Tanh(), t.Linear(4, 3),
                            t.Sigmoid()),
        t.Sequential(t.Linear(3, 4), t.Tanh(), t.Linear(4, 5), t.Tanh(), t.Linear(5, 6),
                     t.Sigmoid()))
    ours = Autoencoder(6, (5, 4), 3, activation="tanh", latent_activation="sigmoid",
                       output_activation="sigmoid")
    module_parity(ours, reference, [np.random.default_rng(0).standard_normal((4, 6))])


def test_conv_autoencoder_matches_pytorch_stack():
    torch = torch_or_skip()
    t = torch.nn
    reference = torch_autoencoder(
        torch, t.Sequential(t.Conv2d(2, 3, 3, 2, 1), t.ReLU(), t.Conv2d(3, 4, 3, 2, 1), t.ReLU()),
        t.Sequential(t.ConvTranspose2d(4, 3, 3, 2, 1, 1), t.ReLU(),
                     t.ConvTranspose2d(3, 2, 3, 2, 1, 1), t.Sigmoid()))
    ours = ConvAutoencoder(2, (3, 4), output_activation="sigmoid")
    out, _ = module_parity(ours, reference, [np.random.default_rng(0).standard_normal(
        (2, 2, 8, 4))])
    assert out.shape == (2, 2, 8, 4)
    assert ours.encode(ag.randn(2, 2, 8, 4, dtype=np.float64)).shape == (2, 4, 2, 1)


def test_autoencoder_default_has_linear_code_and_output():
    model = Autoencoder(8, hidden=4, latent=2)
    assert [type(m).__name__ for m in model.encoder] == ["Linear", "ReLU", "Linear"]
    assert [type(m).__name__ for m in model.decoder] == ["Linear", "ReLU", "Linear"]
    assert [type(m).__name__ for m in Autoencoder(8, (), 2).encoder] == ["Linear"]


# --------------------------------------------------------------------------- gradcheck
GRADCHECK_MODELS = [
    ("linear", lambda: LinearAutoencoder(5, 2)),
    ("deep", lambda: Autoencoder(5, (4,), 2, activation="tanh", output_activation="sigmoid")),
    ("denoising-gaussian", lambda: DenoisingAutoencoder(5, 3, 2, activation="tanh")),
    ("denoising-masking", lambda: DenoisingAutoencoder(5, 3, 2, noise="masking",
                                                       noise_level=0.4, activation="tanh")),
    ("sparse-kl", lambda: SparseAutoencoder(5, latent=6)),
    ("sparse-l1", lambda: SparseAutoencoder(5, (4,), 3, penalty="l1", activation="tanh",
                                            latent_activation="tanh")),
    ("conv", lambda: ConvAutoencoder(1, (2,), activation="tanh")),
]


@pytest.mark.parametrize("name, make", GRADCHECK_MODELS, ids=[m[0] for m in GRADCHECK_MODELS])
def test_loss_gradcheck(name, make):
    ag.manual_seed(0)
    model = make().double()
    shape = (2, 1, 4, 2) if name == "conv" else (3, 5)
    x = ag.tensor(np.random.default_rng(1).uniform(0.05, 0.95, shape), requires_grad=True)

    def loss(x, *params):
        ag.manual_seed(7)                   # the same corruption on every evaluation
        return model.loss(x)[0]

    assert ag.gradcheck(loss, [x, *model.parameters()])


# --------------------------------------------------------------------------- denoising
@pytest.mark.parametrize("noise, level", [("gaussian", 0.3), ("masking", 0.3)])
def test_denoising_output_is_closer_to_clean_digits_than_its_noisy_input(digits, noise, level):
    ag.manual_seed(0)
    model = DenoisingAutoencoder(64, (64,), 16, noise=noise, noise_level=level,
                                 output_activation="sigmoid")
    fit(model, ag.tensor(digits[:512]), steps=200, lr=1e-2)
    ag.manual_seed(1)                       # noise (and 1285 digits) the model has not seen
    x = ag.tensor(digits)
    with ag.no_grad():
        noisy = model.corrupt(x)
        denoised = model(noisy)
    d_noisy = np.sqrt(np.mean((noisy.numpy() - digits) ** 2))
    d_denoised = np.sqrt(np.mean((denoised.numpy() - digits) ** 2))
    assert d_denoised < 0.7 * d_noisy, (d_denoised, d_noisy)


def test_corruption():
    x = ag.ones(400, 50)
    ag.manual_seed(0)
    gaussian = DenoisingAutoencoder(50, noise_level=0.2).corrupt(x)
    assert gaussian.dtype == np.float32 and gaussian.shape == x.shape
    assert np.std(gaussian.numpy() - 1) == pytest.approx(0.2, rel=0.02)
    masked = DenoisingAutoencoder(50, noise="masking", noise_level=0.25).corrupt(x)
    assert masked.dtype == np.float32 and set(np.unique(masked.numpy())) == {0.0, 1.0}
    assert np.mean(masked.numpy() == 0) == pytest.approx(0.25, abs=0.01)
    model = DenoisingAutoencoder(50)       # forward itself never corrupts
    np.testing.assert_array_equal(model(x).numpy(), model.decode(model.encode(x)).numpy())


@pytest.mark.parametrize("noise", ["gaussian", "masking"])
def test_denoising_loss_compares_the_output_for_the_corrupted_input_with_the_clean_one(noise):
    """L = mean((g(f(x̃)) - x)²): the same corruption drawn again gives the same loss, and
    it is measured against the clean x, not against x̃."""
    ag.manual_seed(0)
    model = DenoisingAutoencoder(6, (5,), 3, noise=noise, noise_level=0.5).double()
    x = ag.tensor(np.random.default_rng(2).uniform(0.1, 0.9, (8, 6)))
    ag.manual_seed(3)
    loss, parts = model.loss(x)
    ag.manual_seed(3)
    noisy = model.corrupt(x)
    out = model(noisy).numpy()
    assert not np.allclose(noisy.numpy(), x.numpy())
    assert loss.item() == pytest.approx(np.mean((out - x.numpy()) ** 2), rel=1e-12)
    assert loss.item() != pytest.approx(np.mean((out - noisy.numpy()) ** 2), rel=1e-3)
    assert parts["reconstruction"] is loss


# ------------------------------------------------------------------------------ sparse
@pytest.mark.slow
def test_sparse_autoencoder_mean_activation_approaches_target(digits):
    ag.manual_seed(0)
    model = SparseAutoencoder(64, latent=64, sparsity_target=0.05, sparsity_weight=0.1)
    x = ag.tensor(digits)
    with ag.no_grad():
        before = model.encode(x).numpy().mean()
    _, parts = fit(model, x, steps=400, lr=1e-2)
    with ag.no_grad():
        per_unit = model.encode(x).numpy().mean(0)
    assert before > 0.3
    assert abs(per_unit.mean() - 0.05) < 0.005
    assert np.abs(per_unit - 0.05).max() < 0.02
    # while still reconstructing: well below the error of predicting the mean digit
    assert parts["reconstruction"].item() < 0.7 * digits.var(0).mean()


@pytest.mark.slow
def test_l1_penalty_lowers_activations(digits):
    x = ag.tensor(digits)
    means = []
    for weight in (0.0, 1e-3):
        ag.manual_seed(0)
        model = SparseAutoencoder(64, latent=64, penalty="l1", sparsity_weight=weight)
        fit(model, x, steps=150, lr=3e-3)
        with ag.no_grad():
            means.append(model.encode(x).numpy().mean())
    assert means[1] < 0.6 * means[0], means


def test_sparsity_penalties_match_their_formulas():
    h = np.random.default_rng(0).uniform(0.01, 0.99, (7, 4))
    model = SparseAutoencoder(3, latent=4, sparsity_target=0.1)
    p, q = 0.1, h.mean(0)
    expected = np.sum(p * np.log(p / q) + (1 - p) * np.log((1 - p) / (1 - q)))
    assert model.sparsity(ag.tensor(h)).item() == pytest.approx(expected, rel=1e-12)
    assert model.sparsity(ag.full((5, 4), 0.1, dtype=np.float64)).item() == pytest.approx(0)
    l1 = SparseAutoencoder(3, latent=4, penalty="l1")
    assert l1.sparsity(ag.tensor(h - 0.5)).item() == pytest.approx(
        np.abs(h - 0.5).sum(1).mean(), rel=1e-12)
    loss, parts = model.loss(ag.rand(5, 3))
    assert loss.item() == pytest.approx(parts["reconstruction"].item()
                                        + 0.1 * parts["sparsity"].item(), rel=1e-6)


# ------------------------------------------------------------------------ convolutional
def test_conv_autoencoder_learns_digits(digits):
    ag.manual_seed(0)
    model = ConvAutoencoder(1, (8, 16), output_activation="sigmoid")
    x = ag.tensor(digits[:512].reshape(-1, 1, 8, 8))
    first, _ = model.loss(x)
    last, _ = fit(model, x, steps=60, lr=1e-2)
    assert last.item() < 0.5 * first.item(), (first.item(), last.item())


# ------------------------------------------------------------------------------ errors
@pytest.mark.parametrize("make, message", [
    (lambda: DenoisingAutoencoder(4, noise="salt"), "noise must be one of"),
    (lambda: DenoisingAutoencoder(4, noise="masking", noise_level=1.0), "noise_level"),
    (lambda: SparseAutoencoder(4, penalty="l2"), "penalty must be one of"),
    (lambda: SparseAutoencoder(4, sparsity_target=0.0), "sparsity_target"),
    (lambda: Autoencoder(4, activation="swish"), "unknown activation 'swish'"),
    (lambda: ConvAutoencoder(kernel_size=4), "kernel_size must be odd"),
])
def test_bad_arguments_are_named(make, message):
    with pytest.raises(ValueError, match=message):
        make()


def test_conv_autoencoder_rejects_sizes_it_cannot_restore():
    with pytest.raises(ValueError, match=r"divisible by 4.*reshape flat images"):
        ConvAutoencoder()(ag.randn(2, 1, 6, 8))
    with pytest.raises(ValueError, match="divisible by 4"):
        ConvAutoencoder()(ag.randn(2, 64))
