"""Lazy gradients: a gradient kept in a compact form until the engine needs it as an array.

A speed device of the fast path (``create_graph=False``): reading a long tensor slice by slice
(``SliceGrad``) or using one weight in many products (``ProductGrad``) would otherwise cost one
full-size array per use in backward. The engine adds lazy gradients in place or merges them,
and turns the total into an ndarray before any formula, hook, observer or ``.grad`` sees it.
"""
import numpy as np

from .blas import product


class LazyGrad:
    """A gradient kept in a compact form until the engine needs it as an array.

    A fast-path backward may return one instead of an ndarray. The engine adds lazy gradients
    cheaply (``add_to`` a buffer in place, or ``merge`` two into one) and turns the total into
    an ndarray (``dense``) before any backward formula, hook, observer or ``.grad`` sees it.
    The engine owns the lazy gradients it receives and may change them.
    """

    __slots__ = ()

    def dense(self):                 # pragma: no cover - every kind overrides it
        raise NotImplementedError

    def add_to(self, buffer):
        """``buffer += self`` in place."""
        buffer += self.dense()

    def merge(self, other):
        """self + other as one lazy gradient, or None when they do not combine."""
        return None


class SliceGrad(LazyGrad):
    """The gradient of a basic-slice read ``y = x[index]`` (ints, slices, None, Ellipsis): zero
    everywhere except ``values`` at ``index``.

    ``GetItem``'s fast-path backward returns one instead of a full-size array, and the engine
    adds it into the input's gradient buffer in place, in O(size of the slice). Reading a long
    tensor slice by slice (the time steps of a recurrent network, the gates of an LSTM) then
    costs O(total size) in backward instead of one full-size array per slice.
    """

    __slots__ = ("values", "index", "shape")

    def __init__(self, values, index, shape):
        self.values, self.index, self.shape = values, index, shape

    @property
    def dtype(self):
        return np.result_type(self.values)

    def dense(self):
        out = np.zeros(self.shape, dtype=self.dtype)
        out[self.index] = self.values
        return out

    def add_to(self, buffer):
        buffer[self.index] += self.values


class ProductGrad(LazyGrad):
    """The gradient Σₖ Aₖᵀ Bₖ of a weight used by several matrix products (an RNN's Wₕₕ at
    every time step: Aₖ = dL/d(output of product k), Bₖ = its input), kept as its factors.

    Merging two only joins their lists, so the engine computes the total once, as one large
    product [A₁; A₂; …]ᵀ [B₁; B₂; …], instead of one small product per use plus one full-size
    addition each. The factors stay alive until then (for an RNN, one step's gate gradient and
    state per step).
    """

    __slots__ = ("lefts", "rights")

    def __init__(self, left, right):
        self.lefts, self.rights = [left], [right]

    @property
    def shape(self):
        return self.lefts[0].shape[1:] + self.rights[0].shape[1:]

    @property
    def dtype(self):
        return np.result_type(self.lefts[0], self.rights[0])

    def dense(self):
        if len(self.lefts) == 1:
            return product(self.lefts[0].T, self.rights[0])
        return product(np.concatenate(self.lefts).T, np.concatenate(self.rights))

    def merge(self, other):
        if type(other) is not ProductGrad:
            return None
        self.lefts += other.lefts
        self.rights += other.rights
        return self
