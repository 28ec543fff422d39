"""In-place changes of values an operation saved for backward are reported at backward with the
operation's name, whichever tensor made them: the saved tensor itself, the operation's own
output, a view of it, the base of a saved view, or a detach()-ed copy."""
import numpy as np
import pytest

from dagrad import autograd as ag


def f64(value, requires_grad=True):
    return ag.tensor(np.asarray(value, dtype=np.float64), requires_grad=requires_grad)


def _saved_input():
    a, w = f64([1.0, 2.0], False), f64([3.0, 4.0])
    return a, (a * w).sum(), "Mul"


def test_change_through_the_saved_tensor_names_the_operation_shape_and_fix():
    a, loss, op = _saved_input()
    a.add_(1.0)
    assert a._version == 1
    with pytest.raises(RuntimeError, match=rf"modified by an inplace operation: '{op}' saved an "
                                           rf"array of shape \(2,\) \(float64\).*clone\(\)"):
        loss.backward()


@pytest.mark.parametrize("how", ["output", "output_view", "detached", "base_of_view",
                                 "setitem", "leaf_update"])
def test_change_through_an_alias_is_reported(how):
    x = f64([[0.5, -1.0], [2.0, 0.1]])
    if how in ("output", "output_view"):
        y = x.tanh()                          # Tanh saves its output y
        loss, op = (y + 1.0).sum(), "Tanh"
        with ag.no_grad():
            (y if how == "output" else y[0]).mul_(2.0)
    elif how == "detached":
        loss, op = (x.exp() * x).sum(), "Mul"
        x.detach().zero_()                    # shares x's memory
    elif how == "base_of_view":
        a = f64([[1.0, 2.0], [3.0, 4.0]], False)
        loss, op = (a[1] * x[0]).sum(), "Mul"  # Mul saved a view of a
        a.fill_(0.0)
    elif how == "setitem":
        a = f64([1.0, 2.0], False)
        loss, op = (x[0] * a).sum(), "Mul"
        a[1] = 7.0
    else:
        loss, op = (x.sin()).sum(), "Sin"
        with ag.no_grad():
            x -= 0.1                          # a parameter update between forward and backward
    with pytest.raises(RuntimeError, match=rf"'{op}'.*modified in place"):
        loss.backward()


def test_changes_that_cannot_corrupt_a_gradient_are_allowed():
    a = f64([1.0, 2.0], False)
    a.mul_(3.0)                               # before the forward: the node saves the new value
    w = f64([3.0, 4.0])
    loss = (a * w).sum() + (a + w).sum()
    b = a.clone()
    b.zero_()                                 # a clone owns its memory
    loss.backward()
    np.testing.assert_allclose(w.grad.numpy(), [4.0, 7.0])
    c = f64([1.0, 2.0], False)
    s = (c + w).sum()                         # Add saves nothing: PyTorch allows this too
    c.mul_(5.0)
    s.backward()
    np.testing.assert_allclose(w.grad.numpy(), [5.0, 8.0])


def test_retained_graph_reports_a_change_made_between_two_backwards():
    x = f64([1.0, 2.0])
    y = x.exp()
    loss = (y * y).sum()
    loss.backward(retain_graph=True)
    with ag.no_grad():
        y.add_(1.0)
    with pytest.raises(RuntimeError, match="modified in place"):
        loss.backward()


# A product, quotient or power by a constant saves only what its backward reads (PyTorch saves
# the same), so changing its input in place afterwards is harmless to it; programs that change
# what a backward does read raise in both libraries.
CONSTANT_THEN_IN_PLACE = {
    "times": "z = y * 2.0; y.mul_(2); loss = z.sum()",
    "times_left": "z = 2.0 * y; y.add_(1); loss = z.sum()",
    "times_tensor_constant": "z = y * lib.tensor(2.0); y.mul_(2); loss = z.sum()",
    "over": "z = y / 4.0; y.mul_(2); loss = z.sum()",
    "pow_then_mul_": "y.pow_(2); y.mul_(3); loss = y.sum()",
    "pow_then_div_": "y.pow_(3.0); y.div_(2); loss = (y * y).sum()",
    "over_then_in_place_twice": "y.div_(2.0); y.mul_(3); y.add_(1); loss = y.sum()",
    # these read what was changed: both raise
    "squared_base": "z = y ** 2.0; y.mul_(2); loss = z.sum()",
    "constant_tensor_changed": "c = lib.tensor([2.0, 3.0, 4.0], dtype=lib.float64); z = y * c; "
                               "c.mul_(2); loss = z.sum()",
    "product_of_two": "z = y * y; y.mul_(2); loss = z.sum()",
    "exponent_of_a_tensor": "z = 2.0 ** y; y.mul_(2); loss = z.sum()",
}


@pytest.mark.parametrize("program", CONSTANT_THEN_IN_PLACE.values(),
                         ids=CONSTANT_THEN_IN_PLACE.keys())
def test_constant_factors_divisors_and_exponents_then_in_place_as_in_pytorch(program):
    from dagrad import torch as dt
    from tests.helpers import torch_or_skip
    results = []
    for lib in (torch_or_skip(), dt):
        x = lib.tensor([1.0, 2.0, 3.0], dtype=lib.float64, requires_grad=True)
        scope = {"lib": lib, "y": x * 1}
        try:
            exec(program, scope)
            scope["loss"].backward()
            results.append(x.grad.numpy().copy())
        except RuntimeError as e:
            assert "modified by an inplace operation" in str(e), e
            results.append("raises")
    theirs, ours = results
    if isinstance(theirs, str) or isinstance(ours, str):
        assert isinstance(theirs, str) and isinstance(ours, str), (theirs, ours)
    else:
        np.testing.assert_allclose(ours, theirs, rtol=1e-12)
