"""LeNet-5 training step: one forward, backward and SGD update of LeNet-5 (ReLU, max pooling,
as ``nn.models.LeNet()``) on a batch of 64 random 1x28x28 images with cross-entropy, float32,
in dagrad and PyTorch (CPU), each in its own process.

``--profile`` runs the dagrad step under cProfile in this process instead and prints where the
time goes (the functions with the most time spent in themselves).
"""
import sys

import numpy as np

from benchmarks.common import main, training_step

BATCH = 64
LR = 0.01
# (name, shape) of every parameter of nn.models.LeNet() == the same torch.nn.Sequential
SHAPES = [("0.weight", (6, 1, 5, 5)), ("0.bias", (6,)), ("3.weight", (16, 6, 5, 5)),
          ("3.bias", (16,)), ("7.weight", (120, 400)), ("7.bias", (120,)),
          ("9.weight", (84, 120)), ("9.bias", (84,)), ("11.weight", (10, 84)),
          ("11.bias", (10,))]


def _problem():
    """The same initial weights (PyTorch's default ranges) and data for every framework."""
    rng = np.random.default_rng(0)
    state = {}
    for name, shape in SHAPES:
        fan_in = int(np.prod(dict(SHAPES)[name.replace("bias", "weight")][1:]))
        bound = 1 / np.sqrt(fan_in)
        state[name] = rng.uniform(-bound, bound, shape).astype(np.float32)
    x = rng.standard_normal((BATCH, 1, 28, 28)).astype(np.float32)
    y = rng.integers(0, 10, BATCH)
    return state, x, y


def setup_dagrad():
    from dagrad import autograd as ag
    from dagrad import nn
    from dagrad import optim
    state, x, y = _problem()
    model = nn.models.LeNet()
    model.load_state_dict(state)
    loss_fn = nn.CrossEntropyLoss()
    optimizer = optim.SGD(model.parameters(), lr=LR)
    return training_step(model, loss_fn, optimizer, ag.tensor(x), ag.tensor(y))


def setup_torch():
    import torch
    from torch import nn
    state, x, y = _problem()
    model = nn.Sequential(nn.Conv2d(1, 6, 5, padding=2), nn.ReLU(), nn.MaxPool2d(2, 2),
                          nn.Conv2d(6, 16, 5), nn.ReLU(), nn.MaxPool2d(2, 2), nn.Flatten(),
                          nn.Linear(400, 120), nn.ReLU(), nn.Linear(120, 84), nn.ReLU(),
                          nn.Linear(84, 10))
    model.load_state_dict({k: torch.from_numpy(v) for k, v in state.items()})
    loss_fn = nn.CrossEntropyLoss()
    optimizer = torch.optim.SGD(model.parameters(), lr=LR)
    return training_step(model, loss_fn, optimizer, torch.from_numpy(x), torch.from_numpy(y))


def profile(steps=300, top=18):
    """cProfile of ``steps`` dagrad steps: the functions with the most time in themselves."""
    import cProfile
    import pstats
    step = setup_dagrad()
    for _ in range(5):
        step()
    profiler = cProfile.Profile()
    profiler.enable()
    for _ in range(steps):
        step()
    profiler.disable()
    stats = pstats.Stats(profiler).sort_stats("tottime")
    print(f"dagrad LeNet-5 step, {steps} steps: "
          f"{1e3 * stats.total_tt / steps:.2f} ms per step under the profiler")
    by_file = {}
    for (filename, _, name), (_, _, tottime, _, _) in stats.stats.items():
        where = filename.split("dagrad")[-1] if filename.startswith("/") else name
        key = "/".join(where.replace("\\", "/").split("/")[-2:])
        by_file[key] = by_file.get(key, 0.0) + tottime
    print("time spent in each file (or NumPy built-in), ms per step:")
    for key, seconds in sorted(by_file.items(), key=lambda kv: -kv[1])[:top]:
        print(f"  {1e3 * seconds / steps:7.3f}  {key}")
    stats.print_stats(top)


SETUPS = {"dagrad": setup_dagrad, "torch": setup_torch}

if __name__ == "__main__":
    if "--profile" in sys.argv:
        profile()
    else:
        main("benchmarks.lenet_step", SETUPS,
             "LeNet-5 step, batch 64 x 1x28x28, cross-entropy, SGD (float32, 2 threads)",
             rounds=5)
