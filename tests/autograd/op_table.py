"""The one table of operations. Every differentiable operation has a row; the gradcheck test
(float64 central differences) and the PyTorch parity test both walk it.

A row's ``fn(m, *xs)`` is written once for both frameworks: ``m`` is the module (``autograd``
or ``torch``) and ``xs`` are its tensors. Where the two spell an operation differently,
``torch_fn`` gives PyTorch's spelling. ``shapes`` lists input-shape sets to try (broadcasting,
0-d tensors and size-1 dimensions included; a quick run, tests/stages.py, tries the first
only); ``domain`` picks where inputs are drawn from.
"""
from dataclasses import dataclass, field
from typing import Callable, Optional

UNARY = [(3, 4), (), (1,), (2, 1, 3)]
BINARY = [((3, 4), (3, 4)), ((3, 4), (4,)), ((2, 1, 4), (3, 1)), ((), (2, 3)), ((1,), (1,))]


@dataclass
class OpCase:
    name: str
    fn: Callable
    shapes: list
    domain: str = "normal"          # normal | positive | unit (in (-0.9, 0.9))
    torch_fn: Optional[Callable] = None
    tags: set = field(default_factory=set)

    def __str__(self):
        return self.name


def _F(m):
    """The functional namespace: ``torch.nn.functional`` or autograd itself."""
    return m.nn.functional if m.__name__ == "torch" else m


def idx(m, values):
    """An int64 index tensor in module ``m``."""
    return m.tensor(values)


def unary(name, fn, domain="normal", shapes=UNARY, torch_fn=None):
    return OpCase(name, fn, [(s,) for s in shapes], domain, torch_fn)


def binary(name, fn, domain="normal", shapes=BINARY, torch_fn=None):
    return OpCase(name, fn, shapes, domain, torch_fn)


OPS = [
    # ---- arithmetic (broadcasting)
    binary("add", lambda m, a, b: a + b),
    binary("sub", lambda m, a, b: a - b),
    binary("mul", lambda m, a, b: a * b),
    binary("div", lambda m, a, b: a / b, domain="positive"),
    binary("pow_tensor", lambda m, a, b: a ** b, domain="positive"),
    # floor division and remainder (Python's signs); PyTorch has no derivative for //, so its
    # row is compared with floor(a / b), whose gradient is the same 0
    binary("floor_divide", lambda m, a, b: (a * 3) // b, domain="positive",
           torch_fn=lambda t, a, b: t.floor((a * 3) / b)),
    binary("remainder", lambda m, a, b: (a * 3) % b, domain="positive"),
    binary("remainder_negative", lambda m, a, b: (a * 3) % -b, domain="positive"),
    unary("rfloordiv_rmod", lambda m, a: 5.0 % a + 7.0 // (a + 1), domain="positive",
          torch_fn=lambda t, a: t.full_like(a, 5.0) % a + t.floor(7.0 / (a + 1))),
    binary("maximum", lambda m, a, b: m.maximum(a, b)),
    binary("minimum", lambda m, a, b: m.minimum(a, b)),
    binary("where", lambda m, a, b: m.where(a > b, a, b * 2)),
    unary("add_scalar", lambda m, a: 3.0 + a),
    unary("rsub_scalar", lambda m, a: 2.0 - a),
    unary("rdiv_scalar", lambda m, a: 2.0 / a, domain="positive"),
    unary("neg", lambda m, a: -a),
    unary("pow_scalar", lambda m, a: a ** 3),
    unary("pow_fraction", lambda m, a: a ** 0.5, domain="positive"),
    unary("rpow", lambda m, a: 2.0 ** a),
    # ---- elementwise functions
    unary("exp", lambda m, a: m.exp(a)),
    unary("log", lambda m, a: m.log(a), domain="positive"),
    unary("log1p", lambda m, a: m.log1p(a), domain="unit"),
    unary("sqrt", lambda m, a: m.sqrt(a), domain="positive"),
    unary("abs", lambda m, a: m.abs(a)),
    unary("sin", lambda m, a: m.sin(a)),
    unary("cos", lambda m, a: m.cos(a)),
    unary("tanh", lambda m, a: m.tanh(a)),
    unary("sigmoid", lambda m, a: m.sigmoid(a)),
    unary("relu", lambda m, a: m.relu(a)),
    unary("leaky_relu", lambda m, a: _F(m).leaky_relu(a, 0.1)),
    unary("elu", lambda m, a: _F(m).elu(a, 1.5)),
    unary("gelu", lambda m, a: _F(m).gelu(a)),
    unary("gelu_tanh", lambda m, a: _F(m).gelu(a, approximate="tanh")),
    unary("softplus", lambda m, a: _F(m).softplus(a, beta=2.0, threshold=3.0)),
    unary("erf", lambda m, a: m.erf(a)),
    unary("clamp", lambda m, a: m.clamp(a, -0.5, 0.7)),
    unary("clamp_min", lambda m, a: a.clamp(min=0.1)),
    binary("clamp_tensor", lambda m, a, b: m.clamp(a, min=b), shapes=BINARY[:3]),
    OpCase("clamp_tensor_both", lambda m, x, lo, hi: m.clamp(x, lo, hi),
           [((3, 4), (4,), (3, 1)), ((2, 1), (), (1,)), ((), (), ())]),
    unary("clamp_max", lambda m, a: a.clamp(max=0.2)),
    unary("clone", lambda m, a: a.clone() * 2),
    unary("rsqrt", lambda m, a: a.rsqrt(), domain="positive"),
    # ---- reductions
    unary("sum", lambda m, a: a.sum()),
    unary("sum_dim", lambda m, a: a.sum(dim=-1), shapes=[(3, 4), (2, 1, 3), (4,), ()]),
    unary("sum_dims_keepdim", lambda m, a: a.sum(dim=(0, 2), keepdim=True),
          shapes=[(2, 3, 4), (2, 1, 1)]),
    unary("mean", lambda m, a: a.mean()),
    unary("mean_dim", lambda m, a: a.mean(dim=1, keepdim=True),
          shapes=[(3, 4), (2, 1, 3), (1, 1)]),
    unary("var", lambda m, a: a.var(dim=1), shapes=[(3, 4), (2, 5, 3), (1, 4)]),
    unary("var_all_biased", lambda m, a: a.var(correction=0), shapes=[(3, 4), (5,), ()]),
    unary("std", lambda m, a: a.std(dim=0, keepdim=True), shapes=[(3, 4), (4, 2), (2, 1)]),
    unary("max_all", lambda m, a: a.max()),
    unary("min_all", lambda m, a: a.min()),
    unary("max_dim", lambda m, a: a.max(dim=1).values, shapes=[(3, 4), (2, 5, 3), (3, 1)]),
    unary("min_dim_keepdim", lambda m, a: a.min(dim=0, keepdim=True).values,
          shapes=[(3, 4), (4,), ()]),
    unary("min_dim", lambda m, a: a.min(dim=-1)[0], shapes=[(3, 4), (1, 2)]),
    unary("amax", lambda m, a: a.amax(dim=(0, 1)), shapes=[(3, 4), (2, 3, 2), (1, 1)]),
    unary("prod_all", lambda m, a: a.prod(), shapes=[(2, 3), (4,), (), (1, 3)]),
    unary("prod_dim", lambda m, a: a.prod(dim=1), shapes=[(3, 4), (2, 3, 2), (2, 1)]),
    unary("logsumexp", lambda m, a: a.logsumexp(dim=-1),
          shapes=[(3, 4), (2, 1, 3), (5,), (), (2, 1)]),
    unary("softmax", lambda m, a: a.softmax(dim=-1), shapes=[(3, 4), (2, 3, 5), (4,), ()]),
    unary("softmax_dim0", lambda m, a: m.softmax(a, dim=0), shapes=[(3, 4), (1, 4)]),
    unary("log_softmax", lambda m, a: a.log_softmax(dim=1), shapes=[(3, 4), (2, 3, 5), (2, 1)]),
    unary("norm", lambda m, a: a.norm()),
    unary("norm_p1", lambda m, a: a.norm(p=1), shapes=[(3, 4), (1,)]),
    unary("norm_dim", lambda m, a: a.norm(dim=1), shapes=[(3, 4)]),
    # ---- shapes
    unary("reshape", lambda m, a: a.reshape(2, -1), shapes=[(3, 4), (2, 1, 3)]),
    unary("view", lambda m, a: a.view(-1), shapes=[(3, 4), (2, 1, 3), ()]),
    unary("flatten", lambda m, a: a.flatten(1), shapes=[(2, 3, 4), (2, 1, 3)]),
    unary("transpose", lambda m, a: a.transpose(0, 1), shapes=[(3, 4), (2, 3, 4), (1, 3)]),
    unary("permute", lambda m, a: a.permute(2, 0, 1), shapes=[(2, 3, 4), (1, 3, 1)]),
    unary("T", lambda m, a: a.T * 1, shapes=[(3, 4), (1, 3)]),
    unary("mT", lambda m, a: a.mT, shapes=[(2, 3, 4), (3, 1), (1, 2, 3)]),
    unary("unsqueeze", lambda m, a: a.unsqueeze(1), shapes=[(3, 4), (3,)]),
    unary("unsqueeze_0d", lambda m, a: a.unsqueeze(-1), shapes=[(), (2, 1)]),
    unary("squeeze", lambda m, a: a.squeeze(1), shapes=[(3, 1, 4), (1, 1), (3, 4)]),
    unary("squeeze_all", lambda m, a: a.squeeze(), shapes=[(1, 3, 1), (1,), ()]),
    unary("expand", lambda m, a: a.expand(2, 3, 4), shapes=[(3, 1), (1, 4), ()]),
    unary("broadcast_to", lambda m, a: m.broadcast_to(a, (2, 3, 4)), shapes=[(3, 1), (4,), ()]),
    binary("cat", lambda m, a, b: m.cat([a, b, a], dim=1),
           shapes=[((2, 3), (2, 1)), ((1, 2, 2), (1, 1, 2))]),
    binary("stack", lambda m, a, b: m.stack([a, b], dim=1),
           shapes=[((2, 3), (2, 3)), ((1,), (1,))]),
    binary("stack_last", lambda m, a, b: m.stack([a, b, a], dim=-1),
           shapes=[((), ()), ((2, 1), (2, 1))]),
    unary("split", lambda m, a: m.split(a, 2, dim=1)[1], shapes=[(3, 5), (1, 4)]),
    unary("split_sizes", lambda m, a: a.split([1, 3], dim=0)[1] * 2, shapes=[(4, 2), (4, 1)]),
    unary("chunk", lambda m, a: a.chunk(3, dim=0)[2], shapes=[(5, 2), (5,), (6, 1)]),
    unary("pad", lambda m, a: m.pad(a, (1, 2, 0, 1), value=0.5), shapes=[(2, 3), (2, 2, 3)],
          torch_fn=lambda t, a: t.nn.functional.pad(a, (1, 2, 0, 1), value=0.5)),
    unary("flip", lambda m, a: a.flip((0,)) * a, shapes=[(3, 4), (1, 4)]),
    unary("flip_dims", lambda m, a: a.flip((0, -1)) * a, shapes=[(3, 4), (2, 1, 3)]),
    unary("repeat", lambda m, a: a.repeat(2, 1, 3), shapes=[(3, 4), (4,), (), (1, 1)]),
    # ---- indexing
    unary("index_int", lambda m, a: a[1], shapes=[(3, 4), (3,), (2, 1, 3)]),
    unary("index_negative_int", lambda m, a: a[-1, 0], shapes=[(3, 4), (2, 1)]),
    unary("index_slice", lambda m, a: a[1:, ::2], shapes=[(3, 4), (3, 1), (2, 5, 1)]),
    unary("index_none_ellipsis", lambda m, a: a[None, ..., 1], shapes=[(3, 4), (2, 3, 2)]),
    unary("index_int_array_repeats", lambda m, a: a[[0, 2, 0, 0]],
          shapes=[(3, 4), (3,), (3, 1, 2)]),
    unary("index_two_arrays", lambda m, a: a[[0, 1, 1], [2, 0, 2]],
          shapes=[(3, 4), (2, 3, 1)]),
    unary("index_bool_mask", lambda m, a: a[a > 0], shapes=[(3, 4), (), (1, 4)]),
    unary("masked_fill", lambda m, a: a.masked_fill(a > 0.3, -1.0), shapes=[(3, 4), (), (1, 4)]),
    binary("masked_fill_broadcast_mask", lambda m, a, b: a.masked_fill(b > 0, 2.0) * a,
           shapes=[((3, 4), (4,)), ((2, 3), (2, 1))]),
    unary("gather", lambda m, a: a.gather(1, idx(m, [[0, 0], [3, 1], [2, 2]])),
          shapes=[(3, 4), (3, 6)]),
    unary("gather_repeats", lambda m, a: a.gather(0, idx(m, [1, 1, 0, 1])), shapes=[(2,), (3,)]),
    unary("index_select", lambda m, a: a.index_select(0, idx(m, [2, 0, 2])),
          shapes=[(3, 4), (3,), (3, 1)]),
    # ---- linear algebra
    binary("matmul", lambda m, a, b: a @ b, shapes=[((3, 4), (4, 2)), ((1, 4), (4, 1))]),
    binary("matmul_vec_mat", lambda m, a, b: a @ b, shapes=[((4,), (4, 2)), ((3,), (2, 3, 4))]),
    binary("matmul_mat_vec", lambda m, a, b: a @ b, shapes=[((3, 4), (4,)), ((2, 3, 4), (4,))]),
    binary("matmul_dot", lambda m, a, b: a @ b, shapes=[((4,), (4,)), ((1,), (1,))]),
    binary("matmul_batched_broadcast", lambda m, a, b: a @ b,
           shapes=[((2, 1, 3, 4), (5, 4, 2)), ((2, 3, 4), (4, 2)), ((1, 3, 4), (2, 4, 1))]),
    OpCase("linear", lambda m, x, w, b: m.linear(x, w, b),
           [((5, 3), (4, 3), (4,)), ((2, 5, 3), (4, 3), (4,)), ((3,), (2, 3), (2,))],
           torch_fn=lambda t, x, w, b: t.nn.functional.linear(x, w, b)),
    OpCase("linear_no_bias", lambda m, x, w: m.linear(x, w),
           [((5, 3), (4, 3))], torch_fn=lambda t, x, w: t.nn.functional.linear(x, w)),
]

# ---- composed from the rows above (autograd/ops/composed.py), with torch's names
OPS += [
    unary("sinh", lambda m, a: m.sinh(a)),
    unary("cosh", lambda m, a: m.cosh(a)),
    unary("square", lambda m, a: m.square(a)),
    unary("log10", lambda m, a: m.log10(a), domain="positive"),
    unary("sign", lambda m, a: m.sign(a) * a + a.sign(), shapes=[(3, 4), (), (1,)]),
    unary("tril", lambda m, a: m.tril(a), shapes=[(3, 4), (2, 3, 3), (1, 2)]),
    # ---- sparse COO (entry (0, 2) given twice: repeats add up)
    binary("sparse_dense_mm", lambda m, a, b: m.spmm(m.sparse_coo_tensor(
        idx(m, [[0, 1, 1, 0], [2, 0, 2, 2]]), a, (2, 3)), b), shapes=[((4,), (3, 5))]),
    unary("sparse_to_dense", lambda m, a: m.sparse_coo_tensor(
        idx(m, [[0, 1, 1, 0], [2, 0, 2, 2]]), a, (2, 3)).to_dense(), shapes=[(4,)]),
    unary("sparse_coalesce", lambda m, a: m.sparse_coo_tensor(
        idx(m, [[0, 1, 1, 0], [2, 0, 2, 2]]), a, (2, 3)).coalesce().values(), shapes=[(4,)]),
    unary("to_sparse_values", lambda m, a: a.to_sparse().values() * 2, shapes=[(3, 4), (5,)]),
    unary("diag_of_vector", lambda m, a: m.diag(a), shapes=[(3,), (1,)]),
    unary("diag_of_vector_offset", lambda m, a: m.diag(a, 2)[:4, :4] + m.diag(a, -1),
          shapes=[(3,)]),
    unary("diag_of_matrix", lambda m, a: m.diag(a), shapes=[(3, 4), (4, 2), (1, 1)]),
    unary("diag_of_matrix_offset", lambda m, a: a.diag(1) * 2 + a.diag(-2).sum(),
          shapes=[(3, 4), (4, 3)]),
    unary("triu_diagonal", lambda m, a: a.triu(diagonal=1), shapes=[(3, 4), (2, 4, 3)]),
    unary("tril_negative_diagonal", lambda m, a: m.tril(a, -1), shapes=[(4, 3)]),
    unary("narrow", lambda m, a: a.narrow(1, 1, 2), shapes=[(3, 4), (2, 3, 1)]),
    unary("diagonal", lambda m, a: a.diagonal() * 2, shapes=[(3, 4), (4, 3), (1, 1), (2, 3, 4)]),
    unary("diagonal_offset_dims", lambda m, a: m.diagonal(a, -1, 2, 0) + a.diagonal(2, -1, 1).sum(),
          shapes=[(3, 4, 5), (2, 3, 3)]),
    unary("diagonal_twice", lambda m, a: a.diagonal(0, 0, 1).diagonal(1, 0, 1),
          shapes=[(3, 3, 4)]),
    unary("diag_embed", lambda m, a: m.diag_embed(a), shapes=[(3,), (2, 3), (1,)]),
    unary("diag_embed_offset_dims", lambda m, a: a.diag_embed(1, 0, 2) * a.diag_embed(1, 0, 2),
          shapes=[(2, 3), (3, 1)]),
    binary("diagonal_scatter", lambda m, a, b: m.diagonal_scatter(a * a, b * 2, 1),
           shapes=[((3, 4), (3,)), ((4, 3), (2,))]),
    unary("narrow_negative_start", lambda m, a: m.narrow(a, 0, -2, 2), shapes=[(3, 4), (2,)]),
    unary("repeat_interleave", lambda m, a: a.repeat_interleave(2, dim=0),
          shapes=[(3, 4), (2,), (1, 3)]),
    unary("repeat_interleave_counts",
          lambda m, a: m.repeat_interleave(a, idx(m, [1, 0, 3]), dim=1),
          shapes=[(2, 3), (1, 3, 2)]),
    unary("repeat_interleave_flat", lambda m, a: a.repeat_interleave(3), shapes=[(2, 2), ()]),
    unary("floor", lambda m, a: a * 3 + m.floor(a * 3), shapes=[(3, 4), ()]),
    unary("ceil_round", lambda m, a: a.ceil() * a + m.round(a * 2) * a, shapes=[(3, 4), (1,)]),
    unary("sort", lambda m, a: m.sort(a, dim=-1).values * m.arange(a.shape[-1]),
          shapes=[(3, 4), (5,), (2, 1, 3)]),
    unary("sort_descending_dim0", lambda m, a: a.sort(dim=0, descending=True)[0],
          shapes=[(4, 3), (2, 1)]),
    unary("topk", lambda m, a: m.topk(a, 2, dim=1).values, shapes=[(3, 4), (2, 3, 2)]),
    unary("topk_smallest", lambda m, a: a.topk(3, largest=False)[0] * 2, shapes=[(5,), (2, 4)]),
    unary("cumsum", lambda m, a: m.cumsum(a, dim=-1) ** 2, shapes=[(3, 4), (5,), (2, 1, 3)]),
    unary("cumsum_dim0", lambda m, a: a.cumsum(0) * a, shapes=[(4, 3), (1, 2)]),
    binary("bmm", lambda m, a, b: m.bmm(a, b),
           shapes=[((2, 3, 4), (2, 4, 5)), ((1, 1, 2), (1, 2, 1))]),
    binary("max_binary", lambda m, a, b: m.max(a, b), shapes=BINARY[:3]),
    binary("min_binary", lambda m, a, b: m.min(a, b), shapes=BINARY[:3]),
    binary("meshgrid", lambda m, a, b: m.meshgrid(a, b, indexing="ij")[0]
           * m.meshgrid(a, b, indexing="ij")[1], shapes=[((3,), (4,)), ((1,), (2,))]),
    binary("meshgrid_xy", lambda m, a, b: m.stack(m.meshgrid(a, b, indexing="xy")),
           shapes=[((3,), (4,)), ((2,), ())]),
]

# ---- convolution, pooling, resampling (the operations of autograd.ops.conv / .pool, called
# through nn.functional with torch's arguments)
import dagrad.nn.functional as _nn_functional  # noqa: E402


def _FC(m):
    """``torch.nn.functional`` or dagrad's convolution and pooling functions."""
    return m.nn.functional if m.__name__ == "torch" else _nn_functional


OPS += [
    OpCase("conv2d", lambda m, x, w, b: _FC(m).conv2d(x, w, b, (2, 1), 1, 1, 2),
           [((2, 4, 5, 4), (6, 2, 3, 3), (6,))]),
    OpCase("conv2d_same_dilated", lambda m, x, w: _FC(m).conv2d(x, w, padding="same",
                                                                 dilation=2),
           [((1, 2, 5, 6), (3, 2, 3, 2))]),
    OpCase("conv1d", lambda m, x, w, b: _FC(m).conv1d(x, w, b, stride=2),
           [((2, 3, 7), (4, 3, 3), (4,))]),
    OpCase("conv_transpose2d", lambda m, x, w, b: _FC(m).conv_transpose2d(x, w, b, 2, 1, 1, 2),
           [((2, 4, 3, 2), (4, 3, 3, 3), (6,))]),
    unary("unfold", lambda m, a: _FC(m).unfold(a, (2, 3), (2, 1), 1, (1, 2)),
          shapes=[(2, 2, 5, 4)]),
    unary("fold", lambda m, a: _FC(m).fold(a, (4, 5), 2, stride=(2, 1)), shapes=[(2, 12, 8)]),
    unary("max_pool2d", lambda m, a: _FC(m).max_pool2d(a, 3, 2, 1, ceil_mode=True),
          shapes=[(2, 3, 5, 6)]),
    unary("avg_pool2d", lambda m, a: _FC(m).avg_pool2d(a, 2, 1, 1, count_include_pad=False),
          shapes=[(2, 3, 4, 5)]),
    unary("adaptive_avg_pool2d", lambda m, a: _FC(m).adaptive_avg_pool2d(a, (2, 3)),
          shapes=[(2, 3, 5, 4)]),
    unary("max_pool1d", lambda m, a: _FC(m).max_pool1d(a, 3, 2, 1, ceil_mode=True),
          shapes=[(2, 3, 9), (3, 8)]),
    unary("avg_pool1d", lambda m, a: _FC(m).avg_pool1d(a, 2, 1, 1, count_include_pad=False),
          shapes=[(2, 3, 7), (3, 5)]),
    unary("normalize", lambda m, a: _FC(m).normalize(a, dim=-1), shapes=[(3, 4), (5,)]),
    unary("normalize_p1", lambda m, a: _FC(m).normalize(a, p=1.0, dim=0), shapes=[(3, 4)]),
    binary("cosine_similarity", lambda m, a, b: _FC(m).cosine_similarity(a, b, dim=-1),
           shapes=[((3, 4), (3, 4)), ((3, 4), (4,)), ((2, 1, 5), (3, 5))]),
    unary("interpolate_nearest", lambda m, a: _FC(m).interpolate(a, scale_factor=2),
          shapes=[(1, 2, 3, 2), (2, 2, 3)]),
    unary("interpolate_bilinear", lambda m, a: _FC(m).interpolate(a, (5, 3), mode="bilinear"),
          shapes=[(1, 2, 3, 4)]),
    # ---- attention: softmax(scale · q kᵀ + mask), fused
    OpCase("attention_probs", lambda m, q, k: _attention_probs(q, k, scale=0.5),
           [((3, 4), (5, 4)), ((2, 3, 4), (2, 5, 4)), ((2, 2, 3, 4), (2, 1, 5, 4))],
           torch_fn=lambda t, q, k: t.softmax(q @ k.mT * 0.5, dim=-1)),
    OpCase("attention_probs_mask", lambda m, q, k, mask: _attention_probs(q, k, mask, 0.7),
           [((2, 3, 4), (2, 5, 4), (3, 5)), ((2, 3, 4), (5, 4), (2, 1, 5))],
           torch_fn=lambda t, q, k, mask: t.softmax(q @ k.mT * 0.7 + mask, dim=-1)),
    # ---- the recurrent product of one step, as the steps drawn one by one use it
    OpCase("recurrent_gates", lambda m, x, h, w: _recurrent_gates(x, h, w),
           [((3, 8), (3, 2), (8, 2)), ((8,), (3, 2), (8, 2)), ((8,), (2,), (8, 2))],
           torch_fn=lambda t, x, h, w: x + h @ w.T),
    OpCase("recurrent_gates_no_input", lambda m, h, w: _recurrent_gates(None, h, w),
           [((3, 2), (8, 2))], torch_fn=lambda t, h, w: h @ w.T),
    # ---- a whole LSTM layer over a sequence as one operation: h_1 … h_T, then c_T
    OpCase("lstm_sequence", lambda m, xs, h0, c0, w: _recurrent("lstm", xs, h0, c0, w),
           [((3, 2, 8), (2, 2), (2, 2), (8, 2)), ((1, 1, 8), (1, 2), (1, 2), (8, 2))],
           torch_fn=lambda t, xs, h0, c0, w: _lstm_sequence_torch(t, xs, h0, c0, w)),
    OpCase("lstm_sequence_peephole",
           lambda m, xs, h0, c0, w, p: _recurrent("lstm", xs, h0, c0, w, p),
           [((3, 2, 8), (2, 2), (2, 2), (8, 2), (6,)), ((1, 1, 8), (1, 2), (1, 2), (8, 2), (6,))],
           torch_fn=lambda t, xs, h0, c0, w, p: _lstm_sequence_torch(t, xs, h0, c0, w, p)),
    OpCase("gru_sequence", lambda m, xg, h0, w, b: _recurrent("gru", xg, h0, w, b),
           [((3, 2, 6), (2, 2), (6, 2), (6,)), ((1, 1, 6), (1, 2), (6, 2), (6,))],
           torch_fn=lambda t, xg, h0, w, b: _gru_sequence_torch(t, xg, h0, w, b)),
    OpCase("gru_sequence_no_bias", lambda m, xg, h0, w: _recurrent("gru", xg, h0, w, None),
           [((2, 2, 6), (2, 2), (6, 2))],
           torch_fn=lambda t, xg, h0, w: _gru_sequence_torch(t, xg, h0, w, 0)),
    # ---- a whole vanilla RNN or MGU layer over a sequence as one operation: h_1 … h_T
    OpCase("rnn_sequence", lambda m, xs, h0, w: _recurrent("rnn", xs, h0, w),
           [((3, 2, 3), (2, 3), (3, 3)), ((1, 1, 2), (1, 2), (2, 2))],
           torch_fn=lambda t, xs, h0, w: _rnn_sequence_torch(t, xs, h0, w, t.tanh)),
    OpCase("rnn_sequence_relu",
           lambda m, xs, h0, w: _recurrent("rnn", xs, h0, w, nonlinearity="relu"),
           [((3, 2, 3), (2, 3), (3, 3)), ((2, 1, 2), (1, 2), (2, 2))],
           torch_fn=lambda t, xs, h0, w: _rnn_sequence_torch(t, xs, h0, w, t.relu)),
    OpCase("mgu_sequence", lambda m, xs, h0, wf, wn: _recurrent("mgu", xs, h0, wf, wn),
           [((3, 2, 4), (2, 2), (2, 2), (2, 2)), ((1, 1, 6), (1, 3), (3, 3), (3, 3))],
           torch_fn=lambda t, xs, h0, wf, wn: _mgu_sequence_torch(t, xs, h0, wf, wn)),
]


def _rnn_sequence_torch(t, xs, h0, w, phi):
    """The Elman RNN layer composed in torch, step by step: h_1 … h_T."""
    h, hs = h0, []
    for x in xs:
        h = phi(x + h @ w.T)
        hs.append(h)
    return t.stack(hs)


def _mgu_sequence_torch(t, xs, h0, w_hf, w_hn):
    """The MGU layer composed in torch, step by step: h_1 … h_T."""
    h, hs = h0, []
    for x in xs:
        x_f, x_n = x.chunk(2, dim=-1)
        f = t.sigmoid(x_f + h @ w_hf.T)
        n = t.tanh(x_n + (f * h) @ w_hn.T)
        h = h + f * (n - h)
        hs.append(h)
    return t.stack(hs)


def _gru_sequence_torch(t, xg, h0, w, b):
    """The GRU layer composed in torch, step by step: h_1 … h_T."""
    h, hs = h0, []
    for x in xg:
        h = _gru_torch(t, x, h @ w.T + b, h)
        hs.append(h)
    return t.stack(hs)


def _lstm_sequence_torch(t, xs, h0, c0, w, p=None):
    """The LSTM layer composed in torch, step by step, packed as (T+1, N, H) like dagrad's."""
    h, c, hs = h0, c0, []
    for x in xs:
        c = _lstm_torch(t, x + h @ w.T, c, p)[0]
        h = _lstm_torch(t, x + h @ w.T, None, p, out_c=c)[1]
        hs.append(h)
    return t.stack(hs + [c])


def _recurrent(cell, *args, **options):
    """The sequence operation of ``cell`` ("lstm", "gru", "rnn", "mgu") on ``args``."""
    from dagrad.autograd.ops import recurrent
    return getattr(recurrent, cell + "_sequence")(*args, **options)


def _recurrent_gates(x, h, w):
    from dagrad.autograd.ops.recurrent import recurrent_gates
    return recurrent_gates(x, h, w)


def _lstm_torch(t, a, c_prev, p=None, out_c=None):
    """The LSTM step composed in torch: (c from c_prev, h from out_c); gates i, f, g, o."""
    ai, af, ag, ao = a.chunk(4, dim=-1)
    pi, pf, po = (0, 0, 0) if p is None else p.chunk(3)
    c = None
    if c_prev is not None:
        c = t.sigmoid(af + pf * c_prev) * c_prev + t.sigmoid(ai + pi * c_prev) * t.tanh(ag)
    h = None if out_c is None else t.sigmoid(ao + po * out_c) * t.tanh(out_c)
    return c, h


def _gru_torch(t, x, h, h0):
    """The GRU step composed in torch (PyTorch's form, gates r, z, n)."""
    xr, xz, xn = x.chunk(3, dim=-1)
    hr, hz, hn = h.chunk(3, dim=-1)
    r, z = t.sigmoid(xr + hr), t.sigmoid(xz + hz)
    n = t.tanh(xn + r * hn)
    return (1 - z) * n + z * h0


def _attention_probs(q, k, mask=None, scale=1.0):
    from dagrad.autograd.ops.attention_ops import attention_probs
    return attention_probs(q, k, mask, scale)


# ---- fused neural-network operations (autograd/ops/nn_ops.py)
def _nn_op(name, *args, **kwargs):
    from dagrad.autograd.ops import nn_ops
    return getattr(nn_ops, name)(*args, **kwargs)


_TARGETS = [2, 0, 1, 2]


def _targets():
    import numpy as np
    return np.array(_TARGETS)


def _cross_entropy_torch(t, x, **kwargs):
    return t.nn.functional.cross_entropy(x, t.tensor(_TARGETS), **kwargs)


OPS += [
    OpCase("layer_norm", lambda m, x, w, b: _nn_op("normalize", x, (-1,), w, b),
           [((3, 5), (5,), (5,)), ((2, 3, 4), (4,), (4,))],
           torch_fn=lambda t, x, w, b: t.nn.functional.layer_norm(x, (x.shape[-1],), w, b)),
    OpCase("batch_norm_train", lambda m, x, w, b: _nn_op("normalize", x, (0,), w, b),
           [((6, 3), (3,), (3,))],
           torch_fn=lambda t, x, w, b: t.nn.functional.batch_norm(x, None, None, w, b,
                                                                  training=True)),
    unary("cross_entropy", lambda m, x: _nn_op("cross_entropy", x, _targets()), shapes=[(4, 3)],
          torch_fn=_cross_entropy_torch),
    unary("cross_entropy_smoothing_sum",
          lambda m, x: _nn_op("cross_entropy", x, _targets(), label_smoothing=0.2,
                              reduction="sum"), shapes=[(4, 3)],
          torch_fn=lambda t, x: _cross_entropy_torch(t, x, label_smoothing=0.2,
                                                     reduction="sum")),
    unary("cross_entropy_ignore_none",
          lambda m, x: _nn_op("cross_entropy", x, _targets(), ignore_index=0, reduction="none"),
          shapes=[(4, 3)],
          torch_fn=lambda t, x: _cross_entropy_torch(t, x, ignore_index=0, reduction="none")),
    # probabilities in (0.14, 0.86) and targets in (0.05, 0.95) from the unit domain
    binary("binary_cross_entropy",
           lambda m, a, b: _nn_op("binary_cross_entropy", 0.5 + 0.4 * a, 0.5 + 0.5 * b),
           domain="unit", shapes=[((3, 4), (3, 4)), ((5,), (5,))],
           torch_fn=lambda t, a, b: t.nn.functional.binary_cross_entropy(
               0.5 + 0.4 * a, 0.5 + 0.5 * b, reduction="none")),
]


# ---- in-place operations recorded in the graph (the tensor's history is rebased on them)
def _iadd_relu_(m, a, b):
    y = a * 2
    y += b
    return y.relu_()


def _setitem(m, a, b):
    y = a * 1
    y[1:] = b
    return y


def _slice_imul_tanh_(m, a, b):       # y[1:] *= b is y[1:].mul_(b), then y[1:] = that view
    y = a * 1
    y[1:] *= b
    return y.tanh_()


def _write_through_view(m, a, b):     # y.T[0] is a view: y's history follows the change
    y = a * 1
    y.T[0].sub_(b)
    return y * y


def _masked_fill_(m, a, b):
    y = a * b
    return y.masked_fill_(a > 0.5, 0.25)


def _unsqueeze_(m, a):
    y = a * 2
    y.unsqueeze_(1)
    return y * y.transpose(0, 1)


def _t_(m, a, b):
    y = a * 1
    y.t_()
    return y * b


def _diagonal_mul_(m, a, b):          # y.diagonal() is a view: y's history follows the change
    y = a * 1
    y.diagonal(0, -2, -1).mul_(b)
    return y * y


def _fill_diagonal_(m, a):
    y = a * 2
    return y.fill_diagonal_(0.5) * a


def _unbind(m, a):
    first, *rest = a.unbind(1)
    return first * 2 + rest[-1] * rest[0]


OPS += [
    OpCase("unbind", _unbind, [((3, 4),), ((2, 3, 5),)]),
    OpCase("inplace_unsqueeze_", _unsqueeze_, [((3,),), ((2, 3),)]),
    OpCase("inplace_t_", _t_, [((3, 4), (4, 3)), ((5,), (5,))]),
    OpCase("inplace_iadd_relu_", _iadd_relu_, [((3, 4), (3, 4)), ((3, 4), (4,))]),
    OpCase("inplace_setitem", _setitem, [((3, 4), (2, 4)), ((3, 4), (4,)), ((3,), ())]),
    OpCase("inplace_slice_imul", _slice_imul_tanh_, [((3, 4), (2, 4)), ((3, 4), (4,))]),
    OpCase("inplace_view_write", _write_through_view, [((3, 4), (3,)), ((3, 2), ())]),
    OpCase("inplace_masked_fill_", _masked_fill_, [((3, 4), (3, 4)), ((3, 4), (4,))]),
    OpCase("inplace_diagonal_mul_", _diagonal_mul_, [((3, 4), (3,)), ((2, 3, 3), (2, 3)),
                                                     ((4, 2), ())]),
    OpCase("inplace_fill_diagonal_", _fill_diagonal_, [((3, 4),), ((3, 3, 3),), ((5, 2),)]),
]
