"""``viz.save``: any picture to a file, its format from the extension (a graph through
Graphviz's ``dot``, a player as an HTML page, a matplotlib figure as matplotlib writes it)."""
import os

from .draw import draw
from .render import pipe


def save(obj, path):
    """Write a picture to ``path``; the format comes from the extension.

    * a graph (``viz.draw``'s Digraph, a Frame, a Tensor or a traced ``viz.Graph``, which are
      drawn first): ``.svg``, ``.png``, ``.pdf`` (need Graphviz's ``dot``), ``.dot``/``.gv``
      (the DOT text, no Graphviz needed);
    * a player (``viz.player``) or anything with ``_repr_html_``: ``.html``;
    * a matplotlib Figure: any format matplotlib writes (``.png``, ``.svg``, ``.pdf``).

    Returns ``path``.
    """
    path = os.fspath(path)
    ext = os.path.splitext(path)[1].lower().lstrip(".")
    if not ext:
        raise ValueError(f"viz.save: '{path}' has no extension; use .svg, .png, .pdf, .dot or "
                         f".html")
    if hasattr(obj, "savefig"):                       # a matplotlib Figure
        obj.savefig(path, bbox_inches="tight")
        return path
    if ext in ("html", "htm"):
        page = getattr(obj, "page", None)
        if page is None and not hasattr(obj, "_repr_html_"):
            raise TypeError(f"viz.save: cannot write a {type(obj).__name__} as HTML; pass "
                            f"viz.player(frames)")
        _write(path, (page() if page else obj._repr_html_()).encode("utf-8"))
        return path
    if hasattr(obj, "picture") and ext == "svg":     # a steps Frame, as that frame shows it
        _write(path, obj.svg().encode("utf-8"))
        return path
    graph = _as_digraph(obj)
    if ext in ("dot", "gv"):
        _write(path, graph.source.encode("utf-8"))
    elif ext in ("svg", "png", "pdf"):
        _write(path, pipe(graph, ext))
    else:
        raise ValueError(f"viz.save: unknown extension '.{ext}' for a graph; use .svg, .png, "
                         f".pdf, .dot or .gv")
    return path


def _as_digraph(obj):
    if hasattr(obj, "source") and hasattr(obj, "pipe"):
        return obj
    if hasattr(obj, "picture"):                       # a steps Frame: its whole picture
        return obj.picture.digraph
    return draw(obj)


def _write(path, data):
    directory = os.path.dirname(path)
    if directory:
        os.makedirs(directory, exist_ok=True)
    with open(path, "wb") as f:
        f.write(data)
