"""LSTM training step: one forward, backward and SGD update of a 1-layer LSTM (input 64, hidden
256) over a sequence of 32 steps, batch 32, with a mean-squared-error loss on every output,
float32, in dagrad (``nn.LSTM``: the layer's steps and BPTT as one operation),
PyTorch's ``nn.LSTM`` (a fused kernel for the whole sequence) and NumPy written by hand (the
same maths, BPTT derived on paper, the weight gradients as one product over all steps).
"""
import numpy as np

from benchmarks.common import main, training_step

T, BATCH, INPUT, HIDDEN = 32, 32, 64, 256
LR = 0.01
NAMES = ("weight_ih_l0", "weight_hh_l0", "bias_ih_l0", "bias_hh_l0")


def _problem(gates=4):
    """The same weights (PyTorch's default range), input and target for every framework, for
    a layer of ``gates`` gate blocks (LSTM 4, GRU 3, RNN 1)."""
    rng = np.random.default_rng(0)
    bound = 1 / np.sqrt(HIDDEN)
    rows = gates * HIDDEN
    shapes = [(rows, INPUT), (rows, HIDDEN), (rows,), (rows,)]
    state = {n: rng.uniform(-bound, bound, s).astype(np.float32) for n, s in zip(NAMES, shapes)}
    x = rng.standard_normal((T, BATCH, INPUT)).astype(np.float32)
    y = rng.standard_normal((T, BATCH, HIDDEN)).astype(np.float32)
    return state, x, y


def _outputs(model, x):
    """The output sequence of a recurrent model (it also returns its final state)."""
    output, _ = model(x)
    return output


def layer_step(framework, layer, problem):
    """One SGD step of the recurrent ``layer`` ("LSTM", "GRU", "RNN") of ``framework`` ("dagrad" or
    "torch") on ``problem()``'s weights, input and target: MSE on every output."""
    state, x, y = problem()
    if framework == "torch":
        import torch
        model = getattr(torch.nn, layer)(INPUT, HIDDEN)
        model.load_state_dict({k: torch.from_numpy(v) for k, v in state.items()})
        return training_step(model, torch.nn.MSELoss(),
                             torch.optim.SGD(model.parameters(), lr=LR), torch.from_numpy(x),
                             torch.from_numpy(y), forward=_outputs)
    from dagrad import autograd as ag
    from dagrad import nn
    from dagrad import optim
    model = getattr(nn, layer)(INPUT, HIDDEN)
    model.load_state_dict(state)
    return training_step(model, nn.MSELoss(), optim.SGD(model.parameters(), lr=LR),
                         ag.tensor(x), ag.tensor(y), forward=_outputs)


def layer_main(module, layer, setups):
    """The command line of a recurrent-layer workload ``module`` (its ``layer``: "LSTM", "GRU",
    "RNN"): the frameworks compared, then dagrad over the hand-written NumPy floor."""
    summary = main(module, setups,
                   f"{layer} step: 1 layer, input {INPUT}, hidden {HIDDEN}, sequence {T}, batch "
                   f"{BATCH}, MSE, SGD (float32, 2 threads)", rounds=5)
    if summary and "numpy" in summary:
        print(f"  dagrad / hand-written NumPy: "
              f"{summary['dagrad']['ms'] / summary['numpy']['ms']:.2f}x")


def setup_dagrad():
    return layer_step("dagrad", "LSTM", _problem)


def setup_torch():
    return layer_step("torch", "LSTM", _problem)


def _sigmoid(x):
    return 0.5 * (np.tanh(0.5 * x) + 1)


def setup_numpy():
    state, x, y = _problem()
    w_ih, w_hh, b_ih, b_hh = (state[n] for n in NAMES)
    H = HIDDEN
    scale = np.float32(2.0 / y.size)

    def step():
        # forward: input projections of all steps in one product, then the recurrence
        xs = x @ w_ih.T + (b_ih + b_hh)
        hs = np.zeros((T + 1, BATCH, H), np.float32)
        cs = np.zeros((T + 1, BATCH, H), np.float32)
        acts = np.empty((T, BATCH, 4 * H), np.float32)       # i, f, g, o after σ / tanh
        for t in range(T):
            a = xs[t] + hs[t] @ w_hh.T
            acts[t, :, :2 * H] = _sigmoid(a[:, :2 * H])
            acts[t, :, 2 * H:3 * H] = np.tanh(a[:, 2 * H:3 * H])
            acts[t, :, 3 * H:] = _sigmoid(a[:, 3 * H:])
            i, f, g, o = np.split(acts[t], 4, axis=1)
            cs[t + 1] = f * cs[t] + i * g
            hs[t + 1] = o * np.tanh(cs[t + 1])
        loss = np.mean((hs[1:] - y) ** 2)                     # noqa: F841 (as a real step)
        # backward through time
        dh_out = scale * (hs[1:] - y)
        dA = np.empty_like(acts)                               # dL/d(gate pre-activations)
        dh = np.zeros((BATCH, H), np.float32)
        dc = np.zeros((BATCH, H), np.float32)
        for t in range(T - 1, -1, -1):
            i, f, g, o = np.split(acts[t], 4, axis=1)
            dh = dh + dh_out[t]
            tc = np.tanh(cs[t + 1])
            dc = dc + dh * o * (1 - tc * tc)
            dA[t, :, :H] = dc * g * i * (1 - i)
            dA[t, :, H:2 * H] = dc * cs[t] * f * (1 - f)
            dA[t, :, 2 * H:3 * H] = dc * i * (1 - g * g)
            dA[t, :, 3 * H:] = dh * tc * o * (1 - o)
            dc = dc * f
            dh = dA[t] @ w_hh
        flat = dA.reshape(T * BATCH, 4 * H)
        g_ih = flat.T @ x.reshape(T * BATCH, INPUT)
        g_hh = flat.T @ hs[:-1].reshape(T * BATCH, H)
        g_b = flat.sum(axis=0)
        for p, g in ((w_ih, g_ih), (w_hh, g_hh), (b_ih, g_b), (b_hh, g_b)):
            p -= LR * g
    return step


SETUPS = {"dagrad": setup_dagrad, "numpy": setup_numpy, "torch": setup_torch}

if __name__ == "__main__":
    layer_main("benchmarks.lstm_step", "LSTM", SETUPS)
