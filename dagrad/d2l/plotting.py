"""The book's figures: ``plot``, ``show_images``, ``show_heatmaps``, the live plots
``ProgressBoard`` (the ``Trainer``'s) and ``Animator`` (the older training functions'), and the
optimisation chapter's ``show_trace_2d``. They need matplotlib (the notebooks extra); in a
notebook they draw inline, in a script they draw on matplotlib's current backend."""
import collections
import math
import time

import numpy as np

from dagrad import torch
from dagrad.autograd.extras import missing_extra

from .utils import HyperParameters


def _plt():
    try:
        import matplotlib.pyplot as plt
    except ImportError:
        raise missing_extra("d2l plotting", "matplotlib") from None
    return plt


def _numbers(x):
    return x.detach().numpy() if isinstance(x, torch.Tensor) else x


def _show(fig):
    """Show ``fig`` in place of the previous one in Jupyter; nothing elsewhere."""
    try:
        from IPython import display, get_ipython
    except ImportError:
        return
    if get_ipython() is None:           # a script: the figure stays for plt.show/savefig
        return
    display.display(fig)
    display.clear_output(wait=True)


def use_svg_display():
    """Show figures as SVG in Jupyter (as the book does); nothing outside IPython (setting the
    format there would start an IPython shell in a plain script)."""
    try:
        from IPython import get_ipython
        from matplotlib_inline import backend_inline
    except ImportError:
        return
    if get_ipython() is not None:
        backend_inline.set_matplotlib_formats("svg")


def set_figsize(figsize=(3.5, 2.5)):
    """Set matplotlib's default figure size."""
    use_svg_display()
    _plt().rcParams["figure.figsize"] = figsize


def set_axes(axes, xlabel, ylabel, xlim, ylim, xscale, yscale, legend):
    """Label, scale and limit ``axes``; add the legend if given."""
    axes.set_xlabel(xlabel), axes.set_ylabel(ylabel)
    axes.set_xscale(xscale), axes.set_yscale(yscale)
    axes.set_xlim(xlim), axes.set_ylim(ylim)
    if legend:
        axes.legend(legend)
    axes.grid()


def plot(X, Y=None, xlabel=None, ylabel=None, legend=None, xlim=None, ylim=None,
         xscale="linear", yscale="linear", fmts=("-", "m--", "g-.", "r:"), figsize=(3.5, 2.5),
         axes=None):
    """Plot one or several curves: ``X`` and ``Y`` are sequences of values or lists of such
    sequences; with ``Y`` omitted, ``X`` holds the y values."""

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
    set_axes(axes, xlabel, ylabel, xlim, ylim, xscale, yscale, legend or [])


def show_images(imgs, num_rows, num_cols, titles=None, scale=1.5):
    """A grid of images (tensors or arrays of shape (H, W) or (H, W, C)); returns the axes."""
    plt = _plt()
    _, axes = plt.subplots(num_rows, num_cols, figsize=(num_cols * scale, num_rows * scale))
    axes = np.asarray(axes).flatten()
    for i, (ax, img) in enumerate(zip(axes, imgs)):
        ax.imshow(_numbers(img))
        ax.axes.get_xaxis().set_visible(False)
        ax.axes.get_yaxis().set_visible(False)
        if titles:
            ax.set_title(titles[i])
    return axes


def show_heatmaps(matrices, xlabel, ylabel, titles=None, figsize=(2.5, 2.5), cmap="Reds"):
    """Attention weights as heat maps: ``matrices`` (rows, cols, queries, keys), one panel
    per (row, col), with a shared colour bar."""
    use_svg_display()
    num_rows, num_cols = matrices.shape[0], matrices.shape[1]
    fig, axes = _plt().subplots(num_rows, num_cols, figsize=figsize, sharex=True,
                                sharey=True, squeeze=False)
    for i, (row_axes, row_matrices) in enumerate(zip(axes, matrices)):
        for j, (ax, matrix) in enumerate(zip(row_axes, row_matrices)):
            pcm = ax.imshow(_numbers(matrix), cmap=cmap)
            if i == num_rows - 1:
                ax.set_xlabel(xlabel)
            if j == 0:
                ax.set_ylabel(ylabel)
            if titles:
                ax.set_title(titles[j])
    fig.colorbar(pcm, ax=axes, shrink=0.6)
    return fig


def show_list_len_pair_hist(legend, xlabel, ylabel, xlist, ylist):
    """Histograms of the lengths of two lists of sequences (source and target sentences)."""
    set_figsize()
    plt = _plt()
    _, _, patches = plt.hist([[len(seq) for seq in xlist], [len(seq) for seq in ylist]])
    plt.xlabel(xlabel)
    plt.ylabel(ylabel)
    for patch in patches[1].patches:
        patch.set_hatch("/")
    plt.legend(legend)


def annotate(text, xy, xytext):
    """An arrow from ``xytext`` to ``xy`` labelled ``text`` on the current axes."""
    _plt().gca().annotate(text, xy=xy, xytext=xytext, arrowprops=dict(arrowstyle="->"))


def show_trace_2d(f, results):
    """The path ``results`` [(x1, x2), ...] of an optimiser over the contours of f(x1, x2)."""
    set_figsize()
    plt = _plt()
    plt.plot(*zip(*results), "-o", color="#ff7f0e")
    x1, x2 = torch.meshgrid(torch.arange(-5.5, 1.0, 0.1), torch.arange(-3.0, 1.0, 0.1),
                            indexing="ij")
    plt.contour(_numbers(x1), _numbers(x2), _numbers(f(x1, x2)), colors="#1f77b4")
    plt.xlabel("x1")
    plt.ylabel("x2")


class ProgressBoard(HyperParameters):
    """The live plot of the book's training loop: ``draw(x, y, label, every_n)`` averages
    every ``every_n`` points of a curve into one and redraws the figure in the notebook.

    Rendering a figure costs more than a training step of a small model, so the figure is
    redrawn at most every ``min_seconds`` (the points are all kept); ``flush()`` (called by
    ``Trainer.fit`` at the end) draws the last points. ``min_seconds=0`` redraws on every
    point, as the book's board does. ``display=False`` keeps the points and draws nothing."""

    def __init__(self, xlabel=None, ylabel=None, xlim=None, ylim=None, xscale="linear",
                 yscale="linear", ls=("-", "--", "-.", ":"), colors=("C0", "C1", "C2", "C3"),
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
        points.append(Point(x, y))
        if len(points) != every_n:
            return
        self.data[label].append(Point(np.mean([p.x for p in points]),
                                      np.mean([p.y for p in points])))
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
        axes = self.axes if self.axes else plt.gca()
        axes.cla()                      # redraw the curves (the book stacks copies of them)
        lines, labels = [], []
        for (k, v), ls, color in zip(self.data.items(), self.ls, self.colors):
            lines.append(axes.plot([p.x for p in v], [p.y for p in v], linestyle=ls,
                                   color=color)[0])
            labels.append(k)
        if self.xlim:
            axes.set_xlim(self.xlim)
        if self.ylim:
            axes.set_ylim(self.ylim)
        axes.set_xlabel(self.xlabel)
        axes.set_ylabel(self.ylabel)
        axes.set_xscale(self.xscale)
        axes.set_yscale(self.yscale)
        axes.legend(lines, labels)
        _show(self.fig)
        self._drawn_at = time.monotonic()


class Animator:
    """The live plot of the book's older training functions (``train_ch11``, ...):
    ``add(x, ys)`` appends one point to each curve (``None`` skips a curve) and redraws.
    ``X`` and ``Y`` keep every point, one list per curve."""

    def __init__(self, xlabel=None, ylabel=None, legend=None, xlim=None, ylim=None,
                 xscale="linear", yscale="linear", fmts=("-", "m--", "g-.", "r:"), nrows=1,
                 ncols=1, figsize=(3.5, 2.5)):
        use_svg_display()
        self.fig, axes = _plt().subplots(nrows, ncols, figsize=figsize)
        self.axes = [axes] if nrows * ncols == 1 else axes
        legend = [] if legend is None else legend
        self.config_axes = lambda: set_axes(self.axes[0], xlabel, ylabel, xlim, ylim, xscale,
                                            yscale, legend)
        self.X, self.Y, self.fmts = None, None, fmts

    def add(self, x, y):
        if not hasattr(y, "__len__"):
            y = [y]
        n = len(y)
        if not hasattr(x, "__len__"):
            x = [x] * n
        if not self.X:
            self.X = [[] for _ in range(n)]
        if not self.Y:
            self.Y = [[] for _ in range(n)]
        for i, (a, b) in enumerate(zip(x, y)):
            if a is not None and b is not None:
                self.X[i].append(a)
                self.Y[i].append(b)
        self.axes[0].cla()
        for xs, ys, fmt in zip(self.X, self.Y, self.fmts):
            self.axes[0].plot(xs, ys, fmt)
        self.config_axes()
        _show(self.fig)
