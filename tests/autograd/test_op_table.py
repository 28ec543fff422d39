"""Walks the table of operations: float64 gradcheck of the first and second order, the two
backward paths against each other, the engine against the reference engine, and parity with
PyTorch."""
import numpy as np
import pytest

from dagrad import autograd as ag
from tests.autograd.op_table import OPS
from dagrad.autograd import reference
from tests.helpers import leaves, random_inputs, torch_or_skip, torch_parity

# A quick run (tests/stages.py) checks each operation at its first shapes; the others are slow.
CASES = [pytest.param(op, shapes, id=f"{op.name}-{'x'.join(map(str, shapes))}",
                      marks=[pytest.mark.slow] if k else [])
         for op in OPS for k, shapes in enumerate(op.shapes)]


@pytest.mark.parametrize("op,shapes", CASES)
def test_gradcheck(op, shapes):
    xs = leaves(random_inputs(shapes, op.domain))
    assert ag.gradcheck(lambda *t: op.fn(ag, *t), xs)


def _output_weights(op, xs):
    """Fixed random weights v of the output's shape: the vector of the vector-Jacobian product."""
    out = op.fn(ag, *xs)
    return np.random.default_rng(1).standard_normal(out.shape)


@pytest.mark.parametrize("op,shapes", CASES)
def test_gradgradcheck(op, shapes):
    """Second order: vᵀJ computed with create_graph=True, as a function of the inputs and of v,
    gradchecked (PyTorch's gradgradcheck)."""
    xs = leaves(random_inputs(shapes, op.domain))
    v = ag.tensor(_output_weights(op, xs), requires_grad=True)

    def vector_jacobian_product(*args):
        *ts, w = args
        grads = ag.grad(op.fn(ag, *ts), ts, grad_outputs=w, create_graph=True,
                        allow_unused=True)
        return tuple(g for g in grads if g is not None)

    assert ag.gradcheck(vector_jacobian_product, (*xs, v))


@pytest.mark.parametrize("op,shapes", CASES)
def test_backward_paths_and_reference_engine_agree(op, shapes):
    """The fast path (ndarrays), the differentiable path (create_graph=True) and the
    reference engine give the same first-order gradients."""
    xs = leaves(random_inputs(shapes, op.domain))
    v = _output_weights(op, xs)
    fast = ag.grad(op.fn(ag, *xs), xs, grad_outputs=v, allow_unused=True)
    graph = ag.grad(op.fn(ag, *xs), xs, grad_outputs=v, create_graph=True, allow_unused=True)
    by_reference = reference.grad(op.fn(ag, *xs), xs, v)
    for k, (a, b, r) in enumerate(zip(fast, graph, by_reference)):
        assert (a is None) == (b is None) == (r is None), f"input {k}"
        if a is not None:
            np.testing.assert_allclose(b.numpy(), a.numpy(), rtol=1e-10, atol=1e-12,
                                       err_msg=f"input {k}: differentiable vs fast path")
            np.testing.assert_allclose(r, a.numpy(), rtol=1e-10, atol=1e-12,
                                       err_msg=f"input {k}: reference engine vs engine")


@pytest.mark.parametrize("op,shapes", CASES)
def test_reference_engine_agrees_to_the_second_order(op, shapes):
    """autograd/reference.py and the engine, both with create_graph=True, give the same
    first-order gradients g_k, and the same gradients of Σ_k ⟨u_k, g_k⟩ (second order)."""
    xs = leaves(random_inputs(shapes, op.domain))
    v = _output_weights(op, xs)
    by_engine = ag.grad(op.fn(ag, *xs), xs, grad_outputs=v, create_graph=True,
                        allow_unused=True)
    by_reference = reference.grad(op.fn(ag, *xs), xs, ag.tensor(v), create_graph=True)
    rng = np.random.default_rng(2)
    engine_total = reference_total = 0.0
    for k, (a, r) in enumerate(zip(by_engine, by_reference)):
        assert (a is None) == (r is None), f"input {k}"
        if a is not None:
            np.testing.assert_allclose(r.numpy(), a.numpy(), rtol=1e-10, atol=1e-12,
                                       err_msg=f"input {k}: first order")
            u = rng.standard_normal(a.shape)
            engine_total = engine_total + (a * u).sum()
            reference_total = reference_total + (r * u).sum()
    if not getattr(engine_total, "requires_grad", False):   # the gradients do not depend on xs
        assert not getattr(reference_total, "requires_grad", False)
        return
    second = ag.grad(engine_total, xs, allow_unused=True)
    second_reference = reference.grad(reference_total, xs, np.ones(()))
    for k, (a, r) in enumerate(zip(second, second_reference)):
        assert (a is None) == (r is None), f"input {k}: second order"
        if a is not None:
            np.testing.assert_allclose(r, a.numpy(), rtol=1e-10, atol=1e-12,
                                       err_msg=f"input {k}: second order")


def _makes_a_view(op, shapes):
    """Whether the row's result is a view of one of its inputs."""
    xs = leaves(random_inputs(shapes, op.domain))
    out = op.fn(ag, *xs)
    return isinstance(out, ag.Tensor) and any(out._base is x for x in xs)


VIEW_CASES = [case for case in CASES if _makes_a_view(*case.values)]


@pytest.mark.parametrize("no_grad", [False, True], ids=["views", "no_grad-views"])
@pytest.mark.parametrize("op,shapes", VIEW_CASES)
def test_the_engines_agree_on_every_view_row_made_with_and_without_grad(op, shapes, no_grad):
    """The engine and the reference engine give the same gradients for the inputs and for
    the view itself; a view taken under no_grad collects none in either (both ask
    ``views.collects_gradient``)."""
    xs = leaves(random_inputs(shapes, op.domain))
    with ag.set_grad_enabled(not no_grad):
        view = op.fn(ag, *xs)
    assert any(view._base is x for x in xs) and view.requires_grad
    loss = (view * ag.tensor(_output_weights(op, xs))).sum()
    wanted = xs + [view]
    by_engine = ag.grad(loss, wanted, retain_graph=True, allow_unused=True)
    by_reference = reference.grad(loss, wanted, np.ones(()))
    for k, (a, r) in enumerate(zip(by_engine, by_reference)):
        assert (a is None) == (r is None), f"input {k}"
        if a is not None:
            np.testing.assert_allclose(r, a.numpy(), rtol=1e-10, atol=1e-12)
    if no_grad:
        assert all(a is None for a in by_engine)
    else:
        assert by_engine[-1] is not None


@pytest.mark.parametrize("op,shapes", CASES)
def test_matches_pytorch(op, shapes):
    torch = torch_or_skip()
    torch_fn = op.torch_fn or op.fn
    torch_parity(lambda *t: op.fn(ag, *t), lambda *t: torch_fn(torch, *t),
                 random_inputs(shapes, op.domain))


@pytest.mark.parametrize("op,shapes", CASES)
def test_matches_pytorch_in_float32(op, shapes):
    """The same rows in float32, the dtype models train in: the result stays float32 and
    agrees with PyTorch's float32 result to float32's precision."""
    torch = torch_or_skip()
    torch_fn = op.torch_fn or op.fn
    torch_parity(lambda *t: op.fn(ag, *t), lambda *t: torch_fn(torch, *t),
                 random_inputs(shapes, op.domain), rtol=2e-4, atol=2e-5, dtype=np.float32)


def test_every_row_has_a_unique_name():
    names = [op.name for op in OPS]
    assert len(names) == len(set(names))


# The differentiable operations the autograd issue lists; each names a row, or the prefix of
# rows (``max_dim`` covers ``max_dim`` and ``max_dim_keepdim``).
LISTED = """
add sub mul div neg pow_scalar pow_tensor rpow exp log sqrt abs sin cos tanh sigmoid relu
leaky_relu gelu softplus elu maximum minimum where clamp
sum mean max_all max_dim min_all min_dim var std prod logsumexp softmax log_softmax
reshape view flatten transpose permute T mT unsqueeze squeeze expand broadcast_to cat stack
split chunk pad flip repeat
index_int index_slice index_none_ellipsis index_int_array_repeats index_bool_mask masked_fill
gather index_select
matmul matmul_vec_mat matmul_mat_vec matmul_dot matmul_batched_broadcast
""".split()


def _rows(name):
    return [op for op in OPS if op.name == name or op.name.startswith(name + "_")]


@pytest.mark.parametrize("name", LISTED)
def test_every_listed_operation_has_rows_over_several_shapes(name):
    rows = _rows(name)
    assert rows, f"no row of the operation table tests {name}"
    assert sum(len(op.shapes) for op in rows) >= 2, f"{name}: only one shape set"


def _shape_sets():
    return [shapes for op in OPS for shapes in op.shapes]


def test_table_covers_zero_d_size_one_and_broadcasting():
    sets = _shape_sets()
    assert sum(any(s == () for s in shapes) for shapes in sets) >= 20
    assert sum(any(1 in s for s in shapes) for shapes in sets) >= 40
    broadcast = [shapes for shapes in sets if len(set(shapes)) > 1 and _broadcastable(shapes)]
    assert len(broadcast) >= 30


def _broadcastable(shapes):
    try:
        np.broadcast_shapes(*shapes)
    except ValueError:
        return False
    return True


def test_pow_with_exponent_zero_and_zero_base_follow_pytorch():
    """Edge of the pow rows: dz/da = 0 where b = 0; dz/db = 0 at a = 0 for b >= 0, -inf for
    b < 0 (random inputs never hit these)."""
    torch = torch_or_skip()
    a, b = np.array([0.0, 0.0, 0.0, 2.0]), np.array([0.0, 2.0, -1.0, 0.0])
    with np.errstate(divide="ignore", invalid="ignore"):
        torch_parity(lambda x, y: x ** y, lambda x, y: x ** y, [a, b])
        torch_parity(lambda x: x ** 0, lambda x: x ** 0, [a])
        x = leaves([a])[0]
        (x ** 0).sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), 0.0)
