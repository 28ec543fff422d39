"""detect_anomaly names where a NaN came from: the module in the forward pass too, and the
user's hook (module forward hooks and tensor hooks) when the hook made it."""
import numpy as np
import pytest

from dagrad import autograd as ag
from dagrad import nn


def _model():
    ag.manual_seed(0)
    return nn.Sequential(nn.Linear(2, 2), nn.ReLU(), nn.Linear(2, 1))


def test_a_forward_nan_names_the_operation_and_the_module():
    model = _model()
    with ag.detect_anomaly(), pytest.raises(RuntimeError, match=r"operation 'Linear' \(in "
                                            r"module '0'\) produced NaN or inf in its forward"):
        model(ag.tensor([[np.inf, 1.0]]))


def test_an_operation_inside_a_forward_hook_is_reported_as_the_hook():
    model = _model()

    def scale(module, args, output):
        return output * float("nan")

    model[2].register_forward_hook(scale)
    with ag.detect_anomaly(), pytest.raises(
            RuntimeError, match=r"operation 'Mul' in forward hook 'test_an_operation_inside_a_"
                                r"forward_hook_is_reported_as_the_hook.<locals>.scale' \(in "
                                r"module '2'\)"):
        model(ag.ones(1, 2))


def test_a_nan_returned_by_a_hook_is_reported_as_the_hook():
    model = _model()
    model[0].register_forward_pre_hook(lambda module, args: ag.full((1, 2), float("nan")))
    with ag.detect_anomaly(), pytest.raises(
            RuntimeError, match=r"the forward pre-hook '.*<lambda>' of module '0' returned NaN"):
        model(ag.ones(1, 2))


def test_a_tensor_hook_that_makes_a_nan_gradient_is_named():
    x = ag.ones(2, requires_grad=True)
    y = x * 2

    def spoil(grad):
        return grad * float("nan")

    y.register_hook(spoil)
    with ag.detect_anomaly(), pytest.raises(RuntimeError, match="tensor hook '.*spoil'"):
        y.sum().backward()
    z = x * 2
    z.register_hook(lambda grad: np.full(2, np.inf))
    with ag.detect_anomaly(), pytest.raises(
            RuntimeError, match=r"the tensor hook '.*<lambda>' returned a gradient holding NaN"):
        z.sum().backward()


def test_hooks_run_unchanged_without_detect_anomaly():
    model = _model()
    model[0].register_forward_hook(lambda module, args, output: output * 0)
    assert model[0](ag.ones(1, 2)).numpy().tolist() == [[0.0, 0.0]]
