"""The gradient on every edge of a graph, from the backward engine's edge observer.

For an edge from tensor t into operation f (input slot i), the engine computes
δ_e = ∂L/∂t through this use only = (∂f/∂t)ᵀ · ∂L/∂f(...), before it adds the contributions of
t's other uses: that is exactly what the observer reports. The total at t is their sum.
"""
import numpy as np

from dagrad.autograd import as_array
from dagrad.autograd.engine import run

from .gradflow import inside_viz


def edge_gradients(root, vertices, gradient=None):
    """Run backward from ``root`` without touching any ``.grad``.

    Returns ``(edges, totals)``: ``edges[(node, slot)]`` is the gradient sent along input
    ``slot`` of operation ``node``; ``totals[vertex]`` is ∂L/∂(vertex's tensor) for every
    vertex in ``vertices`` (operations and leaves of the graph) that received one. The seed
    ∂L/∂root is ``gradient`` or ones. The graph is retained, so a later ``root.backward()``
    works. Tensor hooks run, as they do for ``ag.grad`` (``viz.GradNorms`` knows to ignore
    these passes).
    """
    if not root.requires_grad:
        raise ValueError("viz: grads=True needs a root that requires grad, but this tensor has "
                         "no graph behind it. Create the inputs with requires_grad=True (and "
                         "not under no_grad()), or pass grads=False.")
    vertex = root.grad_fn if root.grad_fn is not None else root
    if gradient is None:
        seed = np.ones(root.shape, dtype=root.dtype)
    else:
        seed = as_array(gradient, dtype=root.dtype)
        if seed.shape != root.shape:
            raise ValueError(f"viz: gradient has shape {tuple(seed.shape)} but the root has shape "
                             f"{tuple(root.shape)}; they must match")
    edges = {}

    def observe(node, slot, g):
        edges[(node, slot)] = g

    try:
        with inside_viz():
            totals = run([vertex], [seed], retain_graph=True, create_graph=False,
                         accumulate=False, capture=set(vertices), observer=observe)
    except RuntimeError as e:
        if "second time" not in str(e):
            raise
        raise RuntimeError(
            "viz: cannot compute edge gradients: backward() already freed this graph. Draw "
            "before calling backward() (viz computes the gradients itself, you do not need to "
            "call backward() first), or call backward(retain_graph=True).") from None
    if vertex not in totals:
        totals[vertex] = seed
    return edges, totals

