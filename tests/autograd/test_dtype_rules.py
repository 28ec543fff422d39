"""Integer inputs to floating-point operations, the dtype of ``.grad``, and gradient
accumulation from several threads: each as PyTorch does it."""
import sys
import threading

import numpy as np
import pytest

import dagrad.nn.functional as F
from dagrad import autograd as ag

torch = pytest.importorskip("torch")
TF = torch.nn.functional

# Functions defined on real numbers: PyTorch computes integer and bool input in float32.
TO_FLOAT = {
    "sigmoid": lambda x: x.sigmoid(), "tanh": lambda x: x.tanh(), "exp": lambda x: x.exp(),
    "log": lambda x: x.log(), "sqrt": lambda x: x.sqrt(), "rsqrt": lambda x: x.rsqrt(),
    "sin": lambda x: x.sin(), "cos": lambda x: x.cos(), "reciprocal": lambda x: x.reciprocal(),
    "logsumexp": lambda x: x.logsumexp(-1), "pow 0.5": lambda x: x ** 0.5,
}


@pytest.mark.parametrize("name", sorted(TO_FLOAT))
@pytest.mark.parametrize("data", [[[1, 2]], [[True, False]]], ids=["int64", "bool"])
def test_integer_input_to_a_float_function_is_computed_in_float32(name, data):
    f = TO_FLOAT[name]
    ours, theirs = f(ag.tensor(data)), f(torch.tensor(data))
    assert ours.dtype == np.float32 and theirs.dtype == torch.float32
    np.testing.assert_allclose(ours.numpy(), theirs.numpy(), rtol=1e-6)


def test_sigmoid_of_integers_is_not_truncated():
    np.testing.assert_allclose(ag.tensor([[1, 2]]).sigmoid().numpy(), [[0.7311, 0.8808]],
                               atol=1e-4)


# Operations PyTorch refuses on integers: dagrad refuses them too, naming the operation.
REFUSED = {
    "gelu": (F.gelu, TF.gelu), "elu": (F.elu, TF.elu), "silu": (F.silu, TF.silu),
    "leaky_relu": (F.leaky_relu, TF.leaky_relu), "softplus": (F.softplus, TF.softplus),
    "softmax": (lambda x: F.softmax(x, -1), lambda x: TF.softmax(x, -1)),
    "log_softmax": (lambda x: F.log_softmax(x, -1), lambda x: TF.log_softmax(x, -1)),
    "mean": (lambda x: x.mean(), lambda x: x.mean()),
    "var": (lambda x: x.var(), lambda x: x.var()),
    "std": (lambda x: x.std(), lambda x: x.std()),
    "norm": (lambda x: x.norm(), lambda x: x.norm()),
    "layer_norm": (lambda x: F.layer_norm(x, (2,)), lambda x: TF.layer_norm(x, (2,))),
    "cross_entropy": (lambda x: F.cross_entropy(x, ag.tensor([0])),
                      lambda x: TF.cross_entropy(x, torch.tensor([0]))),
    "nll_loss": (lambda x: F.nll_loss(x, ag.tensor([0])),
                 lambda x: TF.nll_loss(x, torch.tensor([0]))),
    "mse_loss": (lambda x: F.mse_loss(x, x), lambda x: TF.mse_loss(x, x)),
    "l1_loss": (lambda x: F.l1_loss(x, x), lambda x: TF.l1_loss(x, x)),
    "huber_loss": (lambda x: F.huber_loss(x, x), lambda x: TF.huber_loss(x, x)),
    "smooth_l1_loss": (lambda x: F.smooth_l1_loss(x, x), lambda x: TF.smooth_l1_loss(x, x)),
    "kl_div": (lambda x: F.kl_div(x, x, reduction="sum"),
               lambda x: TF.kl_div(x, x, reduction="sum")),
}


@pytest.mark.parametrize("name", sorted(REFUSED))
def test_operation_pytorch_refuses_on_integers_raises_a_clear_error(name):
    ours, theirs = REFUSED[name]
    with pytest.raises(RuntimeError):
        theirs(torch.tensor([[1, 2]]))
    with pytest.raises(TypeError, match=r"(?i)(gelu|elu|silu|leakyrelu|softplus|softmax|"
                                        r"logsoftmax|mean|var|norm|normalize|crossentropy|"
                                        r"nll_loss|mse_loss|l1_loss|huber_loss|kl_div).*"
                                        r"floating-point.*int64.*float\(\)"):
        ours(ag.tensor([[1, 2]]))


# --------------------------------------------------------------------------- in place
@pytest.mark.parametrize("name", ["add_", "sub_", "div_", "clamp_"])
def test_in_place_result_of_a_higher_category_is_refused_as_in_pytorch(name):
    arg = {"add_": (1.5,), "sub_": (0.5,), "div_": (2,), "clamp_": (0.5, 1.5)}[name]
    with pytest.raises(RuntimeError, match="can't be cast"):
        getattr(torch.tensor([1, 2]), name)(*arg)
    x = ag.tensor([1, 2])
    with pytest.raises(TypeError, match=rf"{name}: the result is a floating-point tensor.*int64"):
        getattr(x, name)(*arg)
    assert x.tolist() == [1, 2]                       # nothing was written


def test_in_place_results_of_the_same_category_are_written_in_the_tensors_dtype():
    x = ag.tensor([1, 2])
    x.mul_(2)
    x += 1
    assert x.dtype == np.int64 and x.tolist() == [3, 5]
    with pytest.raises(TypeError, match="add_: the result is an integer tensor.*bool"):
        ag.tensor([True]).add_(1)
    f = ag.ones(2)
    f.add_(ag.ones(2, dtype=ag.float64))              # float64 into float32: same category
    assert f.dtype == np.float32 and f.tolist() == [2.0, 2.0]


# ------------------------------------------------------------------------ .grad's dtype
def test_grad_keeps_the_leafs_dtype_over_several_accumulations():
    w = ag.ones(3, requires_grad=True)
    data = np.array([1.0, 2.0, 3.0])               # float64 NumPy data
    for _ in range(3):
        (w * data).sum().backward()                # the product is float64 (two 1-d operands)
        assert w.grad.dtype == np.float32
    np.testing.assert_allclose(w.grad.numpy(), [3.0, 6.0, 9.0])


def test_grad_keeps_the_leafs_dtype_with_create_graph():
    w = ag.ones(2, requires_grad=True)
    for _ in range(2):
        (w * w * np.array([1.0, 2.0])).sum().backward(create_graph=True)
        assert w.grad.dtype == np.float32
    np.testing.assert_allclose(w.grad.numpy(), [4.0, 8.0])


# --------------------------------------------------------------------------- threads
def test_threads_running_backward_into_one_leaf_lose_no_contribution():
    x = ag.zeros(1000, requires_grad=True)
    start = threading.Barrier(4)

    def work():
        start.wait()
        for _ in range(200):
            (x * 1.0).sum().backward()

    interval = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)            # switch threads often, as a loaded machine does
    try:
        threads = [threading.Thread(target=work) for _ in range(4)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
    finally:
        sys.setswitchinterval(interval)
    np.testing.assert_array_equal(x.grad.numpy(), np.full(1000, 800.0, np.float32))


def test_threads_accumulating_with_create_graph_are_exact_too():
    x = ag.ones(4, requires_grad=True)

    def work():
        for _ in range(50):
            (x * x).sum().backward(create_graph=True)

    threads = [threading.Thread(target=work) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    np.testing.assert_array_equal(x.grad.numpy(), np.full(4, 400.0, np.float32))
