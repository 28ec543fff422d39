"""Convolution: im2col (``unfold``), one matrix product, col2im (``fold``).

A 2-d convolution slides a kernel over the image. Copying every kernel window into a column
(im2col) turns the whole convolution into one matrix product per group::

    cols[n, (c, i, j), (h, w)] = x_pad[n, c, h·s_h + i·d_h, w·s_w + j·d_w]
    y[n, o, (h, w)]            = Σ_(c,i,j) W[o, (c, i, j)] · cols[n, (c, i, j), (h, w)] + b[o]

so its gradients are the products of the transposed factors::

    dL/dW    = Σ_n dL/dy[n] · cols[n]ᵀ
    dL/dcols = Wᵀ · dL/dy,      dL/dx = fold(dL/dcols)
    dL/db    = Σ_(n,h,w) dL/dy

``fold`` (col2im) is the adjoint of ``unfold``: it adds every column entry back onto the pixel
it was read from, so pixels shared by overlapping windows collect the sum of their gradients.
Transposed convolution is the adjoint of convolution: its forward is convolution's input
gradient (Wᵀ, then fold) and its input gradient is convolution's forward (unfold, then W).

Layouts are PyTorch's: images (N, C, H, W); convolution weights (C_out, C_in/groups, kh, kw);
transposed-convolution weights (C_in, C_out/groups, kh, kw). ``groups`` splits the channels into
independent convolutions (groups = C_in is the depthwise convolution).

This file holds the operations and their NumPy kernels; PyTorch's argument handling (``padding=
"same"``, unbatched inputs, conv1d as a conv2d of height 1) is in ``nn.functional.conv``.
"""
from typing import NamedTuple

import numpy as np
from numpy.lib.stride_tricks import as_strided

from ..blas import use_threads_for
from ..dtypes import floating
from ..function import Function
from ..xp import NUMPY


class Window(NamedTuple):
    """Where the kernel windows lie on an image, per spatial axis (height, width).

    ``size``: the image (H, W) without padding; ``padding``: ((top, bottom), (left, right));
    ``out``: the number of window positions (H_out, W_out), i.e. the output size of a
    convolution and the input size of a transposed convolution.
    """
    size: tuple
    kernel: tuple
    stride: tuple
    padding: tuple
    dilation: tuple
    out: tuple


def window(op, size, kernel, stride, padding, dilation, ceil_mode=False):
    """The ``Window`` of a convolution or pooling; ``padding`` holds a (lo, hi) pair per axis.

    Output size per axis: ⌊(n + lo + hi - d·(k-1) - 1) / s⌋ + 1 (⌈⌉ with ``ceil_mode``, where a
    last window must still start inside the image or its left padding, as in PyTorch).
    """
    out, pads = [], []
    for n, k, s, (lo, hi), d in zip(size, kernel, stride, padding, dilation):
        span = n + lo + hi - d * (k - 1) - 1
        m = (-(-span // s) if ceil_mode else span // s) + 1
        if ceil_mode and (m - 1) * s >= n + lo:
            m -= 1
        if span < 0 or m <= 0:
            # padding as the user gives it: one number per axis, a (lo, hi) pair if uneven
            shown = tuple(a if a == b else (a, b) for a, b in padding)
            raise ValueError(
                f"{op}: input of spatial size {tuple(size)} is too small for kernel_size "
                f"{tuple(kernel)} with stride {tuple(stride)}, padding {shown} and "
                f"dilation {tuple(dilation)}: the dilated kernel spans "
                f"{tuple(dd * (kk - 1) + 1 for kk, dd in zip(kernel, dilation))} pixels, more "
                f"than the padded input. Use a larger input, more padding or a smaller kernel.")
        out.append(m)
        # ceil_mode may need a last window that sticks out past the high padding: extend it
        pads.append((lo, max(hi, (m - 1) * s + d * (k - 1) + 1 - n - lo)))
    return Window(tuple(size), tuple(kernel), tuple(stride), tuple(pads), tuple(dilation),
                  tuple(out))


# ------------------------------------------------------------------ the NumPy kernels
def unfold_array(x, win, value=0.0):
    """im2col as a view: (N, C, H, W) -> (N, C, kh, kw, H_out, W_out), entry
    [n, c, i, j, h, w] = x_pad[n, c, h·s_h + i·d_h, w·s_w + j·d_w]. Only padding copies."""
    (pt, pb), (pl, pr) = win.padding
    if pt or pb or pl or pr:
        n, c, h, w = x.shape
        padded = np.full((n, c, h + pt + pb, w + pl + pr), value, dtype=x.dtype)
        padded[:, :, pt:pt + h, pl:pl + w] = x
        x = padded
    sn, sc, sh, sw = x.strides
    (kh, kw), (dh, dw), (th, tw) = win.kernel, win.dilation, win.stride
    return as_strided(x, x.shape[:2] + (kh, kw) + win.out,
                      (sn, sc, sh * dh, sw * dw, sh * th, sw * tw), writeable=False)


def unfold_copy(x, win, value=0.0):
    """im2col as a contiguous array (the form a matrix product wants)."""
    return np.ascontiguousarray(unfold_array(x, win, value))


def fold_array(cols, win):
    """col2im, the adjoint of ``unfold_array``: (N, C, kh, kw, H_out, W_out) -> (N, C, H, W),
    every entry added onto the pixel it was read from (padding discarded). One strided add
    per kernel offset (i, j), each covering all images, channels and window positions (a plain
    write when the windows do not overlap, as in pooling with stride = kernel)."""
    (pt, pb), (pl, pr) = win.padding
    (h, w), (kh, kw), (dh, dw), (th, tw) = win.size, win.kernel, win.dilation, win.stride
    ho, wo = win.out
    n, c = cols.shape[:2]
    out = np.zeros((n, c, h + pt + pb, w + pl + pr), dtype=cols.dtype)
    disjoint = all(k == 1 or d * (k - 1) < s for k, d, s in zip(win.kernel, win.dilation,
                                                                  win.stride))
    for i in range(kh):
        rows = slice(i * dh, i * dh + (ho - 1) * th + 1, th)
        for j in range(kw):
            target = (slice(None), slice(None), rows, slice(j * dw, j * dw + (wo - 1) * tw + 1,
                                                            tw))
            if disjoint:
                out[target] = cols[:, :, i, j]
            else:
                out[target] += cols[:, :, i, j]
    if pt or pb or pl or pr:
        out = out[:, :, pt:pt + h, pl:pl + w]
    return out


# The "wide rows" layout (horizontal stride 1): a window row is read across the whole padded
# width Wp instead of only the W_out = Wp - d·(kw-1) valid starts, so every (c, i, j) row of the
# columns is H_out runs of Wp contiguous pixels (one run when the vertical stride is 1 too).
# Copying and adding a few long runs is several times faster in NumPy than H_out·W_out short
# ones; the price is Wp/W_out more columns, whose last Wp - W_out per row are discarded.
def _padded_rows(x, win):
    """x zero-padded to (N, C, Hp + 1, Wp); the spare row keeps the reads of the discarded
    positions (which run past the end of the last window row) inside each image."""
    (pt, _), (pl, _) = win.padding
    n, c, h, w = x.shape
    buf = np.zeros((n, c) + _rows_shape(win), dtype=x.dtype)
    buf[:, :, pt:pt + h, pl:pl + w] = x
    return buf


def _rows_shape(win):
    """(Hp + 1, Wp): the padded image plus one spare row."""
    (pt, pb), (pl, pr) = win.padding
    return win.size[0] + pt + pb + 1, win.size[1] + pl + pr


def _wide_view(buf, win):
    """The (N, C, kh, kw, H_out, Wp) windows of a padded-rows buffer."""
    sn, sc, sh, sw = buf.strides
    (kh, kw), (dh, dw), (th, _) = win.kernel, win.dilation, win.stride
    return as_strided(buf, buf.shape[:2] + (kh, kw, win.out[0], buf.shape[3]),
                      (sn, sc, sh * dh, sw * dw, sh * th, sw))


def unfold_wide(x, win):
    """im2col in the wide-rows layout: (N, C, H, W) -> (N, C·kh·kw, H_out·Wp)."""
    view = _wide_view(_padded_rows(x, win), win)
    return np.ascontiguousarray(view).reshape(x.shape[0], -1, win.out[0] * view.shape[-1])


def fold_wide(cols, win):
    """col2im from the wide-rows layout, the adjoint of ``unfold_wide``:
    (N, C·kh·kw, H_out·Wp) -> (N, C, H, W). The discarded positions must hold zeros."""
    (pt, _), (pl, _) = win.padding
    (h, w), (kh, kw) = win.size, win.kernel
    buf = np.zeros(cols.shape[:1] + (cols.shape[1] // (kh * kw),) + _rows_shape(win),
                   dtype=cols.dtype)
    view = _wide_view(buf, win)
    cols = cols.reshape(view.shape)
    for i in range(kh):
        for j in range(kw):
            view[:, :, i, j] += cols[:, :, i, j]
    return buf[:, :, pt:pt + h, pl:pl + w]


def _wide_image(y, win):
    """(N, G, A, H_out·Wp) wide-rows output -> the (N, G·A, H_out, W_out) image (a view)."""
    wp = _rows_shape(win)[1]
    return y.reshape((y.shape[0], -1, win.out[0], wp))[..., :win.out[1]]


def _wide_grad(grad, win):
    """(N, O, H_out, W_out) -> (N, O, H_out·Wp) with zeros at the discarded positions."""
    n, o, ho, wo = grad.shape
    wide = np.zeros((n, o, ho, _rows_shape(win)[1]), dtype=grad.dtype)
    wide[..., :wo] = grad
    return wide.reshape(n, o, -1)


def _mix(weight, cols, groups):
    """Per group, W · cols: weight (G·A, B...) and cols (N, G·B..., L...) -> (N, G, A, L)."""
    w = weight.reshape((groups, weight.shape[0] // groups, -1))
    use_threads_for(cols.shape, w.shape[1])
    return w @ cols.reshape((cols.shape[0], groups, w.shape[2], -1))


def _mix_t(xp, weight, y, groups):
    """Per group, Wᵀ · y: weight (G·A, B, ...) and y (N, G·A, ...) -> (N, G, B·..., L)."""
    w = weight.reshape((groups, weight.shape[0] // groups, -1))
    n = y.shape[0]
    use_threads_for(y.shape, w.shape[2])
    return xp.transpose(w, (0, 2, 1)) @ y.reshape((n, groups, w.shape[1], -1))


def _correlate(xp, a, cols, groups, shape):
    """Σ_n a[n] · cols[n]ᵀ per group, the weight gradient: a (N, G·A, L...) and
    cols (N, G·B..., L...) -> (G, A, B) reshaped to the weight's ``shape``."""
    n = a.shape[0]
    a = a.reshape((n, groups, a.shape[1] // groups, -1))
    cols = cols.reshape((n, groups, -1, a.shape[-1]))
    use_threads_for(cols.shape, a.shape[2])
    # computed as (cols · aᵀ)ᵀ: BLAS then packs the small aᵀ, not the large colsᵀ (~1.6x faster)
    total = (cols @ xp.transpose(a, (0, 1, 3, 2))).sum(axis=0)
    return xp.transpose(total, (0, 2, 1)).reshape(shape)


# ------------------------------------------------------------------------ operations
class Unfold(Function):
    """cols = the kernel windows of x (im2col):
    cols[n, c, i, j, h, w] = x_pad[n, c, h·s_h + i·d_h, w·s_w + j·d_w]   (zero padding);
    dL/dx = fold(dL/dcols): each entry's gradient goes back to the pixel it was read from."""

    def forward(ctx, x, win):
        ctx.win = win
        return unfold_copy(x, win)

    def backward(ctx, grad):
        return ctx.xp.fold(grad, ctx.win)


class Fold(Function):
    """x = fold(cols) (col2im): x[n, c, p, q] = Σ of the window entries read from pixel (p, q);
    dL/dcols = unfold(dL/dx)."""

    def forward(ctx, cols, win):
        ctx.win = win
        return fold_array(cols, win)

    def backward(ctx, grad):
        return ctx.xp.unfold(grad, ctx.win)


class Conv2d(Function):
    """y = W ⋆ x + b, the 2-d cross-correlation (PyTorch's convolution), via im2col:
    y[n, o] = W[o] · unfold(x)[n] + b[o] (per group);
    dL/dx = fold(Wᵀ · g),   dL/dW = Σ_n g[n] · unfold(x)[n]ᵀ,   dL/db = Σ_(n,h,w) g
    x (N, C, H, W), W (O, C/groups, kh, kw), b (O,) -> y (N, O, H_out, W_out).
    With horizontal stride 1 the columns use the wide-rows layout (see above); the gradient
    then gets zeros at the discarded positions, so they contribute nothing to dL/dW or dL/dx."""

    dtype_rule = floating

    def forward(ctx, x, weight, bias=None, win=None, groups=1):
        ctx.win, ctx.groups = win, groups
        ctx.wide = win.stride[1] == 1
        if ctx.wide:
            cols = unfold_wide(x, win)
            out = _wide_image(_mix(weight, cols, groups), win)
        else:
            cols = unfold_copy(x, win)
            out = _mix(weight, cols, groups).reshape((x.shape[0], -1) + win.out)
        if bias is not None:
            out = out + bias.reshape(-1, 1, 1)
        ctx.save(x, weight, cols=cols)
        return np.ascontiguousarray(out)

    def backward(ctx, grad):
        x, weight = ctx.saved
        xp, win, groups = ctx.xp, ctx.win, ctx.groups
        need_x, need_w, need_b = (ctx.needs_input_grad + (False,))[:3]   # bias optional
        gb = grad.sum(axis=(0, 2, 3)) if need_b else None
        if not ctx.differentiable:
            gx, gw = _conv_backward_arrays(grad, x, weight, ctx.cols, win, groups, ctx.wide,
                                           need_x, need_w)
            return gx, gw, gb
        # differentiable path: the same formulas with recorded unfold/fold/matmul
        gx = gw = None
        if need_x:
            gx = xp.fold(_mix_t(xp, weight, grad, groups).reshape(
                x.shape[:2] + win.kernel + win.out), win)
        if need_w:
            gw = _correlate(xp, grad, xp.unfold(x, win), groups, weight.shape)
        return gx, gw, gb


def _conv_backward_arrays(grad, x, weight, cols, win, groups, wide, need_x, need_w):
    """Conv2d's input and weight gradients on ndarrays, in the columns' layout."""
    g = _wide_grad(grad, win) if wide else grad
    gx = gw = None
    if need_w:
        gw = _correlate(np, g, cols, groups, weight.shape)
    if need_x:
        gcols = _mix_t(np, weight, g, groups)
        gx = (fold_wide(gcols.reshape(cols.shape), win) if wide else
              fold_array(gcols.reshape(x.shape[:2] + win.kernel + win.out), win))
    return gx, gw


class ConvTranspose2d(Function):
    """y = fold(Wᵀ · x) + b, the transposed convolution (the adjoint of Conv2d in x):
    dL/dx = W · unfold(g) (a convolution of g),   dL/dW = Σ_n x[n] · unfold(g)[n]ᵀ,
    dL/db = Σ_(n,h,w) g.   x (N, C, H, W), W (C, O/groups, kh, kw) -> y (N, O, *win.size)."""

    dtype_rule = floating

    def forward(ctx, x, weight, bias=None, win=None, groups=1):
        ctx.win, ctx.groups = win, groups
        cols = _mix_t(NUMPY, weight, x, groups)
        n, c_out = x.shape[0], weight.shape[1] * groups
        out = fold_array(cols.reshape((n, c_out) + win.kernel + win.out), win)
        if bias is not None:
            out = out + bias.reshape(-1, 1, 1)
        ctx.save(x, weight)
        return out

    def backward(ctx, grad):
        x, weight = ctx.saved
        xp, win, groups = ctx.xp, ctx.win, ctx.groups
        need_x, need_w, need_b = (ctx.needs_input_grad + (False,))[:3]   # bias optional
        cols = xp.unfold(grad, win)
        gx = _mix(weight, cols, groups).reshape(x.shape) if need_x else None
        gw = _correlate(xp, x, cols, groups, weight.shape) if need_w else None
        gb = grad.sum(axis=(0, 2, 3)) if need_b else None
        return gx, gw, gb
