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
from dagrad.autograd.dtypes import promote_types
from dagrad.autograd import generator as global_generator
from dagrad.autograd.random import numpy_generator
from dagrad.autograd.default_dtype import get_default_dtype

from .samplers import (BatchSampler, RandomSampler, Sampler, SequentialSampler,  # noqa: F401
                       SubsetRandomSampler, WeightedRandomSampler)


class Dataset:
    """Base class: subclasses define ``__getitem__(index)`` and ``__len__()``."""

    def __getitem__(self, index):
        raise NotImplementedError(f"{type(self).__name__} must define __getitem__")

    def __len__(self):
        raise NotImplementedError(f"{type(self).__name__} must define __len__")


def _out_of_range(what, index, size):
    """PyTorch's words for an index outside a data set of ``size`` samples, and the range."""
    return (f"{what}: index {index} is out of bounds for dimension 0 with size {size} (its "
            f"samples are 0..{size - 1}, or -{size}..-1 from the end)" if size else
            f"{what}: index {index} is out of bounds: the data set is empty")


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
        try:
            return tuple(Tensor(a[index]) for a in self.arrays)
        except IndexError:
            raise IndexError(_out_of_range("TensorDataset", index, len(self))) from None

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
        try:
            position = int(self.indices[index])
        except IndexError:
            raise IndexError(_out_of_range("Subset", index, len(self))) from None
        return self.dataset[position]

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
    """Turn a list of samples into a batch, as PyTorch's ``default_collate``, by the type of the
    first sample: tuples/lists are collated position by position, dicts key by key (every
    sample must have the same length or keys), strings stay a list, and the rest become one
    Tensor:

    - Tensors and arrays are stacked with PyTorch's type promotion (``[tensor([1]),
      tensor([2.5])]`` is float32; arrays of int64 and float64 give float64);
    - Python floats give float64 (``torch.tensor(batch, dtype=float64)``); Python ints and
      bools give what ``torch.tensor(batch)`` gives (``[1, 2.5, 3]`` is float32);
    - NumPy scalars keep their dtype (``np.float32`` samples give float32).

    Anything else (None, arbitrary objects) raises TypeError, as in PyTorch."""
    if not samples:
        raise ValueError("default_collate: the batch is empty")
    first = samples[0]
    if isinstance(first, str):
        return samples
    if isinstance(first, (tuple, list)):
        _check_lengths(samples)
        return type(first)(default_collate(list(column)) for column in zip(*samples))
    if isinstance(first, dict):
        _check_keys(samples)
        return {key: default_collate([s[key] for s in samples]) for key in first}
    if isinstance(first, (Tensor, np.ndarray)):
        return Tensor(_stack([as_array(s) if isinstance(s, (Tensor, np.ndarray)) else
                              _refuse(s, first) for s in samples]))
    if isinstance(first, np.generic):
        return Tensor(np.array(samples))
    if isinstance(first, float):
        return Tensor(np.array(samples, dtype=_python_numbers_dtype(samples, np.float64)))
    if isinstance(first, numbers.Number):
        return Tensor(np.array(samples, dtype=_python_numbers_dtype(samples, get_default_dtype())))
    raise TypeError(f"default_collate: batch must contain tensors, numpy arrays, numbers, dicts "
                    f"or lists; found {type(first).__name__} ({first!r:.40}). Return one of "
                    f"those from the dataset's __getitem__, or pass collate_fn= to the "
                    f"DataLoader to batch other objects")


def _stack(arrays):
    """``np.stack`` of same-shaped arrays, in PyTorch's promoted dtype (not NumPy's)."""
    shape = arrays[0].shape
    for k, a in enumerate(arrays):
        if a.shape != shape:
            raise RuntimeError(f"default_collate: stack expects each tensor to be equal size, "
                               f"but got {list(shape)} at entry 0 and {list(a.shape)} at entry "
                               f"{k}; pad the samples to one shape in the dataset, or pass a "
                               f"collate_fn that pads them")
    dtype = None
    for a in arrays:
        dtype = promote_types(dtype, a.dtype)
    return np.stack(arrays).astype(dtype, copy=False)


def _refuse(sample, first):
    raise TypeError(f"default_collate: cannot batch a {type(sample).__name__} with samples of "
                    f"type {type(first).__name__}; every sample must be a tensor or array")


def _check_lengths(samples):
    length = len(samples[0])
    for k, s in enumerate(samples):
        if not isinstance(s, (tuple, list)) or len(s) != length:
            what = f"of length {len(s)}" if isinstance(s, (tuple, list)) else type(s).__name__
            raise RuntimeError(f"default_collate: each element in list of batch should be of "
                               f"equal size: sample 0 has {length} fields, sample {k} is {what}."
                               f" Return the same fields from every __getitem__, or pass a "
                               f"collate_fn that batches them")


def _check_keys(samples):
    keys = set(samples[0])
    for k, s in enumerate(samples):
        if not isinstance(s, dict) or set(s) != keys:
            found = sorted(map(str, s)) if isinstance(s, dict) else type(s).__name__
            raise KeyError(f"default_collate: sample 0 has keys {sorted(map(str, keys))} but "
                           f"sample {k} has {found}; every sample needs the same keys (or pass "
                           f"a collate_fn)")


def _python_numbers_dtype(samples, floating):
    """bool < int64 < ``floating`` over every sample: ``torch.tensor(samples)`` when the first
    is an int or bool (float32 for floats), float64 when it is a float (PyTorch's collate)."""
    if all(isinstance(s, (bool, np.bool_)) for s in samples):
        return np.bool_
    if all(isinstance(s, numbers.Integral) for s in samples):
        return np.int64
    if all(isinstance(s, numbers.Real) for s in samples):
        return floating
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
        sampler: the indices to visit, in order (a ``Sampler`` of ``nn.samplers``, or any
            iterable of indices with a length); excludes ``shuffle``.
        batch_sampler: yields whole batches (lists of indices), e.g. a ``BatchSampler``;
            excludes ``batch_size``, ``shuffle``, ``sampler`` and ``drop_last``.
        num_workers, pin_memory, persistent_workers, timeout, worker_init_fn,
            prefetch_factor: accepted so PyTorch code runs unchanged; batches are always built
            in the calling process (NumPy fancy indexing makes one batch per call, so worker
            processes would only add copying), and there is no GPU memory to pin for.

    ``len(loader)`` is the number of batches per epoch.
    """

    def __init__(self, dataset, batch_size=1, shuffle=False, drop_last=False, collate_fn=None,
                 seed=None, generator=None, *, sampler=None, batch_sampler=None, num_workers=0,
                 pin_memory=False, persistent_workers=False, timeout=0, worker_init_fn=None,
                 prefetch_factor=None):
        if not isinstance(num_workers, numbers.Integral) or num_workers < 0:
            raise ValueError(f"DataLoader: num_workers must be a non-negative integer, got "
                             f"{num_workers!r}")
        if (not isinstance(batch_size, numbers.Integral) or isinstance(batch_size, bool)
                or batch_size < 1):
            raise ValueError(f"DataLoader: batch_size must be a positive integer, got "
                             f"{batch_size!r}")
        if sampler is not None and shuffle:
            raise ValueError("DataLoader: sampler option is mutually exclusive with shuffle "
                             "(a sampler decides the order; use RandomSampler to shuffle)")
        if batch_sampler is not None and (batch_size != 1 or shuffle or sampler is not None
                                          or drop_last):
            raise ValueError("DataLoader: batch_sampler option is mutually exclusive with "
                             "batch_size, shuffle, sampler, and drop_last (the batch sampler "
                             "decides all four)")
        self.sampler, self.batch_sampler = sampler, batch_sampler
        self.dataset = dataset
        self.batch_size = None if batch_sampler is not None else int(batch_size)
        self.shuffle, self.drop_last = shuffle, drop_last
        self.collate_fn = collate_fn
        self.num_workers = int(num_workers)
        self.generator = numpy_generator(generator) if generator is not None else (
            np.random.default_rng(seed) if seed is not None else None)

    def __len__(self):
        if self.batch_sampler is not None:
            return len(self.batch_sampler)
        n = len(self.sampler if self.sampler is not None else self.dataset)
        return n // self.batch_size if self.drop_last else -(-n // self.batch_size)

    def __iter__(self):
        fast = self.collate_fn is None and hasattr(self.dataset, "get_batch")
        collate = self.collate_fn or default_collate
        for idx in self._batches():
            if fast:
                yield self.dataset.get_batch(np.asarray(idx))
            else:
                yield collate([self.dataset[_index(i)] for i in idx])

    def _batches(self):
        """The index batches of one epoch."""
        if self.batch_sampler is not None:
            yield from self.batch_sampler
            return
        if self.sampler is not None:    # taken as drawn: a sampler may be longer than memory
            yield from BatchSampler(self.sampler, self.batch_size, self.drop_last)
            return
        if self.shuffle:
            order = (self.generator or global_generator()).permutation(len(self.dataset))
        else:
            order = np.arange(len(self.dataset))
        stop = len(order) if not self.drop_last else len(order) - len(order) % self.batch_size
        for start in range(0, stop, self.batch_size):
            yield order[start:start + self.batch_size]


def _index(i):
    """A dataset index: NumPy integers become ints (keys of other kinds pass through)."""
    return int(i) if isinstance(i, numbers.Integral) else i
