"""Convolution and pooling layers: float64 gradcheck on small instances, parity with the same
PyTorch module after copying its weights, PyTorch's default initialisation, errors."""
import numpy as np
import pytest

import dagrad
from dagrad import autograd as ag
from dagrad import nn
from tests.helpers import module_parity, one_torch_thread, torch_or_skip  # noqa: F401

pytestmark = [pytest.mark.usefixtures("one_torch_thread"),
              pytest.mark.filterwarnings("ignore:Using padding=.same. with even kernel")]


def _x(*shape, seed=0):
    return np.random.default_rng(seed).standard_normal(shape)


# (name, our module factory, torch module factory (torch) -> module, input arrays)
LAYERS = [
    ("Conv2d", lambda: nn.Conv2d(2, 3, 3), lambda t: t.nn.Conv2d(2, 3, 3), [_x(2, 2, 5, 4)]),
    ("Conv2d-strided-dilated", lambda: nn.Conv2d(2, 4, (3, 2), (2, 1), (1, 0), (1, 2)),
     lambda t: t.nn.Conv2d(2, 4, (3, 2), (2, 1), (1, 0), (1, 2)), [_x(1, 2, 6, 5)]),
    ("Conv2d-same-groups", lambda: nn.Conv2d(4, 2, 3, padding="same", groups=2, bias=False),
     lambda t: t.nn.Conv2d(4, 2, 3, padding="same", groups=2, bias=False), [_x(2, 4, 4, 3)]),
    ("Conv2d-depthwise", lambda: nn.Conv2d(3, 6, 3, padding="valid", groups=3),
     lambda t: t.nn.Conv2d(3, 6, 3, padding="valid", groups=3), [_x(1, 3, 4, 4)]),
    ("Conv1d", lambda: nn.Conv1d(2, 3, 3, stride=2, padding=1),
     lambda t: t.nn.Conv1d(2, 3, 3, stride=2, padding=1), [_x(2, 2, 7)]),
    ("Conv1d-same-dilated", lambda: nn.Conv1d(2, 2, 2, padding="same", dilation=3, groups=2),
     lambda t: t.nn.Conv1d(2, 2, 2, padding="same", dilation=3, groups=2), [_x(1, 2, 6)]),
    ("ConvTranspose2d", lambda: nn.ConvTranspose2d(2, 3, 3, stride=2, padding=1,
                                                   output_padding=1),
     lambda t: t.nn.ConvTranspose2d(2, 3, 3, stride=2, padding=1, output_padding=1),
     [_x(2, 2, 3, 2)]),
    ("ConvTranspose2d-groups", lambda: nn.ConvTranspose2d(4, 2, 2, groups=2, dilation=2,
                                                          bias=False),
     lambda t: t.nn.ConvTranspose2d(4, 2, 2, groups=2, dilation=2, bias=False),
     [_x(1, 4, 2, 3)]),
    ("DepthwiseSeparableConv2d", lambda: nn.DepthwiseSeparableConv2d(3, 4, 3, padding=1),
     lambda t: t.nn.Sequential(__import__("collections").OrderedDict(
         depthwise=t.nn.Conv2d(3, 3, 3, padding=1, groups=3), pointwise=t.nn.Conv2d(3, 4, 1))),
     [_x(2, 3, 4, 4)]),
    ("MaxPool2d", lambda: nn.MaxPool2d(2), lambda t: t.nn.MaxPool2d(2), [_x(2, 2, 5, 4)]),
    ("MaxPool2d-options", lambda: nn.MaxPool2d(3, 2, 1, 2, ceil_mode=True),
     lambda t: t.nn.MaxPool2d(3, 2, 1, 2, ceil_mode=True), [_x(1, 2, 6, 5)]),
    ("AvgPool2d", lambda: nn.AvgPool2d(3, 2, 1, count_include_pad=False),
     lambda t: t.nn.AvgPool2d(3, 2, 1, count_include_pad=False), [_x(2, 2, 5, 4)]),
    ("AdaptiveAvgPool2d", lambda: nn.AdaptiveAvgPool2d((2, 3)),
     lambda t: t.nn.AdaptiveAvgPool2d((2, 3)), [_x(2, 2, 5, 4)]),
    ("AdaptiveAvgPool2d-global", lambda: nn.AdaptiveAvgPool2d(1),
     lambda t: t.nn.AdaptiveAvgPool2d(1), [_x(2, 3, 3, 4)]),
    ("Upsample-nearest", lambda: nn.Upsample(scale_factor=2),
     lambda t: t.nn.Upsample(scale_factor=2), [_x(2, 2, 3, 2)]),
    ("Upsample-bilinear", lambda: nn.Upsample(size=(5, 3), mode="bilinear"),
     lambda t: t.nn.Upsample(size=(5, 3), mode="bilinear"), [_x(1, 2, 3, 2)]),
    ("BatchNorm2d-eval", lambda: nn.BatchNorm2d(2).eval(), lambda t: t.nn.BatchNorm2d(2).eval(),
     [_x(3, 2, 3, 3)]),
]
IDS = [case[0] for case in LAYERS]


@pytest.mark.parametrize("name,ours,theirs,arrays", LAYERS, ids=IDS)
def test_gradcheck(name, ours, theirs, arrays):
    module = ours().double()
    x = ag.tensor(arrays[0], requires_grad=True)
    assert ag.gradcheck(lambda *_: module(x), [x] + list(module.parameters()))


@pytest.mark.parametrize("name,ours,theirs,arrays", LAYERS, ids=IDS)
def test_matches_pytorch(name, ours, theirs, arrays):
    torch = torch_or_skip()
    torch.manual_seed(0)
    module_parity(ours(), theirs(torch), arrays)


def test_conv_transpose_output_size_picks_the_output_padding():
    torch = torch_or_skip()
    ours, theirs = nn.ConvTranspose2d(2, 3, 3, stride=2), torch.nn.ConvTranspose2d(2, 3, 3, 2)
    ours.load_state_dict({k: v.numpy() for k, v in theirs.state_dict().items()})
    x = _x(1, 2, 4, 5).astype(np.float32)
    y = ours(ag.tensor(x), output_size=(10, 11))
    ty = theirs(torch.tensor(x), output_size=(10, 11))
    assert y.shape == tuple(ty.shape) == (1, 3, 10, 11)
    np.testing.assert_allclose(y.numpy(), ty.detach().numpy(), rtol=1e-5, atol=1e-6)
    with pytest.raises(ValueError, match="not reachable"):
        ours(ag.tensor(x), output_size=(13, 11))


@pytest.mark.parametrize("make,fan_in", [
    (lambda: nn.Conv2d(8, 256, 3), 8 * 9), (lambda: nn.Conv2d(8, 256, (3, 5), groups=4), 2 * 15),
    (lambda: nn.Conv1d(6, 256, 5), 30), (lambda: nn.ConvTranspose2d(8, 256, 3, groups=2), 128 * 9),
])
def test_default_initialisation_follows_pytorch_bounds(make, fan_in):
    """kaiming_uniform(a=√5) on the weight and U(±1/√fan_in) on the bias, both with
    fan_in = weight.shape[1] · kernel area."""
    ag.manual_seed(0)
    layer = make()
    bound = 1 / np.sqrt(fan_in)
    for p in (layer.weight, layer.bias):
        assert p.dtype == np.float32
        assert bound * 0.9 < np.abs(p.numpy()).max() <= bound


def test_parameter_shapes_follow_pytorch():
    assert nn.Conv2d(4, 6, (3, 2), groups=2).weight.shape == (6, 2, 3, 2)
    assert nn.ConvTranspose2d(4, 6, 3, groups=2).weight.shape == (4, 3, 3, 3)
    assert nn.Conv1d(3, 5, 4).weight.shape == (5, 3, 4)
    assert nn.Conv2d(3, 5, 1, bias=False).bias is None


def test_layers_keep_float32():
    x = ag.randn(2, 4, 8, 8, requires_grad=True)
    layers = [nn.Conv2d(4, 4, 3, padding=1), nn.ConvTranspose2d(4, 4, 2, 2), nn.MaxPool2d(2),
              nn.AvgPool2d(2), nn.AdaptiveAvgPool2d(3), nn.Upsample(scale_factor=2),
              nn.DepthwiseSeparableConv2d(4, 4, 3), nn.BatchNorm2d(4)]
    for layer in layers:
        y = layer(x)
        assert y.dtype == np.float32, type(layer).__name__
        y.sum().backward()
        assert x.grad.dtype == np.float32
        assert all(p.grad.dtype == np.float32 for p in layer.parameters())


def test_layer_errors():
    with pytest.raises(ValueError, match="divisible by groups=3"):
        nn.Conv2d(4, 6, 3, groups=3)
    with pytest.raises(ValueError, match="'same' needs stride 1"):
        nn.Conv2d(4, 6, 3, stride=2, padding="same")
    with pytest.raises(ValueError, match="padding must be an int, a tuple, 'same' or 'valid'"):
        nn.Conv1d(4, 6, 3, padding="full")
    with pytest.raises(ValueError, match="padding_mode='zeros'"):
        nn.Conv2d(4, 6, 3, padding_mode="reflect")
    with pytest.raises(ValueError, match="input of spatial size \\(2, 2\\).*kernel_size"):
        nn.Conv2d(1, 1, 3)(ag.zeros(1, 1, 2, 2))
    with pytest.raises(ValueError, match="has 2 channels.*expects 3"):
        nn.Conv2d(3, 1, 3)(ag.zeros(1, 2, 5, 5))


def test_window_arguments_are_checked_at_every_call_though_their_windows_are_cached():
    """A layer's window is computed once per shape and arguments (nn.functional.conv.checked_once);
    an argument that is refused stays refused after an equal one was cached (1.0 == 1), and the
    input's size still decides (a too small image after a large one)."""
    import dagrad.nn.functional as F
    x, w = ag.zeros(1, 2, 8, 8), ag.zeros(3, 2, 3, 3)
    assert F.conv2d(x, w, stride=1).shape == (1, 3, 6, 6)
    assert F.conv2d(x, w, stride=[2, 2]).shape == (1, 3, 3, 3)      # a list as PyTorch takes
    for bad in (1.0, (1, 1.0), 1.5):
        with pytest.raises(TypeError, match="stride must be an int or a tuple of 2 ints"):
            F.conv2d(x, w, stride=bad)
    assert F.max_pool2d(x, 2).shape == (1, 2, 4, 4)
    with pytest.raises(TypeError, match="kernel_size must be an int or a tuple of 2 ints"):
        F.max_pool2d(x, 2.0)
    with pytest.raises(ValueError, match="input of spatial size \\(2, 2\\).*kernel_size"):
        F.conv2d(ag.zeros(1, 2, 2, 2), w, stride=1)


@pytest.mark.parametrize("make, shape", [
    (lambda t: t.nn.Conv2d(4, 6, 3, groups=2), (0, 4, 6, 6)),
    (lambda t: t.nn.Conv2d(2, 3, 3, stride=2, padding=1), (0, 2, 7, 7)),
    (lambda t: t.nn.Conv1d(2, 3, 3), (0, 2, 8)),
    (lambda t: t.nn.ConvTranspose2d(4, 6, 3, stride=2, groups=2), (0, 4, 4, 4)),
    (lambda t: t.nn.MaxPool2d(2), (0, 2, 4, 4)),
    (lambda t: t.nn.MaxPool2d(3, 1), (0, 2, 5, 5)),
    (lambda t: t.nn.AvgPool2d(2), (0, 2, 4, 4))])
def test_an_empty_batch_goes_forward_and_backward_as_in_pytorch(make, shape):
    """No sample: an output and input gradient of PyTorch's shapes, zero parameter gradients
    (a size cannot be inferred from zero elements, so none is left to -1)."""
    torch = torch_or_skip()
    layer, reference = make(dagrad), make(torch)
    x = ag.zeros(*shape, requires_grad=True)
    y = layer(x)
    y.sum().backward()
    tx = torch.zeros(*shape, requires_grad=True)
    ty = reference(tx)
    ty.sum().backward()
    assert tuple(y.shape) == tuple(ty.shape) and tuple(x.grad.shape) == tuple(tx.grad.shape)
    for p in layer.parameters():
        assert p.grad is not None and not p.grad.numpy().any()
