"""Numerical gradient checking: compare backward's gradients with finite differences."""
import numpy as np

from .engine import grad as autograd_grad
from .tensor import Tensor


class GradcheckError(AssertionError):
    """Raised by ``gradcheck`` when analytic and numerical gradients disagree."""


def _outputs(fn, inputs):
    out = fn(*inputs)
    return list(out) if isinstance(out, (tuple, list)) else [out]


def gradcheck(fn, inputs, eps=1e-6, atol=1e-5, rtol=1e-3, seed=0):
    """Check ``fn``'s gradients against central differences; True, or raise GradcheckError.

    The outputs are reduced to a scalar L = Σₖ ⟨wₖ, outₖ⟩ with fixed random weights wₖ; for every
    element xᵢ of every input that requires grad, the analytic dL/dxᵢ (from backward) is compared
    with the numerical (L(xᵢ+ε) - L(xᵢ-ε)) / 2ε. The error names the worst element and its
    position. Use float64 inputs: float32 has too few digits for differences of size 1e-6.
    """
    inputs = tuple(inputs) if isinstance(inputs, (tuple, list)) else (inputs,)
    wrt = _differentiated(inputs)
    outs = _outputs(fn, inputs)
    rng = np.random.default_rng(seed)
    weights = [rng.standard_normal(o.shape) if o.requires_grad else None for o in outs]
    used = [(o, w) for o, w in zip(outs, weights) if w is not None]
    if not used:
        raise GradcheckError("gradcheck: no output requires grad")
    analytic = autograd_grad([o for o, _ in used], wrt, grad_outputs=[w for _, w in used],
                             allow_unused=True)

    def scalar_loss():
        outs = _outputs(fn, inputs)   # grad mode stays on: fn may itself call ag.grad
        return sum(float(np.sum(o._data * w)) for o, w in zip(outs, weights) if w is not None)

    err, k, pos, got, numeric = max(_errors(scalar_loss, wrt, analytic, eps, atol, rtol),
                                    key=lambda e: e[0])
    if err > 0:
        raise GradcheckError(
            f"gradcheck failed for input {k} (shape {wrt[k].shape}) at index {tuple(pos)}: "
            f"analytic {got:.8g} vs numerical {numeric:.8g} (atol={atol}, rtol={rtol})")
    return True


def _differentiated(inputs):
    """The inputs that require grad, which must be float64."""
    wrt = [x for x in inputs if isinstance(x, Tensor) and x.requires_grad]
    if not wrt:
        raise ValueError("gradcheck: no input requires grad")
    for x in wrt:
        if x.dtype != np.float64:
            raise TypeError(f"gradcheck: inputs should be float64 for accurate finite "
                            f"differences, got {x.dtype}; use .double()")
    return wrt


def _errors(scalar_loss, wrt, analytic, eps, atol, rtol):
    """For every element of every input: (error beyond tolerance, input index, position,
    analytic value, numerical value)."""
    for k, x in enumerate(wrt):
        a = np.zeros(x.shape) if analytic[k] is None else analytic[k]._data
        if a.shape != x.shape:
            raise GradcheckError(f"gradcheck: the gradient of input {k} has shape "
                                 f"{tuple(a.shape)}, "
                                 f"but the input has shape {tuple(x.shape)}")
        flat = x._data.reshape(-1)   # a view: perturb in place
        for i in range(flat.size):
            orig = flat[i]
            flat[i] = orig + eps
            plus = scalar_loss()
            flat[i] = orig - eps
            minus = scalar_loss()
            flat[i] = orig
            numeric = (plus - minus) / (2 * eps)
            got = a.reshape(-1)[i]
            err = abs(got - numeric) - (atol + rtol * abs(numeric))
            yield err, k, tuple(int(j) for j in np.unravel_index(i, x.shape)), got, numeric
