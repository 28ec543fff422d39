"""Cases that used to give a silent wrong answer now raise PyTorch's error (or give its
answer): gradients of the wrong shape or dtype, half-applied state dicts."""
import numpy as np
import pytest

from dagrad import autograd as ag
from dagrad import nn, optim
from tests.helpers import torch_or_skip


def test_assigning_a_wrong_gradient_raises_as_in_pytorch():
    torch = torch_or_skip()
    p, tp = ag.zeros(3, requires_grad=True), torch.zeros(3, requires_grad=True)
    for ours, theirs in ((ag.ones(1), torch.ones(1)),
                         (ag.ones(3, dtype=ag.float64), torch.ones(3, dtype=torch.float64))):
        with pytest.raises(RuntimeError, match="attempting to assign a gradient"):
            p.grad = ours
        with pytest.raises(RuntimeError, match="attempting to assign a gradient"):
            tp.grad = theirs
    p.grad = ag.ones(3)                         # the right shape and dtype is accepted
    assert p.grad.numpy().tolist() == [1, 1, 1]
    with pytest.raises(TypeError, match="Tensor or None"):
        p.grad = np.ones(3)


def test_an_optimizer_never_sees_a_broadcast_gradient():
    w = ag.zeros(2, 3, requires_grad=True)
    opt = optim.SGD([w], lr=1.0)
    with pytest.raises(RuntimeError, match="same size"):
        w.grad = ag.ones(3)                    # used to be broadcast over the rows in step()
    assert w.grad is None
    opt.step()
    assert not w.numpy().any()


def test_load_state_dict_is_all_or_nothing():
    model = nn.Sequential(nn.Linear(2, 2), nn.Linear(2, 1))
    before = {k: v.numpy().copy() for k, v in model.state_dict().items()}
    bad = {k: np.ones(v.shape, dtype=np.float32) for k, v in before.items()}
    bad["1.bias"] = np.array(["x"])            # right shape, not numbers: named, nothing written
    with pytest.raises(TypeError, match="'1.bias'"):
        model.load_state_dict(bad)
    bad["1.bias"] = np.ones(1, dtype=np.complex64)
    with pytest.raises(TypeError, match="'1.bias'"):
        model.load_state_dict(bad)
    for key, value in model.state_dict().items():
        np.testing.assert_array_equal(value.numpy(), before[key])
