"""The vision transformer: shapes, the two patch embeddings are one function, parity with the same
model built from PyTorch modules, position embeddings break permutation invariance, float64
gradcheck, and at least 90% test accuracy on the digits."""
import numpy as np
import pytest

from dagrad import autograd as ag
from dagrad import nn
import dagrad.nn.functional as F
from dagrad import optim
from dagrad.nn.models import ViT
from dagrad.nn.training import accuracy
from tests.helpers import (module_parity, one_blas_thread, one_torch_thread,  # noqa: F401
                           torch_or_skip)

pytestmark = pytest.mark.usefixtures("one_torch_thread", "one_blas_thread")

X = np.random.default_rng(0).random((3, 1, 8, 8))          # float64: .double() models


def _vit(**kw):
    args = dict(image_size=8, patch_size=2, dim=16, depth=2, heads=4, mlp_dim=32)
    args.update(kw)
    return ViT(**args)


@pytest.mark.parametrize("patch_embedding", ["conv", "linear"])
@pytest.mark.parametrize("pool", ["cls", "mean"])
def test_shapes(patch_embedding, pool):
    m = _vit(patch_embedding=patch_embedding, pool=pool, num_classes=7).double()
    assert m.num_patches == 16
    assert m.patches(X).shape == (3, 16, 16)
    assert m.features(X).shape == (3, 17, 16)
    assert m(X).shape == (3, 7)
    assert m(X.reshape(3, 64)).shape == (3, 7)          # flat digit rows are accepted
    assert m.float()(X.astype(np.float32)).dtype == np.float32


def test_conv_and_unfold_linear_patch_embeddings_are_the_same_function():
    conv, lin = _vit(patch_embedding="conv").double(), _vit(patch_embedding="linear").double()
    state = conv.state_dict()
    state["patch_embed.weight"] = state["patch_embed.weight"].reshape(16, 4)
    lin.load_state_dict(state)
    np.testing.assert_allclose(lin.patches(X).numpy(), conv.patches(X).numpy(), rtol=1e-12)
    np.testing.assert_allclose(lin(X).numpy(), conv(X).numpy(), rtol=1e-10)


def test_parity_with_the_same_model_in_pytorch():
    torch = torch_or_skip()
    tnn = torch.nn

    class TorchViT(tnn.Module):
        def __init__(self, dim=16, depth=2, heads=4, mlp_dim=32, classes=10):
            super().__init__()
            self.patch_embed = tnn.Conv2d(1, dim, 2, stride=2)
            self.cls_token = tnn.Parameter(0.02 * torch.randn(1, 1, dim))
            self.pos_embed = tnn.Parameter(0.02 * torch.randn(1, 17, dim))
            layer = tnn.TransformerEncoderLayer(dim, heads, mlp_dim, 0.0, activation="gelu",
                                                batch_first=True, norm_first=True)
            self.encoder = tnn.TransformerEncoder(layer, depth, norm=tnn.LayerNorm(dim),
                                                  enable_nested_tensor=False)
            self.head = tnn.Linear(dim, classes)

        def forward(self, x):
            e = self.patch_embed(x).flatten(2).transpose(1, 2)
            z = torch.cat([self.cls_token.expand(len(e), -1, -1), e], 1) + self.pos_embed
            return self.head(self.encoder(z)[:, 0])

    torch.manual_seed(0)
    module_parity(_vit(), TorchViT(), [X], rtol=1e-9, atol=1e-11)


def test_position_embeddings_make_the_model_see_where_patches_are():
    """Without position information, a mean-pooled transformer cannot tell a permutation of
    the patches from the original; with learned position embeddings it can."""
    ag.manual_seed(0)
    m = _vit(pool="mean").double().eval()
    perm = np.random.default_rng(1).permutation(16)
    e = m.patches(X)

    def logits(e):
        z = ag.cat([m.cls_token.expand((3, 1, 16)), e], 1) + m.pos_embed
        return m.head(m.encoder(z)[:, 1:].mean(1)).numpy()

    assert not np.allclose(logits(e[:, perm]), logits(e))
    with ag.no_grad():
        m.pos_embed.zero_()
    np.testing.assert_allclose(logits(e[:, perm]), logits(e), rtol=1e-10)


def test_gradcheck():
    ag.manual_seed(0)
    m = ViT(image_size=4, patch_size=2, num_classes=3, dim=4, depth=1, heads=2,
            mlp_dim=6).double()
    x = ag.tensor(np.random.default_rng(2).random((2, 1, 4, 4)), requires_grad=True)
    assert ag.gradcheck(lambda x, *ps: m(x), [x, *m.parameters()])


@pytest.mark.slow
def test_reaches_90_percent_on_the_digits():
    X_all, y_all = nn.datasets.load_digits()
    X_train, X_test, y_train, y_test = nn.datasets.train_test_split(X_all, y_all, seed=0)
    ag.manual_seed(0)
    m = ViT(patch_size=4, dim=32, depth=1, heads=4, mlp_dim=64)     # 4 patches of 4x4
    opt = optim.AdamW(m.parameters(), lr=3e-3, weight_decay=0.05)
    epochs = 15
    sched = optim.lr_scheduler.CosineAnnealingLR(opt, epochs)
    loader = nn.data.DataLoader(nn.data.TensorDataset(X_train, y_train), batch_size=64,
                                shuffle=True, seed=0)
    for _ in range(epochs):
        for xb, yb in loader:
            loss = F.cross_entropy(m(xb), yb)
            opt.zero_grad()
            loss.backward()
            opt.step()
        sched.step()
    m.eval()
    with ag.no_grad():
        test_accuracy = accuracy(m(X_test), y_test)
    assert test_accuracy >= 0.9                            # measured: 0.97


def test_errors():
    with pytest.raises(ValueError, match="divide"):
        ViT(image_size=8, patch_size=3)
    with pytest.raises(ValueError, match="patch_embedding"):
        ViT(patch_embedding="mlp")
    with pytest.raises(ValueError, match=r"\(N, 1, 8, 8\)"):
        _vit()(np.zeros((2, 1, 6, 6)))
