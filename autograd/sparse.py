"""Sparse COO tensors: ``sparse_coo_tensor``, ``Tensor.to_sparse``, ``spmm``, as PyTorch's.

A COO tensor of ``size`` keeps only its nonzero entries: ``indices``, an int64 array of shape
(sparse_dim, nnz) whose column k locates entry k, and ``values``, a Tensor of shape
(nnz, *dense_dims) holding them. Entries named twice add up (the tensor is "uncoalesced" until
``coalesce()`` sorts the indices and sums repeats).

Gradients flow to ``values`` (a sparse tensor built from values that require grad has
``requires_grad`` and their history; ``requires_grad=True`` on values that need none makes a
new leaf and leaves the caller's values alone), and after backward ``grad`` is sparse with
∂L/∂(dense tensor) once at each distinct index, as in PyTorch. Every operation here is composed from recorded operations, so first and second
derivatives come from theirs:

    to_dense:      D = zeros(size);  D[indices[:, k]] += values[k]           (scatter-add)
    spmm(S, B):    (S @ B)[i] = Σ_{k: row_k = i} values[k] · B[col_k]         (gather, scale,
                   scatter-add: O(nnz · p) time and memory for B of shape (m, p))
                   ∂L/∂values[k] = ⟨∂L/∂out[row_k], B[col_k]⟩,  ∂L/∂B = Sᵀ ∂L/∂out
"""
import numpy as np

from .creation import as_tensor
from .device import check_device, parse_to_args
from .ops import cast, indexing
from .ops.linalg import matmul
from .size import Size
from .tensor import Tensor


class SparseTensor:
    """A sparse COO tensor (``layout == "sparse_coo"``, ``is_sparse``). Build one with
    ``sparse_coo_tensor(indices, values, size)`` or ``dense.to_sparse()``."""

    layout = "sparse_coo"
    is_sparse = True
    is_cuda = False

    def __init__(self, indices, values, size, coalesced=False):
        self._indices_array, self._values_tensor = indices, values
        self._size, self._coalesced = Size(size), coalesced

    # ------------------------------------------------------------------------ describing
    @property
    def shape(self):
        return self._size

    def size(self, dim=None):
        return self._size if dim is None else self._size[dim]

    def dim(self):
        return len(self._size)

    ndim = property(dim)

    @property
    def dtype(self):
        return self._values_tensor.dtype

    @property
    def device(self):
        return self._values_tensor.device

    def sparse_dim(self):
        return self._indices_array.shape[0]

    def dense_dim(self):
        return self._values_tensor.ndim - 1

    def _nnz(self):
        return self._indices_array.shape[1]

    def _indices(self):
        """The indices (sparse_dim, nnz) as stored, repeats included."""
        return Tensor(self._indices_array)

    def _values(self):
        """The values (nnz, *dense_dims) as stored; gradients flow through them."""
        return self._values_tensor

    def indices(self):
        self._require_coalesced("indices")
        return self._indices()

    def values(self):
        self._require_coalesced("values")
        return self._values()

    def _require_coalesced(self, what):
        if not self._coalesced:
            raise RuntimeError(f"Cannot get {what} on an uncoalesced tensor, please call "
                               f".coalesce() first")

    def is_coalesced(self):
        return self._coalesced

    @property
    def requires_grad(self):
        return self._values_tensor.requires_grad

    @property
    def is_leaf(self):
        return self._values_tensor.is_leaf

    @property
    def grad_fn(self):
        return self._values_tensor.grad_fn

    def requires_grad_(self, requires_grad=True):
        self._values_tensor.requires_grad_(requires_grad)
        return self

    @property
    def grad(self):
        """∂L/∂self after backward (None before): sparse, holding ∂L/∂D (D the dense tensor)
        once at each distinct index of this tensor, sorted, as PyTorch. (Every stored copy of
        a repeated index carries that same ∂L/∂D in ``values.grad``; keeping them all would
        count it twice in ``grad.to_dense()``.)"""
        grad = self._values_tensor.grad
        if grad is None:
            return None
        if not self._coalesced:
            indices, _, first = self._distinct()
            return SparseTensor(indices, grad[first], self._size, False)
        return SparseTensor(self._indices_array, grad, self._size, False)   # PyTorch's flag

    def _distinct(self):
        """The distinct indices, sorted (sparse_dim, n), and for each stored entry the position
        of its index among them (nnz,), and each distinct index's first entry (n,)."""
        sparse_shape = tuple(self._size[:self.sparse_dim()])
        if not self._nnz():
            empty = np.zeros(0, dtype=np.int64)
            return np.zeros((len(sparse_shape), 0), dtype=np.int64), empty, empty
        flat = np.ravel_multi_index(tuple(self._indices_array), sparse_shape)
        unique, first, inverse = np.unique(flat, return_index=True, return_inverse=True)
        indices = np.stack(np.unravel_index(unique, sparse_shape)).astype(np.int64)
        return indices.reshape(len(sparse_shape), -1), inverse.reshape(-1), first

    def __repr__(self):
        indices = repr(self._indices()).replace("\n", "\n" + " " * 15)
        values = repr(self._values_tensor).replace("\n", "\n" + " " * 14)
        sizes = "(" + ", ".join(str(n) for n in self._size) + ("," if len(self._size) == 1
                                                                  else "") + ")"
        return (f"tensor(indices={indices},\n       values={values},\n       size={sizes}, "
                f"nnz={self._nnz()}, layout=torch.sparse_coo)")

    # ------------------------------------------------------------------------ operations
    def to_dense(self):
        """The dense tensor: zeros with each value added at its index (repeats summed)."""
        return indexing.Unindex.apply(self._values_tensor, index=tuple(self._indices_array),
                                      shape=tuple(self._size))

    def coalesce(self):
        """The same tensor with sorted, unique indices (repeated entries summed)."""
        if self._coalesced:
            return self
        indices, inverse, _ = self._distinct()
        values = indexing.Unindex.apply(self._values_tensor, index=(inverse,),
                                        shape=(indices.shape[1],) +
                                        tuple(self._values_tensor.shape[1:]))
        return SparseTensor(indices, values, self._size, True)

    def mm(self, dense):
        return spmm(self, dense)

    __matmul__ = mm

    def __mul__(self, scalar):
        if not isinstance(scalar, (int, float)):
            raise TypeError("sparse tensor * x: dagrad multiplies sparse tensors by numbers "
                            "only; use .to_dense() for element-wise products with tensors")
        return SparseTensor(self._indices_array, self._values_tensor * scalar, self._size,
                            self._coalesced)

    __rmul__ = __mul__

    def to(self, *args, **kwargs):
        dtype, _ = parse_to_args(args, kwargs, "SparseTensor.to")
        if dtype is None:
            return self
        return SparseTensor(self._indices_array, cast.cast(self._values_tensor, dtype),
                            self._size, self._coalesced)

    def cpu(self):
        return self

    def detach(self):
        return SparseTensor(self._indices_array, self._values_tensor.detach(), self._size,
                            self._coalesced)


def as_dense_operand(x):
    """The dense form of a sparse operand of ``dense + sparse`` / ``dense - sparse`` (PyTorch's
    result is dense; the sparse values get their gradients through ``to_dense``). Called when
    the operation refused ``x``: anything but a sparse tensor is re-raised as it was."""
    if not isinstance(x, SparseTensor):
        raise
    return x.to_dense()


def sparse_coo_tensor(indices, values, size=None, dtype=None, device=None, requires_grad=False,
                      check_invariants=None, is_coalesced=None):
    """A sparse COO tensor with ``values[k]`` at ``indices[:, k]`` (see the module's docstring).

    ``indices``: integers of shape (sparse_dim, nnz); ``values``: (nnz, *dense_dims); ``size``:
    the full shape (by default the largest index + 1 in each sparse dimension, then the
    values' dense dimensions). Indices outside ``size`` are refused here (PyTorch checks them
    only when asked).
    """
    check_device(device, "sparse_coo_tensor")
    index = np.asarray(indices._data if isinstance(indices, Tensor) else indices)
    if index.ndim == 1 and index.size == 0:
        index = index.reshape(1, 0)
    if index.ndim != 2 or (index.size and index.dtype.kind not in "iu"):
        raise ValueError(f"sparse_coo_tensor: indices must be integers of shape (sparse_dim, "
                         f"nnz), got {index.dtype} of shape {tuple(index.shape)}")
    index = index.astype(np.int64)
    values = as_tensor(values) if dtype is None else cast.cast(as_tensor(values), dtype)
    if values.ndim == 0 or values.shape[0] != index.shape[1]:
        raise ValueError(f"sparse_coo_tensor: values of shape {tuple(values.shape)} do not give "
                         f"one value per index column ({index.shape[1]} columns); values has "
                         f"shape (nnz, *dense_dims)")
    sparse_dim = index.shape[0]
    if size is None:
        size = tuple(int(n) + 1 for n in index.max(axis=1)) if index.size else (0,) * sparse_dim
        size += tuple(values.shape[1:])
    size = tuple(int(n) for n in size)
    if len(size) != sparse_dim + values.ndim - 1 or tuple(size[sparse_dim:]) != tuple(
            values.shape[1:]):
        raise ValueError(f"sparse_coo_tensor: size {size} does not match {sparse_dim} sparse "
                         f"dimensions and values of shape {tuple(values.shape)}")
    if index.size:
        low, high = index.min(axis=1), index.max(axis=1)
        for d in range(sparse_dim):
            if low[d] < 0 or high[d] >= size[d]:
                raise ValueError(f"sparse_coo_tensor: size is inconsistent with indices: for "
                                 f"dim {d}, size is {size[d]} but found index "
                                 f"{high[d] if high[d] >= size[d] else low[d]}")
    if requires_grad and not values.requires_grad:
        values = values.detach().requires_grad_(True)   # a new leaf; the caller's stays as it is
    return SparseTensor(index, values, size, bool(is_coalesced))


def to_sparse(x, sparse_dim=None):
    """``x.to_sparse()``: the COO tensor of dense ``x``'s nonzero entries (coalesced); with
    ``sparse_dim`` < x.ndim, whole nonzero sub-tensors become the values."""
    x = as_tensor(x)
    sparse_dim = x.ndim if sparse_dim is None else int(sparse_dim)
    if not 0 < sparse_dim <= x.ndim:
        raise ValueError(f"to_sparse: sparse_dim must be in 1..{x.ndim}, got {sparse_dim}")
    data = x._data
    nonzero = data.reshape(data.shape[:sparse_dim] + (-1,)).any(axis=-1) if \
        sparse_dim < x.ndim else data != 0
    where = np.nonzero(nonzero)
    values = indexing.getitem(x, where)
    indices = np.stack(where).astype(np.int64) if where else np.zeros((0, 0), np.int64)
    return SparseTensor(indices.reshape(sparse_dim, -1), values, x.shape, True)


def spmm(sparse, dense):
    """``torch.spmm`` / ``torch.sparse.mm``: the dense product of a 2-D sparse tensor (n, m)
    with a dense matrix (m, p), differentiable in both the sparse values and the matrix."""
    if not isinstance(sparse, SparseTensor):
        raise TypeError(f"spmm: the first argument must be a sparse tensor, got "
                        f"{type(sparse).__name__}; for dense matrices use torch.mm")
    dense = as_tensor(dense)
    if sparse.sparse_dim() != 2 or sparse.dense_dim() or dense.ndim != 2 \
            or sparse.shape[1] != dense.shape[0]:
        raise ValueError(f"spmm: expected a 2-D sparse matrix (n, m) and a dense (m, p) "
                         f"matrix, got sizes {tuple(sparse.shape)} and {tuple(dense.shape)}")
    rows, cols = sparse._indices_array
    gathered = indexing.getitem(dense, cols)                        # (nnz, p): B[col_k]
    scaled = sparse._values_tensor.reshape(-1, 1) * gathered        # values[k] · B[col_k]
    return indexing.Unindex.apply(scaled, index=(rows,), shape=(sparse.shape[0], dense.shape[1]))


def dense_spmm(dense, sparse):
    """The dense product of a dense matrix (n, m) with a 2-D sparse tensor (m, p), as
    PyTorch's ``dense @ sparse``: (Sᵀ Dᵀ)ᵀ, so it costs O(nnz · n) like ``spmm``."""
    flipped = SparseTensor(sparse._indices_array[::-1], sparse._values_tensor,
                           tuple(sparse.shape)[::-1])
    return spmm(flipped, as_tensor(dense).transpose(0, 1)).transpose(0, 1)


def mm(a, b):
    """``torch.mm``: a matrix product, sparse (spmm) when ``a`` or ``b`` is a sparse tensor."""
    if isinstance(a, SparseTensor):
        return spmm(a, b)
    if isinstance(b, SparseTensor):
        return dense_spmm(a, b)
    return matmul(a, b)
