"""Samplers: the order in which a ``DataLoader`` visits a dataset (``torch.utils.data``'s).

A sampler is an iterable of dataset indices with a length; ``DataLoader(dataset,
sampler=...)`` groups its indices into batches, ``DataLoader(dataset, batch_sampler=...)`` takes
whole batches (lists of indices) from a ``BatchSampler``. Random samplers draw from their
``generator`` (an ``ag.Generator`` or NumPy generator), else from dagrad's global generator
(``ag.manual_seed``), a new order on every pass.
"""
import numbers

import numpy as np

from dagrad.autograd import as_array
from dagrad.autograd import generator as global_generator
from dagrad.autograd.random import numpy_generator


class Sampler:
    """Base class: subclasses define ``__iter__`` (indices) and usually ``__len__``."""

    def __init__(self, data_source=None):
        pass

    def __iter__(self):
        raise NotImplementedError(f"{type(self).__name__} must define __iter__")


def _rng(generator):
    return global_generator() if generator is None else numpy_generator(generator)


class SequentialSampler(Sampler):
    """0, 1, ..., len(data_source) - 1."""

    def __init__(self, data_source):
        self.data_source = data_source

    def __iter__(self):
        return iter(range(len(self.data_source)))

    def __len__(self):
        return len(self.data_source)


_BLOCK = 4096       # indices drawn at a time with replacement


class RandomSampler(Sampler):
    """A random permutation of the indices; with ``replacement=True``, ``num_samples`` indices
    drawn uniformly with replacement."""

    def __init__(self, data_source, replacement=False, num_samples=None, generator=None):
        self.data_source, self.replacement, self.generator = data_source, replacement, generator
        self._num_samples = num_samples
        if not isinstance(replacement, bool):
            raise TypeError(f"RandomSampler: replacement should be a boolean value, but got "
                            f"replacement={replacement!r}")
        if not isinstance(self.num_samples, numbers.Integral) or self.num_samples <= 0:
            raise ValueError(f"RandomSampler: num_samples should be a positive integer value, "
                             f"but got num_samples={self.num_samples!r}")

    @property
    def num_samples(self):
        return len(self.data_source) if self._num_samples is None else self._num_samples

    def __iter__(self):
        """The indices, drawn as they are taken (a block at a time), so any ``num_samples``
        costs memory for one block (or one permutation), not for every index: PyTorch's
        ``RandomSampler(replacement=True, num_samples=int(1e10))`` runs."""
        n, rng, count = len(self.data_source), _rng(self.generator), self.num_samples
        if self.replacement:
            for start in range(0, count, _BLOCK):
                yield from rng.integers(0, n, min(_BLOCK, count - start)).tolist()
            return
        for start in range(0, count, n):
            yield from rng.permutation(n)[:count - start].tolist()

    def __len__(self):
        return self.num_samples


class SubsetRandomSampler(Sampler):
    """The given ``indices`` in a random order (a new one on every pass)."""

    def __init__(self, indices, generator=None):
        self.indices, self.generator = indices, generator

    def __iter__(self):
        order = _rng(self.generator).permutation(len(self.indices))
        return iter([self.indices[i] for i in order])

    def __len__(self):
        return len(self.indices)


class WeightedRandomSampler(Sampler):
    """``num_samples`` indices drawn with probabilities proportional to ``weights`` (with
    replacement by default)."""

    def __init__(self, weights, num_samples, replacement=True, generator=None):
        if (not isinstance(num_samples, numbers.Integral) or isinstance(num_samples, bool)
                or num_samples <= 0):
            raise ValueError(f"WeightedRandomSampler: num_samples should be a positive integer "
                             f"value, but got num_samples={num_samples!r}")
        weights = np.asarray(as_array(weights), dtype=np.float64)
        if weights.ndim != 1 or (weights < 0).any() or not weights.sum() > 0:
            raise ValueError(f"WeightedRandomSampler: weights must be a 1-D sequence of "
                             f"non-negative numbers, not all zero; got shape {weights.shape}")
        if not replacement and num_samples > np.count_nonzero(weights):
            raise RuntimeError(f"WeightedRandomSampler: cannot draw {num_samples} samples "
                               f"without replacement from {np.count_nonzero(weights)} "
                               f"non-zero weights")
        self.weights, self.num_samples = weights, int(num_samples)
        self.replacement, self.generator = replacement, generator

    def __iter__(self):
        p = self.weights / self.weights.sum()
        drawn = _rng(self.generator).choice(len(p), self.num_samples, self.replacement, p)
        return iter(drawn.tolist())

    def __len__(self):
        return self.num_samples


class BatchSampler(Sampler):
    """Groups the indices of ``sampler`` into lists of ``batch_size`` (the last one shorter
    unless ``drop_last``)."""

    def __init__(self, sampler, batch_size, drop_last):
        if (not isinstance(batch_size, numbers.Integral) or isinstance(batch_size, bool)
                or batch_size <= 0):
            raise ValueError(f"BatchSampler: batch_size should be a positive integer value, "
                             f"but got batch_size={batch_size!r}")
        if not isinstance(drop_last, bool):
            raise ValueError(f"BatchSampler: drop_last should be a boolean value, but got "
                             f"drop_last={drop_last!r}")
        self.sampler, self.batch_size, self.drop_last = sampler, int(batch_size), drop_last

    def __iter__(self):
        batch = []
        for index in self.sampler:
            batch.append(index)
            if len(batch) == self.batch_size:
                yield batch
                batch = []
        if batch and not self.drop_last:
            yield batch

    def __len__(self):
        n = len(self.sampler)
        return n // self.batch_size if self.drop_last else -(-n // self.batch_size)
