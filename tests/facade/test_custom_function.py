"""torch.autograd.Function written as in PyTorch: same values and gradients as torch, second
derivatives through a Tensor-written backward, saved tensors checked for in-place changes."""
import numpy as np
import pytest

from dagrad import torch as dtorch
from tests.facade.programs import compare

PROGRAM = """
import torch

class Exp(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        y = x.exp()
        ctx.save_for_backward(y)
        return y

    @staticmethod
    def backward(ctx, grad_output):
        y, = ctx.saved_tensors
        return grad_output * y

class ScaledMul(torch.autograd.Function):
    @staticmethod
    def forward(ctx, a, b, scale):
        ctx.scale = scale
        ctx.save_for_backward(a, b)
        return a * b * scale

    @staticmethod
    def backward(ctx, grad):
        a, b = ctx.saved_tensors
        grad_a = grad * b * ctx.scale if ctx.needs_input_grad[0] else None
        grad_b = grad * a * ctx.scale if ctx.needs_input_grad[1] else None
        return grad_a, grad_b, None

x = torch.tensor(values[:3], requires_grad=True)
w = torch.tensor(values[3:], requires_grad=True)
z = ScaledMul.apply(Exp.apply(x), w, 0.5).sum()
gx, = torch.autograd.grad(z, x, create_graph=True)
gx.sum().backward()
result = {"z": z, "gx": gx, "x_grad": x.grad, "w_grad": w.grad}
"""


def test_custom_functions_match_pytorch_with_second_derivatives():
    compare(PROGRAM, values=np.array([0.1, -0.5, 0.7, 1.5, -2.0, 0.3]))


def test_a_saved_tensor_changed_in_place_is_detected():
    class Square(dtorch.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x * x

        @staticmethod
        def backward(ctx, grad):
            x, = ctx.saved_tensors
            return 2 * x * grad

    leaf = dtorch.ones(3, requires_grad=True)
    x = leaf * 1
    y = Square.apply(x).sum()
    with dtorch.no_grad():
        x.add_(1)
    with pytest.raises(RuntimeError, match="in-place|modified|changed"):
        y.backward()


def test_forward_must_return_one_tensor():
    class Pair(dtorch.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x, x

    with pytest.raises(TypeError, match="Pair.forward must return one Tensor"):
        Pair.apply(dtorch.ones(2, requires_grad=True))
