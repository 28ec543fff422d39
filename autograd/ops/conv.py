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
"""
import math
from typing import NamedTuple

import numpy as np
from numpy.lib.stride_tricks import as_strided

from ..function import Function
from ..tensor import Tensor
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


def pair(value, n, name, op):
    """An int or a sequence of ``n`` ints -> a tuple of ``n`` ints."""
    items = tuple(value) if isinstance(value, (tuple, list)) else (value,) * n
    if len(items) != n or not all(isinstance(v, (int, np.integer)) for v in items):
        raise TypeError(f"{op}: {name} must be an int or a tuple of {n} ints, got {value!r}")
    return tuple(int(v) for v in items)


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
            raise ValueError(
                f"{op}: input of spatial size {tuple(size)} is too small for kernel_size "
                f"{tuple(kernel)} with stride {tuple(stride)}, padding {tuple(padding)} and "
                f"dilation {tuple(dilation)}: the dilated kernel spans "
                f"{tuple(dd * (kk - 1) + 1 for kk, dd in zip(kernel, dilation))} pixels, more "
                f"than the padded input. Use a larger input, more padding or a smaller kernel.")
        # ceil_mode may need a last window that sticks out past the high padding: extend it
        out.append(m)
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


def unfold_copy(x, win):
    """im2col as a contiguous array (the form a matrix product wants)."""
    return np.ascontiguousarray(unfold_array(x, win))


def fold_array(cols, win):
    """col2im, the adjoint of ``unfold_array``: (N, C, kh, kw, H_out, W_out) -> (N, C, H, W),
    every entry added onto the pixel it was read from (padding discarded). One strided add
    per kernel offset (i, j), each covering all images, channels and window positions."""
    (pt, pb), (pl, pr) = win.padding
    (h, w), (kh, kw), (dh, dw), (th, tw) = win.size, win.kernel, win.dilation, win.stride
    ho, wo = win.out
    n, c = cols.shape[:2]
    out = np.zeros((n, c, h + pt + pb, w + pl + pr), dtype=cols.dtype)
    for i in range(kh):
        rows = slice(i * dh, i * dh + (ho - 1) * th + 1, th)
        for j in range(kw):
            out[:, :, rows, j * dw:j * dw + (wo - 1) * tw + 1:tw] += cols[:, :, i, j]
    if pt or pb or pl or pr:
        out = out[:, :, pt:pt + h, pl:pl + w]
    return out


def _mix(weight, cols, groups):
    """Per group, W · cols: weight (G·A, B, ...) and cols (N, G·B·..., L) -> (N, G, A, L)."""
    n, L = cols.shape[0], cols.shape[-1]
    w = weight.reshape((groups, weight.shape[0] // groups, -1))
    return w @ cols.reshape((n, groups, w.shape[2], L))


def _mix_t(xp, weight, y, groups):
    """Per group, Wᵀ · y: weight (G·A, B, ...) and y (N, G·A, ...) -> (N, G, B·..., L)."""
    w = weight.reshape((groups, weight.shape[0] // groups, -1))
    n = y.shape[0]
    return xp.transpose(w, (0, 2, 1)) @ y.reshape((n, groups, w.shape[1], -1))


def _correlate(xp, a, cols, groups, shape):
    """Σ_n a[n] · cols[n]ᵀ per group, the weight gradient: a (N, G·A, ...), cols (N, G·B, L)
    -> reshaped to the weight's ``shape``."""
    n = a.shape[0]
    a = a.reshape((n, groups, -1, cols.shape[-1]))
    cols = cols.reshape((n, groups, -1, cols.shape[-1]))
    return (a @ xp.transpose(cols, (0, 1, 3, 2))).sum(axis=0).reshape(shape)


# ------------------------------------------------------------------------ operations
class Unfold(Function):
    """cols = the kernel windows of x (im2col):
    cols[n, c, i, j, h, w] = x_pad[n, c, h·s_h + i·d_h, w·s_w + j·d_w]   (padding = ``value``);
    dL/dx = fold(dL/dcols): each entry's gradient goes back to the pixel it was read from."""

    def forward(ctx, x, win, value=0.0):
        ctx.win = win
        return np.ascontiguousarray(unfold_array(x, win, value))

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
    x (N, C, H, W), W (O, C/groups, kh, kw), b (O,) -> y (N, O, H_out, W_out)."""

    def forward(ctx, x, weight, bias=None, win=None, groups=1):
        ctx.win, ctx.groups = win, groups
        cols = unfold_copy(x, win)
        out = _mix(weight, cols, groups).reshape((x.shape[0], weight.shape[0]) + win.out)
        if bias is not None:
            out += bias.reshape(-1, 1, 1)
        ctx.save(x, weight, cols)
        return out

    def backward(ctx, grad):
        x, weight, cols = ctx.saved
        xp, win, groups = ctx.xp, ctx.win, ctx.groups
        px, pw = ctx.parents[0], ctx.parents[1]
        pb = ctx.parents[2] if len(ctx.parents) > 2 else None
        gx = gw = gb = None
        if px is not None:
            gx = xp.fold(_mix_t(xp, weight, grad, groups).reshape(
                x.shape[:2] + win.kernel + win.out), win)
        if pw is not None:
            if xp is not NUMPY:   # differentiable path: the columns as a function of x
                cols = xp.unfold(x, win)
            gw = _correlate(xp, grad, cols, groups, weight.shape)
        if pb is not None:
            gb = grad.sum(axis=(0, 2, 3))
        return gx, gw, gb


class ConvTranspose2d(Function):
    """y = fold(Wᵀ · x) + b, the transposed convolution (the adjoint of Conv2d in x):
    dL/dx = W · unfold(g) (a convolution of g),   dL/dW = Σ_n x[n] · unfold(g)[n]ᵀ,
    dL/db = Σ_(n,h,w) g.   x (N, C, H, W), W (C, O/groups, kh, kw) -> y (N, O, *win.size)."""

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
        px, pw = ctx.parents[0], ctx.parents[1]
        pb = ctx.parents[2] if len(ctx.parents) > 2 else None
        cols = xp.unfold(grad, win)
        n = x.shape[0]
        cols = cols.reshape((n, cols.shape[1] * cols.shape[2] * cols.shape[3], -1))
        gx = _mix(weight, cols, groups).reshape(x.shape) if px is not None else None
        gw = _correlate(xp, x, cols, groups, weight.shape) if pw is not None else None
        gb = grad.sum(axis=(0, 2, 3)) if pb is not None else None
        return gx, gw, gb
