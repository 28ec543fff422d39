"""nn.init (PyTorch's initialisers and defaults) and nn.utils (clipping, vector conversion)."""
import math

import numpy as np
import pytest

from dagrad import autograd as ag
from dagrad import nn
from dagrad.nn import init
from dagrad.nn.utils import (clip_grad_norm_, clip_grad_value_, parameters_to_vector,
                      vector_to_parameters)
from tests.helpers import torch_or_skip


def test_gains_match_pytorch():
    torch = torch_or_skip()
    for name, param in [("linear", None), ("sigmoid", None), ("tanh", None), ("relu", None),
                        ("leaky_relu", None), ("leaky_relu", 0.2), ("selu", None),
                        ("conv2d", None)]:
        assert math.isclose(init.calculate_gain(name, param),
                            torch.nn.init.calculate_gain(name, param))
    with pytest.raises(ValueError, match="unsupported"):
        init.calculate_gain("swish")


def test_fans_and_bounds():
    w = ag.zeros(64, 32, 3, 3)
    assert init.calculate_fan_in_and_fan_out(w) == (32 * 9, 64 * 9)
    ag.manual_seed(0)
    init.kaiming_uniform_(w, nonlinearity="relu")
    bound = math.sqrt(2) * math.sqrt(3 / (32 * 9))
    assert np.abs(w.numpy()).max() <= bound and np.abs(w.numpy()).max() > 0.95 * bound
    init.kaiming_normal_(w, mode="fan_out", nonlinearity="relu")
    assert abs(w.numpy().std() - math.sqrt(2 / (64 * 9))) < 0.01
    v = ag.zeros(200, 300)
    init.xavier_uniform_(v)
    assert np.abs(v.numpy()).max() <= math.sqrt(6 / 500)
    init.xavier_normal_(v, gain=2.0)
    assert abs(v.numpy().std() - 2 * math.sqrt(2 / 500)) < 0.005
    init.trunc_normal_(v, std=1.0, a=-1.0, b=1.0)
    assert np.abs(v.numpy()).max() <= 1.0
    with pytest.raises(ValueError, match="at least 2 dimensions"):
        init.xavier_uniform_(ag.zeros(3))


def test_orthogonal_constant_eye():
    w = ag.zeros(4, 6)
    init.orthogonal_(w, gain=2.0)
    np.testing.assert_allclose(w.numpy() @ w.numpy().T, 4 * np.eye(4), atol=1e-5)
    init.constant_(w, 0.5)
    assert np.all(w.numpy() == 0.5)
    init.eye_(w)
    np.testing.assert_array_equal(w.numpy(), np.eye(4, 6))
    assert w.dtype == np.float32


def test_initialisers_work_on_parameters_without_recording():
    layer = nn.Linear(3, 2)
    init.normal_(layer.weight)
    assert layer.weight.is_leaf and layer.weight.requires_grad


def test_layer_defaults_follow_pytorch():
    ag.manual_seed(1)
    emb = nn.Embedding(1000, 20)
    assert abs(emb.weight.numpy().std() - 1) < 0.02            # N(0, 1)
    assert np.all(nn.LayerNorm(3).weight.numpy() == 1) and np.all(nn.BatchNorm1d(3).bias.numpy() == 0)
    assert np.all(nn.PReLU().weight.numpy() == 0.25)


def _grads(values):
    params = [ag.zeros(*np.shape(v), requires_grad=True) for v in values]
    for p, v in zip(params, values):
        p.grad = ag.tensor(np.array(v, dtype=np.float32))
    return params


def test_clip_grad_norm_matches_pytorch():
    torch = torch_or_skip()
    values = [np.array([[3.0, -4.0]]), np.array([12.0])]
    for norm_type, max_norm in [(2.0, 5.0), (1.0, 2.0), (math.inf, 3.0), (2.0, 100.0)]:
        ours = _grads(values)
        total = clip_grad_norm_(ours, max_norm, norm_type)
        theirs = [torch.zeros(np.shape(v), requires_grad=True) for v in values]
        for t, v in zip(theirs, values):
            t.grad = torch.tensor(v, dtype=torch.float32)
        expected = torch.nn.utils.clip_grad_norm_(theirs, max_norm, norm_type)
        assert math.isclose(total.item(), expected.item(), rel_tol=1e-6)
        for p, t in zip(ours, theirs):
            np.testing.assert_allclose(p.grad.numpy(), t.grad.numpy(), rtol=1e-6)
            assert p.grad.dtype == np.float32
    bad = _grads([np.array([np.inf])])
    with pytest.raises(RuntimeError, match="non"):
        clip_grad_norm_(bad, 1.0, error_if_nonfinite=True)


def test_clip_grad_value():
    params = _grads([np.array([-3.0, 0.5, 2.0])])
    clip_grad_value_(params, 1.0)
    np.testing.assert_array_equal(params[0].grad.numpy(), [-1.0, 0.5, 1.0])


def test_parameters_vector_round_trip():
    model = nn.Sequential(nn.Linear(3, 2), nn.Linear(2, 1))
    vec = parameters_to_vector(model.parameters())
    assert vec.shape == (3 * 2 + 2 + 2 + 1,)
    vector_to_parameters(vec * 0 + 1, model.parameters())
    assert all(np.all(p.numpy() == 1) for p in model.parameters())
    vec.sum().backward()                         # differentiable
    assert np.all(model[0].weight.grad.numpy() == 1)
    with pytest.raises(ValueError, match="parameters have 11"):
        vector_to_parameters(ag.zeros(4), model.parameters())
