"""RMSprop: divide the gradient by a running root-mean-square of recent gradients."""
import numpy as np

from .optimizer import NONNEGATIVE, UNIT, Optimizer


class RMSprop(Optimizer):
    """RMSprop (Hinton's lecture notes, 2012), optionally centered and with momentum.

    Course-notes form, with learning rate ε, decay rate ρ, small constant δ, g = ∇θ L(θ)::

        r <- ρ r + (1 - ρ) g ⊙ g
        θ <- θ - ε / √(δ + r) ⊙ g

    What this class computes (PyTorch's form, identical numbers to ``torch.optim.RMSprop``),
    with ρ = alpha, δ = eps, μ = momentum, λ = weight_decay::

        g  <- g + λ θ                           (if weight_decay != 0)
        r  <- ρ r + (1 - ρ) g ⊙ g
        ḡ  <- ρ ḡ + (1 - ρ) g                   (centered only)
        d   = √(r - ḡ ⊙ ḡ) + δ   if centered  else  √r + δ
        b  <- μ b + g / d,  θ <- θ - ε b        (momentum > 0)
        θ  <- θ - ε g / d                       (momentum = 0)

    Relation: PyTorch adds δ after the square root instead of inside it; for the tiny δ used
    in practice the two differ only where r is near zero.  ``centered`` divides by an
    estimate of the gradient's variance instead of its raw second moment.  With momentum,
    ``v = -ε b`` gives the course-notes momentum form ``v <- μ v - ε g / d, θ <- θ + v``.

    Args:
        params: iterable of Tensors (any shape, floating dtype) or of parameter-group dicts.
        lr: learning rate ε (>= 0).
        alpha: decay rate ρ in [0, 1].
        eps: δ (>= 0).
        weight_decay: L2 penalty λ (>= 0).
        momentum: momentum factor μ (>= 0).
        centered: normalise by the estimated variance of the gradient.
        maximize: ascend the objective instead of descending it.

    State per parameter: ``"step"`` (int), ``"square_avg"`` (r), plus ``"momentum_buffer"``
    (b) when momentum > 0 and ``"grad_avg"`` (ḡ) when centered; arrays have the parameter's
    shape and dtype.
    """

    _ranges = {"lr": NONNEGATIVE, "alpha": UNIT, "eps": NONNEGATIVE,
               "weight_decay": NONNEGATIVE, "momentum": NONNEGATIVE}

    def __init__(self, params, lr=1e-2, alpha=0.99, eps=1e-8, weight_decay=0, momentum=0,
                 centered=False, *, maximize=False):
        super().__init__(params, dict(lr=lr, momentum=momentum, alpha=alpha, eps=eps,
                                      centered=centered, weight_decay=weight_decay,
                                      maximize=maximize))

    def _init_state(self, x, options):
        state = {"step": 0, "square_avg": np.zeros_like(x)}
        if options["momentum"] > 0:
            state["momentum_buffer"] = np.zeros_like(x)
        if options["centered"]:
            state["grad_avg"] = np.zeros_like(x)
        return state

    def _update(self, x, g, state, options):
        state["step"] += 1
        alpha, lr = options["alpha"], options["lr"]
        r = state["square_avg"]
        r *= alpha
        r += (1 - alpha) * g * g
        if options["centered"]:
            mean = state["grad_avg"]
            mean += (1 - alpha) * (g - mean)
            d = np.sqrt(r - mean * mean)
        else:
            d = np.sqrt(r)
        d += options["eps"]
        if options["momentum"] > 0:
            buf = state["momentum_buffer"]
            buf *= options["momentum"]
            buf += g / d
            x += -lr * buf
        else:
            x += -lr * g / d
