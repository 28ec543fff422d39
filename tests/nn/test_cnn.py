"""CNN models and helpers: LeNet and VGG against the same PyTorch stacks, a small CNN learning
the 8x8 digits, the depthwise-separable block's parameter count, and the receptive-field helper
against a gradient-based measurement."""
import collections

import numpy as np
import pytest

from dagrad import autograd as ag
from dagrad import nn
from dagrad.nn import functional as F
from dagrad.nn import datasets
from dagrad.nn.data import DataLoader, TensorDataset
from dagrad.nn.utils import POINTWISE, Geometry, receptive_field, receptive_field_table
from tests.helpers import module_parity, one_torch_thread, torch_or_skip  # noqa: F401

pytestmark = pytest.mark.usefixtures("one_torch_thread")


def test_lenet_matches_the_same_pytorch_stack():
    torch = torch_or_skip()
    t = torch.nn
    torch.manual_seed(0)
    theirs = t.Sequential(t.Conv2d(1, 6, 5, padding=2), t.ReLU(), t.MaxPool2d(2, 2),
                          t.Conv2d(6, 16, 5), t.ReLU(), t.MaxPool2d(2, 2), t.Flatten(),
                          t.Linear(400, 120), t.ReLU(), t.Linear(120, 84), t.ReLU(),
                          t.Linear(84, 10))
    x = np.random.default_rng(0).standard_normal((2, 1, 28, 28))
    module_parity(nn.models.LeNet(), theirs, [x])


def test_lenet_classic_form_and_other_input_sizes():
    torch = torch_or_skip()
    t = torch.nn
    theirs = t.Sequential(t.Conv2d(3, 6, 5, padding=2), t.Sigmoid(), t.AvgPool2d(2, 2),
                          t.Conv2d(6, 16, 5), t.Sigmoid(), t.AvgPool2d(2, 2), t.Flatten(),
                          t.Linear(16 * 6 * 7, 120), t.Sigmoid(), t.Linear(120, 84),
                          t.Sigmoid(), t.Linear(84, 5))
    ours = nn.models.LeNet(3, 5, input_size=(32, 36), activation="sigmoid", pool="avg")
    module_parity(ours, theirs, [np.random.default_rng(1).standard_normal((2, 3, 32, 36))])
    with pytest.raises(ValueError, match="too small"):
        nn.models.LeNet(input_size=8)


def test_vgg_with_batch_norm_matches_pytorch_in_train_and_eval():
    torch = torch_or_skip()
    t = torch.nn

    def block(c_in, c_out, n):
        layers = []
        for _ in range(n):
            layers += [t.Conv2d(c_in, c_out, 3, padding=1, bias=False), t.BatchNorm2d(c_out),
                       t.ReLU()]
            c_in = c_out
        return t.Sequential(*layers, t.MaxPool2d(2))

    torch.manual_seed(0)
    theirs = t.Sequential(block(1, 4, 2), block(4, 8, 1), t.Flatten(), t.Linear(8 * 2 * 2, 16),
                          t.ReLU(), t.Linear(16, 10))
    ours = nn.models.VGG(((2, 4), (1, 8)), input_size=8, hidden=(16,))
    x = np.random.default_rng(0).standard_normal((3, 1, 8, 8))
    module_parity(ours, theirs, [x])                     # training mode: batch statistics
    module_parity(ours.eval(), theirs.eval(), [x])       # running statistics


@pytest.mark.slow
def test_small_cnn_learns_the_digits_to_97_percent():
    pytest.importorskip("sklearn", reason="the digits ship with scikit-learn")
    optim = pytest.importorskip("optim")
    X, y = datasets.load_digits()
    X = X.reshape(-1, 1, 8, 8)
    X_train, X_test, y_train, y_test = datasets.train_test_split(X, y, test_size=0.2, seed=0)
    train = DataLoader(TensorDataset(X_train, y_train), batch_size=32, shuffle=True, seed=0)
    ag.manual_seed(0)
    model = nn.models.VGG(((1, 16), (1, 32)), in_channels=1, num_classes=10, input_size=8)
    loss_fn = nn.CrossEntropyLoss()
    optimizer = optim.Adam(model.parameters(), lr=3e-3)
    for epoch in range(6):
        model.train()
        for x, target in train:
            loss = loss_fn(model(x), target)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
    model.eval()
    with ag.no_grad():
        predicted = model(ag.tensor(X_test)).argmax(dim=1).numpy()
    assert len(y_test) == 359
    assert np.mean(predicted == y_test) >= 0.97
    assert model[0][0].weight.dtype == np.float32


@pytest.mark.parametrize("c_in,c_out,k,bias", [(8, 16, 3, True), (3, 5, (3, 5), False),
                                               (32, 64, 5, True)])
def test_depthwise_separable_parameter_count(c_in, c_out, k, bias):
    """C_in·kh·kw (+ C_in) depthwise and C_in·C_out (+ C_out) pointwise parameters, against
    C_in·C_out·kh·kw (+ C_out) for the full convolution it replaces."""
    kh, kw = (k, k) if isinstance(k, int) else k
    block = nn.DepthwiseSeparableConv2d(c_in, c_out, k, padding=1, bias=bias)
    expected = c_in * kh * kw + c_in * c_out + (c_in + c_out if bias else 0)
    assert sum(p.numel() for p in block.parameters()) == expected
    full = nn.Conv2d(c_in, c_out, k, bias=bias)
    assert sum(p.numel() for p in full.parameters()) == c_in * c_out * kh * kw + (
        c_out if bias else 0)
    assert block.depthwise.weight.shape == (c_in, 1, kh, kw)
    assert block.pointwise.weight.shape == (c_out, c_in, 1, 1)
    x = ag.randn(2, c_in, 7, 8)
    y = block(x)
    assert y.shape == (2, c_out, 7 + 2 - kh + 1, 8 + 2 - kw + 1)
    assert list(dict(block.named_children())) == ["depthwise", "pointwise"]


def _measured_field(layers, size, trials=12):
    """The input pixels that can change the centre output pixel: the union, over random inputs,
    of the nonzero entries of the gradient of that pixel (max pooling routes the gradient to
    one input per window, so one random input shows only part of the field)."""
    rng = np.random.default_rng(0)
    seen = np.zeros((size, size), bool)
    for _ in range(trials):
        x = ag.tensor(rng.standard_normal((1, 1, size, size)), requires_grad=True)
        y = layers(x)
        h, w = y.shape[2] // 2, y.shape[3] // 2
        y[0, :, h, w].sum().backward()
        seen |= np.abs(x.grad.numpy()[0, 0]) > 0
    rows, cols = np.nonzero(seen)
    return (rows.max() - rows.min() + 1, cols.max() - cols.min() + 1), (h, w), (
        (rows.max() + rows.min()) / 2, (cols.max() + cols.min()) / 2)


STACKS = {
    "conv-pool-conv": lambda: nn.Sequential(nn.Conv2d(1, 3, 3), nn.Tanh(), nn.MaxPool2d(2),
                                            nn.Conv2d(3, 2, 3)),
    "strided-dilated": lambda: nn.Sequential(nn.Conv2d(1, 3, 3, stride=2, padding=1),
                                             nn.BatchNorm2d(3).eval(),
                                             nn.Conv2d(3, 3, 3, dilation=2, padding="same"),
                                             nn.AvgPool2d(3, 2, 1), nn.Conv2d(3, 1, 1)),
    "lenet-features": lambda: nn.models.LeNet()[:6],
    "vgg-features": lambda: nn.Sequential(*list(nn.models.VGG(((2, 4), (1, 4)),
                                                              input_size=16))[:2]).eval(),
    "depthwise-separable": lambda: nn.Sequential(
        nn.DepthwiseSeparableConv2d(1, 2, 5, padding=2), nn.MaxPool2d(3, 2, dilation=2)),
}


@pytest.mark.parametrize("name", list(STACKS))
def test_receptive_field_matches_the_gradient_measurement(name):
    layers = STACKS[name]().double()
    size = 40
    measured, (h, w), centre = _measured_field(layers, size)
    field = receptive_field(layers)
    assert field.size == measured
    # output pixel (h, w) is centred on input coordinate start + index·jump
    assert (field.start[0] + h * field.jump[0], field.start[1] + w * field.jump[1]) == centre


def test_receptive_field_formula_and_table():
    stack = nn.Sequential(nn.Conv2d(1, 8, 3), nn.ReLU(), nn.MaxPool2d(2), nn.Conv2d(8, 8, 3))
    assert receptive_field(stack) == ((8, 8), (2, 2), (3.5, 3.5))
    table = receptive_field_table(stack)
    assert [f.size[0] for _, f in table] == [3, 3, 4, 8]
    assert [type(layer).__name__ for layer, _ in table] == ["Conv2d", "ReLU", "MaxPool2d",
                                                            "Conv2d"]
    assert receptive_field(nn.Conv1d(2, 2, 5, dilation=3)).size == (13,)
    lenet = nn.models.LeNet()
    assert receptive_field(lenet[:6]) == ((16, 16), (4, 4), (5.5, 5.5))
    with pytest.raises(ValueError, match="Linear.*model\\[:k\\]"):
        receptive_field(lenet)
    layers = collections.OrderedDict(a=nn.Conv2d(1, 1, (3, 5), padding=(1, 2)))
    assert receptive_field(nn.Sequential(layers)) == ((3, 5), (1, 1), (0.0, 0.0))


class _BoxBlur(nn.Module):
    """A layer of our own: a 5x3 box average with stride (2, 1) and padding (2, 0), described by
    its ``geometry`` so that the receptive field can go through it."""
    geometry = Geometry((5, 3), (2, 1), (2, 0), 1)

    def forward(self, x):
        return F.avg_pool2d(x, (5, 3), (2, 1), (2, 0))


def test_receptive_field_uses_the_geometry_a_layer_describes():
    stack = nn.Sequential(nn.Conv2d(1, 2, 3, padding=1), _BoxBlur(), nn.ReLU(),
                          nn.Conv2d(2, 1, 3, dilation=2)).double()
    measured, (h, w), centre = _measured_field(stack, 40)
    field = receptive_field(stack)
    # rows: 3, then +4·1, then +2·2·2 (dilation 2 after a stride of 2); columns: 3 + 2 + 4
    assert field.size == measured == (15, 9)
    assert (field.start[0] + h * field.jump[0], field.start[1] + w * field.jump[1]) == centre
    assert nn.Conv2d(1, 1, 3, padding="same", dilation=2).geometry == Geometry(
        (3, 3), (1, 1), (2, 2), (2, 2))
    assert nn.MaxPool2d(3, 2, 1).geometry == Geometry((3, 3), (2, 2), (1, 1), (1, 1))
    assert nn.ReLU().geometry is POINTWISE and nn.BatchNorm2d(2).geometry is POINTWISE


def test_receptive_field_refuses_layers_without_a_window():
    with pytest.raises(ValueError, match="ConvTranspose2d describes no geometry"):
        receptive_field(nn.Sequential(nn.Conv2d(1, 1, 3), nn.ConvTranspose2d(1, 1, 3)))
    with pytest.raises(ValueError, match="AdaptiveAvgPool2d describes no geometry"):
        receptive_field([nn.Conv2d(1, 1, 3), nn.AdaptiveAvgPool2d(1)])
    with pytest.raises(ValueError, match="Conv1d has a geometry over 1 spatial axes but the "
                                         "stack has 2"):
        receptive_field([nn.Conv2d(1, 1, 3), nn.Conv1d(1, 1, 3)])
