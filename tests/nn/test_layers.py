"""Every layer: float64 gradcheck on a small instance, and parity with the same PyTorch module
after copying its weights through load_state_dict."""
import numpy as np
import pytest

from dagrad import autograd as ag
from dagrad import nn
from tests.helpers import module_parity, torch_or_skip

RNG = np.random.default_rng(0)


def _x(*shape, seed=0):
    return np.random.default_rng(seed).standard_normal(shape)


# (name, our module factory, torch module factory (torch) -> module, input arrays)
LAYERS = [
    ("Linear", lambda: nn.Linear(4, 3), lambda t: t.nn.Linear(4, 3), [_x(5, 4)]),
    ("Linear-nobias", lambda: nn.Linear(4, 3, bias=False),
     lambda t: t.nn.Linear(4, 3, bias=False), [_x(2, 5, 4)]),
    ("Identity", nn.Identity, lambda t: t.nn.Identity(), [_x(3, 2)]),
    ("Flatten", nn.Flatten, lambda t: t.nn.Flatten(), [_x(2, 3, 2, 2)]),
    ("Flatten-1-2", lambda: nn.Flatten(1, 2), lambda t: t.nn.Flatten(1, 2), [_x(2, 3, 2, 2)]),
    ("Unflatten", lambda: nn.Unflatten(1, (2, 3)), lambda t: t.nn.Unflatten(1, (2, 3)),
     [_x(2, 6)]),
    ("ReLU", nn.ReLU, lambda t: t.nn.ReLU(), [_x(4, 5)]),
    ("LeakyReLU", lambda: nn.LeakyReLU(0.2), lambda t: t.nn.LeakyReLU(0.2), [_x(4, 5)]),
    ("PReLU", nn.PReLU, lambda t: t.nn.PReLU(), [_x(4, 5)]),
    ("PReLU-channels", lambda: nn.PReLU(3, init=0.1), lambda t: t.nn.PReLU(3, init=0.1),
     [_x(2, 3, 4)]),
    ("ELU", lambda: nn.ELU(0.7), lambda t: t.nn.ELU(0.7), [_x(4, 5)]),
    ("GELU", nn.GELU, lambda t: t.nn.GELU(), [_x(4, 5)]),
    ("GELU-tanh", lambda: nn.GELU("tanh"), lambda t: t.nn.GELU("tanh"), [_x(4, 5)]),
    ("SiLU", nn.SiLU, lambda t: t.nn.SiLU(), [_x(4, 5)]),
    ("Sigmoid", nn.Sigmoid, lambda t: t.nn.Sigmoid(), [_x(4, 5)]),
    ("Tanh", nn.Tanh, lambda t: t.nn.Tanh(), [_x(4, 5)]),
    ("Hardtanh", lambda: nn.Hardtanh(-0.5, 0.8), lambda t: t.nn.Hardtanh(-0.5, 0.8),
     [_x(4, 5)]),
    ("Softplus", lambda: nn.Softplus(2.0, 3.0), lambda t: t.nn.Softplus(2.0, 3.0),
     [_x(4, 5)]),
    ("Softmax", lambda: nn.Softmax(dim=1), lambda t: t.nn.Softmax(dim=1), [_x(3, 4, 2)]),
    ("Softmax-last", lambda: nn.Softmax(dim=-1), lambda t: t.nn.Softmax(dim=-1), [_x(3, 4)]),
    ("LogSoftmax", lambda: nn.LogSoftmax(dim=1), lambda t: t.nn.LogSoftmax(dim=1),
     [_x(3, 4)]),
    ("Dropout-eval", lambda: nn.Dropout(0.5).eval(), lambda t: t.nn.Dropout(0.5).eval(),
     [_x(4, 5)]),
    ("BatchNorm1d-train", lambda: nn.BatchNorm1d(3), lambda t: t.nn.BatchNorm1d(3),
     [_x(6, 3)]),
    ("BatchNorm1d-3d-train", lambda: nn.BatchNorm1d(3), lambda t: t.nn.BatchNorm1d(3),
     [_x(4, 3, 5)]),
    ("BatchNorm1d-noaffine", lambda: nn.BatchNorm1d(3, affine=False),
     lambda t: t.nn.BatchNorm1d(3, affine=False), [_x(6, 3)]),
    ("BatchNorm1d-nostats", lambda: nn.BatchNorm1d(3, track_running_stats=False).eval(),
     lambda t: t.nn.BatchNorm1d(3, track_running_stats=False).eval(), [_x(6, 3)]),
    ("BatchNorm2d-train", lambda: nn.BatchNorm2d(2), lambda t: t.nn.BatchNorm2d(2),
     [_x(3, 2, 3, 3)]),
    ("LayerNorm", lambda: nn.LayerNorm(5), lambda t: t.nn.LayerNorm(5), [_x(3, 5)]),
    ("LayerNorm-2d", lambda: nn.LayerNorm((3, 4)), lambda t: t.nn.LayerNorm((3, 4)),
     [_x(2, 3, 4)]),
    ("LayerNorm-noaffine", lambda: nn.LayerNorm(4, elementwise_affine=False),
     lambda t: t.nn.LayerNorm(4, elementwise_affine=False), [_x(3, 4)]),
    ("LayerNorm-nobias", lambda: nn.LayerNorm(4, bias=False),
     lambda t: t.nn.LayerNorm(4, bias=False), [_x(3, 4)]),
    ("Embedding", lambda: nn.Embedding(6, 3), lambda t: t.nn.Embedding(6, 3),
     [np.array([[0, 2, 5], [2, 2, 1]])]),
    ("Embedding-padding", lambda: nn.Embedding(6, 3, padding_idx=2),
     lambda t: t.nn.Embedding(6, 3, padding_idx=2), [np.array([[0, 2, 5], [2, 2, 1]])]),
    ("Sequential", lambda: nn.Sequential(nn.Linear(4, 5), nn.Tanh(), nn.Linear(5, 2)),
     lambda t: t.nn.Sequential(t.nn.Linear(4, 5), t.nn.Tanh(), t.nn.Linear(5, 2)),
     [_x(3, 4)]),
    ("MLP-batchnorm", lambda: nn.models.MLP([4, 6, 3], norm="batch"),
     lambda t: t.nn.Sequential(t.nn.Linear(4, 6), t.nn.BatchNorm1d(6), t.nn.ReLU(),
                               t.nn.Linear(6, 3)), [_x(5, 4)]),
    ("MLP-layernorm", lambda: nn.models.MLP([4, 6, 3], "gelu", norm="layer"),
     lambda t: t.nn.Sequential(t.nn.Linear(4, 6), t.nn.LayerNorm(6), t.nn.GELU(),
                               t.nn.Linear(6, 3)), [_x(5, 4)]),
]
IDS = [case[0] for case in LAYERS]


def _perturb(module):
    """Move parameters away from their (often symmetric) initial values."""
    rng = np.random.default_rng(3)
    for p in module.parameters():
        p.numpy()[...] = p.numpy() + rng.uniform(-0.3, 0.3, p.shape)
    return module


@pytest.mark.parametrize("name,ours,theirs,arrays", LAYERS, ids=IDS)
def test_gradcheck(name, ours, theirs, arrays):
    if name == "Embedding-padding":
        pytest.skip("the padding row's gradient is zero by definition, not the numerical "
                    "derivative; see test_embedding_padding_row_gets_no_gradient")
    module = _perturb(ours().double())
    xs = [ag.tensor(a, requires_grad=np.issubdtype(a.dtype, np.floating)) for a in arrays]
    wrt = [x for x in xs if x.requires_grad] + list(module.parameters())
    assert ag.gradcheck(lambda *_: module(*xs), wrt)


@pytest.mark.parametrize("name,ours,theirs,arrays", LAYERS, ids=IDS)
def test_matches_pytorch(name, ours, theirs, arrays):
    torch = torch_or_skip()
    torch.manual_seed(0)
    reference = theirs(torch)
    with torch.no_grad():
        for p in reference.parameters():
            p.add_(torch.empty_like(p).uniform_(-0.3, 0.3))
    module_parity(ours(), reference, arrays)


@pytest.mark.parametrize("momentum,affine,shape", [(0.1, True, (8, 4)), (None, True, (8, 4)),
                                                   (0.3, False, (5, 4, 3))])
def test_batchnorm_running_statistics_match_pytorch_after_several_steps(momentum, affine,
                                                                        shape):
    torch = torch_or_skip()
    theirs = torch.nn.BatchNorm1d(4, momentum=momentum, affine=affine).double()
    with torch.no_grad():
        for p in theirs.parameters():
            p.add_(torch.linspace(-0.3, 0.4, 4, dtype=torch.float64))
    ours = nn.BatchNorm1d(4, momentum=momentum, affine=affine).double()
    ours.load_state_dict({k: v.numpy() for k, v in theirs.state_dict().items()})
    for step in range(5):
        x = np.random.default_rng(step).normal(step, 1 + step, shape)
        xs, ts = ag.tensor(x, requires_grad=True), torch.tensor(x, requires_grad=True)
        w = np.random.default_rng(10 + step).standard_normal(shape)
        (ours(xs) * ag.tensor(w)).sum().backward()
        (theirs(ts) * torch.tensor(w)).sum().backward()
        np.testing.assert_allclose(xs.grad.numpy(), ts.grad.numpy(), rtol=1e-9, atol=1e-12)
    for name, p in theirs.named_parameters():      # gradients accumulated over the 5 steps
        np.testing.assert_allclose(getattr(ours, name).grad.numpy(), p.grad.numpy(), rtol=1e-9,
                                   err_msg=name)
    assert list(ours.state_dict()) == list(theirs.state_dict())
    for name, value in theirs.state_dict().items():
        np.testing.assert_allclose(ours.state_dict()[name].numpy(), value.numpy(), rtol=1e-12,
                                   err_msg=name)
    assert ours.num_batches_tracked.item() == 5
    ours.eval(), theirs.eval()
    x = np.random.default_rng(9).standard_normal((3,) + shape[1:])
    np.testing.assert_allclose(ours(ag.tensor(x)).numpy(),
                               theirs(torch.tensor(x)).detach().numpy(), rtol=1e-10)


def test_batchnorm_uses_batch_statistics_in_train_and_running_ones_in_eval():
    bn = nn.BatchNorm1d(2)
    x = ag.tensor([[1.0, 10.0], [3.0, 30.0]])           # float32, as the layer
    y_train = bn(x).numpy()
    np.testing.assert_allclose(y_train.mean(0), 0, atol=1e-6)   # normalised by the batch
    np.testing.assert_allclose(bn.running_mean.numpy(), [0.2, 2.0], rtol=1e-6)
    assert bn.num_batches_tracked.item() == 1
    bn.eval()
    y_eval = bn(x).numpy()
    expected = (x.numpy() - bn.running_mean.numpy()) / np.sqrt(bn.running_var.numpy() + bn.eps)
    np.testing.assert_allclose(y_eval, expected, rtol=1e-6)
    assert not np.allclose(y_train, y_eval)
    bn(x)
    assert bn.num_batches_tracked.item() == 1      # eval does not update statistics


def test_batchnorm_rejects_wrong_input_and_single_sample_training():
    bn = nn.BatchNorm1d(3)
    with pytest.raises(ValueError, match="3 channels"):
        bn(ag.randn(4, 2))
    with pytest.raises(ValueError, match="more than 1 value per channel"):
        bn(ag.randn(1, 3))
    bn.eval()
    assert bn(ag.randn(1, 3)).shape == (1, 3)


def test_dropout_trains_and_evaluates_differently():
    ag.manual_seed(0)
    drop = nn.Dropout(0.25)
    x = ag.ones(200, 50)
    y = drop(x).numpy()
    kept = y != 0
    assert 0.7 < kept.mean() < 0.8                      # about 1 - p kept
    np.testing.assert_allclose(y[kept], 1 / 0.75, rtol=1e-6)   # inverted scaling
    assert abs(y.mean() - 1) < 0.02                     # expectation preserved
    drop.eval()
    assert drop(x) is x or np.array_equal(drop(x).numpy(), x.numpy())
    assert y.dtype == np.float32


def test_dropout_gradient_flows_only_through_kept_elements():
    ag.manual_seed(1)
    x = ag.ones(10, 10, requires_grad=True)
    y = nn.Dropout(0.5)(x)
    y.sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), y.numpy())   # mask / (1 - p) either way
    with pytest.raises(ValueError, match="in \\[0, 1\\]"):
        nn.Dropout(1.5)


def test_embedding_padding_row_gets_no_gradient_and_checks_indices():
    emb = nn.Embedding(5, 2, padding_idx=0)
    np.testing.assert_array_equal(emb.weight.numpy()[0], 0)
    out = emb(ag.tensor(np.array([0, 1, 1, 4])))
    out.sum().backward()
    np.testing.assert_array_equal(emb.weight.grad.numpy()[:, 0], [0, 2, 0, 0, 1])
    with pytest.raises(IndexError, match="out of range for 5"):
        emb(ag.tensor(np.array([5])))
    with pytest.raises(IndexError, match="out of range"):
        emb(ag.tensor(np.array([-1])))
    with pytest.raises(TypeError, match="integers"):
        emb(ag.tensor([0.0]))


def test_embedding_from_pretrained_is_frozen_by_default():
    w = ag.tensor(np.arange(6.0).reshape(3, 2))
    emb = nn.Embedding.from_pretrained(w)
    assert not emb.weight.requires_grad
    np.testing.assert_array_equal(emb(ag.tensor(np.array([2]))).numpy(), [[4.0, 5.0]])


def test_linear_default_initialisation_follows_pytorch_bounds():
    ag.manual_seed(0)
    layer = nn.Linear(100, 50)
    bound = 1 / np.sqrt(100)
    for p in (layer.weight, layer.bias):
        assert np.abs(p.numpy()).max() <= bound
        assert np.abs(p.numpy()).max() > 0.9 * bound
    assert layer.weight.dtype == np.float32
    assert layer.weight.shape == (50, 100)


def test_layers_keep_float32():
    x = ag.randn(4, 6)
    for m in [nn.Linear(6, 3), nn.LayerNorm(6), nn.BatchNorm1d(6), nn.GELU(), nn.SiLU(),
              nn.PReLU(), nn.Softplus(), nn.Dropout(0.3), nn.ELU(), nn.Hardtanh()]:
        assert m(x).dtype == np.float32, type(m).__name__


def test_layernorm_checks_normalized_shape():
    with pytest.raises(ValueError, match="normalized_shape"):
        nn.LayerNorm(4)(ag.randn(2, 5))


def test_softmax_without_dim_follows_pytorch_rule():
    torch = torch_or_skip()
    for shape in [(4,), (3, 4), (2, 3, 4), (2, 3, 4, 2)]:
        x = _x(*shape)
        with pytest.warns(UserWarning):
            expected = torch.nn.Softmax()(torch.tensor(x)).numpy()
        np.testing.assert_allclose(nn.Softmax()(ag.tensor(x)).numpy(), expected, rtol=1e-12)
