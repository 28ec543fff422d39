"""The recurrent product of one time step as its own operation, for the steps drawn one by one
(``run_steps``): a = a_x + h Wᵀ for all gates of the step at once."""
from ...blas import product
from ...dtypes import floating
from ...function import Function
from ...lazy_grads import ProductGrad


class RecurrentGates(Function):
    """a = a_x + h Wᵀ: the gate pre-activations of a step from its input part a_x (…, G·H) (or
    a bias (G·H,), or None) and the previous state h (…, H); W (G·H, H) holds the recurrent
    weights of all gates, so this is the one product of the step.

    ``weight_t``: Wᵀ as a C-contiguous array, made once per sequence (BLAS multiplies by it
    faster than by the transposed view of W); it must hold W's current values. On the fast path
    dL/dW is returned as its factors (a ``ProductGrad``), so the engine sums the steps' weight
    gradients with one large product.

        dL/da_x = ḡ (summed to a_x's shape),   dL/dh = ḡ W,   dL/dW = ḡᵀ h
    """

    dtype_rule = floating

    def forward(ctx, x, h, weight, weight_t=None):
        out = product(h, weight.T if weight_t is None else weight_t)
        if x is not None:
            out += x
        ctx.save(h, weight)
        return out

    def backward(ctx, grad):
        h, weight = ctx.saved
        _, need_h, need_w = ctx.needs_input_grad
        dh = product(grad, weight) if need_h else None
        dw = None
        if need_w:
            g2, h2 = grad.reshape((-1, grad.shape[-1])), h.reshape((-1, h.shape[-1]))
            # fast path: the factors, so the steps' dW add up as one product (see ProductGrad)
            dw = product(g2.mT, h2) if ctx.create_graph else ProductGrad(g2, h2)
        return grad, dh, dw


def recurrent_gates(x, h, weight, weight_t=None):
    """a = a_x + h Wᵀ (a_x may be None): see ``RecurrentGates``."""
    return RecurrentGates.apply(x, h, weight, weight_t=weight_t)
