"""Max pooling of images (N, C, H, W): the one pooling that needs its own operation.

Pooling reads the same windows as a convolution (see ``conv``): ``unfold`` gathers them and a
reduction over the window replaces the weighted sum. Its gradient goes back through ``fold``:

    max pool:  y = max over the window,   dL/dx = fold(onehot(first maximum) · g)

Average pooling (unfold, sum, divide), adaptive average pooling and interpolation (separable
linear maps y = A_h · x · A_wᵀ) are compositions of other operations; they live with their
PyTorch-level argument handling in ``nn.functional.pooling``.
"""
import numpy as np

from ..function import Function
from .conv import unfold_copy


def flat_windows(cols, win):
    """(N, C, kh, kw, H_out, W_out) -> (N, C, kh·kw, H_out, W_out): one axis per window."""
    return cols.reshape(cols.shape[:2] + (-1,) + win.out)


class MaxPool2d(Function):
    """y[n, c, h, w] = max of x over the window at (h, w) (padding counts as -inf);
    dL/dx = fold(onehot · g): each window's gradient goes to its maximum (the first one when
    several are equal, as PyTorch) and pixels that are the maximum of several windows add."""

    def forward(ctx, x, win):
        ctx.win = win
        cols = flat_windows(unfold_copy(x, win, -np.inf), win)
        out = cols.max(axis=2)
        ctx.save(cols=cols, out=out)      # constants: the one-hot of each window's maximum
        return out

    def backward(ctx, grad):
        cols, out = ctx.cols, ctx.out
        onehot = cols == out[:, :, None]     # bool: the product below stays float
        if np.count_nonzero(onehot) != out.size:     # some window has tied maxima
            onehot = _first_true(onehot)
        win = ctx.win
        picked = grad.reshape(out.shape[:2] + (1,) + win.out) * onehot
        return ctx.xp.fold(picked.reshape(out.shape[:2] + win.kernel + win.out), win)


def _first_true(mask):
    """Keep only the first True along axis 2 (the window axis) of a boolean array."""
    first = np.empty_like(mask)
    seen = np.zeros_like(mask[:, :, 0])
    for k in range(mask.shape[2]):    # one step per kernel offset; each covers all windows
        np.greater(mask[:, :, k], seen, out=first[:, :, k])
        seen |= mask[:, :, k]
    return first
