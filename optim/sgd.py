"""Stochastic gradient descent with optional (Nesterov) momentum."""
from dagrad.autograd.blas import axpy

from .optimizer import NONNEGATIVE, UNIT, Optimizer


class SGD(Optimizer):
    """Stochastic gradient descent, optionally with momentum or Nesterov momentum.

    Course-notes form, with learning rate ε, momentum γ and g = ∇θ L(θ)::

        plain       θ <- θ - ε g
        momentum    v <- γ v - ε g,               θ <- θ + v
        Nesterov    θ̃ = θ + γ v,  g = ∇L(θ̃),  v <- γ v - ε g,  θ <- θ + v

    What this class computes (PyTorch's form, identical numbers to ``torch.optim.SGD``),
    with μ = momentum, τ = dampening, λ = weight_decay::

        g <- g + λ θ                                (if weight_decay != 0)
        b <- g                                      (first step)
        b <- μ b + (1 - τ) g                        (later steps)
        g <- g + μ b   if nesterov   else   g <- b
        θ <- θ - ε g

    The last line is one BLAS ``axpy`` for a parameter of 32 K values or more
    (``autograd.blas.axpy``): one pass over memory instead of NumPy's two, rounded once as
    PyTorch's ``add_(g, alpha=-ε)`` is.

    How the two relate: PyTorch's buffer ``b`` accumulates gradients, not steps.  With τ = 0
    and a constant ε, ``v = -ε b`` turns ``b <- μ b + g, θ <- θ - ε b`` into exactly
    ``v <- γ v - ε g, θ <- θ + v`` (γ = μ).  They differ only when ε changes during training:
    a new learning rate rescales PyTorch's whole accumulated velocity at once.  For Nesterov,
    PyTorch tracks the look-ahead point φ = θ + γ v instead of θ; substituting gives
    ``b <- μ b + g(φ), φ <- φ - ε (g(φ) + μ b)``, so no gradient at a shifted point is needed.

    Args:
        params: iterable of Tensors (any shape, floating dtype) or of parameter-group dicts.
        lr: learning rate ε (>= 0).
        momentum: momentum factor μ (>= 0; 0 turns momentum off).
        dampening: τ in [0, 1], scales the gradient entering the buffer after the first step.
        weight_decay: L2 penalty λ (>= 0), added to the gradient.
        nesterov: use Nesterov momentum (needs momentum > 0 and dampening = 0).
        maximize: ascend the objective instead of descending it.

    State per parameter: ``"momentum_buffer"`` (array of the parameter's shape and dtype),
    only when momentum is used.
    """

    _ranges = {"lr": NONNEGATIVE, "momentum": NONNEGATIVE, "dampening": UNIT,
               "weight_decay": NONNEGATIVE}

    def __init__(self, params, lr=1e-3, momentum=0, dampening=0, weight_decay=0,
                 nesterov=False, *, maximize=False):
        super().__init__(params, dict(lr=lr, momentum=momentum, dampening=dampening,
                                      weight_decay=weight_decay, nesterov=nesterov,
                                      maximize=maximize))

    def _check_group(self, group):
        super()._check_group(group)
        if group["nesterov"] and (group["momentum"] <= 0 or group["dampening"] != 0):
            raise ValueError(
                f"SGD: nesterov=True needs momentum > 0 and dampening = 0, got "
                f"momentum={group['momentum']!r}, dampening={group['dampening']!r}; "
                f"pass e.g. momentum=0.9, dampening=0, or set nesterov=False")

    def _update(self, x, g, state, options):
        momentum = options["momentum"]
        if momentum != 0:
            buf = state.get("momentum_buffer")
            if buf is None:
                buf = state["momentum_buffer"] = g.copy()
            else:
                buf *= momentum
                axpy(1 - options["dampening"], g, buf)
            g = g + momentum * buf if options["nesterov"] else buf
        axpy(-options["lr"], g, x)          # x += -ε g in one pass (blas.axpy)
