"""viz: pictures of the compute graph, with the tensor and the gradient on every edge.

    from dagrad import viz
    g = viz.trace(loss, grads=True)      # the graph as data: nodes, edges, values, δ per edge
    viz.draw(loss, grads=True)           # a graphviz.Digraph; shows inline in Jupyter
    viz.save(viz.draw(loss), "g.svg")    # SVG, PNG or PDF by extension
    viz.player(viz.steps(loss))          # step through forward then backward, one op a frame
    viz.player(viz.steps(loss), quiz=True)   # ... asking for each δ before showing it
    norms = viz.GradNorms(model)         # per-layer gradient norms during training
    viz.plots.grad_norms(norms)          # ... and history, attention, latent, images plots
    with viz.record():                   # keep every intermediate value for the pictures
        loss = model(x)
    viz.sequence_gradient_norms(rnn, x)  # ‖∂L/∂x_t‖ per time step (vanishing gradients)
    z = viz.TSNE().fit_transform(X)      # a 2-D map of embeddings ...
    viz.embedding_plot(z, labels=y)      # ... drawn with a label on every point
    viz.draw(value, grads=True)          # another engine's graph (micrograd's Value): viz.foreign

Importing viz needs only NumPy; drawing needs the ``graphviz`` package (and Graphviz's ``dot``
program for SVG), ``viz.plots`` needs matplotlib.
"""
from dagrad.autograd.recording import record

from .columns import time_step
from .draw import draw
from .embeddings import embedding_plot
from .gradflow import GradNorms
from .player import Player, player
from .saving import save
from .sequence_gradients import sequence_gradient_norms
from .steps import Frame, steps
from .trace import Edge, Graph, Node, trace
from .tsne import TSNE

__all__ = ["trace", "draw", "save", "steps", "player", "record", "plots", "GradNorms", "Graph",
           "Node", "Edge", "Frame", "Player", "embedding_plot", "TSNE", "sequence_gradient_norms",
           "time_step"]


def __getattr__(name):
    """``viz.plots`` is imported on first use (it needs matplotlib)."""
    if name == "plots":
        import importlib
        return importlib.import_module(".plots", __name__)
    raise AttributeError(f"module 'viz' has no attribute {name!r}")
