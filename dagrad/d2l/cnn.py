"""Convolutional networks (the book's chapters 7 and 8): cross-correlation written out, the CNN
initialisation, LeNet, the residual blocks of ResNet and ResNeXt, the ResNet-18 of the
multi-GPU chapter, and ``train_ch6``, the older chapters' training loop for image
classifiers."""
from dagrad import torch
from dagrad.torch import nn
from dagrad.torch.nn import functional as F

from .linear import Classifier, accuracy, evaluate_accuracy_gpu
from .plotting import Animator
from .utils import Accumulator, Timer


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


def resnet18(num_classes, in_channels=1):
    """The book's ResNet-18 for small images: a 3x3 convolution (stride 1, padding 1) to 64
    channels with batch normalisation and ReLU (no max pooling), four stages of two
    ``Residual`` blocks (64, 128, 256, 512 channels; stages 2-4 halve the size with a strided
    1x1 shortcut), global average pooling and a Linear layer to ``num_classes`` scores.
    (N, in_channels, H, W) -> (N, num_classes)."""
    def resnet_block(out_channels, num_residuals, first_block=False):
        blk = []
        for i in range(num_residuals):
            if i == 0 and not first_block:
                blk.append(Residual(out_channels, use_1x1conv=True, strides=2))
            else:
                blk.append(Residual(out_channels))
        return nn.Sequential(*blk)

    net = nn.Sequential(nn.Conv2d(in_channels, 64, kernel_size=3, stride=1, padding=1),
                        nn.BatchNorm2d(64), nn.ReLU())
    net.add_module("resnet_block1", resnet_block(64, 2, first_block=True))
    net.add_module("resnet_block2", resnet_block(128, 2))
    net.add_module("resnet_block3", resnet_block(256, 2))
    net.add_module("resnet_block4", resnet_block(512, 2))
    net.add_module("global_avg_pool", nn.AdaptiveAvgPool2d((1, 1)))
    net.add_module("fc", nn.Sequential(nn.Flatten(), nn.Linear(512, num_classes)))
    return net


def train_ch6(net, train_iter, test_iter, num_epochs, lr, device):
    """Train the image classifier ``net`` (Xavier-uniform weights for its Linear and Conv2d
    layers) by minibatch SGD with learning rate ``lr`` on the cross-entropy, for
    ``num_epochs`` over ``train_iter``; plots the training loss and accuracy five times an
    epoch (every batch when there are fewer than five; the book's loop divides by zero) and
    the accuracy on ``test_iter`` after each, and prints the last of each and the speed.
    ``device`` is the CPU (``d2l.try_gpu()`` gives it)."""
    def init_weights(m):
        if type(m) is nn.Linear or type(m) is nn.Conv2d:
            nn.init.xavier_uniform_(m.weight)
    net.apply(init_weights)
    print("training on", device)
    net.to(device)
    optimizer = torch.optim.SGD(net.parameters(), lr=lr)
    loss = nn.CrossEntropyLoss()
    animator = Animator(xlabel="epoch", xlim=[1, num_epochs],
                        legend=["train loss", "train acc", "test acc"])
    timer, num_batches = Timer(), len(train_iter)
    for epoch in range(num_epochs):
        metric = Accumulator(3)          # the sum of the losses, of the correct, the examples
        net.train()
        for i, (X, y) in enumerate(train_iter):
            timer.start()
            optimizer.zero_grad()
            X, y = X.to(device), y.to(device)
            y_hat = net(X)
            l = loss(y_hat, y)  # noqa: E741
            l.backward()
            optimizer.step()
            with torch.no_grad():
                metric.add(l * X.shape[0], accuracy(y_hat, y), X.shape[0])
            timer.stop()
            train_l = metric[0] / metric[2]
            train_acc = metric[1] / metric[2]
            if (i + 1) % max(num_batches // 5, 1) == 0 or i == num_batches - 1:
                animator.add(epoch + (i + 1) / num_batches, (train_l, train_acc, None))
        test_acc = evaluate_accuracy_gpu(net, test_iter)
        animator.add(epoch + 1, (None, None, test_acc))
    print(f"loss {train_l:.3f}, train acc {train_acc:.3f}, test acc {test_acc:.3f}")
    print(f"{metric[2] * num_epochs / timer.sum():.1f} examples/sec on {str(device)}")
