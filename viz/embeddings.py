"""A 2-D map of embeddings with a label on every point: words from word2vec, digits from t-SNE
(matplotlib, an optional extra; see ``viz.plots``)."""
import numpy as np

from dagrad.autograd import as_array

from .plots import _figure


def embedding_plot(z, texts=None, labels=None, ax=None, title="Embedding", fontsize=8):
    """Points ``z`` (n, 2) with ``texts`` (n strings, e.g. words) written next to them and
    coloured by ``labels`` (n group names or classes, with a legend); either may be omitted.
    Project higher-dimensional vectors to 2-D first (``viz.TSNE`` or PCA). Returns the
    figure (or draws into ``ax``)."""
    z = as_array(z)
    if z.ndim != 2 or z.shape[1] != 2:
        raise ValueError(f"viz.embedding_plot: z must have shape (n, 2), got "
                         f"{tuple(z.shape)}; project "
                         f"it to 2-D first (e.g. viz.TSNE or PCA)")
    n = len(z)
    for name, values in (("texts", texts), ("labels", labels)):
        if values is not None and len(values) != n:
            raise ValueError(f"viz.embedding_plot: {name} must have one entry per point ({n}), "
                             f"got {len(values)}")
    fig, axes = _figure(ax, size=(6.0, 5.0))
    axis = axes if ax is not None else axes[0][0]
    colours = np.full(n, "C0", dtype=object)
    if labels is None:
        axis.scatter(z[:, 0], z[:, 1], s=10, alpha=0.7)
    else:
        labels = np.asarray(as_array(labels)).reshape(-1)
        for i, group in enumerate(dict.fromkeys(labels.tolist())):
            mask = labels == group
            colours[mask] = f"C{i % 10}"
            axis.scatter(z[mask, 0], z[mask, 1], s=10, alpha=0.7, color=f"C{i % 10}",
                         label=str(group))
        axis.legend(markerscale=2, fontsize=fontsize)
    if texts is not None:
        for (x, y), text, colour in zip(z, texts, colours):
            axis.annotate(str(text), (x, y), xytext=(3, 2), textcoords="offset points",
                          fontsize=fontsize, color=colour)
    axis.set_title(title)
    return fig
