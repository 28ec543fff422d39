"""``python -m dagrad.viz demo --out DIR``: train a small MLP on the 8x8 digits and write three pictures.

* ``mlp_graph.svg``: the compute graph of the trained model's loss on a batch of 8 digits, with
  the value and the gradient δ on every edge and the layers as module clusters (opened in a
  browser window narrower than the picture, it shrinks to the window's width);
* ``two_layer_steps.html``: a two-layer network stepped through, forward then backward, one
  operation per frame (opens in any browser, no network needed);
* ``gradient_flow.png``: the gradient norm of every layer at every training step, for the
  trained ReLU network and for the same network with sigmoid activations, whose gradients
  shrink layer by layer towards the input (vanishing gradients).
"""
import os

import numpy as np

from dagrad import autograd as ag
from dagrad.autograd.recording import record

from .draw import draw
from .gradflow import GradNorms
from .player import player
from .render import fit_to_window, svg
from .saving import save
from .steps import steps

SIZES = [64, 64, 64, 64, 10]


def train(activation, X_train, y_train, X_val, y_val, epochs, seed=0, progress=False):
    """Train MLP(SIZES) with Adam, recording per-layer gradient norms (``progress``: a tqdm bar
    per epoch); returns (model, norms, history)."""
    from dagrad import nn
    from dagrad.nn.models import MLP
    from dagrad.optim import Adam

    ag.manual_seed(seed)
    model = MLP(SIZES, activation=activation)
    loader = nn.data.DataLoader(nn.data.TensorDataset(X_train, y_train), batch_size=64,
                                shuffle=True, seed=seed)
    val = nn.data.DataLoader(nn.data.TensorDataset(X_val, y_val), batch_size=256)
    with GradNorms(model) as norms:
        optimizer = Adam(model.parameters(), lr=3e-3)
        history = nn.training.fit(model, nn.CrossEntropyLoss(), optimizer, loader, epochs=epochs,
                                  val_loader=val,
                                  metrics={"accuracy": nn.training.accuracy}, progress=progress)
    return model, norms, history


def mlp_graph(model, X, y):
    """The trained model's loss on 8 digits, drawn with every value and gradient."""
    from dagrad import nn
    x = ag.tensor(X[:8])
    x.name = "x: 8 digits"
    target = ag.tensor(y[:8])
    target.name = "labels"
    with record():
        loss = nn.functional.cross_entropy(model(x), target)
    loss.name = "loss"
    return draw(loss, grads=True, params=model)


def two_layer_steps():
    """A 2-2-1 network on one input, small enough to read every number."""
    from dagrad import nn
    model = nn.Sequential(nn.Linear(2, 2), nn.Tanh(), nn.Linear(2, 1))
    with ag.no_grad():
        model[0].weight.copy_(ag.tensor([[0.5, -1.0], [1.5, 0.25]]))
        model[0].bias.copy_(ag.tensor([0.1, -0.2]))
        model[2].weight.copy_(ag.tensor([[1.0, -0.5]]))
        model[2].bias.copy_(ag.tensor([0.3]))
    x = ag.tensor([[1.0, 2.0]])
    x.name = "x"
    target = ag.tensor([[0.5]])
    target.name = "y"
    with record():
        loss = nn.functional.mse_loss(model(x), target)
    loss.name = "loss"
    return player(steps(loss, params=model), interval=1.5,
                  title="A two-layer network, forward then backward")


def gradient_flow(runs):
    """Per-layer gradient norms for each (title, norms) in ``runs``, side by side."""
    from matplotlib.figure import Figure

    from .plots import grad_norms
    fig = Figure(figsize=(6.0 * len(runs), 4.2), layout="constrained")
    axes = fig.subplots(1, len(runs), sharey=True)
    for axis, (title, norms) in zip(np.atleast_1d(axes), runs):
        grad_norms(norms, ax=axis, title=title)
    fig.suptitle("Gradient flow: ‖∂L/∂θ‖ of each layer (the first is next to the input)")
    return fig


def main(out="demo_output", epochs=12):
    """Train, draw, write the three files into ``out`` and print where they are."""
    from dagrad import nn
    X, y = nn.datasets.load_digits()
    X_train, X_val, y_train, y_val = nn.datasets.train_test_split(X, y, test_size=0.2, seed=0)
    print(f"Training an MLP {'-'.join(map(str, SIZES))} (ReLU) on the 8x8 digits, "
          f"{len(X_train)} for training and {len(X_val)} held out:")
    model, norms, history = train("relu", X_train, y_train, X_val, y_val, epochs, progress=True)
    print("Training the same MLP with sigmoid activations, for the gradient-flow picture ...")
    _, sigmoid_norms, sigmoid_history = train("sigmoid", X_train, y_train, X_val, y_val, epochs)

    os.makedirs(out, exist_ok=True)
    graph_path = os.path.join(out, "mlp_graph.svg")
    with open(graph_path, "w", encoding="utf-8") as f:
        f.write(fit_to_window(svg(mlp_graph(model, X_val, y_val))))
    paths = {
        "mlp_graph.svg": graph_path,
        "two_layer_steps.html": save(two_layer_steps(),
                                     os.path.join(out, "two_layer_steps.html")),
        "gradient_flow.png": save(gradient_flow([
            (f"ReLU MLP {SIZES} (val. accuracy {history['val_accuracy'][-1]:.2f})", norms),
            (f"same with sigmoid (val. accuracy {sigmoid_history['val_accuracy'][-1]:.2f})",
             sigmoid_norms)]), os.path.join(out, "gradient_flow.png")),
    }
    print(f"Trained an MLP {'-'.join(map(str, SIZES))} on the 8x8 digits for {epochs} epochs: "
          f"test accuracy on the held-out digits {history['val_accuracy'][-1]:.3f}.")
    what = {"mlp_graph.svg": "the loss on 8 digits as a graph, value and gradient on each edge",
            "two_layer_steps.html": "a two-layer network step by step (open in a browser)",
            "gradient_flow.png": "per-layer gradient norms during training, ReLU vs sigmoid"}
    width = max(len(p) for p in paths.values())
    for name, path in paths.items():
        print(f"  {path:<{width}}  {what[name]}")
    return paths
