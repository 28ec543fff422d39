"""Lazy layers: the input size comes from the first call; then they are the layer they stand
for, initialised as it is, and train as PyTorch's do given the same weights."""
import numpy as np
import pytest

from dagrad import autograd as ag
from dagrad import nn, optim
from tests.facade.programs import compare

RNG = np.random.default_rng(1)
IMAGES = RNG.standard_normal((4, 2, 6, 6)).astype(np.float32)
LABELS = np.array([0, 2, 1, 2])

LAZY_CNN = """
import torch
import torch.nn as nn

net = nn.Sequential(nn.LazyConv2d(3, kernel_size=3, padding=1), nn.LazyBatchNorm2d(), nn.ReLU(),
                    nn.LazyConvTranspose2d(2, 2, stride=2), nn.Flatten(),
                    nn.LazyLinear(5), nn.ReLU(), nn.LazyLinear(3))
opt = torch.optim.SGD(net.parameters(), lr=0.1, momentum=0.9)   # before the first call
X, y = torch.tensor(images), torch.tensor(labels)
net(X)                                             # infers every input size
shapes = [list(p.shape) for p in net.parameters()]
with torch.no_grad():
    for i, p in enumerate(net.parameters()):
        p.copy_(torch.tensor(np.sin(np.arange(p.numel()) + i).reshape(p.shape) * 0.3))
net[1].reset_running_stats()                       # forget the statistics of the first call
losses = []
for step in range(3):
    opt.zero_grad()
    loss = nn.functional.cross_entropy(net(X), y)
    loss.backward()
    opt.step()
    losses.append(loss.item())
result = {"shapes": sum(shapes, []), "losses": losses, "w": net[5].weight,
          "types": [type(m).__name__ == n for m, n in zip(net, ["Conv2d", "BatchNorm2d"])],
          "running_var": net[1].running_var}
"""


def test_lazy_model_trains_like_pytorch():
    compare(LAZY_CNN, images=IMAGES, labels=LABELS, np=np)


def test_first_call_initialises_as_the_eager_layer_does():
    ag.manual_seed(7)
    lazy = nn.LazyLinear(3)
    lazy(ag.zeros(2, 5))
    ag.manual_seed(7)
    eager = nn.Linear(5, 3)
    np.testing.assert_array_equal(lazy.weight.numpy(), eager.weight.numpy())
    np.testing.assert_array_equal(lazy.bias.numpy(), eager.bias.numpy())
    assert type(lazy) is nn.Linear and lazy.in_features == 5 and "_args" not in vars(lazy)


def test_an_optimizer_made_before_the_first_call_updates_the_materialised_parameters():
    model = nn.Sequential(nn.LazyLinear(4), nn.ReLU(), nn.LazyLinear(1))
    opt = optim.SGD(model.parameters(), lr=0.5)
    opt.step()                                         # no gradients yet: nothing to do
    x = ag.randn(8, 3)
    model(x).sum().backward()
    before = model[0].weight.numpy().copy()
    opt.step()
    assert not np.allclose(before, model[0].weight.numpy())


@pytest.mark.parametrize("use", [lambda p: p.numel(), lambda p: p.shape, lambda p: p * 2,
                                 lambda p: p.numpy()])
def test_an_uninitialised_parameter_refuses_to_be_used(use):
    layer = nn.LazyConv1d(4, 3)
    with pytest.raises(ValueError, match="uninitialized parameter.*call the model on a batch"):
        use(layer.weight)
    with pytest.raises(ValueError, match="uninitialized parameter"):
        layer.state_dict()


def test_writing_through_data_before_the_first_call_changes_nothing_as_in_pytorch():
    layer = nn.LazyLinear(1)
    layer.weight.data.normal_(0, 0.01)
    layer.bias.data.fill_(0)
    assert layer.weight.data.shape == (0,)
    layer(ag.ones(2, 3))
    assert layer.weight.shape == (1, 3) and layer.bias.shape == (1,)


def test_a_lazy_model_is_saved_once_it_has_seen_an_input(tmp_path):
    from dagrad import torch
    model = nn.Sequential(nn.LazyLinear(2))
    with pytest.raises(TypeError, match="lazy layer that has not seen an input"):
        torch.save(model, str(tmp_path / "m.pt"))
    model(ag.ones(1, 3))
    torch.save(model, str(tmp_path / "m.pt"))
    assert torch.load(str(tmp_path / "m.pt"))[0].weight.shape == (2, 3)


def test_unbatched_inputs_and_batch_norm_1d():
    conv = nn.LazyConv1d(2, 3)
    assert conv(ag.randn(5, 9)).shape == (2, 7) and conv.in_channels == 5
    norm = nn.LazyBatchNorm1d(affine=False)
    assert norm(ag.randn(6, 4)).shape == (6, 4) and norm.num_features == 4
    assert norm.weight is None and norm.running_mean.shape == (4,)


def test_loading_a_checkpoint_materialises_lazy_layers_with_its_sizes():
    trained = nn.Sequential(nn.Conv2d(3, 4, 3, groups=1), nn.BatchNorm2d(4), nn.Flatten(),
                            nn.Linear(36, 2), nn.ConvTranspose2d(5, 2, 2))
    lazy = nn.Sequential(nn.LazyConv2d(4, 3), nn.LazyBatchNorm2d(), nn.Flatten(),
                         nn.LazyLinear(2), nn.LazyConvTranspose2d(2, 2))
    lazy.load_state_dict(trained.state_dict())
    assert [type(m).__name__ for m in lazy] == ["Conv2d", "BatchNorm2d", "Flatten", "Linear",
                                                "ConvTranspose2d"]
    x = ag.randn(2, 3, 5, 5)
    trained.eval(), lazy.eval()
    np.testing.assert_array_equal(lazy[:4](x).numpy(), trained[:4](x).numpy())
    assert lazy[4].in_channels == 5
    grouped = nn.LazyConv1d(4, 3, groups=2)
    grouped.load_state_dict(nn.Conv1d(6, 4, 3, groups=2).state_dict())
    assert grouped.in_channels == 6
