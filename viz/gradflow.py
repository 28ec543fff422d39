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
    """

    def __init__(self, model):
        named = model.named_parameters() if hasattr(model, "named_parameters") else model
        items = list(named.items() if isinstance(named, dict) else named)
        if not items:
            raise ValueError("GradNorms: the model has no parameters")
        self.params = {name: [] for name, _ in items}
        self._handles = [p.register_hook(self._recorder(name)) for name, p in items]

    def _recorder(self, name):
        record = self.params[name]

        def hook(grad):
            if not getattr(_VIZ, "active", False):
                g = np.asarray(grad._data, dtype=np.float64)
                record.append(float(np.sqrt(np.sum(g * g))))
        return hook

    @property
    def layers(self):
        """{layer path: [norm at each backward]}, layers in model order."""
        groups = {}
        for name, norms in self.params.items():
            groups.setdefault(name.rpartition(".")[0] or name, []).append(norms)
        result = {}
        for layer, lists in groups.items():
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


class inside_viz:
    """Marks the backward passes viz runs for its pictures, which GradNorms ignores."""

    def __enter__(self):
        self.previous = getattr(_VIZ, "active", False)
        _VIZ.active = True

    def __exit__(self, *exc):
        _VIZ.active = self.previous
        return False
