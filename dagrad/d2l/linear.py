"""Linear regression and classification (the book's chapters 3 and 4, and the helpers of its
older chapters they replaced): synthetic data, the scratch and concise models, ``Classifier``
and Fashion-MNIST read from its IDX files."""
import os

import numpy as np

from dagrad import torch
from dagrad.nn.datasets import load_digits, read_idx
from dagrad.torch import nn
from dagrad.torch.nn import functional as F

from . import aliases as a
from .base import SGD, DataModule, Module
from .files import missing, present
from .plotting import show_images
from .utils import Accumulator


class SyntheticRegressionData(DataModule):
    """y = X w + b + noise with X ~ N(0, 1), noise ~ N(0, noise²): ``num_train`` training and
    ``num_val`` validation examples; X (n, len(w)), y (n, 1)."""

    def __init__(self, w, b, noise=0.01, num_train=1000, num_val=1000, batch_size=32):
        super().__init__()
        self.save_hyperparameters()
        n = num_train + num_val
        self.X = torch.randn(n, len(w))
        noise = torch.randn(n, 1) * noise
        self.y = torch.matmul(self.X, w.reshape((-1, 1))) + b + noise

    def get_dataloader(self, train):
        i = slice(0, self.num_train) if train else slice(self.num_train, None)
        return self.get_tensorloader((self.X, self.y), train, i)


class LinearRegressionScratch(Module):
    """ŷ = X w + b with w ~ N(0, σ²) (num_inputs, 1) and b = 0, trained on the loss
    mean((ŷ - y)² / 2) by the book's ``SGD``."""

    def __init__(self, num_inputs, lr, sigma=0.01):
        super().__init__()
        self.save_hyperparameters()
        self.w = torch.normal(0, sigma, (num_inputs, 1), requires_grad=True)
        self.b = torch.zeros(1, requires_grad=True)

    def forward(self, X):
        return torch.matmul(X, self.w) + self.b

    def loss(self, y_hat, y):
        l = (y_hat - y) ** 2 / 2  # noqa: E741
        return l.mean()

    def configure_optimizers(self):
        return SGD([self.w, self.b], self.lr)


class LinearRegression(Module):
    """ŷ = ``nn.LazyLinear(1)``(X), loss ``nn.MSELoss``, optimiser ``torch.optim.SGD``."""

    def __init__(self, lr):
        super().__init__()
        self.save_hyperparameters()
        self.net = nn.LazyLinear(1)
        self.net.weight.data.normal_(0, 0.01)
        self.net.bias.data.fill_(0)

    def forward(self, X):
        return self.net(X)

    def loss(self, y_hat, y):
        return nn.MSELoss()(y_hat, y)

    def configure_optimizers(self):
        return torch.optim.SGD(self.parameters(), self.lr)

    def get_w_b(self):
        return (self.net.weight.data, self.net.bias.data)


class Classifier(Module):
    """A Module whose loss is cross-entropy and whose validation also plots accuracy."""

    def validation_step(self, batch):
        Y_hat = self(*batch[:-1])
        self.plot("loss", self.loss(Y_hat, batch[-1]), train=False)
        self.plot("acc", self.accuracy(Y_hat, batch[-1]), train=False)

    def accuracy(self, Y_hat, Y, averaged=True):
        """The fraction of rows whose largest score is at the target class."""
        Y_hat = Y_hat.reshape((-1, Y_hat.shape[-1]))
        preds = Y_hat.argmax(axis=1).type(Y.dtype)
        compare = (preds == Y.reshape(-1)).type(torch.float32)
        return compare.mean() if averaged else compare

    def loss(self, Y_hat, Y, averaged=True):
        """Cross-entropy of the scores Y_hat (..., classes) against the labels Y (...)."""
        Y_hat = Y_hat.reshape((-1, Y_hat.shape[-1]))
        Y = Y.reshape((-1,))
        return F.cross_entropy(Y_hat, Y, reduction="mean" if averaged else "none")

    def layer_summary(self, X_shape):
        """Print each layer's output shape for a random input of shape ``X_shape``."""
        X = torch.randn(*X_shape)
        for layer in self.net:
            X = layer(X)
            print(layer.__class__.__name__, "output shape:\t", X.shape)


class SoftmaxRegression(Classifier):
    """Scores = ``nn.LazyLinear(num_outputs)`` of the flattened input."""

    def __init__(self, num_outputs, lr):
        super().__init__()
        self.save_hyperparameters()
        self.net = nn.Sequential(nn.Flatten(), nn.LazyLinear(num_outputs))

    def forward(self, X):
        return self.net(X)


FASHION_FILES = {True: ("train-images-idx3-ubyte", "train-labels-idx1-ubyte"),
                 False: ("t10k-images-idx3-ubyte", "t10k-labels-idx1-ubyte")}
FASHION_LABELS = ["t-shirt", "trouser", "pullover", "dress", "coat", "sandal", "shirt",
                  "sneaker", "bag", "ankle boot"]


def class_labels(labels, what, classes=len(FASHION_LABELS)):
    """``labels`` (a sequence, array or tensor) as a list of Python ints, each a class in
    [0, classes); a ValueError from ``what`` naming the first that is not (a fraction such as
    2.5, a negative number), instead of truncating it or counting it from the end."""
    values = np.asarray(labels.numpy() if hasattr(labels, "numpy") else labels).reshape(-1)
    if values.dtype.kind not in "iubf":
        raise ValueError(f"{what}: class labels must be whole numbers 0..{classes - 1}, got "
                         f"{values.dtype} values such as {values[:1].tolist()}")
    whole = np.isfinite(values) & (values == np.round(values)) if values.dtype.kind == "f" \
        else np.ones(values.shape, bool)
    bad = ~whole | (values < 0) | (values >= classes)
    if bad.any():
        k = int(np.argmax(bad))
        why = "a class index is a whole number" if not whole[k] else "there are " \
            f"{classes} classes"
        raise ValueError(f"{what}: class labels must be whole numbers 0..{classes - 1}, but "
                         f"label {k} is {values[k].item()!r} ({why}; labels are not scores, "
                         f"and a negative one would count from the end)")
    return [int(v) for v in values]


class ImageDataset(torch.utils.data.Dataset):
    """Grey images kept as bytes (N, h, w) and labels (N,); an item is the image scaled to
    [0, 1] and resized to ``size`` (bilinear, as torchvision's ``Resize``) as a float32
    (1, H, W) tensor, with its int64 label. Batches are converted at once (``get_batch``)."""

    def __init__(self, images, labels, size, scale):
        self.images, self.labels = images, np.asarray(labels, np.int64)
        self.size, self.scale = tuple(size), np.float32(scale)

    def __len__(self):
        return len(self.labels)

    def __getitem__(self, i):
        X, y = self.get_batch(np.array([i]))
        return X[0], y[0]

    def get_batch(self, indices):
        X = torch.tensor(self.images[indices][:, None].astype(np.float32) * self.scale)
        if tuple(X.shape[2:]) != self.size:
            with torch.no_grad():
                X = F.interpolate(X, size=self.size, mode="bilinear", align_corners=False)
        return X, torch.tensor(self.labels[indices])


class FashionMNIST(DataModule):
    """Fashion-MNIST (28x28 grey images of 10 kinds of clothing) from its four IDX files in
    ``root/FashionMNIST/raw`` (where the book's torchvision puts them; ``.gz`` or unpacked),
    scaled to [0, 1] and resized to ``resize``: batches of (N, 1, H, W) float32 images and
    int64 labels.

    dagrad downloads nothing. Without the files this raises FileNotFoundError naming the
    folder and the files, unless ``stand_in="digits"``: then the 8x8 handwritten digits that
    ship with dagrad (1797 images, 10 classes, 1437 for training) stand in, resized the same
    way, so the book's code runs offline."""

    def __init__(self, batch_size=64, resize=(28, 28), root="../data", stand_in=None):
        super().__init__(root=root)
        self.save_hyperparameters(ignore=["root"])
        if stand_in not in (None, "digits"):
            raise ValueError(f"FashionMNIST: stand_in must be None or 'digits', got "
                             f"{stand_in!r}")
        size = (resize, resize) if isinstance(resize, int) else resize
        folder = os.path.join(root, "FashionMNIST", "raw")
        if stand_in == "digits" and not os.path.isdir(folder):
            self.train, self.val = self._digits(size)
            self.source = "digits"
        else:
            self.train, self.val = (self._read(folder, train, size) for train in (True, False))
            self.source = "fashion-mnist"

    @staticmethod
    def _read(folder, train, size):
        arrays = []
        for name in FASHION_FILES[train]:
            path = os.path.join(folder, name)
            found = [p for p in (path, path + ".gz") if present(p)]
            if not found:
                raise missing("FashionMNIST", path, "github.com/zalandoresearch/fashion-mnist"
                              f" as {name}.gz, which may stay compressed",
                              "pass root=<the folder holding FashionMNIST/raw>, or "
                              "stand_in='digits' to train on the bundled 8x8 digits")
            arrays.append(read_idx(found[0]))
        images, labels = arrays
        if images.ndim != 3 or labels.shape != images.shape[:1]:
            raise ValueError(f"FashionMNIST: {folder} holds images of shape {images.shape} "
                             f"and labels of shape {labels.shape}; expected (N, H, W) and (N,)")
        class_labels(labels, f"FashionMNIST: the labels in {found[0]}")
        return ImageDataset(images, labels, size, 1 / 255)

    @staticmethod
    def _digits(size):
        X, y = load_digits()
        images = X.reshape(-1, 8, 8)
        order = np.random.default_rng(0).permutation(len(y))
        split = int(0.8 * len(y))
        return tuple(ImageDataset(images[part], y[part], size, 1.0)
                     for part in (order[:split], order[split:]))

    def text_labels(self, indices):
        """The names of the classes ``indices``."""
        indices = class_labels(indices, "FashionMNIST.text_labels")
        if self.source == "digits":
            return [str(i) for i in indices]
        return [FASHION_LABELS[i] for i in indices]

    def get_dataloader(self, train):
        data = self.train if train else self.val
        return torch.utils.data.DataLoader(data, self.batch_size, shuffle=train,
                                           num_workers=self.num_workers)

    def visualize(self, batch, nrows=1, ncols=8, labels=None):
        """The first ``nrows * ncols`` images of ``batch`` with their labels."""
        X, y = batch
        if not labels:
            labels = self.text_labels(y)
        show_images(X.squeeze(1), nrows, ncols, titles=labels)


# --------------------------------------------- the older chapters' functions (chapter 11 uses them)
def load_array(data_arrays, batch_size, is_train=True):
    """A DataLoader over the tensors ``data_arrays``, shuffled when ``is_train``."""
    dataset = torch.utils.data.TensorDataset(*data_arrays)
    return torch.utils.data.DataLoader(dataset, batch_size, shuffle=is_train)


def synthetic_data(w, b, num_examples):
    """X ~ N(0, 1) (num_examples, len(w)) and y = X w + b + N(0, 0.01²) as (num_examples, 1)."""
    X = torch.normal(0, 1, (num_examples, len(w)))
    y = torch.matmul(X, w) + b
    y += torch.normal(0, 0.01, y.shape)
    return X, y.reshape((-1, 1))


def linreg(X, w, b):
    """ŷ = X w + b."""
    return torch.matmul(X, w) + b


def squared_loss(y_hat, y):
    """(ŷ - y)² / 2, element by element (y reshaped to ŷ's shape)."""
    return (y_hat - y.reshape(y_hat.shape)) ** 2 / 2


def sgd(params, lr, batch_size):
    """param ← param - lr · grad / batch_size, then zero the gradient."""
    with torch.no_grad():
        for param in params:
            param -= lr * param.grad / batch_size
            param.grad.zero_()


def accuracy(y_hat, y):
    """The number of correct predictions (a float): rows of scores are reduced by argmax."""
    if len(y_hat.shape) > 1 and y_hat.shape[1] > 1:
        y_hat = y_hat.argmax(axis=1)
    cmp = y_hat.type(y.dtype) == y
    return float(cmp.type(y.dtype).sum())


def evaluate_loss(net, data_iter, loss):
    """The mean of ``loss(net(X), y)`` over every element of every batch."""
    metric = Accumulator(2)
    for X, y in data_iter:
        out = net(X)
        y = y.reshape(out.shape)
        l = loss(out, y)  # noqa: E741
        metric.add(l.sum(), a.size(l))
    return metric[0] / metric[1]


def evaluate_accuracy_gpu(net, data_iter, device=None):
    """The fraction of correct predictions of ``net`` over ``data_iter``, in evaluation mode
    and without recording a graph (the device is always the CPU here)."""
    if isinstance(net, nn.Module):
        net.eval()
    metric = Accumulator(2)
    with torch.no_grad():
        for X, y in data_iter:
            metric.add(accuracy(net(X), y), y.numel())
    return metric[0] / metric[1]


def get_dataloader_workers():
    """The book's number of loader processes (dagrad's loader builds batches in-process)."""
    return 4


def get_fashion_mnist_labels(labels):
    """The Fashion-MNIST class names of ``labels``."""
    return [FASHION_LABELS[i] for i in class_labels(labels, "get_fashion_mnist_labels")]


def load_data_fashion_mnist(batch_size, resize=None, root="../data"):
    """Fashion-MNIST's training and test loaders (the book's chapter-4 function)."""
    data = FashionMNIST(batch_size, resize or (28, 28), root=root)
    return (torch.utils.data.DataLoader(data.train, batch_size, shuffle=True),
            torch.utils.data.DataLoader(data.val, batch_size, shuffle=False))
