"""W1, per-operation overhead: a 100-operation chain of add/mul/tanh on a one-element tensor,
forward plus backward. With so little arithmetic, the time is the engine's own bookkeeping."""
from benchmarks.common import main

LINKS = 33          # each link is add, mul, tanh: 99 operations, plus the final sum


def _chain(x):
    y = x
    for _ in range(LINKS):
        y = ((y + 1.0) * 0.5).tanh()
    return y.sum()


def setup_dagrad():
    from dagrad import autograd as ag
    x = ag.tensor([0.5], requires_grad=True)

    def step():
        _chain(x).backward()
        x.grad = None
    return step


def setup_torch():
    import torch
    x = torch.tensor([0.5], requires_grad=True)

    def step():
        _chain(x).backward()
        x.grad = None
    return step


SETUPS = {"dagrad": setup_dagrad, "torch": setup_torch}

if __name__ == "__main__":
    main("benchmarks.overhead", SETUPS, "W1 per-op overhead: 100-op chain, forward+backward")
