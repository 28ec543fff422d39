"""``Size``: a tensor's shape as PyTorch gives it, a tuple of ints printed ``torch.Size([2, 3])``.

It is a ``tuple`` in every respect (``x.shape == (2, 3)``, unpacking, indexing, hashing), so
code written for either reads it; slicing it and adding tuples to it give a Size again, and
``numel()`` is the product of its entries.
"""


class Size(tuple):
    """``torch.Size``: the sizes of a tensor's dimensions (a tuple subclass)."""

    __slots__ = ()

    def __new__(cls, sizes=()):
        sizes = tuple(sizes)
        for n in sizes:
            if not isinstance(n, int) and not hasattr(n, "__index__"):
                raise TypeError(f"torch.Size() takes an iterable of 'int' (item "
                                f"{sizes.index(n)} is '{type(n).__name__}')")
        return super().__new__(cls, (n.__index__() for n in sizes))

    def __repr__(self):
        return f"torch.Size([{', '.join(str(n) for n in self)}])"

    __str__ = __repr__

    def __getitem__(self, index):
        if index.__class__ is slice:
            return _tuple_new(Size, _tuple_getitem(self, index))
        return _tuple_getitem(self, index)

    def __add__(self, other):
        if not isinstance(other, tuple):
            return NotImplemented
        return Size(tuple(self) + tuple(other))

    def __radd__(self, other):
        if not isinstance(other, tuple):
            return NotImplemented
        return Size(tuple(other) + tuple(self))

    def numel(self):
        """The number of elements a tensor of this shape holds: the product of the sizes."""
        count = 1
        for n in self:
            count *= n
        return count

    def __reduce__(self):
        return Size, (tuple(self),)


_tuple_new, _tuple_getitem = tuple.__new__, tuple.__getitem__
