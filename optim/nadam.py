"""NAdam: Adam with Nesterov momentum."""
import numpy as np

from .optimizer import NONNEGATIVE, UNIT_OPEN, Optimizer


class NAdam(Optimizer):
    """NAdam (Dozat, 2016): Adam whose first-moment term looks one step ahead.

    Course-notes view: Nesterov momentum evaluates the momentum step before the gradient
    step (θ̃ = θ + γ v).  NAdam applies the same idea to Adam: in the update it replaces
    the bias-corrected ŝ_t by a mix of the current gradient and the *next* momentum value,
    with a momentum coefficient μ_t that warms up over time.

    What this class computes (PyTorch's form, identical numbers to ``torch.optim.NAdam``),
    with (β1, β2) = betas, ψ = momentum_decay, δ = eps, λ = weight_decay, step count t::

        g   <- g + λ θ                          (or θ <- θ (1 - ε λ) if decoupled_weight_decay)
        μ_t  = β1 (1 - ½ · 0.96^(t ψ)),   μ_{t+1} = β1 (1 - ½ · 0.96^((t+1) ψ))
        Π_t  = μ_1 μ_2 ... μ_t                  (state "mu_product")
        m   <- β1 m + (1 - β1) g
        v   <- β2 v + (1 - β2) g ⊙ g
        d    = √(v / (1 - β2^t)) + δ
        θ   <- θ - ε (1 - μ_t) / (1 - Π_t) · g / d - ε μ_{t+1} / (1 - Π_t μ_{t+1}) · m / d

    Args:
        params: iterable of Tensors (any shape, floating dtype) or of parameter-group dicts.
        lr: learning rate ε (>= 0).
        betas: (β1, β2), each in [0, 1).
        eps: δ (>= 0).
        weight_decay: λ (>= 0).
        momentum_decay: ψ (>= 0).
        decoupled_weight_decay: shrink θ directly instead of adding λ θ to g (as AdamW).
        maximize: ascend the objective instead of descending it.

    State per parameter: ``"step"`` (int), ``"mu_product"`` (float), ``"exp_avg"`` (m) and
    ``"exp_avg_sq"`` (v), arrays of the parameter's shape and dtype.
    """

    _ranges = {"lr": NONNEGATIVE, "betas": (UNIT_OPEN, UNIT_OPEN), "eps": NONNEGATIVE,
               "weight_decay": NONNEGATIVE, "momentum_decay": NONNEGATIVE}

    def __init__(self, params, lr=2e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0,
                 momentum_decay=4e-3, decoupled_weight_decay=False, *, maximize=False):
        super().__init__(params, dict(lr=lr, betas=tuple(betas), eps=eps,
                                      weight_decay=weight_decay, momentum_decay=momentum_decay,
                                      decoupled_weight_decay=decoupled_weight_decay,
                                      maximize=maximize))

    def _init_state(self, x, options):
        return {"step": 0, "mu_product": 1.0, "exp_avg": np.zeros_like(x),
                "exp_avg_sq": np.zeros_like(x)}

    def _update(self, x, g, state, options):
        state["step"] += 1
        t = state["step"]
        lr, psi = options["lr"], options["momentum_decay"]
        beta1, beta2 = options["betas"]
        mu = beta1 * (1.0 - 0.5 * 0.96 ** (t * psi))
        mu_next = beta1 * (1.0 - 0.5 * 0.96 ** ((t + 1) * psi))
        state["mu_product"] *= mu
        mu_product = state["mu_product"]
        m, v = state["exp_avg"], state["exp_avg_sq"]
        m += (1 - beta1) * (g - m)
        v *= beta2
        v += (1 - beta2) * g * g
        denom = np.sqrt(v / (1 - beta2 ** t))
        denom += options["eps"]
        x += -lr * (1.0 - mu) / (1.0 - mu_product) * g / denom
        x += -lr * mu_next / (1.0 - mu_product * mu_next) * m / denom
