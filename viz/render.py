"""Turning pictures into files: Graphviz's ``dot`` for graphs, HTML for players, matplotlib
figures for plots. The optional pieces are imported here, when first needed."""
import os
import subprocess

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
    """A new ``graphviz.Digraph`` that shows in Jupyter as a pan-and-zoom view at a readable
    size (``svgview.view_html``), and as HTML in ``viz.save(d, "x.html")``."""
    global _DIGRAPH
    if _DIGRAPH is None:
        graphviz = graphviz_module()

        class Digraph(graphviz.Digraph):
            __doc__ = graphviz.Digraph.__doc__

            def _repr_html_(self):
                from .svgview import view_html
                return view_html(svg(self))

            def _repr_mimebundle_(self, include=None, exclude=None, **_):
                text = svg(self)
                from .svgview import view_html
                return {"text/html": view_html(text), "image/svg+xml": text}

            def page(self):
                """A complete HTML page with the pan-and-zoom view."""
                from .player import page
                return page(self._repr_html_(), "dagrad graph")

        _DIGRAPH = Digraph
    return _DIGRAPH(**kwargs)


DOT_TIMEOUT = 120          # seconds dot may take before viz gives up on a layout


def pipe(graph, fmt):
    """Render ``graph`` (a Digraph) to bytes of format ``fmt`` with ``dot``, at most
    ``DOT_TIMEOUT`` seconds."""
    try:
        done = subprocess.run(["dot", f"-T{fmt}"], input=graph.source.encode("utf-8"),
                              capture_output=True, timeout=DOT_TIMEOUT, check=False)
    except FileNotFoundError:
        raise RuntimeError(INSTALL_DOT.format(fmt=fmt.upper())) from None
    except subprocess.TimeoutExpired:
        raise RuntimeError(f"viz: Graphviz's dot did not lay out the graph within {DOT_TIMEOUT} "
                           f"s; draw fewer boxes (depth=1 collapses modules) or raise "
                           f"viz.render.DOT_TIMEOUT") from None
    if done.returncode != 0:
        raise RuntimeError(f"viz: dot failed: {done.stderr.decode(errors='replace').strip()}")
    return done.stdout


def svg(graph):
    """The SVG text of a Digraph."""
    return pipe(graph, "svg").decode("utf-8")


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
    from .draw import draw
    return draw(obj)


def _write(path, data):
    directory = os.path.dirname(path)
    if directory:
        os.makedirs(directory, exist_ok=True)
    with open(path, "wb") as f:
        f.write(data)
