"""Models learn: the d2l linear regression from scratch, an MLP on the digits, the training
helper's history, and the toy 2-D problems."""
import numpy as np
import pytest

from dagrad import autograd as ag
from dagrad import nn
from dagrad.nn import datasets
from dagrad.nn.data import DataLoader, TensorDataset

try:
    from dagrad import optim
except ImportError:  # pragma: no cover - optim ships with dagrad
    optim = None


class HandWrittenSGD:
    """θ ← θ - lr · g (used only if the optim package is unavailable)."""

    def __init__(self, params, lr):
        self.params, self.lr = list(params), lr

    def zero_grad(self):
        for p in self.params:
            p.grad = None

    def step(self):
        with ag.no_grad():
            for p in self.params:
                if p.grad is not None:
                    p -= self.lr * p.grad


def sgd(params, lr, momentum=0.9):
    if optim is None:
        return HandWrittenSGD(params, lr)
    return optim.SGD(params, lr=lr, momentum=momentum)


def test_d2l_linear_regression_from_scratch_recovers_w_and_b():
    # Dive into Deep Learning, 3.4 "Linear Regression Implementation from Scratch".
    true_w, true_b = np.array([2.0, -3.4]), 4.2
    features, labels = datasets.synthetic_data(true_w, true_b, 1000, seed=0)

    def data_iter(batch_size, features, labels, rng):
        indices = rng.permutation(len(features))
        for i in range(0, len(features), batch_size):
            batch = indices[i:i + batch_size]
            yield ag.tensor(features[batch]), ag.tensor(labels[batch])

    ag.manual_seed(0)
    w = ag.tensor(np.random.default_rng(0).normal(0, 0.01, (2, 1)).astype(np.float32),
                  requires_grad=True)
    b = ag.zeros(1, requires_grad=True)

    def linreg(X, w, b):
        return ag.matmul(X, w) + b

    def squared_loss(y_hat, y):
        return (y_hat - y.reshape(y_hat.shape)) ** 2 / 2

    def minibatch_sgd(params, lr, batch_size):
        with ag.no_grad():
            for param in params:
                param -= lr * param.grad / batch_size
                param.grad.zero_()

    lr, num_epochs, batch_size = 0.03, 3, 10
    rng = np.random.default_rng(1)
    for epoch in range(num_epochs):
        for X, y in data_iter(batch_size, features, labels, rng):
            loss = squared_loss(linreg(X, w, b), y)
            loss.sum().backward()
            minibatch_sgd([w, b], lr, batch_size)
    np.testing.assert_allclose(w.numpy().reshape(-1), true_w, atol=0.01)
    assert abs(b.item() - true_b) < 0.01
    assert w.dtype == np.float32


def _digits_loaders(seed=0):
    pytest.importorskip("sklearn", reason="the digits ship with scikit-learn")
    X, y = datasets.load_digits()
    X_train, X_test, y_train, y_test = datasets.train_test_split(X, y, test_size=0.2, seed=0)
    train = DataLoader(TensorDataset(X_train, y_train), batch_size=32, shuffle=True, seed=seed)
    test = DataLoader(TensorDataset(X_test, y_test), batch_size=256)
    return train, test


def _optimizer(name, params):
    if name == "sgd-momentum":
        return sgd(params, lr=0.05, momentum=0.9)
    if optim is None:
        pytest.skip("optim.Adam needs the optim package")
    return optim.Adam(params, lr=1e-3)


@pytest.mark.slow
@pytest.mark.parametrize("optimizer_name", ["sgd-momentum", "adam"])
def test_mlp_on_digits_reaches_97_percent(optimizer_name):
    train, test = _digits_loaders()
    ag.manual_seed(0)
    model = nn.models.MLP([64, 128, 64, 10])
    loss_fn = nn.CrossEntropyLoss()
    optimizer = _optimizer(optimizer_name, model.parameters())
    for epoch in range(30):                       # the loop written out, as in the notebooks
        model.train()
        for x, y in train:
            loss = loss_fn(model(x), y)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
    model.eval()
    correct = total = 0
    with ag.no_grad():
        for x, y in test:
            correct += int((model(x).argmax(dim=1) == y).numpy().sum())
            total += len(y)
    assert total == 359
    assert correct / total >= 0.97, f"test accuracy {correct / total:.4f}"
    assert [p.dtype for p in model.parameters()] == [np.float32] * 6


def test_fit_records_history_and_learns_with_dropout_and_batch_norm(capsys):
    train, test = _digits_loaders(seed=1)
    ag.manual_seed(1)
    model = nn.models.MLP([64, 64, 10], dropout=0.1, norm="batch")
    history = nn.training.fit(model, nn.CrossEntropyLoss(), sgd(model.parameters(), 0.05),
                              train, epochs=8, val_loader=test,
                              metrics={"accuracy": nn.training.accuracy}, progress=False)
    assert list(history) == ["loss", "accuracy", "val_loss", "val_accuracy"]
    assert all(len(v) == 8 for v in history.values())
    assert history["loss"][-1] < history["loss"][0] / 3
    assert history["val_accuracy"][-1] >= 0.93
    assert model.training                       # evaluate() restored the mode
    assert capsys.readouterr().out == ""        # progress=False is silent


def test_fit_without_tqdm_prints_one_line_per_epoch(monkeypatch, capsys):
    import sys
    monkeypatch.setitem(sys.modules, "tqdm", None)
    monkeypatch.setitem(sys.modules, "tqdm.auto", None)
    X, y = datasets.make_moons(64, noise=0.1, seed=0)
    model = nn.models.MLP([2, 16, 2])
    nn.training.fit(model, nn.CrossEntropyLoss(), sgd(model.parameters(), 0.1),
                    DataLoader(TensorDataset(X, y), batch_size=16), epochs=2)
    lines = capsys.readouterr().out.strip().splitlines()
    assert len(lines) == 2 and lines[0].startswith("epoch 1/2  loss ")


@pytest.mark.parametrize("make,hidden,epochs", [(datasets.make_moons, 16, 60),
                                                (datasets.make_spirals, 64, 120)])
def test_toy_problems_are_learnable(make, hidden, epochs):
    X, y = make(300, seed=0) if make is datasets.make_spirals else make(300, noise=0.1, seed=0)
    ag.manual_seed(0)
    model = nn.models.MLP([2, hidden, hidden, int(y.max()) + 1])
    loader = DataLoader(TensorDataset(X, y), batch_size=32, shuffle=True, seed=0)
    optimizer = optim.Adam(model.parameters(), lr=0.01) if optim else sgd(
        model.parameters(), 0.1)
    nn.training.fit(model, nn.CrossEntropyLoss(), optimizer, loader, epochs=epochs,
                    progress=False)
    result = nn.training.evaluate(model, loader, metrics={"accuracy": nn.training.accuracy})
    assert result["accuracy"] >= 0.95


def test_regression_mlp_learns_a_sine():
    x = np.linspace(-3, 3, 256, dtype=np.float32).reshape(-1, 1)
    y = np.sin(x)
    ag.manual_seed(0)
    model = nn.models.MLP([1, 32, 32, 1], activation="tanh")
    loader = DataLoader(TensorDataset(x, y), batch_size=32, shuffle=True, seed=0)
    nn.training.fit(model, nn.MSELoss(), sgd(model.parameters(), 0.05), loader, epochs=150,
                    progress=False)
    assert nn.training.evaluate(model, loader, nn.MSELoss())["loss"] < 0.01
