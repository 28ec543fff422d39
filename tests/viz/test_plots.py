"""viz.plots (matplotlib) and viz.GradNorms."""
import numpy as np
import pytest

from dagrad import autograd as ag
from dagrad import nn
from dagrad import viz

pytest.importorskip("matplotlib", reason="viz.plots needs matplotlib: install the notebooks extra")


def train_steps(model, steps=3):
    x, y = ag.randn(16, 4), ag.randint(0, 3, (16,))
    for _ in range(steps):
        loss = nn.functional.cross_entropy(model(x), y)
        loss.backward()
        with ag.no_grad():
            for p in model.parameters():
                p -= 0.1 * p.grad
                p.grad = None
    return x, y


def test_grad_norms_per_layer_and_viz_passes_are_not_counted():
    ag.manual_seed(0)
    model = nn.Sequential(nn.Linear(4, 8), nn.Tanh(), nn.Linear(8, 3))
    with viz.GradNorms(model) as norms:
        x, y = train_steps(model)
        viz.draw(nn.functional.cross_entropy(model(x), y), grads=True)   # not a training step
    train_steps(model)                         # hooks removed: not recorded
    layers = norms.layers
    assert list(layers) == ["0", "2"] and all(len(v) == 3 for v in layers.values())
    # a legend names each layer by its module, not only by its place in the Sequential
    assert norms.labels == {"0": "0: Linear 4→8", "2": "2: Linear 8→3"}
    x, y = ag.randn(16, 4), ag.randint(0, 3, (16,))
    nn.functional.cross_entropy(model(x), y).backward()
    w, b = model[2].weight.grad.numpy(), model[2].bias.grad.numpy()
    norms2 = viz.GradNorms(model)
    model.zero_grad()
    nn.functional.cross_entropy(model(x), y).backward()
    expected = np.sqrt(np.sum(w.astype(np.float64) ** 2) + np.sum(b.astype(np.float64) ** 2))
    assert norms2.layers["2"][0] == pytest.approx(expected, rel=1e-6)
    norms2.remove()


def test_plots_return_figures(tmp_path):
    from matplotlib.figure import Figure
    ag.manual_seed(0)
    model = nn.Sequential(nn.Linear(4, 8), nn.Tanh(), nn.Linear(8, 3))
    norms = viz.GradNorms(model)
    train_steps(model)
    figures = [
        viz.plots.history({"loss": [1.0, 0.5], "val_loss": [1.1, 0.7], "accuracy": [0.5, 0.8],
                           "val_accuracy": [0.4, 0.7]}),
        viz.plots.history([{"loss": 1.0}, {"loss": 0.4}]),
        viz.plots.grad_norms(norms),
        viz.plots.attention(ag.softmax(ag.randn(2, 3, 5), dim=-1), x_labels=list("abcde")),
        viz.plots.latent(np.random.default_rng(0).normal(size=(30, 2)), labels=np.arange(30) % 3),
        viz.plots.images(np.random.default_rng(0).random((5, 64)), titles=list(range(5))),
        viz.plots.images(np.zeros((4, 3, 8, 8))),
    ]
    assert all(isinstance(f, Figure) for f in figures)
    assert len(figures[0].axes) == 2 and len(figures[3].axes) == 3     # 2 heads + colour bar
    path = viz.save(figures[2], tmp_path / "norms.png")
    with open(path, "rb") as f:
        assert f.read(4) == b"\x89PNG"


def test_plot_errors():
    with pytest.raises(ValueError, match=r"\(n, 2\)"):
        viz.plots.latent(np.zeros((4, 3)))
    with pytest.raises(ValueError, match="queries"):
        viz.plots.attention(np.zeros(4))
    with pytest.raises(ValueError, match="nothing recorded"):
        viz.plots.grad_norms({"0": []})
    with pytest.raises(ValueError, match="square"):
        viz.plots.images(np.zeros((2, 10)))


def test_missing_matplotlib_names_the_extra(monkeypatch):
    import sys
    monkeypatch.setitem(sys.modules, "matplotlib.figure", None)
    with pytest.raises(ImportError, match=r"pip install -e '\.\[notebooks\]'"):
        viz.plots.latent(np.zeros((3, 2)))


def test_figures_display_as_images_in_a_fresh_notebook_kernel():
    """Figures are built without pyplot; in Jupyter they must still render as PNG, not as the
    text '<Figure size ...>', even before any pyplot call."""
    nbformat = pytest.importorskip("nbformat", reason="install the notebooks extra")
    nbclient = pytest.importorskip("nbclient", reason="install the notebooks extra")
    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_code_cell("from dagrad import viz\nviz.plots.history({'loss': [3, 2, 1]})")]
    nbclient.NotebookClient(nb, timeout=120, kernel_name="python3").execute()
    kinds = [kind for out in nb.cells[0].outputs for kind in out.get("data", {})]
    assert "image/png" in kinds
