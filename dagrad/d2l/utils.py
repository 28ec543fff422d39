"""The book's small helpers: ``add_to_class``, ``HyperParameters``, the timers and counters,
shape checks and the device helpers (dagrad runs on the CPU, so there is never a GPU)."""
import inspect
import time

import numpy as np

from dagrad import torch


def add_to_class(Class):
    """Register the decorated function as a method of ``Class`` (the book defines classes
    one method per cell this way)."""
    def wrapper(obj):
        setattr(Class, obj.__name__, obj)
    return wrapper


class HyperParameters:
    """``save_hyperparameters()`` stores the caller's ``__init__`` arguments as attributes
    (and in ``self.hparams``), except those in ``ignore`` and names starting with ``_``."""

    def save_hyperparameters(self, ignore=()):
        frame = inspect.currentframe().f_back
        _, _, _, local_vars = inspect.getargvalues(frame)
        skip = set(ignore) | {"self"}
        self.hparams = {k: v for k, v in local_vars.items()
                        if k not in skip and not k.startswith("_")}
        for k, v in self.hparams.items():
            setattr(self, k, v)


class Timer:
    """Wall-clock intervals: ``start()``, ``stop()`` (records and returns the interval),
    ``avg()``, ``sum()``, ``cumsum()``."""

    def __init__(self):
        self.times = []
        self.start()

    def start(self):
        self.tik = time.time()

    def stop(self):
        self.times.append(time.time() - self.tik)
        return self.times[-1]

    def avg(self):
        return sum(self.times) / len(self.times)

    def sum(self):
        return sum(self.times)

    def cumsum(self):
        return np.array(self.times).cumsum().tolist()


class Benchmark:
    """``with Benchmark("what"):`` prints how long the block took."""

    def __init__(self, description="Done"):
        self.description = description

    def __enter__(self):
        self.timer = Timer()
        return self

    def __exit__(self, *args):
        print(f"{self.description}: {self.timer.stop():.4f} sec")


class Accumulator:
    """Running sums of ``n`` quantities: ``add(a, b, ...)`` adds to each, ``acc[i]`` reads one."""

    def __init__(self, n):
        self.data = [0.0] * n

    def add(self, *args):
        self.data = [a + float(b) for a, b in zip(self.data, args)]

    def reset(self):
        self.data = [0.0] * len(self.data)

    def __getitem__(self, idx):
        return self.data[idx]


def check_len(a, n):
    """Assert that the list ``a`` has ``n`` items."""
    assert len(a) == n, f"list's length {len(a)} != expected length {n}"


def check_shape(a, shape):
    """Assert that the tensor ``a`` has shape ``shape`` (a tuple or torch.Size)."""
    assert tuple(a.shape) == tuple(shape), \
        f"tensor's shape {tuple(a.shape)} != expected shape {tuple(shape)}"


def cpu():
    return torch.device("cpu")


def gpu(i=0):
    """The book's ``gpu(i)``: dagrad has none, so this raises the device error."""
    return torch.device(f"cuda:{i}")


def num_gpus():
    return torch.cuda.device_count()


def try_gpu(i=0):
    """A GPU if there is one (never in dagrad), else the CPU."""
    return gpu(i) if num_gpus() >= i + 1 else cpu()


def try_all_gpus():
    """Every GPU (none in dagrad): an empty list."""
    return [gpu(i) for i in range(num_gpus())]


def split_batch(X, y, devices):
    """X and y cut along the batch axis into one share per device, the i-th share on
    ``devices[i]``, as ``nn.parallel.scatter`` cuts (``Tensor.chunk``: shares of ⌈n / k⌉ rows,
    so fewer than k shares when n is small). Returns (X's shares, y's shares), two tuples.
    dagrad's devices are all the CPU: with ``[d2l.try_gpu(i) for i in range(k)]`` the k
    shares stay in memory where they are, and each "device" computes its share in turn."""
    if X.shape[0] != y.shape[0]:
        raise ValueError(f"split_batch: X has {X.shape[0]} rows and y {y.shape[0]}; they must "
                         f"be the same batch")
    devices = list(devices)
    if not devices:
        raise ValueError("split_batch: no devices to split over (d2l.try_all_gpus() is empty "
                         "without a GPU); pass [d2l.try_gpu()] or [d2l.cpu()] for one share")

    def scatter(tensor):
        return tuple(share.to(device) for share, device in zip(tensor.chunk(len(devices)),
                                                                devices))
    return scatter(X), scatter(y)
