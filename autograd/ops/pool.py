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
from ..lazy_grads import LazyGrad
from .conv import samples_last, unfold_copy


def flat_windows(cols, win):
    """(N, C, kh, kw, H_out, W_out) -> (N, C, kh·kw, H_out, W_out): one axis per window."""
    return cols.reshape(tuple(cols.shape[:2]) + (win.kernel[0] * win.kernel[1],) + win.out)


class MaxPool2d(Function):
    """y[n, c, h, w] = max of x over the window at (h, w) (padding counts as -inf);
    dL/dx = fold(onehot · g): each window's gradient goes to its maximum (the first one when
    several are equal, as PyTorch) and pixels that are the maximum of several windows add.
    Windows that tile the image (stride = kernel, no padding or dilation: the usual 2x2) are
    pooled in the samples-last layout (``tile_max``); the others through their windows."""

    def forward(ctx, x, win):
        ctx.win = win
        if tiles(win):
            out, by_column, by_row = tile_max(samples_last(x), win.kernel)
            ctx.save(by_column=by_column, by_row=by_row, positive=out > 0)
            return out.transpose(3, 0, 1, 2)
        cols = flat_windows(unfold_copy(x, win, -np.inf), win)
        out = cols.max(axis=2)
        ctx.save(cols=cols, out=out)      # constants: the one-hot of each window's maximum
        return out

    def backward(ctx, grad):
        win = ctx.win
        if tiles(win):
            if not ctx.create_graph:
                # (C, H_out, W_out, N) as a view whatever grad's layout: every use below
                # writes through out= or makes a new array (a copy cost LeNet 10-20 µs)
                return TiledMaxGrad(grad.transpose(1, 2, 3, 0), ctx.by_column, ctx.by_row,
                                    win, ctx.positive)
            return _tile_max_grad_recorded(ctx.xp, grad, ctx.by_column, ctx.by_row, win)
        cols, out = ctx.cols, ctx.out
        onehot = cols == out[:, :, None]     # bool: the product below stays float
        if np.count_nonzero(onehot) != out.size:     # some window has tied maxima
            onehot = _first_true(onehot)
        picked = grad.reshape(out.shape[:2] + (1,) + win.out) * onehot
        return ctx.xp.fold(picked.reshape(out.shape[:2] + win.kernel + win.out), win)


def tiles(win):
    """Do the windows tile the image: stride = kernel, no padding, no dilation?"""
    return (win.stride == win.kernel and win.dilation == (1, 1)
            and win.padding == ((0, 0), (0, 0)))


# Tiled max pooling in the samples-last layout (C, H, W, N): the values of a window are N apart,
# so every comparison runs over long contiguous rows (in (N, C, H, W) they are neighbours and
# each operation strides over single elements: LeNet's first pooling, forward and backward,
# took 0.65 ms that way and takes 0.54 ms this way, on the memory the convolution before it
# left, with no conversion in between). The maximum is taken in two stages, along
# each window row and then down the rows, keeping the winner's position for the gradient.
# Strict comparisons give a tie to the first maximum in row-major order, as PyTorch; a window
# holding NaN sends its gradient to its last NaN, as PyTorch.
def tile_max(x, kernel):
    """x (C, H, W, N) -> (y (C, H_out, W_out, N), by_column (C, H_out·kh, W_out, N): the
    column of the maximum along each window row, by_row (C, H_out, W_out, N): the row holding
    the window's maximum), positions as uint8. Rows and columns that do not fill a window are
    left out (PyTorch's floor mode)."""
    (kh, kw), (c, h, w, n) = kernel, x.shape
    ho, wo = h // kh, w // kw
    tiled = x[:, :ho * kh, :wo * kw]
    for nan_rule in (False, True):       # the NaN rule costs two passes: only when needed
        rows, by_column = _stage_max(tiled.reshape(c, ho * kh, wo, kw, n), nan_rule)
        out, by_row = _stage_max(rows.reshape(c, ho, kh, wo, n).swapaxes(2, 3), nan_rule)
        # NaN wins a maximum (np.maximum), so the largest pooled value is NaN exactly when
        # some window holds one: one pass and no mask (np.isnan(out).any(): a mask and two)
        if nan_rule or not (out.size and np.isnan(np.maximum.reduce(out, axis=None))):
            return out, by_column, by_row


def _stage_max(v, nan_rule):
    """The maximum over the axis before last of v (..., k, N), and its position (uint8)."""
    best = v[..., 0, :]
    if v.shape[-2] == 1:             # a window of one value: a copy, not a view of the input
        return best.copy(), np.zeros(best.shape, np.uint8)
    for t in range(1, v.shape[-2]):
        value = v[..., t, :]
        wins = np.greater(value, best)
        if nan_rule:
            wins |= np.isnan(value)
        # (np.copyto(position, t, where=wins) takes 10x longer than this)
        position = wins.view(np.uint8) if t == 1 else np.where(wins, np.uint8(t), position)
        best = np.maximum(best, value)
    return best, position


def tile_max_grad(g, by_column, by_row, win):
    """dL/dx of ``tile_max``: g (C, H_out, W_out, N) -> (C, H, W, N), each window's gradient
    on its maximum, zeros elsewhere."""
    (kh, kw), (h, w) = win.kernel, win.size
    c, ho, wo, n = g.shape
    rows = np.empty((c, ho, kh, wo, n), dtype=g.dtype)
    _spread(g, by_row, kh, rows.transpose(2, 0, 1, 3, 4))
    rows = rows.reshape(c, ho * kh, wo, n)
    tiled = np.empty((c, ho * kh, wo, kw, n), dtype=g.dtype)
    _spread(rows, by_column, kw, tiled.transpose(3, 0, 1, 2, 4))
    if (ho * kh, wo * kw) == (h, w):
        return tiled.reshape(c, h, w, n)
    dx = np.zeros((c, h, w, n), dtype=g.dtype)
    dx[:, :ho * kh, :wo * kw] = tiled.reshape(c, ho * kh, wo * kw, n)
    return dx


def _spread(g, position, k, out):
    """out[t] = g where ``position`` is t, else 0, for t < k (``out``: k arrays of g's shape).
    For k = 2 the positions are 0 or 1: out[1] = g · position, out[0] = g - out[1], a
    subtraction instead of a comparison and a product with a cast (LeNet's first pooling:
    1.70 M instructions -> 1.30 M for its backward)."""
    if k == 2:
        np.multiply(g, position, out=out[1])
        np.subtract(g, out[1], out=out[0])
        return
    for t in range(k):
        np.multiply(g, position == t, out=out[t])


class TiledMaxGrad(LazyGrad):
    """dL/dx of tiled max pooling, kept as the pooled gradient g (C, H_out, W_out, N) and the
    positions of the maxima until it is needed as an array: each window's δ on its maximum,
    zeros elsewhere (``tile_max_grad``), seen as (N, C, H, W).

    The usual convolution -> ReLU -> max pooling sends it to ReLU, whose derivative matters
    only at the maxima, where it is [pooled value > 0] (``positive``, kept by the forward):
    ReLU's chain rule then costs a product on the pooled size instead of a comparison and a
    product on the full size, as a hand-written step applies it (LeNet-5's step: 49.34 M ->
    48.52 M instructions)."""

    __slots__ = ("g", "by_column", "by_row", "win", "positive")

    def __init__(self, g, by_column, by_row, win, positive):
        self.g, self.by_column, self.by_row, self.win = g, by_column, by_row, win
        self.positive = positive     # [max > 0] per window, or None once ReLU's mask is in g

    @property
    def shape(self):
        c, _, _, n = self.g.shape
        return (n, c) + self.win.size

    @property
    def dtype(self):
        return self.g.dtype

    def dense(self):
        return tile_max_grad(self.g, self.by_column, self.by_row, self.win).transpose(3, 0, 1, 2)

    def where_positive(self, value):
        """δ · [value > 0] for ``value``, the pooled input: [max > 0] at each maximum."""
        if self.positive is None:
            return super().where_positive(value)
        return TiledMaxGrad(self.g * self.positive, self.by_column, self.by_row, self.win,
                            None)


def _tile_max_grad_recorded(xp, grad, by_column, by_row, win):
    """``tile_max_grad`` as recorded operations (create_graph): the gradient repeated over each
    window, times the constant one-hot of the maxima."""
    (kh, kw), (h, w) = win.kernel, win.size
    n, c, ho, wo = grad.shape
    ones = np.ones((c, ho, wo, n), dtype=grad.dtype)
    onehot = tile_max_grad(ones, by_column, by_row, win).transpose(3, 0, 1, 2)
    repeated = xp.broadcast_to(grad.reshape((n, c, ho, 1, wo, 1)), (n, c, ho, kh, wo, kw))
    repeated = repeated.reshape((n, c, ho * kh, wo * kw))
    if (ho * kh, wo * kw) != (h, w):
        repeated = xp.unindex(repeated, (slice(None), slice(None), slice(0, ho * kh),
                                         slice(0, wo * kw)), (n, c, h, w))
    return repeated * onehot


def _first_true(mask):
    """Keep only the first True along axis 2 (the window axis) of a boolean array."""
    first = np.empty_like(mask)
    seen = np.zeros_like(mask[:, :, 0])
    for k in range(mask.shape[2]):    # one step per kernel offset; each covers all windows
        np.greater(mask[:, :, k], seen, out=first[:, :, k])
        seen |= mask[:, :, k]
    return first
