"""Turning pictures into files: Graphviz's ``dot`` for graphs, HTML for players, matplotlib
figures for plots. The optional pieces are imported here, when first needed."""
import os
import re

INSTALL_DOT = ("Graphviz's `dot` program is not installed, so the graph cannot be rendered to "
               "{fmt}. Install it with `sudo apt-get install graphviz` (Debian/Ubuntu), `brew "
               "install graphviz` (macOS) or `conda install graphviz`. The DOT text is still "
               "available as `.source` (viz.save(graph, 'x.dot') writes it).")

_DIGRAPH = None


def graphviz_module():
    """The ``graphviz`` package, or an ImportError saying how to install it."""
    try:
        import graphviz
    except ImportError:
        raise ImportError("viz.draw needs the `graphviz` Python package: pip install graphviz "
                          "(it is a dependency of dagrad: pip install -e .)") from None
    return graphviz


def digraph(**kwargs):
    """A new ``graphviz.Digraph`` whose inline Jupyter SVG scales down to the cell width instead
    of being clipped."""
    global _DIGRAPH
    if _DIGRAPH is None:
        graphviz = graphviz_module()

        class Digraph(graphviz.Digraph):
            __doc__ = graphviz.Digraph.__doc__

            def _repr_image_svg_xml(self):
                return fit_svg(svg(self))

        _DIGRAPH = Digraph
    return _DIGRAPH(**kwargs)


def pipe(graph, fmt):
    """Render ``graph`` (a Digraph) to bytes of format ``fmt`` with ``dot``."""
    graphviz = graphviz_module()
    try:
        return graph.pipe(format=fmt)
    except graphviz.ExecutableNotFound:
        raise RuntimeError(INSTALL_DOT.format(fmt=fmt.upper())) from None


def svg(graph):
    """The SVG text of a Digraph."""
    return pipe(graph, "svg").decode("utf-8")


def fit_svg(text):
    """Let an SVG shrink to the width of its container (keeping its aspect ratio), and drop the
    XML prolog so it can be inlined in HTML."""
    text = re.sub(r"^.*?(?=<svg)", "", text, count=1, flags=re.S)
    return text.replace("<svg ", '<svg style="max-width:100%;height:auto" ', 1)


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
    if hasattr(obj, "digraph"):                       # a steps Frame
        return obj.digraph
    from .draw import draw
    return draw(obj)


def _write(path, data):
    directory = os.path.dirname(path)
    if directory:
        os.makedirs(directory, exist_ok=True)
    with open(path, "wb") as f:
        f.write(data)
