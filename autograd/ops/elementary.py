"""The elementary functions: exp, log, log1p, √, sin, cos. Each class docstring states the
forward formula and its local derivative; the public function sits under its class."""
import numpy as np

from ..dtypes import to_float
from ..function import Function


class Exp(Function):
    """y = exp(x);   dy/dx = exp(x) = y"""

    dtype_rule = to_float

    def forward(ctx, x):
        y = np.exp(x)
        ctx.save(output=y)
        return y

    rules = {"x": "δ_x = δ_out · out"}

    def backward(ctx, grad):
        y, = ctx.saved
        return grad * y


def exp(x):
    """eˣ elementwise."""
    return Exp.apply(x)


class Log(Function):
    """y = log(x);   dy/dx = 1/x"""

    dtype_rule = to_float

    def forward(ctx, x):
        ctx.save(x)
        return np.log(x)

    rules = {"x": "δ_x = δ_out / x"}

    def backward(ctx, grad):
        x, = ctx.saved
        return grad / x


def log(x):
    """Natural logarithm elementwise."""
    return Log.apply(x)


class Log1p(Function):
    """y = log(1 + x), accurate for small x;   dy/dx = 1/(1 + x)"""

    dtype_rule = to_float

    def forward(ctx, x):
        ctx.save(x)
        return np.log1p(x)

    rules = {"x": "δ_x = δ_out / (1 + x)"}

    def backward(ctx, grad):
        x, = ctx.saved
        return grad / (x + 1)


def log1p(x):
    """log(1 + x) elementwise, without the rounding of 1 + x for small x."""
    return Log1p.apply(x)


class Sqrt(Function):
    """y = √x;   dy/dx = 1/(2√x) = 1/(2y)"""

    dtype_rule = to_float

    def forward(ctx, x):
        y = np.sqrt(x)
        ctx.save(output=y)
        return y

    rules = {"x": "δ_x = δ_out / (2 · out)"}

    def backward(ctx, grad):
        y, = ctx.saved
        return grad / (2 * y)


def sqrt(x):
    """√x elementwise."""
    return Sqrt.apply(x)


class Sin(Function):
    """y = sin x;   dy/dx = cos x"""

    dtype_rule = to_float

    def forward(ctx, x):
        ctx.save(x)
        return np.sin(x)

    rules = {"x": "δ_x = δ_out · cos(x)"}

    def backward(ctx, grad):
        x, = ctx.saved
        return grad * ctx.xp.cos(x)


def sin(x):
    return Sin.apply(x)


class Cos(Function):
    """y = cos x;   dy/dx = -sin x"""

    dtype_rule = to_float

    def forward(ctx, x):
        ctx.save(x)
        return np.cos(x)

    rules = {"x": "δ_x = −δ_out · sin(x)"}

    def backward(ctx, grad):
        x, = ctx.saved
        return -grad * ctx.xp.sin(x)


def cos(x):
    return Cos.apply(x)
