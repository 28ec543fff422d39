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
independent convolutions (groups = C_in is the depthwise convolution). Conv2d's fast path
computes with the samples last and returns its (N, C, H, W) result over (C, H, W, N) memory
(see "The samples-last layout" below).

This file holds the operations and their NumPy kernels; PyTorch's argument handling (``padding=
"same"``, unbatched inputs, conv1d as a conv2d of height 1) is in ``nn.functional.conv``.
"""
from typing import NamedTuple

import math

import numpy as np
from numpy.lib.stride_tricks import as_strided

from ..blas import product
from ..dtypes import floating
from ..function import Function
from ..sums import sum_last
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
    return strided_view(x, x.shape[:2] + (kh, kw) + win.out,
                        (sn, sc, sh * dh, sw * dw, sh * th, sw * tw), writeable=False)


def strided_view(x, shape, strides, writeable=True):
    """``as_strided``: a view of ``x``'s memory with ``shape`` and ``strides`` (in bytes).
    Made directly on the memory of a C-contiguous ``x`` (0.9 µs; NumPy's ``as_strided`` goes
    through Python and an array interface: 6 µs, three times in every LeNet step)."""
    if not x.flags.c_contiguous:
        return as_strided(x, shape, strides, writeable=writeable)
    view = np.ndarray(shape, x.dtype, x, 0, strides)
    if not writeable or not x.flags.writeable:
        view.flags.writeable = False
    return view


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


# The samples-last layout. The fast path (ndarrays) of Conv2d works on images stored as
# (C, H, W, N), the sample axis last, as PyTorch's "channels last" moves the channels:
#
#   * a kernel window's row is then W_out·N contiguous values (with stride 1; runs of N with a
#     larger stride), so im2col copies, and col2im adds, a few long runs instead of many runs
#     of W_out values, and the columns hold no padding;
#   * the columns are one (C·kh·kw, H_out·W_out·N) matrix for all samples, multiplied by the
#     weight in one product that BLAS can split over its threads (or, for a thin weight, one
#     product per output row: ``_row_blocks``);
#   * the result is returned as an (N, C, H, W) view of (C, H, W, N) memory. NumPy's elementwise
#     operations keep an operand's memory order, so a ReLU after it, the next pooling or
#     convolution, and all their gradients stay in this layout without copies.
#
# Measured on LeNet's training step (batch 64, two threads): a hand-written NumPy step in this
# layout took 4.5 ms, one in (N, C, H, W) 7.3 ms; dagrad's step went from 8.3 ms (columns in
# (N, C, H, W) planes) to 6.0 ms with this layout and the tiled max pooling (``pool.py``).
def samples_last(x):
    """x (N, C, H, W) as a (C, H, W, N) array: a view when its memory is already in that order,
    else a copy."""
    return np.ascontiguousarray(x.transpose(1, 2, 3, 0))


def _padded_samples_last(x, win):
    """x (N, C, H, W) -> (C, Hp, Wp, N), zero-padded."""
    (pt, pb), (pl, pr) = win.padding
    if not (pt or pb or pl or pr):
        return samples_last(x)
    n, c, h, w = x.shape
    padded = np.zeros((c, h + pt + pb, w + pl + pr, n), dtype=x.dtype)
    padded[:, pt:pt + h, pl:pl + w] = x.transpose(1, 2, 3, 0)
    return padded


def _window_view(padded, win):
    """The windows of a (C, Hp, Wp, N) array: (C, kh, kw, H_out, W_out, N),
    [c, i, j, h, w, n] = padded[c, h·s_h + i·d_h, w·s_w + j·d_w, n]."""
    sc, sh, sw, sn = padded.strides
    (kh, kw), (dh, dw), (th, tw) = win.kernel, win.dilation, win.stride
    return strided_view(padded, (padded.shape[0], kh, kw) + win.out + (padded.shape[3],),
                        (sc, sh * dh, sw * dw, sh * th, sw * tw, sn))


def unfold_samples_last(x, win):
    """im2col in the samples-last layout: x (N, C, H, W) -> cols (C·kh·kw, H_out·W_out·N),
    cols[(c, i, j), (h, w, n)] = x_pad[n, c, h·s_h + i·d_h, w·s_w + j·d_w]."""
    view = _window_view(_padded_samples_last(x, win), win)
    rows = view.shape[0] * win.kernel[0] * win.kernel[1]
    # the columns counted, not inferred: a -1 cannot be inferred from an empty batch
    return np.ascontiguousarray(view).reshape(rows, view.size // rows)


def fold_samples_last(gcols, win, c, n):
    """col2im, the adjoint of ``unfold_samples_last``: gcols (C·kh·kw, H_out·W_out·N) ->
    dL/dx (C, H, W, N), every column entry added onto the pixel it was read from: one strided
    addition per kernel offset (i, j), of all channels, rows and samples."""
    (pt, pb), (pl, pr) = win.padding
    (h, w), (kh, kw) = win.size, win.kernel
    padded = np.zeros((c, h + pt + pb, w + pl + pr, n), dtype=gcols.dtype)
    windows = _window_view(padded, win)
    per_offset = gcols.reshape(windows.shape)
    for i in range(kh):
        for j in range(kw):
            windows[:, i, j] += per_offset[:, i, j]
    return padded[:, pt:pt + h, pl:pl + w]


def _row_blocks(weight, groups, win):
    """Into how many products to split a convolution's columns: one per output row for a thin
    weight (per group, under 16 filters or under 32 inputs per filter, as a first layer's 6 or
    16 filters of 1×5×5 or 3×3×3), whose single product over all columns OpenBLAS runs two to
    three times slower (LeNet's first layer: 0.68 against 0.27 ms forward); else one."""
    rows, inner = weight.shape[0] // groups, weight[0].size
    return win.out[0] if rows < 16 or inner < 32 else 1


def _in_blocks(a, groups, blocks):
    """(G·R, L) -> (G, blocks, R, L / blocks): each group's columns cut into ``blocks``
    consecutive blocks, as a view."""
    a = a.reshape((groups, a.shape[0] // groups, blocks, a.shape[-1] // blocks))
    return a.transpose(0, 2, 1, 3)


def _weight_times_columns(weight, cols, groups, blocks):
    """Per group, W · cols: weight (G·A, B) and cols (G·B, L) -> (G·A, L)."""
    w = weight.reshape((groups, 1, weight.shape[0] // groups, -1))
    out = np.empty((weight.shape[0], cols.shape[1]), dtype=np.result_type(weight, cols))
    product(w, _in_blocks(cols, groups, blocks), out=_in_blocks(out, groups, blocks))
    return out


def _columns_weight_grad(g, cols, groups, blocks, shape):
    """dL/dW = Σ over the columns of g · colsᵀ: g (O, L), cols (C·kh·kw, L) -> ``shape``.
    Computed as (cols · gᵀ)ᵀ: OpenBLAS then packs the thin gᵀ, not the long colsᵀ (~1.8x
    faster for LeNet's second convolution)."""
    products = product(_in_blocks(cols, groups, blocks),
                       _in_blocks(g, groups, blocks).swapaxes(2, 3))
    return products.sum(axis=1).swapaxes(1, 2).reshape(shape)


def _mix(weight, cols, groups):
    """Per group, W · cols: weight (G·A, B...) and cols (N, G·B..., L...) -> (N, G, A, L)."""
    w = weight.reshape((groups, weight.shape[0] // groups, -1))
    return product(w, cols.reshape((cols.shape[0], groups, w.shape[2],
                                    math.prod(cols.shape[1:]) // (groups * w.shape[2]))))


def _mix_t(xp, weight, y, groups):
    """Per group, Wᵀ · y: weight (G·A, B, ...) and y (N, G·A, ...) -> (N, G, B·..., L)."""
    w = weight.reshape((groups, weight.shape[0] // groups, -1))
    n = y.shape[0]
    return product(xp.transpose(w, (0, 2, 1)),
                   y.reshape((n, groups, w.shape[1], math.prod(y.shape[2:]))))


def _correlate(xp, a, cols, groups, shape):
    """Σ_n a[n] · cols[n]ᵀ per group, the weight gradient: a (N, G·A, L...) and
    cols (N, G·B..., L...) -> (G, A, B) reshaped to the weight's ``shape``."""
    n = a.shape[0]
    a = a.reshape((n, groups, a.shape[1] // groups, math.prod(a.shape[2:])))
    cols = cols.reshape((n, groups, math.prod(cols.shape[1:]) // (groups * a.shape[-1]),
                         a.shape[-1]))
    # computed as (cols · aᵀ)ᵀ: BLAS then packs the small aᵀ, not the large colsᵀ (~1.6x faster)
    total = product(cols, xp.transpose(a, (0, 1, 3, 2))).sum(axis=0)
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
    On ndarrays it computes in the samples-last layout (see above) and returns y as a view of
    (O, H_out, W_out, N) memory."""

    dtype_rule = floating

    def forward(ctx, x, weight, bias=None, win=None, groups=1):
        ctx.win, ctx.groups = win, groups
        ctx.blocks = _row_blocks(weight, groups, win)
        cols = unfold_samples_last(x, win)
        y = _weight_times_columns(weight, cols, groups, ctx.blocks)
        if bias is not None:
            y += bias[:, None]
        ctx.save(x, weight, cols=cols)
        # (O, H_out, W_out, N) memory seen as (N, O, H_out, W_out): see "samples-last layout"
        return y.reshape((y.shape[0],) + win.out + (x.shape[0],)).transpose(3, 0, 1, 2)

    def backward(ctx, grad):
        x, weight = ctx.saved
        xp, win, groups = ctx.xp, ctx.win, ctx.groups
        need_x, need_w, need_b = (ctx.needs_input_grad + (False,))[:3]   # bias optional
        if not ctx.create_graph:
            return _conv_backward_arrays(grad, x, weight, ctx.cols, win, groups, ctx.blocks,
                                         need_x, need_w, need_b)
        # differentiable path: the same formulas with recorded unfold/fold/matmul
        gx = gw = None
        gb = grad.sum(axis=(0, 2, 3)) if need_b else None
        if need_x:
            gx = xp.fold(_mix_t(xp, weight, grad, groups).reshape(
                x.shape[:2] + win.kernel + win.out), win)
        if need_w:
            gw = _correlate(xp, grad, xp.unfold(x, win), groups, weight.shape)
        return gx, gw, gb


def _conv_backward_arrays(grad, x, weight, cols, win, groups, blocks, need_x, need_w, need_b):
    """Conv2d's gradients on ndarrays, in the samples-last layout: g = dL/dy as (O, L),
    dL/dW = g · colsᵀ, dL/db = Σ_L g, dL/dx = fold(Wᵀ · g)."""
    g = samples_last(grad).reshape(grad.shape[1], math.prod(grad.shape) // grad.shape[1])
    gx = gw = gb = None
    if need_b:
        gb = sum_last(g).reshape(-1)
    if need_w:
        gw = _columns_weight_grad(g, cols, groups, blocks, weight.shape)
    if need_x:
        o = weight.shape[0]
        wt = weight.reshape((groups, o // groups, -1)).swapaxes(1, 2).reshape(-1, o // groups)
        gcols = _weight_times_columns(wt, g, groups, blocks)
        gx = fold_samples_last(gcols, win, x.shape[1], x.shape[0]).transpose(3, 0, 1, 2)
    return gx, gw, gb


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
