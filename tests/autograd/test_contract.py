"""The contract between an operation and the engine (see autograd/function.py): plain formulas
with the engine undoing broadcasting, ``needs_input_grad``, one formula for both backward paths,
and everything backward reads saved through ``ctx.save`` and freed after backward."""
import contextlib
import gc
import pathlib
import re
import weakref

import numpy as np
import pytest

from dagrad import autograd as ag, nn
from dagrad.autograd import Function

AUTOGRAD = pathlib.Path(ag.__file__).parent


class Mul(Function):
    """The example of autograd/function.py and docs/autograd.md, exactly as written there."""

    def forward(ctx, a, b):
        ctx.save(a, b)
        return a * b

    def backward(ctx, grad):
        a, b = ctx.saved
        return grad * b, grad * a


def test_documented_mul_works_with_broadcasting_inputs():
    a = ag.tensor(np.arange(12.0).reshape(3, 4), requires_grad=True)
    b = ag.tensor([1.0, 2.0, 3.0, 4.0], requires_grad=True)
    Mul.apply(a, b).sum().backward()
    np.testing.assert_allclose(a.grad.numpy(), np.tile([1.0, 2.0, 3.0, 4.0], (3, 1)))
    np.testing.assert_allclose(b.grad.numpy(), np.arange(12.0).reshape(3, 4).sum(axis=0))


def test_documented_mul_is_differentiable_twice_with_broadcasting():
    a = ag.tensor(np.array([[1.0], [2.0]]), requires_grad=True)     # (2, 1)
    b = ag.tensor(np.array([3.0, 4.0, 5.0]), requires_grad=True)    # (3,)
    ga, = ag.grad(Mul.apply(a * a, b).sum(), a, create_graph=True)  # 2a Σb
    np.testing.assert_allclose(ga.numpy(), [[24.0], [48.0]])
    ga.sum().backward()                                               # d/db Σ 2a Σb = 2 Σa
    np.testing.assert_allclose(b.grad.numpy(), [6.0, 6.0, 6.0])


def test_needs_input_grad_names_the_inputs_that_want_a_gradient():
    seen = []

    class Probe(Function):
        def forward(ctx, a, b):
            return a + b

        def backward(ctx, grad):
            seen.append(ctx.needs_input_grad)
            return grad, grad

    a = ag.ones(2, requires_grad=True)
    Probe.apply(a, ag.ones(2)).sum().backward()
    Probe.apply(ag.ones(2), a).sum().backward()
    assert seen == [(True, False), (False, True)]
    np.testing.assert_allclose(a.grad.numpy(), [2.0, 2.0])


def test_no_operation_undoes_broadcasting_or_reads_the_graph():
    for path in sorted((AUTOGRAD / "ops").glob("*.py")):
        text = path.read_text()
        assert "unbroadcast" not in text, path.name
        assert not re.search(r"ctx\.parents", text), path.name
        assert "ctx.cache" not in text, path.name


def test_prod_second_path_agrees_with_the_first_where_an_element_is_zero():
    """PyTorch: d/dx prod([0, 2, 3]) = [6, 0, 0] with and without create_graph."""
    x = ag.tensor([0.0, 2.0, 3.0], dtype=ag.float64, requires_grad=True)
    fast, = ag.grad(x.prod(), x)
    graph, = ag.grad(x.prod(), x, create_graph=True)
    np.testing.assert_array_equal(fast.numpy(), [6.0, 0.0, 0.0])
    np.testing.assert_array_equal(graph.numpy(), [6.0, 0.0, 0.0])
    # the Hessian of x0 x1 x2 at (0, 2, 3): off-diagonal x_k, as torch.autograd.functional
    hessian = np.stack([ag.grad(graph[i], x, retain_graph=True)[0].numpy() for i in range(3)])
    np.testing.assert_array_equal(hessian, [[0, 3, 2], [3, 0, 0], [2, 0, 0]])


def test_prod_along_a_dim_with_zeros_is_twice_differentiable():
    x = ag.tensor(np.array([[0.0, 2.0, 0.5], [1.5, 0.0, 0.0]]), requires_grad=True)
    assert ag.gradcheck(lambda t: t.prod(dim=1), (x,))
    assert ag.gradcheck(lambda t: ag.grad(t.prod(dim=0).sum(), t, create_graph=True)[0], (x,))


def _nodes(*outputs):
    stack, seen = [o.grad_fn for o in outputs], {}
    while stack:
        node = stack.pop()
        if id(node) not in seen:
            seen[id(node)] = node
            stack.extend(p for p in node.parents if isinstance(p, Function))
    return list(seen.values())


def _held_arrays(node):
    """The ndarrays a node holds in its attributes, slots included (directly or in a tuple)."""
    held = []
    slots = [name for cls in type(node).__mro__ for name in getattr(cls, "__slots__", ())]
    values = list(getattr(node, "__dict__", {}).values())
    values += [getattr(node, name) for name in slots if hasattr(node, name)]
    for value in values:
        for v in value if isinstance(value, (tuple, list)) else (value,):
            if isinstance(v, np.ndarray) and v.size > 1:
                held.append(v)
    return held


@pytest.mark.parametrize("mode,options,step_by_step",
                         [("LSTM", {}, False), ("GRU", {}, False),
                          ("LSTM", {"peephole": True}, False), ("LSTM", {}, True)],
                         ids=["LSTM", "GRU", "LSTM-peephole", "LSTM-step-by-step"])
def test_a_recurrent_network_holds_no_arrays_after_backward(mode, options, step_by_step):
    """As one operation per layer, or as operations per step (under viz.record())."""
    from dagrad import viz
    layer = getattr(nn, mode)(3, 8, **options)
    x = ag.randn(50, 2, 3, requires_grad=True)
    with viz.record() if step_by_step else contextlib.nullcontext():
        out, _ = layer(x)
    loss = out.sum()
    nodes = _nodes(loss)
    assert len(nodes) > (100 if step_by_step else 2)
    assert sum(map(len, map(_held_arrays, nodes))) > (100 if step_by_step else 3)
    loss.backward()
    assert [n for n in nodes if _held_arrays(n)] == []


def test_saved_constants_are_checked_for_in_place_writes():
    """where(mask, a, b), then mask.fill_(False), then backward: PyTorch raises."""
    mask = ag.tensor([True, False, True])
    a = ag.ones(3, requires_grad=True)
    y = ag.where(mask, a, ag.zeros(3)).sum()
    mask.fill_(False)
    with pytest.raises(RuntimeError, match="Where.*modified in place"):
        y.backward()


def test_named_saves_are_freed_after_backward():
    x = ag.randn(4, 5, requires_grad=True)
    y = ag.clamp(x, ag.zeros(5), ag.ones(5)).sum()
    node = y.grad_fn.parents[0]
    masks = [weakref.ref(node.inside)]
    y.backward()
    gc.collect()
    assert node.inside is None and masks[0]() is None
    with pytest.raises(RuntimeError, match="second time"):
        y.backward()


def test_one_converter_pair_for_the_whole_library():
    """``ag.as_array``/``ag.as_tensor`` are the library's only Tensor-or-array converters."""
    root = AUTOGRAD.parent
    defined, unwrapped = [], []
    for folder in ("autograd", "nn", "optim", "viz", "dagrad"):
        for path in sorted((root / folder).rglob("*.py")):
            text = path.read_text()
            defined += [path.name for _ in re.finditer(r"^def (_?as_tensor|as_array|_array)\(",
                                                       text, re.M)]
            if re.search(r"getattr\(\w+, [\"']_?data[\"']", text):
                unwrapped.append(path.name)
    # the tutor's compare.py reads a foreign object's number (a micrograd Value's .data), not a
    # dagrad Tensor's array: that is reading a student's answer, not a second converter
    assert sorted(defined) == ["convert.py", "creation.py"] and unwrapped == ["compare.py"]
    x = ag.tensor([1.0, 2.0])
    assert ag.as_tensor(x) is x and ag.as_array(x) is x.numpy()
    assert ag.as_tensor(np.zeros(2)).dtype == ag.float64
    assert ag.as_tensor(x, dtype=ag.float64).dtype == ag.float64


class TanhSavingItsOutput(Function):
    """tanh written as PyTorch users write it: the output saved positionally, last
    (``save_for_backward(output)``), and the derivative read from it."""

    def forward(ctx, x):
        y = np.tanh(x)
        ctx.save(x, y)
        return y

    def backward(ctx, grad):
        _, y = ctx.saved
        return grad * (1 - y * y)


def test_the_output_saved_positionally_is_the_output_on_both_paths():
    """``ctx.save(x, y)`` of the very array forward returns is ``ctx.save(x, output=y)``: the
    first derivative, and the second through ``create_graph=True``, match tanh's own (with y
    taken for a constant the second derivative would be 0)."""
    values = np.array([0.3, -1.2, 0.8])
    x = ag.tensor(values, requires_grad=True)
    y = TanhSavingItsOutput.apply(x)
    assert y.grad_fn.saves_output
    (g,) = ag.grad(y.sum(), x, create_graph=True)
    np.testing.assert_allclose(g.numpy(), 1 - np.tanh(values) ** 2)
    (gg,) = ag.grad(g.sum(), x)
    t = np.tanh(values)
    np.testing.assert_allclose(gg.numpy(), -2 * t * (1 - t ** 2))


def test_a_positional_save_that_is_neither_input_nor_output_stays_a_constant():
    """Only the last positional save can be the output, and only when it is the very array
    forward returns: a copy of it is a constant on the differentiable path, as in PyTorch."""
    class TanhSavingACopy(TanhSavingItsOutput):
        def forward(ctx, x):
            y = np.tanh(x)
            ctx.save(x, y.copy())
            return y
    x = ag.tensor(np.array([0.3, -1.2]), requires_grad=True)
    y = TanhSavingACopy.apply(x)
    assert not y.grad_fn.saves_output
    (g,) = ag.grad(y.sum(), x, create_graph=True)
    assert not g.requires_grad
