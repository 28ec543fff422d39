"""MLP training step: one forward, backward and SGD update of a 784-512-512-10 ReLU network on a
batch of 128 with cross-entropy, float32, in dagrad (nn + optim), PyTorch, and NumPy written by
hand (the same maths with the gradients derived on paper). The compute is three matrix
products forward and five backward, so the gap to hand-written NumPy is dagrad's overhead."""
import numpy as np

from benchmarks.common import main, paired, training_step

SIZES = (784, 512, 512, 10)
BATCH = 128
LR = 0.01


def _problem():
    """The same data and initial weights for every framework: [(W, b), ...], x, y."""
    rng = np.random.default_rng(0)
    layers = []
    for d_in, d_out in zip(SIZES[:-1], SIZES[1:]):
        bound = 1 / np.sqrt(d_in)
        layers.append((rng.uniform(-bound, bound, (d_out, d_in)).astype(np.float32),
                       rng.uniform(-bound, bound, d_out).astype(np.float32)))
    x = rng.standard_normal((BATCH, SIZES[0])).astype(np.float32)
    y = rng.integers(0, SIZES[-1], BATCH)
    return layers, x, y


def _state_dict(layers):
    """Weights under the names of a Sequential(Linear, ReLU, Linear, ReLU, Linear)."""
    return {f"{2 * i}.{name}": value for i, (w, b) in enumerate(layers)
            for name, value in (("weight", w), ("bias", b))}


def setup_dagrad():
    from dagrad import autograd as ag
    from dagrad import nn
    from dagrad import optim
    layers, x, y = _problem()
    model = nn.models.MLP(SIZES)
    model.load_state_dict(_state_dict(layers))
    return training_step(model, nn.CrossEntropyLoss(), optim.SGD(model.parameters(), lr=LR),
                          ag.tensor(x), ag.tensor(y))


def setup_numpy():
    layers, x, y = _problem()
    (w1, b1), (w2, b2), (w3, b3) = layers
    rows = np.arange(BATCH)

    def step():
        # forward
        h1 = x @ w1.T + b1
        a1 = np.maximum(h1, 0)
        h2 = a1 @ w2.T + b2
        a2 = np.maximum(h2, 0)
        logits = a2 @ w3.T + b3
        shifted = logits - logits.max(axis=1, keepdims=True)
        e = np.exp(shifted)
        total = e.sum(axis=1, keepdims=True)
        loss = np.mean(np.log(total[:, 0]) - shifted[rows, y])   # noqa: F841 (as a real step)
        # backward: dL/dlogits = (softmax - onehot) / N
        g3 = e / total
        g3[rows, y] -= 1
        g3 /= BATCH
        gw3, gb3 = g3.T @ a2, g3.sum(axis=0)
        g2 = (g3 @ w3) * (h2 > 0)
        gw2, gb2 = g2.T @ a1, g2.sum(axis=0)
        g1 = (g2 @ w2) * (h1 > 0)
        gw1, gb1 = g1.T @ x, g1.sum(axis=0)
        # SGD update, in place
        for p, g in ((w1, gw1), (b1, gb1), (w2, gw2), (b2, gb2), (w3, gw3), (b3, gb3)):
            p -= LR * g
    return step


def setup_torch():
    import torch
    layers, x, y = _problem()
    model = torch.nn.Sequential(torch.nn.Linear(784, 512), torch.nn.ReLU(),
                                torch.nn.Linear(512, 512), torch.nn.ReLU(),
                                torch.nn.Linear(512, 10))
    model.load_state_dict({k: torch.from_numpy(v) for k, v in _state_dict(layers).items()})
    return training_step(model, torch.nn.CrossEntropyLoss(),
                          torch.optim.SGD(model.parameters(), lr=LR), torch.from_numpy(x),
                          torch.from_numpy(y))


SETUPS = {"dagrad": setup_dagrad, "numpy": setup_numpy, "torch": setup_torch}
MODULE = "benchmarks.mlp_step"
TITLE = "MLP step 784-512-512-10, batch 128, cross-entropy, SGD (float32, 2 threads)"


if __name__ == "__main__":
    summary = main(MODULE, SETUPS, TITLE, rounds=5)
    if summary and "numpy" in summary:
        ratio = summary["dagrad"]["ms"] / summary["numpy"]["ms"]
        print(f"  dagrad / hand-written NumPy, separate processes: {ratio:.2f}x")
        same = paired(MODULE)
        print(f"  dagrad / hand-written NumPy, paired in one process: {same['ratio']:.3f}x "
              f"[quartiles {same['q1']:.3f}-{same['q3']:.3f}]")
