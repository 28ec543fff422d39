"""Convolutional networks (the book's chapters 7 and 8): cross-correlation written out, the CNN
initialisation, LeNet, and the residual blocks of ResNet and ResNeXt."""
from dagrad import torch
from dagrad.torch import nn
from dagrad.torch.nn import functional as F

from .linear import Classifier


def corr2d(X, K):
    """2-D cross-correlation: Y[i, j] = Σ_ab X[i + a, j + b] K[a, b], shape
    (H - h + 1, W - w + 1), written into a zero tensor element by element (the book's loop;
    differentiable in X and K)."""
    h, w = K.shape
    Y = torch.zeros((X.shape[0] - h + 1, X.shape[1] - w + 1))
    for i in range(Y.shape[0]):
        for j in range(Y.shape[1]):
            Y[i, j] = (X[i:i + h, j:j + w] * K).sum()
    return Y


def init_cnn(module):
    """Xavier-uniform weights for Linear and Conv2d layers (the book's CNN initialisation)."""
    if type(module) is nn.Linear or type(module) is nn.Conv2d:
        nn.init.xavier_uniform_(module.weight)


class LeNet(Classifier):
    """LeNet-5: two 5x5 convolutions with sigmoid and 2x2 average pooling, then three dense
    layers (120, 84, num_classes), all lazy. Input (N, 1, 28, 28)."""

    def __init__(self, lr=0.1, num_classes=10):
        super().__init__()
        self.save_hyperparameters()
        self.net = nn.Sequential(
            nn.LazyConv2d(6, kernel_size=5, padding=2), nn.Sigmoid(),
            nn.AvgPool2d(kernel_size=2, stride=2),
            nn.LazyConv2d(16, kernel_size=5), nn.Sigmoid(),
            nn.AvgPool2d(kernel_size=2, stride=2),
            nn.Flatten(),
            nn.LazyLinear(120), nn.Sigmoid(),
            nn.LazyLinear(84), nn.Sigmoid(),
            nn.LazyLinear(num_classes))


class Residual(nn.Module):
    """ResNet's block: relu(bn(conv(relu(bn(conv(X))))) + X), the shortcut through a 1x1
    convolution (``use_1x1conv``) when channels or ``strides`` change the shape."""

    def __init__(self, num_channels, use_1x1conv=False, strides=1):
        super().__init__()
        self.conv1 = nn.LazyConv2d(num_channels, kernel_size=3, padding=1, stride=strides)
        self.conv2 = nn.LazyConv2d(num_channels, kernel_size=3, padding=1)
        self.conv3 = (nn.LazyConv2d(num_channels, kernel_size=1, stride=strides)
                      if use_1x1conv else None)
        self.bn1 = nn.LazyBatchNorm2d()
        self.bn2 = nn.LazyBatchNorm2d()

    def forward(self, X):
        Y = F.relu(self.bn1(self.conv1(X)))
        Y = self.bn2(self.conv2(Y))
        if self.conv3:
            X = self.conv3(X)
        Y += X
        return F.relu(Y)


class ResNeXtBlock(nn.Module):
    """ResNeXt's block: 1x1 convolution to ``num_channels · bot_mul`` channels, a grouped 3x3
    convolution (``groups`` channels per group), 1x1 back to ``num_channels``, each with batch
    normalisation, plus the (optionally projected) input."""

    def __init__(self, num_channels, groups, bot_mul, use_1x1conv=False, strides=1):
        super().__init__()
        bot_channels = int(round(num_channels * bot_mul))
        self.conv1 = nn.LazyConv2d(bot_channels, kernel_size=1, stride=1)
        self.conv2 = nn.LazyConv2d(bot_channels, kernel_size=3, stride=strides, padding=1,
                                   groups=bot_channels // groups)
        self.conv3 = nn.LazyConv2d(num_channels, kernel_size=1, stride=1)
        self.bn1 = nn.LazyBatchNorm2d()
        self.bn2 = nn.LazyBatchNorm2d()
        self.bn3 = nn.LazyBatchNorm2d()
        if use_1x1conv:
            self.conv4 = nn.LazyConv2d(num_channels, kernel_size=1, stride=strides)
            self.bn4 = nn.LazyBatchNorm2d()
        else:
            self.conv4 = None

    def forward(self, X):
        Y = F.relu(self.bn1(self.conv1(X)))
        Y = F.relu(self.bn2(self.conv2(Y)))
        Y = self.bn3(self.conv3(Y))
        if self.conv4:
            X = self.bn4(self.conv4(X))
        return F.relu(Y + X)
