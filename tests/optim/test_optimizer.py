"""Optimizer base behaviour: gradients, skipping, dtypes, groups, closures, errors."""
import numpy as np
import pytest

from dagrad import autograd as ag
from dagrad import optim
from tests.optim.optim_cases import CASES, NAMES, X0, arrange, loss, make_params, train


def leaf(values, dtype=np.float64):
    return ag.tensor(np.array(values, dtype=dtype), requires_grad=True)


def with_grad(p, values):
    p.grad = ag.tensor(np.array(values, dtype=p.numpy().dtype))
    return p


def test_zero_grad_set_to_none():
    params = make_params()
    optimizer = optim.SGD(params, lr=0.1)
    loss(*params, ag.tensor(X0)).backward()
    optimizer.zero_grad()
    assert all(p.grad is None for p in params)


def test_zero_grad_in_place_keeps_the_gradient_objects():
    params = make_params()
    optimizer = optim.SGD(params, lr=0.1)
    loss(*params, ag.tensor(X0)).backward()
    grads = [p.grad for p in params]
    optimizer.zero_grad(set_to_none=False)
    for p, g in zip(params, grads):
        assert p.grad is g
        assert not p.grad.numpy().any()
    scalar = with_grad(leaf(1.0), 2.0)
    scalar.grad.data = np.float64(2.0)      # a NumPy scalar cannot be zeroed in place
    optim.SGD([scalar]).zero_grad(set_to_none=False)
    assert scalar.grad.numpy() == 0


@pytest.mark.parametrize("name", NAMES)
def test_parameters_without_gradient_are_skipped(name):
    a, b = leaf([1.0, -2.0]), leaf([3.0, 4.0])
    optimizer = getattr(optim, name)([a, b], lr=0.1, weight_decay=0.1)
    with_grad(a, [0.5, 0.5])
    for _ in range(3):
        optimizer.step()
    np.testing.assert_array_equal(b.numpy(), [3.0, 4.0])
    assert b not in optimizer.state
    assert not np.array_equal(a.numpy(), [1.0, -2.0])


@pytest.mark.parametrize("name", NAMES)
def test_step_updates_in_place_and_leaves_grad_alone(name):
    a = with_grad(leaf([1.0, -2.0]), [0.5, -0.25])
    data, grad = a.numpy(), a.grad.numpy().copy()
    getattr(optim, name)([a], lr=0.1, weight_decay=0.1, maximize=True).step()
    assert a.numpy() is data
    np.testing.assert_array_equal(a.grad.numpy(), grad)


@pytest.mark.parametrize("case", [c for c in CASES if c[2] is not None],
                         ids=lambda c: c[0])
def test_float32_stays_float32(case):
    """No float64 creep: parameters and state keep float32, even with NumPy float64 options."""
    name, kwargs, groups = case
    kwargs = {k: np.float64(v) if isinstance(v, float) else v for k, v in kwargs.items()}
    params = make_params(dtype=np.float32)
    optimizer = getattr(optim, name)(arrange(params, groups), **kwargs)
    x = ag.tensor(X0.astype(np.float32))
    for _ in range(5):
        optimizer.zero_grad()
        loss(*params, x).backward()
        for p in params:                  # even a float64 gradient must not promote
            p.grad.data = p.grad.numpy().astype(np.float64)
        optimizer.step()
    for p in params:
        assert p.numpy().dtype == np.float32
        assert np.isfinite(p.numpy()).all()
        for key, value in optimizer.state[p].items():
            if isinstance(value, np.ndarray):
                assert value.dtype == np.float32, key
            else:
                assert type(value) in (int, float), key


def test_float32_follows_float64_closely():
    p64, p32 = make_params(), make_params(dtype=np.float32)
    end64 = train(optim.Adam(p64, lr=0.01), p64, 20)[-1]
    x = ag.tensor(X0.astype(np.float32))
    opt32 = optim.Adam(p32, lr=0.01)
    for _ in range(20):
        opt32.zero_grad()
        loss(*p32, x).backward()
        opt32.step()
    for a, b in zip(p32, end64):
        np.testing.assert_allclose(a.numpy(), b, rtol=1e-4, atol=1e-5)


def test_scalar_parameter_with_momentum():
    """0-d parameters work (state arrays are 0-d too): b <- μ b + g, θ <- θ - ε b."""
    theta = leaf(1.0)
    optimizer = optim.SGD([theta], lr=0.1, momentum=0.5)
    b, expected = 0.0, 1.0
    for _ in range(4):
        optimizer.zero_grad()
        (theta * theta).backward()        # g = 2 θ
        b = 0.5 * b + 2 * expected
        expected -= 0.1 * b
        optimizer.step()
        assert theta.numpy().shape == () and theta.numpy() == pytest.approx(expected, rel=1e-15)


def test_param_groups_and_add_param_group():
    a, b, c = leaf([1.0]), leaf([1.0]), leaf([1.0])
    optimizer = optim.SGD([{"params": [a]}, {"params": b, "lr": 0.5}], lr=0.1, momentum=0.9)
    optimizer.add_param_group({"params": [c], "momentum": 0.0})
    groups = optimizer.param_groups
    assert [g["lr"] for g in groups] == [0.1, 0.5, 0.1]
    assert [g["momentum"] for g in groups] == [0.9, 0.9, 0.0]
    for p in (a, b, c):
        with_grad(p, [1.0])
    optimizer.step()
    assert (a.numpy()[0], b.numpy()[0], c.numpy()[0]) == pytest.approx((0.9, 0.5, 0.9))
    assert "momentum_buffer" not in optimizer.state[c]


def test_adagrad_honours_a_groups_initial_accumulator_value():
    a, b = with_grad(leaf([1.0]), [1.0]), with_grad(leaf([1.0]), [1.0])
    optimizer = optim.Adagrad([{"params": [a]},
                               {"params": [b], "initial_accumulator_value": 3.0}], lr=1.0)
    optimizer.step()
    np.testing.assert_allclose([a.numpy()[0], b.numpy()[0]], [0.0, 0.5], atol=1e-9)


def test_closure_runs_with_gradients_on_and_returns_the_loss():
    params = make_params()
    optimizer = optim.SGD(params, lr=0.1)
    seen = []

    def closure():
        seen.append(ag.is_grad_enabled())
        optimizer.zero_grad()
        value = loss(*params, ag.tensor(X0))
        value.backward()
        return value

    with ag.no_grad():
        returned = optimizer.step(closure)
    assert seen == [True]
    assert isinstance(returned, ag.Tensor)
    assert optimizer.step() is None


def test_repr_lists_groups():
    text = repr(optim.SGD([leaf([1.0])], lr=0.25, momentum=0.5))
    assert text.startswith("SGD (") and "Parameter Group 0" in text and "lr: 0.25" in text


BAD_OPTIONS = [
    (optim.SGD, {"lr": -0.1}, ValueError, r"SGD: lr must be >= 0, got -0.1; use e.g. the "
                                          r"default lr=0.001"),
    (optim.SGD, {"momentum": -0.9}, ValueError, "SGD: momentum must be >= 0"),
    (optim.SGD, {"momentum": 0.9, "dampening": 2.0}, ValueError,
     r"SGD: dampening must be in \[0, 1\]"),
    (optim.SGD, {"nesterov": True}, ValueError,
     "SGD: nesterov=True needs momentum > 0 and dampening = 0.*momentum=0.9"),
    (optim.SGD, {"momentum": 0.9, "dampening": 0.1, "nesterov": True}, ValueError,
     "nesterov=True needs momentum > 0 and dampening = 0"),
    (optim.SGD, {"lr": "0.1"}, TypeError, "SGD: lr must be a real number, got str"),
    (optim.SGD, {"weight_decay": -1e-4}, ValueError, "SGD: weight_decay must be >= 0"),
    (optim.Adagrad, {"lr_decay": -1.0}, ValueError, "Adagrad: lr_decay must be >= 0"),
    (optim.Adagrad, {"initial_accumulator_value": -1.0}, ValueError,
     "Adagrad: initial_accumulator_value must be >= 0"),
    (optim.Adagrad, {"eps": -1e-10}, ValueError, "Adagrad: eps must be >= 0"),
    (optim.RMSprop, {"alpha": 1.5}, ValueError, r"RMSprop: alpha must be in \[0, 1\], got 1.5; "
                                                r"use e.g. the default alpha=0.99"),
    (optim.RMSprop, {"momentum": -0.1}, ValueError, "RMSprop: momentum must be >= 0"),
    (optim.Adadelta, {"rho": 1.1}, ValueError, r"Adadelta: rho must be in \[0, 1\]"),
    (optim.Adam, {"betas": (1.0, 0.999)}, ValueError,
     r"Adam: betas\[0\] must be in \[0, 1\), got 1.0; use e.g. the default "
     r"betas=\(0.9, 0.999\)"),
    (optim.Adam, {"betas": (0.9, -0.1)}, ValueError, r"Adam: betas\[1\] must be in \[0, 1\)"),
    (optim.Adam, {"betas": (0.9,)}, ValueError, "Adam: betas must be a tuple of 2 numbers"),
    (optim.Adam, {"eps": -1.0}, ValueError, "Adam: eps must be >= 0"),
    (optim.AdamW, {"weight_decay": -0.01}, ValueError, r"AdamW: weight_decay must be >= 0.*"
                                                       r"weight_decay=0.01"),
    (optim.NAdam, {"momentum_decay": -1.0}, ValueError, "NAdam: momentum_decay must be >= 0"),
    (optim.NAdam, {"lr": -2e-3}, ValueError, "NAdam: lr must be >= 0.*lr=0.002"),
]


@pytest.mark.parametrize("cls, kwargs, error, message", BAD_OPTIONS,
                         ids=[f"{c.__name__}-{'-'.join(k)}" for c, k, _, _ in BAD_OPTIONS])
def test_bad_options_are_named(cls, kwargs, error, message):
    with pytest.raises(error, match=message):
        cls([leaf([1.0])], **kwargs)
    # the same checks apply to every parameter group
    with pytest.raises(error, match=message):
        cls([{"params": [leaf([1.0])]}, {"params": [leaf([1.0])], **kwargs}])


def test_bad_parameter_lists():
    a = leaf([1.0])
    with pytest.raises(ValueError, match="SGD got an empty parameter list"):
        optim.SGD([])
    with pytest.raises(TypeError, match=r"single Tensor; wrap it in a list"):
        optim.SGD(a)
    with pytest.raises(TypeError, match="ordered collection, but got a set"):
        optim.SGD({a})
    with pytest.raises(TypeError, match="can only optimize autograd Tensors.*ndarray"):
        optim.Adam([np.ones(2)])
    with pytest.raises(ValueError, match="non-leaf"):
        optim.Adam([a * 2])
    with pytest.raises(TypeError, match="floating-point tensors.*int64"):
        optim.Adam([ag.tensor(np.arange(3))])
    with pytest.raises(ValueError, match="the same tensor twice"):
        optim.Adam([a, a])
    with pytest.raises(ValueError, match="more than one parameter group"):
        optim.Adam([{"params": [a]}, {"params": [a]}])
    optimizer = optim.Adam([a])
    with pytest.raises(ValueError, match="more than one parameter group"):
        optimizer.add_param_group({"params": [a]})
    with pytest.raises(ValueError, match="no 'params' key"):
        optimizer.add_param_group({"lr": 0.1})
    with pytest.raises(TypeError, match="expected a dict"):
        optimizer.add_param_group([leaf([1.0])])


def test_backward_through_a_graph_from_before_the_step_raises():
    """The step changes parameters in place, so a stale graph must not use the new values."""
    p = leaf([1.0, 2.0])
    optimizer = optim.SGD([p], lr=0.1)
    (p * p).sum().backward()
    stale = (p * p).sum()
    optimizer.step()
    with pytest.raises(RuntimeError, match="modified in place"):
        stale.backward()
