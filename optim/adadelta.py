"""Adadelta: step sizes from running averages of squared gradients and squared updates."""
import numpy as np

from .optimizer import NONNEGATIVE, UNIT, Optimizer


class Adadelta(Optimizer):
    """Adadelta (Zeiler, 2012).

    Course-notes form, with decay rate ρ, small constant δ and g = ∇θ L(θ)::

        r  <- ρ r + (1 - ρ) g ⊙ g
        Δθ  = -√(s + δ) / √(r + δ) ⊙ g
        s  <- ρ s + (1 - ρ) Δθ ⊙ Δθ
        θ  <- θ + Δθ

    What this class computes (PyTorch's form, identical numbers to ``torch.optim.Adadelta``):
    the same, with an extra learning-rate factor ``θ <- θ + lr · Δθ`` (``lr=1.0`` by default,
    which is the course-notes rule exactly) and ``g <- g + λ θ`` for weight_decay λ.

    Args:
        params: iterable of Tensors (any shape, floating dtype) or of parameter-group dicts.
        lr: factor applied to the update (>= 0).
        rho: decay rate ρ in [0, 1].
        eps: δ (>= 0).
        weight_decay: L2 penalty λ (>= 0).
        maximize: ascend the objective instead of descending it.

    State per parameter: ``"step"`` (int), ``"square_avg"`` (r) and ``"acc_delta"`` (s),
    arrays of the parameter's shape and dtype.
    """

    _ranges = {"lr": NONNEGATIVE, "rho": UNIT, "eps": NONNEGATIVE, "weight_decay": NONNEGATIVE}

    def __init__(self, params, lr=1.0, rho=0.9, eps=1e-6, weight_decay=0, *, maximize=False):
        super().__init__(params, dict(lr=lr, rho=rho, eps=eps, weight_decay=weight_decay,
                                      maximize=maximize))

    def _init_state(self, x, options):
        return {"step": 0, "square_avg": np.zeros_like(x), "acc_delta": np.zeros_like(x)}

    def _update(self, x, g, state, options):
        state["step"] += 1
        rho, eps = options["rho"], options["eps"]
        r, s = state["square_avg"], state["acc_delta"]
        r *= rho
        r += (1 - rho) * g * g
        delta = np.sqrt(s + eps) / np.sqrt(r + eps) * g
        s *= rho
        s += (1 - rho) * delta * delta
        x += -options["lr"] * delta
