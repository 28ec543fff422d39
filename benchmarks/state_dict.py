"""``optimizer.state_dict()`` of Adam over 2,000 parameters (1,000 layers' weight and bias, each
with its step count and two moment arrays), in dagrad and PyTorch, each in its own process
(not one of the W workloads)::

    python -m benchmarks.state_dict [--rounds 5]
"""
from benchmarks.common import main

LAYERS, WIDTH = 1000, 16


def _shapes():
    return [shape for _ in range(LAYERS) for shape in ((WIDTH, WIDTH), (WIDTH,))]


def setup_dagrad():
    from dagrad import autograd as ag
    from dagrad import nn, optim
    params = [nn.Parameter(ag.randn(*shape)) for shape in _shapes()]
    return _after_one_step(optim.Adam(params), params, ag.ones_like)


def setup_torch():
    import torch
    params = [torch.nn.Parameter(torch.randn(*shape)) for shape in _shapes()]
    return _after_one_step(torch.optim.Adam(params), params, torch.ones_like)


def _after_one_step(optimizer, params, ones_like):
    """``optimizer.state_dict`` once every parameter has its state."""
    for p in params:
        p.grad = ones_like(p)
    optimizer.step()
    return optimizer.state_dict


SETUPS = {"dagrad": setup_dagrad, "torch": setup_torch}

if __name__ == "__main__":
    main("benchmarks.state_dict", SETUPS,
         f"Adam.state_dict() over {2 * LAYERS:,} parameters with their state", rounds=5)
