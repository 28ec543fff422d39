"""The backward engine: course-notes examples, accumulation, graphs, hooks, memory, depth."""
import gc
import threading
import weakref

import numpy as np
import pytest

from dagrad import autograd as ag
from dagrad.autograd.engine import run
from tests.complexity import assert_linear


def f64(value, requires_grad=True):
    return ag.tensor(np.asarray(value, dtype=np.float64), requires_grad=requires_grad)


# ------------------------------------------------------------------ course-notes examples
def test_sigmoid_at_zero_passes_a_quarter_back():
    u = f64(0.0)
    ag.sigmoid(u).backward()
    assert u.grad.item() == 0.25


def test_affine_gradients_are_input_and_one():
    w, x, b = f64(1.5), f64(-2.0), f64(0.3)
    (w * x + b).backward()
    assert w.grad.item() == -2.0      # δ_w = x
    assert x.grad.item() == 1.5       # δ_x = w
    assert b.grad.item() == 1.0       # δ_b = 1


def test_value_used_twice_receives_the_sum_of_both_deltas():
    a = f64(3.0)
    (a * a).backward()                # two uses, each contributing a
    assert a.grad.item() == 6.0
    b = f64(2.0)
    (b.exp() + b.sin()).backward()
    assert b.grad.item() == pytest.approx(np.exp(2.0) + np.cos(2.0))


def test_chain_rule_through_several_operations():
    x = f64(0.7)
    y = ag.tanh(x * x + 1.0).log()
    y.backward()
    t = np.tanh(0.7 ** 2 + 1)
    assert x.grad.item() == pytest.approx((1 - t * t) / t * 2 * 0.7)


# --------------------------------------------------------------------------- accumulation
def test_two_backward_calls_accumulate_into_grad():
    x = f64([1.0, 2.0])
    (x * 3).sum().backward()
    (x * x).sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), [3 + 2, 3 + 4])


def test_leaf_grads_never_share_memory():
    a, b = f64([1.0, 2.0]), f64([3.0, 4.0])
    (a + b).sum().backward()
    assert not np.shares_memory(a.grad.numpy(), b.grad.numpy())
    a.grad.numpy()[...] *= 10                # in-place on one grad leaves the other alone
    np.testing.assert_allclose(b.grad.numpy(), [1, 1])


def test_grad_of_reduced_leaf_is_writable():
    x = f64(np.ones((2, 3)))
    x.sum().backward()
    x.grad.numpy()[...] *= 2                 # the engine must not hand out a read-only broadcast view
    np.testing.assert_allclose(x.grad.numpy(), 2)


def test_float32_stays_float32():
    x = ag.randn(4, 3, requires_grad=True)
    w = ag.randn(3, 2, requires_grad=True)
    y = ((x @ w).tanh() * 0.5 + 1.0).sigmoid().log_softmax(dim=1).mean()
    assert y.dtype == np.float32
    y.backward()
    assert x.grad.dtype == np.float32 and w.grad.dtype == np.float32


def test_backward_of_several_roots_and_explicit_gradient():
    x = f64([1.0, 2.0, 3.0])
    y = x * 2
    y.backward(gradient=ag.tensor([1.0, 0.0, 10.0], dtype=ag.float64))
    np.testing.assert_allclose(x.grad.numpy(), [2, 0, 20])
    x.grad = None
    a, b = (x * x).sum(), x.sum()
    ag.backward([a, b])
    np.testing.assert_allclose(x.grad.numpy(), 2 * x.numpy() + 1)


def test_backward_inputs_restricts_accumulation():
    x, w = f64([1.0, 2.0]), f64([3.0, 4.0])
    (x * w).sum().backward(inputs=[w])
    assert x.grad is None
    np.testing.assert_allclose(w.grad.numpy(), [1, 2])


# --------------------------------------------------------------------------------- ag.grad
def test_grad_returns_without_touching_dot_grad():
    x = f64([1.0, 2.0])
    y = (x ** 2).sum()
    g, = ag.grad(y, x)
    np.testing.assert_allclose(g.numpy(), [2, 4])
    assert x.grad is None


def test_grad_of_non_leaf_and_allow_unused():
    x, unused = f64(2.0), f64(5.0)
    h = x * 3
    y = h * h
    gh, gu = ag.grad(y, [h, unused], allow_unused=True)
    assert gh.item() == 12.0 and gu is None   # dy/dh = 2h, h = 6
    with pytest.raises(RuntimeError, match="allow_unused"):
        ag.grad(x * 3, [x, unused])


# ------------------------------------------------------------------------------ retain_graph
def test_second_backward_through_released_graph_raises():
    x = f64(2.0)
    y = x.exp() * x
    y.backward()
    with pytest.raises(RuntimeError, match=r"second time: operation 'Mul' already released.*"
                                           r"Pass retain_graph=True"):
        y.backward()
    with pytest.raises(RuntimeError, match="retain_graph=True"):
        ag.grad(y, x)


def test_retain_graph_allows_a_second_backward():
    x = f64(2.0)
    y = x.exp() * x
    y.backward(retain_graph=True)
    y.backward()
    assert x.grad.item() == pytest.approx(2 * (np.exp(2) * 3))


def test_backward_twice_through_ops_that_saved_nothing_works():
    x = f64([1.0, 2.0])
    y = (x + 1).sum()
    y.backward()
    y.backward()                      # as PyTorch: add/sum saved nothing, nothing was freed
    np.testing.assert_allclose(x.grad.numpy(), [2, 2])


# ---------------------------------------------------------------------------------- memory
def test_forward_intermediates_are_freed_after_backward():
    x = ag.randn(50, 50, requires_grad=True)
    h = x.tanh()
    y = (h * h).sum()
    ref = weakref.ref(h)
    arr_ref = weakref.ref(h.numpy())
    del h
    gc.collect()
    assert arr_ref() is not None      # its array is still saved by Mul for backward
    y.backward()                      # releases the saved values
    gc.collect()
    assert ref() is None and arr_ref() is None


def test_every_intermediate_of_a_chain_is_freed_after_backward():
    x = ag.randn(30, 30, requires_grad=True)
    w = ag.randn(30, 30, requires_grad=True)
    h, tensors, arrays = x, [], []
    for _ in range(4):                # matmul, tanh, exp, mul, sigmoid: all save something
        h = ((h @ w).tanh().exp() * h).sigmoid()
        tensors.append(weakref.ref(h))
        arrays.append(weakref.ref(h.numpy()))
    y = h.sum()
    del h
    gc.collect()
    assert all(r() is not None for r in arrays)       # held by the nodes for backward
    y.backward()
    gc.collect()
    assert all(r() is None for r in tensors) and all(r() is None for r in arrays)
    nodes, stack = [], [y.grad_fn]
    while stack:                      # the graph is still reachable from y, but empty
        node = stack.pop()
        nodes.append(node)
        stack.extend(p for p in node.parents if isinstance(p, ag.Function))
    assert len(nodes) > 20 and all(node.saved == () for node in nodes)
    assert x.grad.shape == (30, 30) and w.grad.shape == (30, 30)


def test_graph_is_freed_when_result_is_dropped():
    x = ag.randn(10, requires_grad=True)
    y = (x.exp() * 2).sum()
    node_ref = weakref.ref(y.grad_fn)
    del y
    assert node_ref() is None         # reference counting alone frees it, no gc cycle needed


# ----------------------------------------------------------------------------------- depth
@pytest.mark.slow
def test_million_operation_chain_backpropagates_and_frees():
    x = ag.tensor(0.5, dtype=ag.float64, requires_grad=True)
    y = x
    for _ in range(1_000_000):
        y = y * 1.0000001
    y.backward()
    assert x.grad.item() == pytest.approx(1.0000001 ** 1_000_000)
    z = x
    for _ in range(1_000_000):
        z = z + 1.0
    del y, z                          # dropping a million-node graph must not overflow the stack


def _stack_cat_and_backward(n):
    """The work of a wide graph: ``stack`` and ``cat`` of n leaves, then backward to all."""
    leaves = [ag.tensor([float(i)], requires_grad=True) for i in range(n)]

    def work():
        (ag.stack(leaves).sum() + ag.cat(leaves).sum()).backward()
        assert leaves[-1].grad is not None
    return work


@pytest.mark.slow
def test_stack_and_cat_of_many_leaves_and_their_backward_grow_linearly():
    """Recording an operation is linear in its inputs (its parents were once grown as tuples,
    one input at a time: quadratic, 22 s for a stack of 40,000 leaves)."""
    assert_linear(_stack_cat_and_backward, 5_000, "stack and cat of n leaves + backward")


@pytest.mark.slow
def test_wide_graph_of_many_leaves():
    leaves = [ag.tensor(float(i), requires_grad=True) for i in range(100_000)]
    total = ag.stack(leaves).sum() * 2
    total.backward()
    assert all(leaf.grad.item() == 2.0 for leaf in leaves[::9999])


# ----------------------------------------------------------------------------------- hooks
def test_tensor_hook_sees_and_replaces_gradient():
    x = f64([1.0, 2.0])
    h = x * 2
    seen = []
    h.register_hook(lambda g: seen.append(g.numpy().copy()))
    handle = h.register_hook(lambda g: g * 10)
    (h * h).sum().backward()
    np.testing.assert_allclose(seen[0], 2 * h.numpy())
    np.testing.assert_allclose(x.grad.numpy(), 10 * 2 * h.numpy() * 2)
    handle.remove()


def test_leaf_hook_and_retain_grad():
    x = f64([1.0, 2.0])
    calls = []
    x.register_hook(lambda g: calls.append(g.numpy().copy()))
    h = x * 3
    h.retain_grad()
    (h * x).sum().backward()
    assert len(calls) == 1            # a leaf hook runs once, on the total gradient
    np.testing.assert_allclose(calls[0], 3 * x.numpy() + h.numpy())
    np.testing.assert_allclose(h.grad.numpy(), x.numpy())


# ------------------------------------------------------------------------------- grad mode
def test_no_grad_records_nothing_and_is_a_decorator():
    x = f64(1.0)
    with ag.no_grad():
        y = x * 2
        with ag.enable_grad():
            z = x * 2
    assert not y.requires_grad and y.grad_fn is None and z.requires_grad

    @ag.no_grad()
    def f(t):
        return t * 2
    assert not f(x).requires_grad
    assert ag.is_grad_enabled()
    with ag.set_grad_enabled(False):
        assert not ag.is_grad_enabled()


def test_grad_mode_is_thread_local():
    seen = {}

    def other():
        seen["enabled"] = ag.is_grad_enabled()
    with ag.no_grad():
        t = threading.Thread(target=other)
        t.start()
        t.join()
    assert seen["enabled"] is True


@pytest.mark.filterwarnings("ignore:invalid value:RuntimeWarning",
                            "ignore:divide by zero:RuntimeWarning")
def test_detect_anomaly_names_the_operation():
    x = f64([1.0, -1.0])
    with ag.detect_anomaly():
        with pytest.raises(RuntimeError, match="'Log'"):
            x.log()
        y = f64([0.0]).sqrt()         # forward is fine (0), backward divides by 0
        with pytest.raises(RuntimeError, match="'Sqrt'.*backward"):
            y.sum().backward()


# -------------------------------------------------------------------------------- observer
def test_observer_sees_one_gradient_per_edge():
    a = f64(3.0)
    y = a * a
    edges = []
    run([y.grad_fn], [np.ones(())], retain_graph=True, create_graph=False, accumulate=False,
        observer=lambda node, i, g: edges.append((node.name, i, float(g))))
    assert sorted(edges) == [("Mul", 0, 3.0), ("Mul", 1, 3.0)]
    assert a.grad is None
    y.backward()                      # the graph is still usable
    assert a.grad.item() == 6.0


# -------------------------------------------------------------------------------- in-place
def test_in_place_change_of_saved_tensor_is_reported():
    a = f64([1.0, 2.0], requires_grad=False)
    w = f64([3.0, 4.0])
    z = (a * w).sum()
    a.mul_(2)
    with pytest.raises(RuntimeError, match="'Mul'.*modified in place"):
        z.backward()


def test_in_place_on_leaf_requiring_grad_is_refused_unless_no_grad():
    w = f64([1.0, 2.0])
    with pytest.raises(RuntimeError, match="no_grad"):
        w.add_(1)
    with ag.no_grad():
        w -= 0.5
    np.testing.assert_allclose(w.numpy(), [0.5, 1.5])


def test_zero_dim_gradients_are_arrays_and_accumulate():
    w = f64(2.0)
    x = f64([1.0, 2.0, 3.0], requires_grad=False)
    y = (w * x).sum() + (w * x).sum() + (w * x).sum()     # three contributions to one node
    y.backward()
    assert type(w.grad.numpy()) is np.ndarray and w.grad.numpy().shape == ()
    assert w.grad.item() == 18.0


# ------------------------------------------------------------------ slices read one by one
def test_gradients_of_many_slices_add_up_to_the_dense_gradient():
    rng = np.random.default_rng(0)
    x = ag.tensor(rng.standard_normal((6, 4)).astype(np.float32), requires_grad=True)
    h = x.sum(dim=0) * 0.0 + 1.0      # a dense consumer of x ahead of the slice readers
    for t in range(6):                # one slice per step, as a recurrent network reads its input
        h = (h * x[t]).tanh() + x[t, 1:3].sum()
    y = h.sum() + x[1:4].sum() + x[2, ...].sum()    # overlapping slices, after the loop
    y.backward(retain_graph=True)
    assert x.grad.dtype == np.float32
    first = x.grad.numpy().copy()
    x64 = ag.tensor(x.numpy().astype(np.float64), requires_grad=True)
    dense = x64.sum(dim=0) * 0.0 + 1.0
    for t in range(6):
        row = (x64 * ag.tensor(np.eye(6)[t][:, None])).sum(dim=0)   # no slicing at all
        dense = (dense * row).tanh() + (row * ag.tensor([0.0, 1, 1, 0])).sum()
    mask = np.zeros((6, 4))
    mask[1:4] = 1
    mask[2] += 1
    (dense.sum() + (x64 * ag.tensor(mask)).sum()).backward()
    np.testing.assert_allclose(first, x64.grad.numpy(), rtol=1e-5, atol=1e-6)
    x.grad = None
    y.backward()                      # a second pass starts from fresh buffers
    np.testing.assert_allclose(x.grad.numpy(), first)


def test_observer_and_leaf_see_slice_gradients_as_full_arrays():
    x = f64([[1.0, 2.0], [3.0, 4.0]])
    y = (x[0] * 2.0).sum() + x[:, 1].sum()
    edges = []
    run([y.grad_fn], [np.ones(())], retain_graph=True, create_graph=False, accumulate=False,
        observer=lambda node, i, g: edges.append((node.name, np.asarray(g))))
    slices = [g for name, g in edges if name == "GetItem"]
    assert len(slices) == 2 and all(type(g) is np.ndarray and g.shape == (2, 2) for g in slices)
    y.backward()
    assert type(x.grad.numpy()) is np.ndarray
    np.testing.assert_allclose(x.grad.numpy(), [[2.0, 3.0], [0.0, 1.0]])
    z = x[1, 0]                       # one slice only: its gradient reaches .grad densified
    x.grad = None
    z.backward()
    np.testing.assert_allclose(x.grad.numpy(), [[0.0, 0.0], [1.0, 0.0]])


def test_weight_reused_by_many_products_gets_the_summed_gradient():
    from dagrad.autograd.ops.recurrent import recurrent_gates
    rng = np.random.default_rng(1)
    w0, h0 = rng.standard_normal((6, 3)), rng.standard_normal((2, 3))

    def gradient(product):
        w = ag.tensor(w0.astype(np.float32), requires_grad=True)
        h = ag.tensor(h0.astype(np.float32), requires_grad=True)
        for _ in range(5):        # recurrent_gates returns each step's dW as its factors
            h = product(h, w)[:, :3].tanh()
        loss = h.sum() + (w * w).sum()                 # and a dense contribution to w
        edges = []
        run([loss.grad_fn], [np.ones((), np.float32)], retain_graph=True, create_graph=False,
            accumulate=False, observer=lambda node, i, g: edges.append(g))
        loss.backward()
        return w.grad, edges

    lazy, edges = gradient(lambda h, w: recurrent_gates(None, h, w))
    dense, _ = gradient(lambda h, w: h @ w.T)
    assert lazy.dtype == np.float32 and type(lazy.numpy()) is np.ndarray
    np.testing.assert_allclose(lazy.numpy(), dense.numpy(), rtol=1e-5)
    assert all(isinstance(g, (np.ndarray, np.generic)) for g in edges)  # observers: arrays


def test_a_node_keeps_the_array_of_an_input_an_operation_made_not_its_tensor():
    # one Python object less per node for the garbage collector; create_graph still connects
    # the saved array to its history (the parent)
    x = ag.tensor([0.3, -0.7], dtype=ag.float64, requires_grad=True)
    h = x.tanh()
    ref = weakref.ref(h)
    y = (h * h).sum()
    del h
    gc.collect()
    assert ref() is None
    g, = ag.grad(y, x, create_graph=True)             # d/dx tanh² = 2 tanh sech²
    g.sum().backward()
    t, sech2 = np.tanh(x.numpy()), 1 - np.tanh(x.numpy()) ** 2
    np.testing.assert_allclose(g.numpy(), 2 * t * sech2, rtol=1e-12)
    np.testing.assert_allclose(x.grad.numpy(), 2 * sech2 ** 2 - 4 * t ** 2 * sech2, rtol=1e-12)
