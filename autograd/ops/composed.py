"""Operations composed from the primitive ones; each gradient follows from its parts.

PyTorch has these under its own names (``torch.sinh``, ``torch.tril``, ``torch.bmm``, ...);
none needs a fused kernel, so each is a short composition and its derivative is the chain rule
over ``exp``, ``where``, ``getitem`` and ``matmul``.
"""
from collections import namedtuple

import numpy as np

from ..args import normalize_dim
from ..tensor import make_tensor, raw_data, Tensor
from . import cast, elementary, indexing, linalg, piecewise
from . import shape as shape_ops   # "shape" is a local name below


def sinh(x):
    """sinh x = (eˣ - e⁻ˣ) / 2;   d/dx = cosh x"""
    return (elementary.exp(x) - elementary.exp(-x)) * 0.5


def cosh(x):
    """cosh x = (eˣ + e⁻ˣ) / 2;   d/dx = sinh x"""
    return (elementary.exp(x) + elementary.exp(-x)) * 0.5


def log10(x):
    """log₁₀ x = ln x / ln 10;   d/dx = 1 / (x ln 10)"""
    return elementary.log(x) * _INV_LN10


_INV_LN10 = 1.0 / np.log(10.0)


def square(x):
    """x²;   d/dx = 2x"""
    return x * x


def _piecewise_constant(x, values):
    """``values`` (computed from x's array) as a result whose derivative is 0 everywhere; as in
    PyTorch it stays in the graph when ``x`` requires grad (``where`` with a mask that never
    picks ``x`` gives exactly that zero gradient)."""
    if not x.requires_grad:
        return make_tensor(values, None)
    return piecewise.where(np.zeros(x.shape, dtype=bool), x, values)


def sign(x):
    """-1, 0 or 1 by the sign of each element; derivative 0."""
    return _piecewise_constant(x, np.sign(x._data))


def floor(x):
    """The largest integer <= x, elementwise (same dtype); derivative 0."""
    return _piecewise_constant(x, np.floor(x._data))


def ceil(x):
    """The smallest integer >= x, elementwise; derivative 0."""
    return _piecewise_constant(x, np.ceil(x._data))


def round(x, decimals=0):
    """x rounded to ``decimals`` places, halves to even (as PyTorch); derivative 0."""
    return _piecewise_constant(x, np.round(x._data, decimals))


SortResult = namedtuple("SortResult", ["values", "indices"])


def argsort(x, dim=-1, descending=False, stable=False):
    """The indices that sort ``x`` along ``dim`` (int64)."""
    d = normalize_dim(dim, x.ndim, "argsort")
    data = -x._data if descending else x._data
    order = np.argsort(data, axis=d, kind="stable" if stable or descending else None)
    return make_tensor(order.astype(np.int64), None)


def sort(x, dim=-1, descending=False, stable=False):
    """``(values, indices)`` of ``x`` sorted along ``dim``; the gradient of ``values`` goes
    back to the positions the values came from (a gather)."""
    indices = argsort(x, dim, descending, stable)
    d = normalize_dim(dim, x.ndim, "sort")
    return SortResult(indexing.gather(x, d, indices) if x.ndim else x, indices)


def topk(x, k, dim=-1, largest=True, sorted=True):
    """The ``k`` largest (or smallest) entries along ``dim`` and their indices; the gradient of
    the values goes back to where they came from."""
    d = normalize_dim(dim, x.ndim, "topk")
    if not 0 <= k <= (x.shape[d] if x.ndim else 1):
        raise ValueError(f"topk: k={k} is out of range for dimension {dim} of shape "
                         f"{tuple(x.shape)}")
    indices = argsort(x, d, descending=largest, stable=True)
    indices = make_tensor(np.take(indices._data, np.arange(k), axis=d), None)
    return SortResult(indexing.gather(x, d, indices), indices)


def cumsum(x, dim, dtype=None):
    """Running sums along ``dim``: yᵢ = Σ_{j<=i} xⱼ, written as a product with an upper
    triangular matrix of ones (U[j, i] = 1 for j <= i), so dL/dx = dL/dy Uᵀ: the running
    sums from the end."""
    d = normalize_dim(dim, x.ndim, "cumsum")
    if dtype is not None:
        x = cast.cast(x, dtype)
    if not np.issubdtype(x.dtype, np.floating):
        return make_tensor(np.cumsum(x._data, axis=d), None)
    n = x.shape[d] if x.ndim else 1
    upper = make_tensor(np.triu(np.ones((n, n), dtype=x.dtype)), None)
    moved = shape_ops.transpose(x, d, -1) if x.ndim > 1 else x
    out = linalg.matmul(moved if x.ndim else shape_ops.reshape(x, 1), upper)
    return shape_ops.transpose(out, d, -1) if x.ndim > 1 else shape_ops.reshape(out, x.shape)


def _triangle(x, diagonal, upper, op):
    if x.ndim < 2:
        raise ValueError(f"{op}: input must have at least 2 dimensions, got shape {tuple(x.shape)}")
    rows, cols = x.shape[-2:]
    keep = (np.triu if upper else np.tril)(np.ones((rows, cols), dtype=bool), diagonal)
    return piecewise.where(keep, x, 0.0)


def tril(x, diagonal=0):
    """The lower triangle of the last two dimensions (j <= i + diagonal), zeros above;
    the gradient passes through the kept entries only."""
    return _triangle(x, diagonal, False, "tril")


def triu(x, diagonal=0):
    """The upper triangle of the last two dimensions (j >= i + diagonal), zeros below."""
    return _triangle(x, diagonal, True, "triu")


def diag(x, diagonal=0):
    """``torch.diag``: a 1-D x of length n becomes the (n + |k|) × (n + |k|) matrix M with x on
    diagonal k (M[i, i + k] = x[i], zeros elsewhere); a 2-D x gives its diagonal k as a 1-D
    tensor (x[i, i + k] for every i where both indices exist). The gradient of the first is the
    diagonal of the incoming gradient, of the second the incoming gradient put on diagonal k."""
    k = int(diagonal)
    if x.ndim == 1:
        n = x.shape[0] + abs(k)
        padded = shape_ops.pad(x, (0, abs(k)))
        on_diagonal = np.eye(n, n, k, dtype=bool)
        spread = shape_ops.unsqueeze(padded, 1 if k >= 0 else 0)
        return piecewise.where(on_diagonal, spread, 0.0)
    if x.ndim == 2:
        rows, cols = x.shape
        start_row, start_col = max(-k, 0), max(k, 0)
        length = max(min(rows - start_row, cols - start_col), 0)
        i = np.arange(length)
        return indexing.getitem(x, (i + start_row, i + start_col))
    raise ValueError(f"diag: expected a 1-D or 2-D tensor, got shape {tuple(x.shape)}; for the "
                     f"diagonals of a batch of matrices use torch.diagonal")


def narrow(x, dim, start, length):
    """The slice ``start:start + length`` along ``dim`` (a view, as in PyTorch)."""
    d = normalize_dim(dim, x.ndim, "narrow")
    size = x.shape[d]
    start = int(start) + (size if int(start) < 0 else 0)
    if not 0 <= start <= size or length < 0 or start + length > size:
        raise IndexError(f"narrow: start ({start}) + length ({length}) exceeds dimension size "
                         f"({size}) of dim {dim} of a tensor of shape {tuple(x.shape)}")
    return indexing.getitem(x, (slice(None),) * d + (slice(start, start + length),))


def repeat_interleave(x, repeats, dim=None, *, output_size=None):
    """Each element repeated ``repeats`` times (an int, or one count per element of ``dim``)
    along ``dim``; without ``dim`` the input is flattened first.
    ``repeat_interleave([1, 2], 2) = [1, 1, 2, 2]``. Gradient: the sum over the copies."""
    if not isinstance(x, Tensor):
        return Tensor(np.repeat(np.arange(len(x)), np.asarray(x)))  # torch.repeat_interleave(r)
    if dim is None:
        x, dim = shape_ops.reshape(x, -1), 0
    d = normalize_dim(dim, x.ndim, "repeat_interleave")
    counts = np.asarray(raw_data(repeats))
    if counts.ndim and counts.shape[0] != x.shape[d]:
        raise ValueError(f"repeat_interleave: repeats has {counts.shape[0]} counts but "
                         f"dimension {d} of shape {tuple(x.shape)} has {x.shape[d]} elements")
    if (counts < 0).any():
        raise ValueError("repeat_interleave: repeats must be non-negative")
    index = np.repeat(np.arange(x.shape[d]), counts)
    return indexing.getitem(x, (slice(None),) * d + (index,))


def bmm(a, b):
    """Batched matrix product: a (B, n, m) @ b (B, m, p) -> (B, n, p), no broadcasting."""
    if a.ndim != 3 or b.ndim != 3:
        raise ValueError(f"bmm: both operands must be 3-D (batch, rows, cols), got shapes "
                         f"{tuple(a.shape)} and {tuple(b.shape)}; use matmul for other shapes")
    if a.shape[0] != b.shape[0]:
        raise ValueError(f"bmm: batch sizes differ: {tuple(a.shape)} and {tuple(b.shape)}")
    return linalg.matmul(a, b)


def meshgrid(*tensors, indexing="ij"):
    """Coordinate grids from 1-D tensors: with N inputs of lengths n₁..n_N, N tensors of shape
    (n₁, ..., n_N) (``indexing="ij"``, PyTorch's default) or with the first two lengths swapped
    (``"xy"``, NumPy's default). Gradient: each grid sums back onto its vector."""
    if len(tensors) == 1 and isinstance(tensors[0], (list, tuple)):
        tensors = tuple(tensors[0])
    if indexing not in ("ij", "xy"):
        raise ValueError(f"meshgrid: indexing must be 'ij' or 'xy', got {indexing!r}")
    for t in tensors:
        if t.ndim > 1:
            raise ValueError(f"meshgrid: expects 0-D or 1-D tensors, got shape {tuple(t.shape)}")
    vectors = [shape_ops.reshape(t, -1) for t in tensors]
    order = list(range(len(vectors)))
    if indexing == "xy" and len(vectors) >= 2:
        order[0], order[1] = 1, 0
    shape = tuple(vectors[i].shape[0] for i in order)
    grids = []
    for k, v in enumerate(vectors):
        axis = order.index(k)
        view = [1] * len(shape)
        view[axis] = shape[axis]
        grids.append(shape_ops.broadcast_to(shape_ops.reshape(v, *view), shape))
    return tuple(grids)
