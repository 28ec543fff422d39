"""``CustomFunction``: PyTorch's way of writing an operation (``torch.autograd.Function``).

PyTorch code defines custom operations with static methods on Tensors::

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

    y = Exp.apply(x)

dagrad's own operations (``Function``) compute on ndarrays; this class runs the PyTorch form on
top of one: each subclass gets a ``Function`` whose forward wraps the arrays as Tensors, calls
the user's ``forward`` without recording, and passes what ``save_for_backward`` received to
``ctx.save`` (the output as ``output=``), so saved tensors are checked for in-place changes and
freed like any operation's. ``backward`` gets Tensors; under ``create_graph=True`` it is
recorded, so a backward written with Tensor operations has higher derivatives too.
"""
from .function import Function
from .grad_mode import no_grad
from .tensor import make_tensor, raw_data, Tensor


class _Node(Function):
    """The dagrad operation behind one ``CustomFunction`` subclass (``user``)."""

    user = None

    @property
    def name(self):
        return self.user.__name__

    def save_for_backward(ctx, *tensors):
        ctx.to_save = tensors

    @property
    def saved_tensors(ctx):
        saved = [s if isinstance(s, Tensor) else make_tensor(s, None) for s in ctx.saved]
        return tuple(saved[k] for k in ctx.saved_order)

    def mark_non_differentiable(ctx, *tensors):
        """Accepted for PyTorch code; dagrad tells non-differentiable outputs by dtype."""

    def set_materialize_grads(ctx, value):
        """Accepted for PyTorch code: gradients are always materialised here."""

    def forward(ctx, *arrays):
        ctx.to_save = ()
        is_tensor = [hasattr(a, "dtype") and hasattr(a, "shape") for a in arrays]
        ctx.tensor_inputs = tuple(is_tensor)
        inputs = [make_tensor(a, None) if t else a for a, t in zip(arrays, is_tensor)]
        with no_grad():
            out = ctx.user.forward(ctx, *inputs)
        if not isinstance(out, Tensor):
            raise TypeError(f"{ctx.name}.forward must return one Tensor, got "
                            f"{type(out).__name__} (several outputs are not supported)")
        others = [t for t in ctx.to_save if t is not out]
        order, k = [], 0
        for t in ctx.to_save:
            order.append(len(others) if t is out else k)
            k += t is not out
        ctx.saved_order = order
        ctx.save(*[t._data for t in others],
                 output=out._data if any(t is out for t in ctx.to_save) else None)
        del ctx.to_save
        return out._data

    def backward(ctx, grad):
        if ctx.create_graph:
            grads = ctx.user.backward(ctx, grad)
        else:
            with no_grad():
                grads = ctx.user.backward(ctx, make_tensor(grad, None))
        grads = _checked_count(ctx, grads if isinstance(grads, tuple) else (grads,))
        if ctx.create_graph:
            return grads
        return tuple(raw_data(g) for g in grads)


def _checked_count(ctx, grads):
    """PyTorch's checks of what a user's backward returns: one gradient per forward input
    (extra trailing Nones are dropped), and None for every input that is not a Tensor."""
    tensors = ctx.tensor_inputs
    n = len(tensors)
    if len(grads) > n and all(g is None for g in grads[n:]):
        grads = grads[:n]
    if len(grads) != n:
        raise RuntimeError(
            f"function {ctx.name}Backward returned an incorrect number of gradients (expected "
            f"{n}, got {len(grads)}): backward returns one gradient per input of forward, in "
            f"order, None for inputs that need none")
    for k, (g, tensor) in enumerate(zip(grads, tensors)):
        if g is not None and not tensor:
            raise RuntimeError(
                f"function {ctx.name}Backward returned a gradient different than None at "
                f"position {k + 1}, but the corresponding forward input was not a Tensor; "
                f"return None there")
    return grads


class CustomFunction:
    """Base class for operations written as PyTorch's ``torch.autograd.Function``: static
    ``forward(ctx, *inputs)`` and ``backward(ctx, *grad_outputs)`` on Tensors, with
    ``ctx.save_for_backward`` / ``ctx.saved_tensors`` / ``ctx.needs_input_grad``; call it with
    ``apply``. One Tensor output per operation."""

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        cls._node = type(cls.__name__, (_Node,), {"user": cls})

    @classmethod
    def apply(cls, *inputs):
        return cls._node.apply(*inputs)
