"""What the engine offers to viz: kept output values and per-edge gradients that touch no .grad."""
import numpy as np

from dagrad import autograd as ag
from dagrad.autograd.engine import run
from dagrad.autograd.recording import noted, record


def test_record_keeps_outputs_and_inputs_only_inside_the_block():
    x = ag.tensor([1.0, 2.0], requires_grad=True)
    y = x + 1.0
    assert noted(y.grad_fn) is None
    with record():
        z = x + 1.0
    np.testing.assert_array_equal(noted(z.grad_fn).value, [2.0, 3.0])
    assert noted(z.grad_fn).inputs[0] is x and noted(z.grad_fn).inputs[1] == 1.0
    assert z.grad_fn.inputs == ()           # the node itself keeps only what backward needs


def test_a_node_keeps_an_operation_s_output_only_when_it_saved_that_array():
    """ReLU saves its output, not its input: the array of the product before it is freed as
    soon as the Tensor holding it goes (LeNet's convolution outputs, 1.6 MB a step). A product
    saves both inputs: it keeps them (as arrays: their history is the node's parents), and a
    leaf is kept as itself. Second derivatives read the saves, so they still work."""
    import gc
    import weakref
    from dagrad.autograd.function import NOT_KEPT
    x = ag.tensor(np.linspace(-1, 1, 12).reshape(3, 4), requires_grad=True)
    w = ag.tensor(np.ones((4, 4)), requires_grad=True)

    def layer():
        h = x @ w
        return h.relu(), weakref.ref(h._data)

    y, product_array = layer()
    gc.collect()
    assert y.grad_fn.inputs == (NOT_KEPT,) and product_array() is None
    z = y * y
    assert z.grad_fn.inputs[0] is y._data and z.grad_fn.inputs[1] is y._data
    assert (x * w[0]).grad_fn.inputs[0] is x                  # a leaf: kept as itself
    g, = ag.grad(z.sum(), x, create_graph=True)
    gg, = ag.grad(g.sum(), x)
    expected = ((x.detach().numpy() @ np.ones((4, 4))) > 0) * 2 * 4 * 4   # d²/dx² of Σ relu(xw)²
    np.testing.assert_allclose(gg.numpy(), expected)


def test_observer_run_leaves_grads_of_leaves_and_retained_tensors_alone():
    a = ag.tensor(3.0, requires_grad=True)
    m = a * a
    m.retain_grad()
    out = m * 2.0
    seen = []
    run([out.grad_fn], [np.ones((), np.float32)], retain_graph=True, create_graph=False,
        accumulate=False, observer=lambda node, i, g: seen.append((node.name, i, float(g))))
    assert a.grad is None and m.grad is None
    assert sorted(seen) == [("Mul", 0, 2.0), ("Mul", 0, 6.0), ("Mul", 1, 6.0)]
    out.backward()
    assert a.grad.item() == 12.0 and m.grad.item() == 2.0
