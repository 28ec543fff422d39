"""Datasets and mini-batch loading, as ``torch.utils.data``.

A ``Dataset`` has ``__len__`` and ``__getitem__(i)`` (one sample). ``DataLoader`` walks it in
mini-batches, optionally shuffled, and turns each batch of samples into Tensors with a collate
function. Datasets backed by arrays (``TensorDataset``, and ``Subset`` of one) also provide
``get_batch(indices)``, which the loader uses to fetch a whole batch with one fancy-indexing
operation per array instead of one Python call per sample.
"""
import math
import numbers

import numpy as np

from dagrad.autograd import Tensor, as_array
from dagrad.autograd import generator as global_generator
from dagrad.autograd.random import numpy_generator


class Dataset:
    """Base class: subclasses define ``__getitem__(index)`` and ``__len__()``."""

    def __getitem__(self, index):
        raise NotImplementedError(f"{type(self).__name__} must define __getitem__")

    def __len__(self):
        raise NotImplementedError(f"{type(self).__name__} must define __len__")


class TensorDataset(Dataset):
    """Samples are the i-th rows of each array: ``dataset[i] == (X[i], y[i])``.

    ``arrays`` are Tensors or ndarrays with the same first dimension (the sample dimension).
    """

    def __init__(self, *arrays):
        if not arrays:
            raise ValueError("TensorDataset: give at least one array")
        self.arrays = [as_array(a) for a in arrays]
        sizes = [len(a) for a in self.arrays]
        if len(set(sizes)) > 1:
            raise ValueError(f"TensorDataset: every array needs the same first dimension (one "
                             f"row per sample), got sizes {sizes}")

    @property
    def tensors(self):
        return tuple(Tensor(a) for a in self.arrays)

    def __len__(self):
        return len(self.arrays[0])

    def __getitem__(self, index):
        return tuple(Tensor(a[index]) for a in self.arrays)

    def get_batch(self, indices):
        """The samples at ``indices`` as a tuple of batched Tensors (one per array)."""
        return tuple(Tensor(a[indices]) for a in self.arrays)


class Subset(Dataset):
    """The samples of ``dataset`` at ``indices``, in that order."""

    def __init__(self, dataset, indices):
        array = np.asarray(indices)
        if array.size and array.dtype.kind not in "iu":
            raise TypeError(f"Subset: indices must be integers, got {array.dtype} "
                            f"({array.reshape(-1)[:3].tolist()}...); a float index would be "
                            f"truncated to another sample. Convert them with int()")
        self.dataset, self.indices = dataset, array.astype(np.int64)

    def __len__(self):
        return len(self.indices)

    def __getitem__(self, index):
        return self.dataset[int(self.indices[index])]

    def __getattr__(self, name):
        # get_batch exists exactly when the underlying dataset has it
        if name == "get_batch" and hasattr(self.dataset, "get_batch"):
            return lambda indices: self.dataset.get_batch(self.indices[indices])
        raise AttributeError(f"'Subset' object has no attribute '{name}'")


def random_split(dataset, lengths, seed=None, generator=None):
    """Split ``dataset`` into non-overlapping random ``Subset``\\ s of the given ``lengths``
    (counts summing to len(dataset), or fractions summing to 1; leftovers from rounding go to
    the first subsets one by one, as PyTorch). ``seed`` (or a ``numpy.random.Generator``
    ``generator``) makes the split reproducible; otherwise autograd's global generator is used."""
    n = len(dataset)
    lengths = list(lengths)
    if lengths and all(isinstance(x, float) and 0 <= x <= 1 for x in lengths) \
            and math.isclose(sum(lengths), 1.0) and sum(lengths) <= 1:
        counts = [int(math.floor(n * f)) for f in lengths]
        for i in range(n - sum(counts)):
            counts[i % len(counts)] += 1
        lengths = counts
    if sum(lengths) != n:
        raise ValueError(f"random_split: lengths {lengths} must sum to the dataset size {n} "
                         f"(or be fractions summing to 1)")
    rng = _rng(seed, generator)
    order = rng.permutation(n)
    out, start = [], 0
    for k in lengths:
        out.append(Subset(dataset, order[start:start + k]))
        start += k
    return out


def _rng(seed, gen):
    if gen is not None:
        return numpy_generator(gen)
    return np.random.default_rng(seed) if seed is not None else global_generator()


def default_collate(samples):
    """Turn a list of samples into a batch: tuples/lists are collated position by position,
    dicts key by key, and Tensors, arrays and numbers are stacked into one Tensor. Python
    numbers take the dtype ``torch.tensor(samples)`` would give the whole batch: bool if all
    are bools, int64 if all are integers, float32 as soon as one is a float (so [1, 2.5, 3]
    stays [1.0, 2.5, 3.0]); arrays and tensors are promoted as by ``np.stack``."""
    first = samples[0]
    if isinstance(first, (tuple, list)):
        return type(first)(default_collate(list(column)) for column in zip(*samples))
    if isinstance(first, dict):
        return {key: default_collate([s[key] for s in samples]) for key in first}
    if isinstance(first, Tensor):
        return Tensor(np.stack([s._data for s in samples]))
    if isinstance(first, np.ndarray):
        return Tensor(np.stack(samples))
    if isinstance(first, np.generic):
        return Tensor(np.array(samples))
    if isinstance(first, numbers.Number):
        return Tensor(np.array(samples, dtype=_python_numbers_dtype(samples)))
    return samples   # e.g. strings: left as a list


def _python_numbers_dtype(samples):
    """bool < int64 < float32 over every sample, as ``torch.tensor(samples)``."""
    if all(isinstance(s, (bool, np.bool_)) for s in samples):
        return np.bool_
    if all(isinstance(s, numbers.Integral) for s in samples):
        return np.int64
    if all(isinstance(s, numbers.Real) for s in samples):
        return np.float32
    bad = next(s for s in samples if not isinstance(s, numbers.Real))
    raise TypeError(f"default_collate: cannot batch {bad!r} ({type(bad).__name__}) with real "
                    f"numbers; dagrad tensors hold real numbers (split complex values into "
                    f"real and imaginary parts)")


class DataLoader:
    """Iterate over ``dataset`` in mini-batches.

    Args:
        dataset: a Dataset (anything with ``__len__`` and ``__getitem__``).
        batch_size: samples per batch.
        shuffle: visit the samples in a new random order every epoch.
        drop_last: drop the last batch if it is smaller than ``batch_size``.
        collate_fn: turns a list of samples into a batch (default: ``default_collate``).
        seed: seed of the loader's own generator, so the sequence of epochs is reproducible;
            without it the shuffles come from autograd's global generator (``ag.manual_seed``).
        generator: a ``numpy.random.Generator`` or ``ag.Generator`` (``torch.Generator``) to
            use instead of ``seed``.
        num_workers, pin_memory, persistent_workers, timeout, worker_init_fn,
            prefetch_factor: accepted so PyTorch code runs unchanged; batches are always built
            in the calling process (NumPy fancy indexing makes one batch per call, so worker
            processes would only add copying), and there is no GPU memory to pin for.

    ``len(loader)`` is the number of batches per epoch.
    """

    def __init__(self, dataset, batch_size=1, shuffle=False, drop_last=False, collate_fn=None,
                 seed=None, generator=None, *, num_workers=0, pin_memory=False,
                 persistent_workers=False, timeout=0, worker_init_fn=None,
                 prefetch_factor=None):
        if not isinstance(num_workers, numbers.Integral) or num_workers < 0:
            raise ValueError(f"DataLoader: num_workers must be a non-negative integer, got "
                             f"{num_workers!r}")
        if (not isinstance(batch_size, numbers.Integral) or isinstance(batch_size, bool)
                or batch_size < 1):
            raise ValueError(f"DataLoader: batch_size must be a positive integer, got "
                             f"{batch_size!r}")
        self.dataset, self.batch_size = dataset, int(batch_size)
        self.shuffle, self.drop_last = shuffle, drop_last
        self.collate_fn = collate_fn
        self.num_workers = int(num_workers)
        self.generator = numpy_generator(generator) if generator is not None else (
            np.random.default_rng(seed) if seed is not None else None)

    def __len__(self):
        n = len(self.dataset)
        return n // self.batch_size if self.drop_last else -(-n // self.batch_size)

    def __iter__(self):
        n = len(self.dataset)
        if self.shuffle:
            order = (self.generator or global_generator()).permutation(n)
        else:
            order = np.arange(n)
        fast = self.collate_fn is None and hasattr(self.dataset, "get_batch")
        for start in range(0, len(self) * self.batch_size, self.batch_size):
            idx = order[start:start + self.batch_size]
            if fast:
                yield self.dataset.get_batch(idx)
            else:
                collate = self.collate_fn or default_collate
                yield collate([self.dataset[int(i)] for i in idx])
