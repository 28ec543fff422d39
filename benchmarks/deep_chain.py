"""W6, depth: a chain of 1,000,000 operations on a one-element tensor, built and
backpropagated once (time, and working memory of the graph). It checks that the engine is
iterative and that a node costs little memory."""
from benchmarks.common import main

LENGTH = 1_000_000


def setup_dagrad():
    from dagrad import autograd as ag
    x = ag.tensor([0.5], requires_grad=True)

    def step():
        y = x
        for _ in range(LENGTH):
            y = y * 1.0000001
        y.sum().backward()
        x.grad = None
    return step


def setup_torch():
    import torch
    x = torch.tensor([0.5], requires_grad=True)

    def step():
        y = x
        for _ in range(LENGTH):
            y = y * 1.0000001
        y.sum().backward()
        x.grad = None
    return step


SETUPS = {"dagrad": setup_dagrad, "torch": setup_torch}

if __name__ == "__main__":
    main("benchmarks.deep_chain", SETUPS, "W6 a 1,000,000-op chain: build + backward, once",
         rounds=2, warmup=0, repeats=1)
