"""Convolutional networks: LeNet-5 and a small VGG-style network with batch normalisation."""
from ..activation import ReLU, Sigmoid, Tanh
from ..containers import Sequential
from ..conv import Conv2d
from ..dropout import Dropout
from ..linear import Flatten, Linear
from ..normalization import BatchNorm2d
from ..pooling import AvgPool2d, MaxPool2d

ACTIVATIONS = {"relu": ReLU, "sigmoid": Sigmoid, "tanh": Tanh}
POOLS = {"max": MaxPool2d, "avg": AvgPool2d}


def _size(input_size):
    return (input_size, input_size) if isinstance(input_size, int) else tuple(input_size)


def _check(model, sizes, input_size):
    if min(sizes) < 1:
        raise ValueError(f"{model}: input_size {input_size} is too small: the feature map "
                         f"would be {sizes} before the classifier")
    return sizes[0] * sizes[1]


class LeNet(Sequential):
    """LeNet-5 (LeCun et al., 1998) as in d2l, for 28x28 images:

        conv 5x5 (6, padding 2) -> act -> pool 2 -> conv 5x5 (16) -> act -> pool 2
        -> flatten (16·5·5 = 400) -> linear 120 -> act -> linear 84 -> act -> linear classes

    (N, in_channels, H, W) -> logits (N, num_classes). ``activation`` "relu" (default),
    "sigmoid" or "tanh"; ``pool`` "max" (default) or "avg" (the original used sigmoid and
    average pooling). ``input_size`` (int or (H, W)) sets the first linear layer's width.
    """

    def __init__(self, in_channels=1, num_classes=10, input_size=28, activation="relu",
                 pool="max"):
        if activation not in ACTIVATIONS or pool not in POOLS:
            raise ValueError(f"LeNet: activation must be one of {sorted(ACTIVATIONS)} and pool "
                             f"one of {sorted(POOLS)}, got {activation!r} and {pool!r}")
        act, pool_cls = ACTIVATIONS[activation], POOLS[pool]
        features = [Conv2d(in_channels, 6, 5, padding=2), act(), pool_cls(2, 2),
                    Conv2d(6, 16, 5), act(), pool_cls(2, 2)]
        # 5x5 with padding 2 keeps the size, pool halves it, 5x5 removes 4, pool halves it
        sizes = tuple((n // 2 - 4) // 2 for n in _size(input_size))
        flat = 16 * _check("LeNet", sizes, input_size)
        super().__init__(*features, Flatten(), Linear(flat, 120), act(), Linear(120, 84),
                         act(), Linear(84, num_classes))


def vgg_block(num_convs, in_channels, out_channels, batch_norm=True):
    """``num_convs`` times (3x3 convolution, padding 1 [-> batch norm] -> ReLU), then a 2x2 max
    pool that halves the height and width: (N, in, H, W) -> (N, out, H/2, W/2)."""
    layers = []
    for _ in range(num_convs):
        layers.append(Conv2d(in_channels, out_channels, 3, padding=1, bias=not batch_norm))
        if batch_norm:
            layers.append(BatchNorm2d(out_channels))
        layers.append(ReLU())
        in_channels = out_channels
    layers.append(MaxPool2d(2))
    return Sequential(*layers)


class VGG(Sequential):
    """A VGG-style network (Simonyan & Zisserman, 2014; d2l's ``VGG(arch)``), small enough for
    a CPU:

        vgg_block(n₁, c₁) -> ... -> vgg_block(n_B, c_B) -> flatten
        -> [linear hidden -> ReLU -> dropout] per hidden width -> linear classes

    ``arch``: ((num_convs, channels), ...) per block; every block halves the spatial size.
    ``batch_norm`` adds BatchNorm2d after every convolution (the convolutions then have no
    bias). (N, in_channels, H, W) -> logits (N, num_classes). The default suits 8x8 digits.
    """

    def __init__(self, arch=((1, 16), (1, 32)), in_channels=1, num_classes=10, input_size=8,
                 hidden=(64,), dropout=0.0, batch_norm=True):
        blocks, c = [], in_channels
        for num_convs, channels in arch:
            blocks.append(vgg_block(num_convs, c, channels, batch_norm))
            c = channels
        flat = c * _check("VGG", tuple(n >> len(arch) for n in _size(input_size)), input_size)
        head = []
        for width in hidden:
            head += [Linear(flat, width), ReLU()] + ([Dropout(dropout)] if dropout else [])
            flat = width
        super().__init__(*blocks, Flatten(), *head, Linear(flat, num_classes))
