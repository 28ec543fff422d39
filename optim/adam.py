"""Adam and AdamW: bias-corrected running averages of the gradient and its square."""
import numpy as np

from .optimizer import NONNEGATIVE, UNIT_OPEN, Optimizer


class Adam(Optimizer):
    """Adam (Kingma & Ba, 2015), optionally AMSGrad.

    Course-notes form, with learning rate ε, decay rates ρ1, ρ2, small constant δ,
    g = ∇θ L(θ) and step count t::

        t <- t + 1
        s <- ρ1 s + (1 - ρ1) g                  first moment
        r <- ρ2 r + (1 - ρ2) g ⊙ g              second moment
        ŝ = s / (1 - ρ1^t),   r̂ = r / (1 - ρ2^t)   bias correction
        θ <- θ - ε ŝ / (√r̂ + δ)

    What this class computes (PyTorch's form, identical numbers to ``torch.optim.Adam``),
    with (β1, β2) = betas, m = s, v = r, δ = eps, λ = weight_decay::

        g <- g + λ θ                            (weight_decay != 0, coupled L2 penalty)
        θ <- θ (1 - ε λ)                        (instead, if decoupled_weight_decay: AdamW)
        m <- m + (1 - β1) (g - m)               (= β1 m + (1 - β1) g)
        v <- β2 v + (1 - β2) g ⊙ g
        v_max <- max(v_max, v)                  (amsgrad; v_max replaces v below)
        θ <- θ - (ε / (1 - β1^t)) · m / (√v / √(1 - β2^t) + δ)

    This is the course-notes rule rearranged: ε ŝ = (ε / (1 - β1^t)) m and
    √r̂ = √v / √(1 - β2^t), with δ in the same place.

    Args:
        params: iterable of Tensors (any shape, floating dtype) or of parameter-group dicts.
        lr: learning rate ε (>= 0).
        betas: (β1, β2), each in [0, 1).
        eps: δ (>= 0).
        weight_decay: λ (>= 0).
        amsgrad: use the running maximum of v (AMSGrad, Reddi et al. 2018).
        maximize: ascend the objective instead of descending it.
        decoupled_weight_decay: apply weight decay to θ directly instead of to g (AdamW).

    State per parameter: ``"step"`` (int), ``"exp_avg"`` (m), ``"exp_avg_sq"`` (v) and, with
    amsgrad, ``"max_exp_avg_sq"``; arrays of the parameter's shape and dtype.
    """

    _ranges = {"lr": NONNEGATIVE, "betas": (UNIT_OPEN, UNIT_OPEN), "eps": NONNEGATIVE,
               "weight_decay": NONNEGATIVE}

    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0,
                 amsgrad=False, *, maximize=False, decoupled_weight_decay=False):
        super().__init__(params, dict(lr=lr, betas=tuple(betas), eps=eps,
                                      weight_decay=weight_decay, amsgrad=amsgrad,
                                      maximize=maximize,
                                      decoupled_weight_decay=decoupled_weight_decay))

    def _init_state(self, x, options):
        state = {"step": 0, "exp_avg": np.zeros_like(x), "exp_avg_sq": np.zeros_like(x)}
        if options["amsgrad"]:
            state["max_exp_avg_sq"] = np.zeros_like(x)
        return state

    def _update(self, x, g, state, options):
        state["step"] += 1
        t = state["step"]
        beta1, beta2 = options["betas"]
        m, v = state["exp_avg"], state["exp_avg_sq"]
        m += (1 - beta1) * (g - m)
        v *= beta2
        v += (1 - beta2) * g * g
        if options["amsgrad"]:
            v = np.maximum(state["max_exp_avg_sq"], v, out=state["max_exp_avg_sq"])
        step_size = options["lr"] / (1 - beta1 ** t)
        denom = np.sqrt(v) / (1 - beta2 ** t) ** 0.5
        denom += options["eps"]
        x += -step_size * m / denom


class AdamW(Adam):
    """Adam with decoupled weight decay (Loshchilov & Hutter, 2019).

    Identical to ``Adam(..., decoupled_weight_decay=True)``: before each Adam step the
    parameter shrinks, ``θ <- θ (1 - ε λ)``, instead of ``λ θ`` being added to the gradient
    (where Adam's normalisation would rescale it).  Note the different default,
    ``weight_decay=1e-2``.  Numbers match ``torch.optim.AdamW``.

    Args: as ``Adam`` (without ``decoupled_weight_decay``, which is always on).
    """

    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=1e-2,
                 amsgrad=False, *, maximize=False):
        super().__init__(params, lr, betas, eps, weight_decay, amsgrad, maximize=maximize,
                         decoupled_weight_decay=True)

    def load_state_dict(self, state_dict):
        """As ``Optimizer.load_state_dict``; decoupled weight decay stays on."""
        super().load_state_dict(state_dict)
        for group in self.param_groups:
            group["decoupled_weight_decay"] = True
