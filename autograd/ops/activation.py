"""Activation functions: tanh, σ, ReLU, leaky ReLU, ELU, softplus, erf, GELU. Each class
docstring states the forward formula and its local derivative; the public function sits under
its class."""
import math

import numpy as np

from ..dtypes import floating, to_float
from ..function import Function
from ..lazy_grads import LazyGrad
from ..xp import sigmoid_array


class Tanh(Function):
    """y = tanh x;   dy/dx = 1 - y²"""

    dtype_rule = to_float

    def forward(ctx, x):
        y = np.tanh(x)
        ctx.save(output=y)
        return y

    rules = {"x": "δ_x = δ_out · (1 − out²)"}

    def backward(ctx, grad):
        y, = ctx.saved
        return grad * (1 - y * y)


def tanh(x):
    """tanh x = (eˣ - e⁻ˣ)/(eˣ + e⁻ˣ)."""
    return Tanh.apply(x)


class Sigmoid(Function):
    """y = σ(x) = 1/(1 + e^(-x));   dy/dx = y (1 - y)   (σ'(0) = 0.25)"""

    dtype_rule = to_float

    def forward(ctx, x):
        y = sigmoid_array(x)
        ctx.save(output=y)
        return y

    rules = {"x": "δ_x = δ_out · out · (1 − out)"}

    def backward(ctx, grad):
        y, = ctx.saved
        return grad * y * (1 - y)


def sigmoid(x):
    """σ(x) = 1/(1 + e⁻ˣ)."""
    return Sigmoid.apply(x)


class Relu(Function):
    """y = max(x, 0);   dy/dx = 1 if x > 0 else 0"""

    def forward(ctx, x):
        y = np.maximum(x, 0)
        ctx.save(output=y)
        return y

    rules = {"x": "δ_x = δ_out · [x > 0]"}
    takes_lazy_grad = True       # max pooling's gradient, masked at each window's maximum only

    def backward(ctx, grad):
        y, = ctx.saved
        if isinstance(grad, LazyGrad):
            return grad.where_positive(y)
        return grad * (y > 0)


def relu(x):
    """max(x, 0)."""
    return Relu.apply(x)


class LeakyRelu(Function):
    """y = x if x > 0 else s·x;   dy/dx = 1 if x > 0 else s"""

    dtype_rule = floating

    def forward(ctx, x, negative_slope=0.01):
        ctx.save(x)
        ctx.slope = negative_slope
        return np.where(x > 0, x, x * negative_slope)

    rules = {"x": "δ_x = δ_out · ([x > 0] + negative_slope · [x ≤ 0])"}

    def backward(ctx, grad):
        x, = ctx.saved
        return ctx.xp.where(x > 0, grad, grad * ctx.slope)


def leaky_relu(x, negative_slope=0.01):
    """x for x > 0, negative_slope·x otherwise."""
    return LeakyRelu.apply(x, negative_slope=negative_slope)


class Elu(Function):
    """y = x if x > 0 else α(eˣ - 1);   dy/dx = 1 if x > 0 else αeˣ = y + α"""

    dtype_rule = floating

    def forward(ctx, x, alpha=1.0):
        ctx.save(x)
        ctx.alpha = alpha
        return np.where(x > 0, x, alpha * np.expm1(np.minimum(x, 0)))

    rules = {"x": "δ_x = δ_out · ([x > 0] + alpha · exp(x) · [x ≤ 0])"}

    def backward(ctx, grad):
        x, = ctx.saved
        xp = ctx.xp
        return grad * xp.where(x > 0, 1.0, ctx.alpha * xp.exp(xp.where(x > 0, 0.0, x)))


def elu(x, alpha=1.0):
    """x for x > 0, α(eˣ - 1) otherwise."""
    return Elu.apply(x, alpha=alpha)


class Softplus(Function):
    """y = (1/β) log(1 + e^(βx)), and y = x where βx > threshold;   dy/dx = σ(βx)"""

    dtype_rule = floating

    def forward(ctx, x, beta=1.0, threshold=20.0):
        ctx.save(x)
        ctx.beta, ctx.threshold = beta, threshold
        bx = beta * x
        return np.where(bx > threshold, x, np.logaddexp(0, bx) / beta).astype(x.dtype, copy=False)

    rules = {"x": "δ_x = δ_out · σ(beta · x), δ_out alone where beta · x > threshold (out = x)"}

    def backward(ctx, grad):
        x, = ctx.saved
        bx = ctx.beta * x
        return grad * ctx.xp.where(bx > ctx.threshold, 1.0, ctx.xp.sigmoid(bx))


def softplus(x, beta=1.0, threshold=20.0):
    """(1/β) log(1 + e^(βx)), linear above ``threshold`` for stability (as PyTorch)."""
    return Softplus.apply(x, beta=beta, threshold=threshold)


class Erf(Function):
    """y = erf(x) = 2/√π ∫₀ˣ e^(-t²) dt;   dy/dx = 2/√π e^(-x²)"""

    dtype_rule = to_float

    def forward(ctx, x):
        ctx.save(x)
        return erf_array(x)

    rules = {"x": "δ_x = δ_out · 2 / sqrt(π) · exp(−x²)"}

    def backward(ctx, grad):
        x, = ctx.saved
        return grad * (2 / math.sqrt(math.pi)) * ctx.xp.exp(-x * x)


def erf(x):
    """The error function."""
    return Erf.apply(x)


_SQRT_HALF = math.sqrt(0.5)
_GELU_K = math.sqrt(2 / math.pi)
_erf_scalar = None


def erf_array(x):
    """The error function elementwise: SciPy's when installed, else ``math.erf`` per element."""
    global _erf_scalar
    if _erf_scalar is None:
        try:
            from scipy.special import erf as scipy_erf
            _erf_scalar = scipy_erf
        except ImportError:  # pragma: no cover - scipy comes with the test extras
            _erf_scalar = np.frompyfunc(math.erf, 1, 1)
    return np.asarray(_erf_scalar(x), dtype=np.result_type(x, np.float32))


class Gelu(Function):
    """y = x Φ(x), Φ the standard normal CDF = (1 + erf(x/√2))/2;   dy/dx = Φ(x) + x φ(x).

    ``approximate="tanh"``: y = x/2 (1 + tanh(√(2/π)(x + 0.044715 x³))), as PyTorch.
    """

    dtype_rule = floating

    def forward(ctx, x, approximate="none"):
        ctx.save(x)
        ctx.approximate = approximate
        if approximate == "tanh":
            return 0.5 * x * (1 + np.tanh(_GELU_K * (x + 0.044715 * x ** 3)))
        return (0.5 * x * (1 + erf_array(x * _SQRT_HALF))).astype(x.dtype, copy=False)

    rules = {"x": "δ_x = δ_out · (Φ(x) + x · φ(x)), for approximate='tanh' its tanh form's slope"}

    def backward(ctx, grad):
        x, = ctx.saved
        xp = ctx.xp
        if ctx.approximate == "tanh":
            inner = _GELU_K * (x + 0.044715 * x ** 3)
            t = xp.tanh(inner)
            d_inner = _GELU_K * (1 + 3 * 0.044715 * x * x)
            return grad * (0.5 * (1 + t) + 0.5 * x * (1 - t * t) * d_inner)
        cdf = 0.5 * (1 + xp.erf(x * _SQRT_HALF))
        pdf = xp.exp(-0.5 * x * x) * (1 / math.sqrt(2 * math.pi))
        return grad * (cdf + x * pdf)


def gelu(x, approximate="none"):
    """x Φ(x) (Gaussian error linear unit); ``approximate="tanh"`` for the tanh form."""
    if approximate not in ("none", "tanh"):
        raise ValueError(f"gelu: approximate must be 'none' or 'tanh', got {approximate!r}")
    return Gelu.apply(x, approximate=approximate)
