"""``GradNorms``: the gradient norm of every layer at every backward pass, for watching
gradients vanish or explode during training (plot with ``viz.plots.grad_norms``).

    norms = viz.GradNorms(model)       # hooks on the parameters; nothing else changes
    nn.training.fit(model, ...)        # or any loop that calls loss.backward()
    viz.plots.grad_norms(norms)
    norms.remove()

For a layer with parameters p₁, p₂, … (e.g. weight and bias) the recorded value at each
backward is ‖∂L/∂(p₁, p₂, …)‖₂ = √(Σᵢ ‖∂L/∂pᵢ‖²).
"""
import threading

import numpy as np

_VIZ = threading.local()     # set while viz computes edge gradients: not a training backward


class GradNorms:
    """Records per-parameter gradient norms at each backward, by tensor hooks.

    ``model``: an ``nn.Module`` or ``{name: parameter}``. Parameters are grouped into layers by
    their module path (``"0.weight"`` and ``"0.bias"`` form layer ``"0"``), in model order.
    ``labels`` names each layer for a legend by its module: ``"0: Linear 64→64"``.
    """

    def __init__(self, model):
        named = model.named_parameters() if hasattr(model, "named_parameters") else model
        items = list(named.items() if isinstance(named, dict) else named)
        if not items:
            raise ValueError("GradNorms: the model has no parameters")
        self.params = {name: [] for name, _ in items}
        self._handles = [p.register_hook(self._recorder(name)) for name, p in items]
        modules = dict(model.named_modules()) if hasattr(model, "named_modules") else {}
        self.labels = {layer: f"{layer}: {describe(modules[layer])}" if layer in modules
                       else f"layer {layer}" for layer in self._layer_params()}

    def _recorder(self, name):
        record = self.params[name]

        def hook(grad):
            if not getattr(_VIZ, "active", False):
                g = np.asarray(grad._data, dtype=np.float64)
                record.append(float(np.sqrt(np.sum(g * g))))
        return hook

    def _layer_params(self):
        """{layer path: [the norm lists of its parameters]}, layers in model order."""
        groups = {}
        for name, norms in self.params.items():
            groups.setdefault(name.rpartition(".")[0] or name, []).append(norms)
        return groups

    @property
    def layers(self):
        """{layer path: [norm at each backward]}, layers in model order."""
        result = {}
        for layer, lists in self._layer_params().items():
            steps = min(len(x) for x in lists)
            squares = np.sum([np.square(x[:steps]) for x in lists], axis=0)
            result[layer] = list(np.sqrt(squares)) if steps else []
        return result

    def remove(self):
        """Stop recording (remove the hooks)."""
        for handle in self._handles:
            handle.remove()
        self._handles = []

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.remove()
        return False

    def __repr__(self):
        steps = max((len(v) for v in self.params.values()), default=0)
        return f"<viz.GradNorms: {len(self.layers)} layers, {steps} backward passes>"


def describe(module):
    """A module's class and, where it has them, its widths: ``Linear 64→10``, ``Conv2d 3→16``,
    ``LayerNorm``."""
    for into, out in (("in_features", "out_features"), ("in_channels", "out_channels")):
        if hasattr(module, into) and hasattr(module, out):
            return f"{type(module).__name__} {getattr(module, into)}→{getattr(module, out)}"
    return type(module).__name__


class inside_viz:
    """Marks the backward passes viz runs for its pictures, which GradNorms ignores."""

    def __enter__(self):
        self.previous = getattr(_VIZ, "active", False)
        _VIZ.active = True

    def __exit__(self, *exc):
        _VIZ.active = self.previous
        return False
