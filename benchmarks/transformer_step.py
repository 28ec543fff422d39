"""Transformer training step: forward, backward and Adam update of a 2-layer TransformerEncoder
(d_model 128, 4 heads, feed-forward 512, ReLU, post-norm, no dropout) on a batch of 16
sequences of 64 positions, batch first, with a mean-squared-error loss against a fixed target,
float32, in dagrad (nn + optim), PyTorch and NumPy written by hand (``benchmarks.
transformer_numpy``), starting from the same weights."""
import numpy as np

from benchmarks.common import main, training_step

D_MODEL, HEADS, FF, LAYERS = 128, 4, 512, 2
BATCH, SEQ = 16, 64
LR = 1e-3


def _problem():
    """Input, target and one layer's weights under PyTorch's parameter names."""
    rng = np.random.default_rng(0)
    x = rng.standard_normal((BATCH, SEQ, D_MODEL)).astype(np.float32)
    y = rng.standard_normal((BATCH, SEQ, D_MODEL)).astype(np.float32)

    def uniform(*shape):
        bound = 1 / np.sqrt(shape[-1])
        return rng.uniform(-bound, bound, shape).astype(np.float32)

    state = {}
    for i in range(LAYERS):
        layer = {"self_attn.in_proj_weight": uniform(3 * D_MODEL, D_MODEL),
                 "self_attn.in_proj_bias": np.zeros(3 * D_MODEL, np.float32),
                 "self_attn.out_proj.weight": uniform(D_MODEL, D_MODEL),
                 "self_attn.out_proj.bias": np.zeros(D_MODEL, np.float32),
                 "linear1.weight": uniform(FF, D_MODEL), "linear1.bias": uniform(FF),
                 "linear2.weight": uniform(D_MODEL, FF), "linear2.bias": uniform(D_MODEL),
                 "norm1.weight": np.ones(D_MODEL, np.float32),
                 "norm1.bias": np.zeros(D_MODEL, np.float32),
                 "norm2.weight": np.ones(D_MODEL, np.float32),
                 "norm2.bias": np.zeros(D_MODEL, np.float32)}
        state.update({f"layers.{i}.{k}": v for k, v in layer.items()})
    return x, y, state


def setup_dagrad():
    from dagrad import autograd as ag
    from dagrad import nn
    from dagrad import optim
    x, y, state = _problem()
    layer = nn.TransformerEncoderLayer(D_MODEL, HEADS, FF, dropout=0.0, batch_first=True)
    model = nn.TransformerEncoder(layer, LAYERS)
    model.load_state_dict(state)
    return training_step(model, nn.MSELoss(), optim.Adam(model.parameters(), lr=LR),
                         ag.tensor(x), ag.tensor(y))


def setup_torch():
    import torch
    x, y, state = _problem()
    layer = torch.nn.TransformerEncoderLayer(D_MODEL, HEADS, FF, dropout=0.0, batch_first=True)
    model = torch.nn.TransformerEncoder(layer, LAYERS, enable_nested_tensor=False)
    model.load_state_dict({k: torch.from_numpy(v) for k, v in state.items()})
    return training_step(model, torch.nn.MSELoss(), torch.optim.Adam(model.parameters(), lr=LR),
                         torch.from_numpy(x), torch.from_numpy(y))


def setup_numpy():
    from benchmarks import transformer_numpy
    x, y, state = _problem()
    update = transformer_numpy.adam(state, LR)

    def step():
        _, grads = transformer_numpy.loss_and_grads(state, x, y, LAYERS, HEADS)
        update(grads)
    return step


SETUPS = {"dagrad": setup_dagrad, "numpy": setup_numpy, "torch": setup_torch}

if __name__ == "__main__":
    main("benchmarks.transformer_step", SETUPS,
         "Transformer step: 2-layer TransformerEncoder, d_model 128, 4 heads, FF 512, "
         "batch 16 x 64, forward+backward+Adam")
