"""Plots for training and for looking inside models (matplotlib, an optional extra).

Every function returns a ``matplotlib.figure.Figure`` (shown inline in Jupyter; save it with
``viz.save(fig, "x.png")``), or draws into ``ax`` when one is given and returns its figure.
Tensors and NumPy arrays are both accepted.
"""
import sys

import numpy as np

from dagrad.autograd import as_array
from dagrad.autograd.extras import missing_extra


def _figure(ax, nrows=1, ncols=1, size=(6.0, 4.0)):
    """(figure, axes): ``ax``'s figure, or a new one with a grid of axes."""
    if ax is not None:
        return ax.figure, ax
    try:
        from matplotlib.figure import Figure
    except ImportError:
        raise missing_extra("viz.plots", "matplotlib") from None
    _enable_inline_display()
    fig = Figure(figsize=size, layout="constrained")
    return fig, fig.subplots(nrows, ncols, squeeze=False)


def _enable_inline_display():
    """In Jupyter, a Figure made without pyplot (no global figure state, nothing to close)
    displays as an image only once the inline backend module is loaded (loading it registers
    the display formatter); pyplot loads it lazily, so load it here."""
    ipython = sys.modules.get("IPython")
    if ipython is not None and ipython.get_ipython() is not None:
        import matplotlib
        if "inline" in matplotlib.get_backend():
            import matplotlib_inline.backend_inline  # noqa: F401 - registers the formatter


def history(history, ax=None, title="Training"):
    """Loss and metric curves from the training helper's history.

    ``history``: ``{"loss": [...], "val_loss": [...], "accuracy": [...], ...}`` (one value per
    epoch, as ``nn.training.fit`` returns) or a list of such dicts, one per epoch. Losses go on
    the left axes, other metrics on the right; ``val_`` curves are dashed in the same colour.
    """
    if isinstance(history, (list, tuple)):
        merged = {}
        for row in history:
            for k, v in row.items():
                merged.setdefault(k, []).append(v)
        history = merged
    names = [k for k in history if not k.startswith("val_") or k[4:] not in history]
    names = list(dict.fromkeys(k[4:] if k.startswith("val_") else k for k in names))
    losses = [k for k in names if "loss" in k]
    metrics = [k for k in names if "loss" not in k]
    panels = [p for p in (losses, metrics) if p]
    if not panels:
        raise ValueError("viz.plots.history: the history is empty")
    if ax is not None:
        fig, axes = ax.figure, [ax] * len(panels)
    else:
        fig, grid = _figure(None, 1, len(panels), (5.0 * len(panels), 3.6))
        axes = list(grid[0])
    for axis, keys in zip(axes, panels):
        for i, key in enumerate(keys):
            colour = f"C{i}"
            for name, style in ((key, "-"), ("val_" + key, "--")):
                values = history.get(name)
                if values:
                    epochs = np.arange(1, len(values) + 1)
                    axis.plot(epochs, values, style, color=colour, marker="o", markersize=3,
                              label=name)
        axis.set_xlabel("epoch")
        axis.set_ylabel("loss" if keys is losses else "metric")
        axis.grid(alpha=0.3)
        axis.legend()
    axes[0].set_title(title)
    return fig


def grad_norms(norms, ax=None, log=True, title="Gradient norm per layer"):
    """Per-layer gradient norms over training: one line per layer, input layer dark, output
    layer light, on a log axis. Lines that fall by orders of magnitude towards the input
    layers show vanishing gradients; lines that blow up show exploding ones.

    ``norms``: a ``viz.GradNorms`` (each layer named by its module: ``0: Linear 64→64``) or
    ``{layer: [norm at each step]}``.
    """
    layers = norms.layers if hasattr(norms, "layers") else dict(norms)
    layers = {k: v for k, v in layers.items() if len(v)}
    names = getattr(norms, "labels", {})
    if not layers:
        raise ValueError("viz.plots.grad_norms: nothing recorded yet (run a backward pass)")
    fig, axes = _figure(ax, size=(7.0, 4.0))
    axis = axes if ax is not None else axes[0][0]
    from matplotlib import colormaps
    cmap = colormaps["viridis"]
    for i, (name, values) in enumerate(layers.items()):
        colour = cmap(0.85 * i / max(len(layers) - 1, 1))
        axis.plot(np.arange(1, len(values) + 1), values, color=colour, lw=1.2,
                  label=names.get(name, f"layer {name}"))
    if log:
        axis.set_yscale("log")
    axis.set_xlabel("training step (backward pass)")
    axis.set_ylabel("gradient norm ‖∂L/∂θ‖₂")
    axis.set_title(title)
    axis.grid(alpha=0.3, which="both")
    axis.legend(fontsize=8, ncol=1 + len(layers) // 8)
    return fig


def attention(weights, x_labels=None, y_labels=None, ax=None, title="Attention weights"):
    """Attention maps: ``weights`` of shape (queries, keys), or (heads, queries, keys) for one
    panel per head. Row i shows how query i spreads its attention over the keys (each row
    sums to 1 after a softmax)."""
    w = as_array(weights).astype(np.float64)
    if w.ndim == 2:
        w = w[None]
    if w.ndim != 3:
        raise ValueError(f"viz.plots.attention: weights must have shape (queries, keys) or "
                         f"(heads, queries, keys), got {tuple(w.shape)}")
    heads = w.shape[0]
    if ax is not None and heads > 1:
        raise ValueError("viz.plots.attention: pass ax only for a single head")
    fig, grid = _figure(ax, 1, heads, (3.2 * heads + 1.0, 3.4))
    axes = [grid] if ax is not None else list(grid[0])
    for h, axis in enumerate(axes):
        image = axis.imshow(w[h], cmap="viridis", vmin=0.0, aspect="auto")
        axis.set_xlabel("key")
        axis.set_ylabel("query")
        if x_labels is not None:
            axis.set_xticks(range(len(x_labels)), [str(s) for s in x_labels], rotation=90)
        if y_labels is not None:
            axis.set_yticks(range(len(y_labels)), [str(s) for s in y_labels])
        axis.set_title(f"head {h}" if heads > 1 else title)
    fig.colorbar(image, ax=axes, shrink=0.8)
    return fig


def latent(z, labels=None, ax=None, title="Latent space"):
    """A 2-D latent space: ``z`` of shape (n, 2), points coloured by ``labels`` (e.g. digit
    classes) with a legend, or uncoloured."""
    z = as_array(z)
    if z.ndim != 2 or z.shape[1] != 2:
        raise ValueError(f"viz.plots.latent: z must have shape (n, 2), got "
                         f"{tuple(z.shape)}; project "
                         f"it to 2-D first (e.g. a 2-D bottleneck or PCA)")
    fig, axes = _figure(ax, size=(5.0, 4.5))
    axis = axes if ax is not None else axes[0][0]
    if labels is None:
        axis.scatter(z[:, 0], z[:, 1], s=8, alpha=0.7)
    else:
        labels = as_array(labels).reshape(-1)
        for i, c in enumerate(np.unique(labels)):
            mask = labels == c
            axis.scatter(z[mask, 0], z[mask, 1], s=8, alpha=0.7, color=f"C{i % 10}",
                         label=str(c))
        axis.legend(markerscale=2, fontsize=8, ncol=2 if len(np.unique(labels)) > 5 else 1)
    axis.set_xlabel("z₁")
    axis.set_ylabel("z₂")
    axis.set_title(title)
    return fig


def images(images, nrow=None, titles=None, cmap="gray", title=None):
    """A grid of images: shape (n, H, W), (n, H, W, C), (n, C, H, W) with C of 1 or 3, or
    (n, D) with D a square (8x8 digits as rows of 64)."""
    x = as_array(images)
    if x.ndim == 2:
        side = int(round(np.sqrt(x.shape[1])))
        if side * side != x.shape[1]:
            raise ValueError(f"viz.plots.images: rows of {x.shape[1]} values are not square "
                             f"images; reshape to (n, H, W)")
        x = x.reshape(-1, side, side)
    if x.ndim == 4 and x.shape[1] in (1, 3) and x.shape[-1] not in (1, 3):
        x = x.transpose(0, 2, 3, 1)
    if x.ndim == 4 and x.shape[-1] == 1:
        x = x[..., 0]
    if x.ndim not in (3, 4):
        raise ValueError(f"viz.plots.images: expected (n, H, W), (n, H, W, C) or (n, C, H, W), "
                         f"got {tuple(x.shape)}")
    n = len(x)
    ncol = nrow if nrow is not None else int(np.ceil(np.sqrt(n)))
    rows = int(np.ceil(n / ncol))
    fig, grid = _figure(None, rows, ncol, (1.3 * ncol, 1.3 * rows + (0.3 if title else 0)))
    for k, axis in enumerate(grid.ravel()):
        axis.axis("off")
        if k < n:
            axis.imshow(x[k], cmap=cmap if x.ndim == 3 else None)
            if titles is not None:
                axis.set_title(str(titles[k]), fontsize=8)
    if title:
        fig.suptitle(title)
    return fig
