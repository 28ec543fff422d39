"""A gradient of the wrong shape or dtype is refused where it is assigned (as PyTorch), and an
optimizer never broadcasts a wrong-shaped gradient over its parameter."""
import numpy as np
import pytest

from dagrad import autograd as ag
from dagrad import optim
from tests.helpers import torch_or_skip


def test_assigning_a_gradient_of_another_shape_or_dtype_raises_as_in_torch():
    torch = torch_or_skip()
    for lib in (torch, ag):
        p = lib.zeros(2, 3, requires_grad=True)
        with pytest.raises(RuntimeError, match=r"attempting to assign a gradient of size '\[3\]' to a tensor of size '\[2, 3\]'"):
            p.grad = lib.ones(3)                   # broadcastable, but not the tensor's shape
        with pytest.raises(RuntimeError, match="attempting to assign a gradient with dtype"):
            p.grad = lib.ones(2, 3, dtype=lib.float64)
        assert p.grad is None
        p.grad = lib.ones(2, 3)
        assert p.grad.sum().item() == 6.0
        p.grad = None
        assert p.grad is None
    with pytest.raises(TypeError, match="Tensor or None"):
        ag.zeros(2, requires_grad=True).grad = np.ones(2)


@pytest.mark.parametrize("make", [lambda ps: optim.SGD(ps, lr=1.0),
                                  lambda ps: optim.Adam(ps, lr=1.0)])
def test_step_never_broadcasts_a_wrong_shaped_gradient(make):
    w = ag.zeros(2, 3, requires_grad=True)
    opt = make([w])
    w.grad = ag.ones(2, 3)
    w.grad.data = ag.ones(3)                      # .data replaces the values behind the check
    with pytest.raises(RuntimeError, match=r"step: the gradient of a parameter of shape "
                                           r"\(2, 3\) has shape \(3,\)"):
        opt.step()
    assert not w.numpy().any()


def test_backward_still_fills_and_accumulates_gradients():
    w = ag.ones(3, requires_grad=True)
    (w * 2).sum().backward()
    (w * 3).sum().backward()
    assert w.grad.numpy().tolist() == [5.0, 5.0, 5.0] and w.grad.dtype == np.float32
