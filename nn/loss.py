"""Loss modules: each stores its options and calls the function of the same name in
``nn.functional`` (see there for the formulas). ``reduction`` is "mean" (default), "sum" or
"none", as in PyTorch; ``loss_fn(input, target)``."""
import numpy as np

from dagrad.autograd import Tensor

from . import functional as F
from .functional._util import check_reduction
from .module import Module


class _Loss(Module):
    _extra_reductions = ()

    def __init__(self, reduction="mean"):
        super().__init__()
        check_reduction(reduction, type(self).__name__, self._extra_reductions)
        self.reduction = reduction

    def extra_repr(self):
        return "" if self.reduction == "mean" else f"reduction={self.reduction!r}"


class _WeightedLoss(_Loss):
    """A loss with optional per-class weights, kept as a (non-learned) buffer."""

    def __init__(self, weight=None, reduction="mean"):
        super().__init__(reduction)
        if weight is not None and not isinstance(weight, Tensor):
            weight = Tensor(np.asarray(weight))
        self.register_buffer("weight", weight)


class MSELoss(_Loss):
    """ℓ = (x - y)²."""

    def forward(self, input, target):
        return F.mse_loss(input, target, self.reduction)


class L1Loss(_Loss):
    """ℓ = |x - y|."""

    def forward(self, input, target):
        return F.l1_loss(input, target, self.reduction)


class HuberLoss(_Loss):
    """ℓ = ½ d² if |d| < δ else δ (|d| - ½ δ), d = x - y."""

    def __init__(self, reduction="mean", delta=1.0):
        super().__init__(reduction)
        self.delta = delta

    def forward(self, input, target):
        return F.huber_loss(input, target, self.reduction, self.delta)


class SmoothL1Loss(_Loss):
    """ℓ = ½ d² / β if |d| < β else |d| - ½ β, d = x - y."""

    def __init__(self, reduction="mean", beta=1.0):
        super().__init__(reduction)
        self.beta = beta

    def forward(self, input, target):
        return F.smooth_l1_loss(input, target, self.reduction, self.beta)


class CrossEntropyLoss(_WeightedLoss):
    """Cross-entropy of logits (N, C) against class indices (N,) or probabilities (N, C), with
    optional class ``weight``, ``ignore_index`` and ``label_smoothing``: log-softmax and
    negative log-likelihood in one stable step."""

    def __init__(self, weight=None, ignore_index=-100, reduction="mean", label_smoothing=0.0):
        super().__init__(weight, reduction)
        self.ignore_index, self.label_smoothing = ignore_index, label_smoothing

    def forward(self, input, target):
        return F.cross_entropy(input, target, self.weight, self.ignore_index, self.reduction,
                               self.label_smoothing)


class NLLLoss(_WeightedLoss):
    """Negative log-likelihood of log-probabilities (N, C) at class indices (N,)."""

    def __init__(self, weight=None, ignore_index=-100, reduction="mean"):
        super().__init__(weight, reduction)
        self.ignore_index = ignore_index

    def forward(self, input, target):
        return F.nll_loss(input, target, self.weight, self.ignore_index, self.reduction)


class BCELoss(_WeightedLoss):
    """Binary cross-entropy of probabilities in [0, 1]."""

    def forward(self, input, target):
        return F.binary_cross_entropy(input, target, self.weight, self.reduction)


class BCEWithLogitsLoss(_WeightedLoss):
    """Binary cross-entropy of logits (sigmoid included, stable for any logit), with an
    optional ``pos_weight`` for the positive class."""

    def __init__(self, weight=None, reduction="mean", pos_weight=None):
        super().__init__(weight, reduction)
        if pos_weight is not None and not isinstance(pos_weight, Tensor):
            pos_weight = Tensor(np.asarray(pos_weight))
        self.register_buffer("pos_weight", pos_weight)

    def forward(self, input, target):
        return F.binary_cross_entropy_with_logits(input, target, self.weight, self.reduction,
                                                  self.pos_weight)


class KLDivLoss(_Loss):
    """KL divergence of log-probabilities x from target p: ℓ = p (log p - x); use
    ``reduction="batchmean"`` for the mathematical KL divergence per sample."""

    _extra_reductions = ("batchmean",)

    def __init__(self, reduction="mean", log_target=False):
        super().__init__(reduction)
        self.log_target = log_target

    def forward(self, input, target):
        return F.kl_div(input, target, self.reduction, self.log_target)


class GaussianNLLLoss(_Loss):
    """ℓ = ½ (log var + (x - y)² / var) for a prediction x with variance var:
    ``loss_fn(input, target, var)``."""

    def __init__(self, full=False, eps=1e-6, reduction="mean"):
        super().__init__(reduction)
        self.full, self.eps = full, eps

    def forward(self, input, target, var):
        return F.gaussian_nll_loss(input, target, var, self.full, self.eps, self.reduction)
