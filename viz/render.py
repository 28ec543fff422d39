"""Graphviz for graphs: the ``Digraph`` and ``dot`` run to SVG, PNG or PDF, with a bounded
time (``viz.save``, in ``saving.py``, writes any picture to a file). The optional ``graphviz``
package is imported here, when first needed."""
import re
import subprocess

from .svgview import PT_TO_PX, page, view_html

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
                return view_html(svg(self))

            def _repr_mimebundle_(self, include=None, exclude=None, **_):
                text = svg(self)
                return {"text/html": view_html(text), "image/svg+xml": text}

            def page(self):
                """A complete HTML page with the pan-and-zoom view."""
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


def fit_to_window(svg):
    """``svg`` (from dot) for a file opened on its own in a browser: at its natural size where
    the window is wide enough, shrunk to the window's width where it is not (dot writes a fixed
    size in points, and a narrower window shows the picture cut off on the right)."""
    def fitted(m):
        width = float(m.group(1)) * PT_TO_PX
        return f'<svg width="100%" style="max-width: {width:.0f}px; height: auto"'
    return re.sub(r'<svg width="([\d.]+)pt" height="[\d.]+pt"', fitted, svg, count=1)
