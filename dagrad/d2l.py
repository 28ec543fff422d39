"""``dagrad.d2l``: the training scaffolding of the course's textbook (*Dive into Deep Learning*),
with its library's public names and behaviour, written over ``dagrad.torch``.

The notes' code cells run as printed after ``from dagrad import torch, d2l``::

    class LinearRegression(d2l.Module):
        def __init__(self, lr):
            super().__init__()
            self.save_hyperparameters()
            self.net = nn.LazyLinear(1)
        def forward(self, X):
            return self.net(X)
        def loss(self, y_hat, y):
            return nn.MSELoss()(y_hat, y)
        def configure_optimizers(self):
            return torch.optim.SGD(self.parameters(), self.lr)

    data = d2l.SyntheticRegressionData(w=torch.tensor([2, -3.4]), b=4.2)
    trainer = d2l.Trainer(max_epochs=3)
    trainer.fit(LinearRegression(lr=0.03), data)

What is here: ``HyperParameters`` (``save_hyperparameters``), ``add_to_class``, ``ProgressBoard``
(the live loss plot), ``Module`` (``loss``, ``forward``, ``training_step``, ``validation_step``,
``configure_optimizers``, ``plot``, ``apply_init``), ``Classifier`` (``accuracy``, ``loss``,
``layer_summary``), ``DataModule``, ``Trainer`` (``fit``, ``prepare_batch``, ``fit_epoch``,
``clip_gradients``), ``SyntheticRegressionData``, ``FashionMNIST``, ``SGD``, ``corr2d``,
``init_cnn``, ``plot``, ``set_figsize``, ``use_svg_display``, ``show_images`` and the device
helpers (``cpu``, ``gpu``, ``num_gpus``, ``try_gpu``). Plots need matplotlib (the notebooks
extra). The GPU helpers report none, so the book's ``Trainer(num_gpus=1)`` trains on the CPU.
"""
import collections
import gzip
import inspect
import math
import os
import time

import numpy as np

from dagrad import torch
from dagrad.extras import missing_extra
from dagrad.torch import nn
from dagrad.torch.nn import functional as F


# ----------------------------------------------------------------------------- utilities
def add_to_class(Class):
    """Register the decorated function as a method of ``Class`` (the book defines classes
    one method per cell this way)."""
    def wrapper(obj):
        setattr(Class, obj.__name__, obj)
    return wrapper


class HyperParameters:
    """``save_hyperparameters()`` stores the caller's ``__init__`` arguments as attributes
    (and in ``self.hparams``), except ``ignore`` and names starting with an underscore."""

    def save_hyperparameters(self, ignore=[]):
        frame = inspect.currentframe().f_back
        _, _, _, local_vars = inspect.getargvalues(frame)
        self.hparams = {k: v for k, v in local_vars.items()
                        if k not in set(ignore + ["self"]) and not k.startswith("_")}
        for k, v in self.hparams.items():
            setattr(self, k, v)


def cpu():
    return torch.device("cpu")


def gpu(i=0):
    """The book's ``gpu(i)``: dagrad has none, so this raises the device error."""
    return torch.device(f"cuda:{i}")


def num_gpus():
    return torch.cuda.device_count()


def try_gpu(i=0):
    """A GPU if there is one (never in dagrad), else the CPU."""
    return gpu(i) if num_gpus() >= i + 1 else cpu()


def try_all_gpus():
    return [gpu(i) for i in range(num_gpus())]


# ------------------------------------------------------------------------------ plotting
def _plt():
    try:
        import matplotlib.pyplot as plt
    except ImportError:
        raise missing_extra("d2l plotting", "matplotlib") from None
    return plt


def use_svg_display():
    """Show figures as SVG in Jupyter (as the book does)."""
    try:
        from matplotlib_inline import backend_inline
        backend_inline.set_matplotlib_formats("svg")
    except ImportError:
        pass


def set_figsize(figsize=(3.5, 2.5)):
    """Set matplotlib's default figure size."""
    use_svg_display()
    _plt().rcParams["figure.figsize"] = figsize


def set_axes(axes, xlabel, ylabel, xlim, ylim, xscale, yscale, legend):
    axes.set_xlabel(xlabel), axes.set_ylabel(ylabel)
    axes.set_xscale(xscale), axes.set_yscale(yscale)
    axes.set_xlim(xlim), axes.set_ylim(ylim)
    if legend:
        axes.legend(legend)
    axes.grid()


def _numbers(x):
    return x.detach().numpy() if isinstance(x, torch.Tensor) else x


def plot(X, Y=None, xlabel=None, ylabel=None, legend=[], xlim=None, ylim=None, xscale="linear",
         yscale="linear", fmts=("-", "m--", "g-.", "r:"), figsize=(3.5, 2.5), axes=None):
    """Plot one or several curves (the book's ``d2l.plot``): ``X`` and ``Y`` are lists of
    values or lists of such lists; with ``Y`` omitted, ``X`` holds the y values."""

    def has_one_axis(X):
        return (hasattr(X, "ndim") and X.ndim == 1 or isinstance(X, list)
                and not hasattr(X[0], "__len__"))

    if has_one_axis(X):
        X = [X]
    if Y is None:
        X, Y = [[]] * len(X), X
    elif has_one_axis(Y):
        Y = [Y]
    if len(X) != len(Y):
        X = X * len(Y)
    set_figsize(figsize)
    if axes is None:
        axes = _plt().gca()
    axes.cla()
    for x, y, fmt in zip(X, Y, fmts):
        x, y = _numbers(x), _numbers(y)
        axes.plot(x, y, fmt) if len(x) else axes.plot(y, fmt)
    set_axes(axes, xlabel, ylabel, xlim, ylim, xscale, yscale, legend)


def show_images(imgs, num_rows, num_cols, titles=None, scale=1.5):
    """A grid of images (tensors or arrays of shape (H, W))."""
    plt = _plt()
    figsize = (num_cols * scale, num_rows * scale)
    _, axes = plt.subplots(num_rows, num_cols, figsize=figsize)
    axes = np.asarray(axes).flatten()
    for i, (ax, img) in enumerate(zip(axes, imgs)):
        ax.imshow(_numbers(img))
        ax.axes.get_xaxis().set_visible(False)
        ax.axes.get_yaxis().set_visible(False)
        if titles:
            ax.set_title(titles[i])
    return axes


class ProgressBoard(HyperParameters):
    """The live plot of the book's training loop: ``draw(x, y, label, every_n)`` averages
    every ``every_n`` points of a curve into one and redraws the figure in the notebook.

    Rendering a figure costs more than a training step of a small model, so the figure is
    redrawn at most every ``min_seconds`` (the points are all kept); ``flush()`` (called by
    ``Trainer.fit`` at the end) draws the last points. ``min_seconds=0`` redraws on every
    point, as the book's board does."""

    def __init__(self, xlabel=None, ylabel=None, xlim=None, ylim=None, xscale="linear",
                 yscale="linear", ls=["-", "--", "-.", ":"], colors=["C0", "C1", "C2", "C3"],
                 fig=None, axes=None, figsize=(3.5, 2.5), display=True, min_seconds=1.0):
        self.save_hyperparameters()
        self._drawn_at, self._pending = -math.inf, False

    def draw(self, x, y, label, every_n=1):
        Point = collections.namedtuple("Point", ["x", "y"])
        if not hasattr(self, "raw_points"):
            self.raw_points = collections.OrderedDict()
            self.data = collections.OrderedDict()
        if label not in self.raw_points:
            self.raw_points[label] = []
            self.data[label] = []
        points = self.raw_points[label]
        line = self.data[label]
        points.append(Point(x, y))
        if len(points) != every_n:
            return
        line.append(Point(np.mean([p.x for p in points]), np.mean([p.y for p in points])))
        points.clear()
        if not self.display:
            return
        self._pending = True
        if time.monotonic() - self._drawn_at >= self.min_seconds:
            self._redraw()

    def flush(self):
        """Draw the points that arrived since the last redraw."""
        if self.display and self._pending:
            self._redraw()

    def _redraw(self):
        self._pending = False
        plt = _plt()
        use_svg_display()
        if self.fig is None:
            self.fig = plt.figure(figsize=self.figsize)
        plt.figure(self.fig.number)
        (self.axes or plt.gca()).cla()   # redraw the curves (the book stacks copies of them)
        plt_lines, labels = [], []
        for (k, v), ls, color in zip(self.data.items(), self.ls, self.colors):
            plt_lines.append(plt.plot([p.x for p in v], [p.y for p in v], linestyle=ls,
                                      color=color)[0])
            labels.append(k)
        axes = self.axes if self.axes else plt.gca()
        if self.xlim:
            axes.set_xlim(self.xlim)
        if self.ylim:
            axes.set_ylim(self.ylim)
        axes.set_xlabel(self.xlabel)
        axes.set_ylabel(self.ylabel)
        axes.set_xscale(self.xscale)
        axes.set_yscale(self.yscale)
        axes.legend(plt_lines, labels)
        try:
            from IPython import display
        except ImportError:
            return
        display.display(self.fig)
        display.clear_output(wait=True)
        self._drawn_at = time.monotonic()


# -------------------------------------------------------------------------------- models
class Module(nn.Module, HyperParameters):
    """The book's base model: ``forward`` runs ``self.net``; ``training_step`` and
    ``validation_step`` compute ``loss`` on a batch ``(*inputs, target)`` and plot it;
    ``configure_optimizers`` gives SGD with ``self.lr``."""

    def __init__(self, plot_train_per_epoch=2, plot_valid_per_epoch=1):
        super().__init__()
        self.save_hyperparameters()
        self.board = ProgressBoard()

    def loss(self, y_hat, y):
        raise NotImplementedError(f"{type(self).__name__} must define loss(y_hat, y)")

    def forward(self, X):
        if not hasattr(self, "net"):
            raise NotImplementedError(f"{type(self).__name__}: define self.net or forward()")
        return self.net(X)

    def plot(self, key, value, train):
        """Add ``value`` to the live plot as the curve ``train_key`` or ``val_key``."""
        if not hasattr(self, "trainer"):
            raise RuntimeError("plot(): the model has no trainer yet; call trainer.fit(model, "
                               "data)")
        self.board.xlabel = "epoch"
        if train:
            x = self.trainer.train_batch_idx / self.trainer.num_train_batches
            n = self.trainer.num_train_batches / self.plot_train_per_epoch
        else:
            x = self.trainer.epoch + 1
            n = self.trainer.num_val_batches / self.plot_valid_per_epoch
        self.board.draw(x, value.to(cpu()).detach().numpy(),
                        ("train_" if train else "val_") + key, every_n=max(int(n), 1))

    def training_step(self, batch):
        l = self.loss(self(*batch[:-1]), batch[-1])  # noqa: E741  (the book's name)
        self.plot("loss", l, train=True)
        return l

    def validation_step(self, batch):
        l = self.loss(self(*batch[:-1]), batch[-1])  # noqa: E741
        self.plot("loss", l, train=False)

    def configure_optimizers(self):
        return torch.optim.SGD(self.parameters(), lr=self.lr)

    def apply_init(self, inputs, init=None):
        """Run one forward pass (lazy layers learn their sizes), then ``net.apply(init)``."""
        self.forward(*inputs)
        if init is not None:
            self.net.apply(init)


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
        Y_hat = Y_hat.reshape((-1, Y_hat.shape[-1]))
        Y = Y.reshape((-1,))
        return F.cross_entropy(Y_hat, Y, reduction="mean" if averaged else "none")

    def layer_summary(self, X_shape):
        X = torch.randn(*X_shape)
        for layer in self.net:
            X = layer(X)
            print(layer.__class__.__name__, "output shape:\t", X.shape)


class SGD(HyperParameters):
    """Minibatch stochastic gradient descent written out: param ← param - lr · grad."""

    def __init__(self, params, lr):
        self.save_hyperparameters()

    def step(self):
        for param in self.params:
            param -= self.lr * param.grad

    def zero_grad(self):
        for param in self.params:
            if param.grad is not None:
                param.grad.zero_()


def init_cnn(module):
    """Xavier-uniform weights for Linear and Conv2d layers (the book's CNN initialisation)."""
    if type(module) is nn.Linear or type(module) is nn.Conv2d:
        nn.init.xavier_uniform_(module.weight)


def corr2d(X, K):
    """2-D cross-correlation: Y[i, j] = Σ_ab X[i + a, j + b] K[a, b], shape
    (H - h + 1, W - w + 1); differentiable in X and K."""
    h, w = K.shape
    rows, cols = X.shape[0] - h + 1, X.shape[1] - w + 1
    values = [(X[i:i + h, j:j + w] * K).sum() for i in range(rows) for j in range(cols)]
    return torch.stack(values).reshape(rows, cols)


# ---------------------------------------------------------------------------------- data
class DataModule(HyperParameters):
    """The book's data base class: ``get_dataloader(train)``, ``train_dataloader()``,
    ``val_dataloader()``, and ``get_tensorloader`` to batch tensors."""

    def __init__(self, root="../data", num_workers=4):
        self.save_hyperparameters()

    def get_dataloader(self, train):
        raise NotImplementedError(f"{type(self).__name__} must define get_dataloader(train)")

    def train_dataloader(self):
        return self.get_dataloader(train=True)

    def val_dataloader(self):
        return self.get_dataloader(train=False)

    def get_tensorloader(self, tensors, train, indices=slice(0, None)):
        tensors = tuple(a[indices] for a in tensors)
        dataset = torch.utils.data.TensorDataset(*tensors)
        return torch.utils.data.DataLoader(dataset, self.batch_size, shuffle=train)


class SyntheticRegressionData(DataModule):
    """y = X w + b + noise with X ~ N(0, 1): ``num_train`` training and ``num_val``
    validation examples."""

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


FASHION_FILES = {True: ("train-images-idx3-ubyte.gz", "train-labels-idx1-ubyte.gz"),
                 False: ("t10k-images-idx3-ubyte.gz", "t10k-labels-idx1-ubyte.gz")}


def read_idx_gz(path):
    """An array from an IDX file (the MNIST format), gzip-compressed: a 4-byte magic whose
    last byte is the number of dimensions, the sizes as big-endian int32, then uint8 data."""
    with gzip.open(path, "rb") as f:
        raw = f.read()
    if len(raw) < 4 or raw[:2] != b"\x00\x00" or raw[2] != 0x08:
        raise ValueError(f"{path}: not an IDX file of unsigned bytes")
    ndim = raw[3]
    shape = tuple(np.frombuffer(raw, ">i4", count=ndim, offset=4))
    return np.frombuffer(raw, np.uint8, offset=4 + 4 * ndim).reshape(shape)


class FashionMNIST(DataModule):
    """Fashion-MNIST (28x28 grey images of 10 kinds of clothing) from the four standard
    ``*-ubyte.gz`` files in ``root`` (or ``root/FashionMNIST/raw``, where torchvision puts
    them), scaled to [0, 1] and resized to ``resize``; batches are (N, 1, H, W) float32 images
    and int64 labels.

    dagrad downloads nothing. Without the files this raises FileNotFoundError saying where to
    put them, unless ``stand_in="digits"``: then the 8x8 handwritten digits that ship with
    scikit-learn (1797 images, 10 classes, 1437 for training) stand in, resized to
    ``resize`` the same way, so the book's code runs offline.
    """

    def __init__(self, batch_size=64, resize=(28, 28), root="../data", stand_in=None):
        super().__init__(root=root)
        self.save_hyperparameters(ignore=["root"])
        if stand_in not in (None, "digits"):
            raise ValueError(f"FashionMNIST: stand_in must be None or 'digits', got "
                             f"{stand_in!r}")
        folder = self._find_folder()
        if folder is not None:
            self.train, self.val = (self._read(folder, train) for train in (True, False))
            self.source = "fashion-mnist"
        elif stand_in == "digits":
            self.train, self.val = self._digits()
            self.source = "digits"
        else:
            names = ", ".join(FASHION_FILES[True] + FASHION_FILES[False])
            raise FileNotFoundError(
                f"FashionMNIST: the data files are not in {os.path.abspath(root)!r} (nor in "
                f"its FashionMNIST/raw folder). dagrad downloads nothing: put the four files "
                f"{names} (from github.com/zalandoresearch/fashion-mnist) there, pass "
                f"root=<their folder>, or pass stand_in='digits' to use the bundled 8x8 "
                f"handwritten digits (10 classes) in their place.")

    def _find_folder(self):
        for folder in (self.root, os.path.join(self.root, "FashionMNIST", "raw")):
            if all(os.path.exists(os.path.join(folder, name))
                   for name in FASHION_FILES[True] + FASHION_FILES[False]):
                return folder
        return None

    def _to_dataset(self, images, labels):
        images = _resize(np.asarray(images, np.float32), self.resize)
        X = torch.tensor(images[:, None])
        return torch.utils.data.TensorDataset(X, torch.tensor(np.asarray(labels, np.int64)))

    def _read(self, folder, train):
        images, labels = (read_idx_gz(os.path.join(folder, name))
                          for name in FASHION_FILES[train])
        return self._to_dataset(images / np.float32(255), labels)

    def _digits(self):
        from dagrad.nn.datasets import load_digits
        X, y = load_digits()
        images = X.reshape(-1, 8, 8)
        order = np.random.default_rng(0).permutation(len(y))
        split = int(0.8 * len(y))
        train, val = order[:split], order[split:]
        return self._to_dataset(images[train], y[train]), self._to_dataset(images[val], y[val])

    def text_labels(self, indices):
        if self.source == "digits":
            return [str(int(i)) for i in indices]
        labels = ["t-shirt", "trouser", "pullover", "dress", "coat", "sandal", "shirt",
                  "sneaker", "bag", "ankle boot"]
        return [labels[int(i)] for i in indices]

    def get_dataloader(self, train):
        data = self.train if train else self.val
        return torch.utils.data.DataLoader(data, self.batch_size, shuffle=train,
                                           num_workers=self.num_workers)

    def visualize(self, batch, nrows=1, ncols=8, labels=[]):
        X, y = batch
        if not labels:
            labels = self.text_labels(y)
        show_images(X.squeeze(1), nrows, ncols, titles=labels)


def _resize(images, size):
    """Bilinear resize of (N, h, w) images to ``size`` = (H, W) (align_corners=False, as
    torchvision's Resize on tensors)."""
    H, W = (size, size) if isinstance(size, int) else size
    n, h, w = images.shape
    if (h, w) == (H, W):
        return images

    def axis(out, inp):
        pos = np.clip((np.arange(out) + 0.5) * inp / out - 0.5, 0, inp - 1)
        lo = np.floor(pos).astype(int)
        hi = np.minimum(lo + 1, inp - 1)
        return lo, hi, (pos - lo).astype(np.float32)

    r0, r1, fr = axis(H, h)
    c0, c1, fc = axis(W, w)
    rows = images[:, r0] * (1 - fr)[:, None] + images[:, r1] * fr[:, None]
    return rows[:, :, c0] * (1 - fc) + rows[:, :, c1] * fc


# ------------------------------------------------------------------------------- trainer
class Trainer(HyperParameters):
    """The book's training loop: ``fit(model, data)`` runs ``max_epochs`` of ``fit_epoch``:
    for every training batch, ``model.training_step`` (the loss), backward, optional gradient
    clipping to norm ``gradient_clip_val``, ``optim.step()``; then ``validation_step`` on every
    validation batch in evaluation mode. ``num_gpus`` is accepted; there are none in dagrad."""

    def __init__(self, max_epochs, num_gpus=0, gradient_clip_val=0):
        self.save_hyperparameters()
        self.gpus = [gpu(i) for i in range(min(num_gpus, torch.cuda.device_count()))]

    def prepare_data(self, data):
        self.train_dataloader = data.train_dataloader()
        self.val_dataloader = data.val_dataloader()
        self.num_train_batches = len(self.train_dataloader)
        self.num_val_batches = (len(self.val_dataloader)
                                if self.val_dataloader is not None else 0)

    def prepare_model(self, model):
        model.trainer = self
        model.board.xlim = [0, self.max_epochs]
        self.model = model

    def fit(self, model, data):
        self.prepare_data(data)
        self.prepare_model(model)
        self.optim = model.configure_optimizers()
        self.epoch = 0
        self.train_batch_idx = 0
        self.val_batch_idx = 0
        for self.epoch in range(self.max_epochs):
            self.fit_epoch()
        if hasattr(model.board, "flush"):
            model.board.flush()

    def prepare_batch(self, batch):
        return batch

    def fit_epoch(self):
        self.model.train()
        for batch in self.train_dataloader:
            loss = self.model.training_step(self.prepare_batch(batch))
            self.optim.zero_grad()
            with torch.no_grad():
                loss.backward()
                if self.gradient_clip_val > 0:
                    self.clip_gradients(self.gradient_clip_val, self.model)
                self.optim.step()
            self.train_batch_idx += 1
        if self.val_dataloader is None:
            return
        self.model.eval()
        for batch in self.val_dataloader:
            with torch.no_grad():
                self.model.validation_step(self.prepare_batch(batch))
            self.val_batch_idx += 1

    def clip_gradients(self, grad_clip_val, model):
        """Scale all gradients by min(1, grad_clip_val / ‖g‖) (‖g‖ over every parameter)."""
        params = [p for p in model.parameters() if p.requires_grad]
        norm = torch.sqrt(sum(torch.sum((p.grad ** 2)) for p in params))
        if norm > grad_clip_val:
            for param in params:
                param.grad[:] *= grad_clip_val / norm
