"""Adagrad: per-coordinate learning rates shrinking with the accumulated squared gradient."""
import numpy as np

from .optimizer import NONNEGATIVE, Optimizer


class Adagrad(Optimizer):
    """Adagrad (Duchi et al., 2011).

    Course-notes form, with learning rate ε, small constant δ and g = ∇θ L(θ)::

        r <- r + g ⊙ g
        θ <- θ - ε / (δ + √r) ⊙ g

    What this class computes (PyTorch's form, identical numbers to ``torch.optim.Adagrad``),
    with t the step count, λ = weight_decay, δ = eps::

        g   <- g + λ θ                            (if weight_decay != 0)
        ε_t  = lr / (1 + (t - 1) · lr_decay)
        r   <- r + g ⊙ g                          (r starts at initial_accumulator_value)
        θ   <- θ - ε_t · g / (√r + δ)

    With lr_decay = 0 and initial_accumulator_value = 0 this is the course-notes rule exactly.
    One deliberate difference from ``torch.optim.Adagrad``: a parameter group's own
    ``initial_accumulator_value`` is honoured (PyTorch always uses the constructor's value).

    Args:
        params: iterable of Tensors (any shape, floating dtype) or of parameter-group dicts.
        lr: learning rate ε (>= 0).
        lr_decay: learning-rate decay per step (>= 0).
        weight_decay: L2 penalty λ (>= 0).
        initial_accumulator_value: starting value of r (>= 0).
        eps: δ (>= 0), added to √r for numerical stability.
        maximize: ascend the objective instead of descending it.

    State per parameter: ``"step"`` (int) and ``"sum"`` (r, the parameter's shape and dtype).
    """

    _ranges = {"lr": NONNEGATIVE, "lr_decay": NONNEGATIVE, "weight_decay": NONNEGATIVE,
               "initial_accumulator_value": NONNEGATIVE, "eps": NONNEGATIVE}

    def __init__(self, params, lr=1e-2, lr_decay=0, weight_decay=0,
                 initial_accumulator_value=0, eps=1e-10, *, maximize=False):
        super().__init__(params, dict(lr=lr, lr_decay=lr_decay, eps=eps,
                                      weight_decay=weight_decay,
                                      initial_accumulator_value=initial_accumulator_value,
                                      maximize=maximize))

    def _init_state(self, x, options):
        return {"step": 0, "sum": np.full_like(x, options["initial_accumulator_value"])}

    def _update(self, x, g, state, options):
        state["step"] += 1
        clr = options["lr"] / (1 + (state["step"] - 1) * options["lr_decay"])
        r = state["sum"]
        r += g * g
        x += -clr * g / (np.sqrt(r) + options["eps"])
