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


# The planes layout, for horizontal stride 1. Every padded image plane (channel c of sample n)
# is stored flat, Hp·Wp pixels, one plane after the other, in sample-major (N, C) or
# channel-major (C, N) order (``by_sample`` picks), so that
#
#   * a window row is read across the whole padded width: output row h of kernel offset (i, j)
#     is the run of Wp pixels at (h·s_h + i·d_h)·Wp + j·d_w of the plane, and its last Wp - W_out
#     positions are discarded (they read into the next row). The columns are then a few long
#     contiguous runs to copy, several times faster in NumPy than H_out·W_out short ones, for
#     Wp/W_out more columns;
#   * one product can cover every sample: channel-major, the columns are a (C·kh·kw, N·L)
#     matrix (L = H_out·Wp) that BLAS may split over its threads; sample-major, (N, C·kh·kw, L),
#     they give the per-sample products that one thread runs faster;
#   * col2im is kh·kw shifted additions of whole arrays: the gradient, laid out in planes like
#     the image (zeros between its rows), times Wᵀ gives one array per kernel offset, and adding
#     it shifted by that offset's start (i·d_h·Wp + j·d_w) into the flat planes adds every
#     channel (and, channel-major, every sample) in one contiguous run. What crosses a plane's
#     end is a zero. The old col2im added H_out·W_out-long pieces one (sample, channel) at a
#     time: 0.72 ms against 0.24 ms for LeNet's second convolution.
def _plane_geometry(win):
    """(Hp, Wp, tail): the padded plane and the number of zeros after the last plane, which the
    largest offset's reads and shifted additions run into."""
    (pt, pb), (pl, pr) = win.padding
    hp, wp = win.size[0] + pt + pb, win.size[1] + pl + pr
    (kh, kw), (dh, dw) = win.kernel, win.dilation
    return hp, wp, (kh - 1) * dh * wp + (kw - 1) * dw


def _in_layout(image, sample_major):
    """An (N, C, ...) array as the (C, N, ...) view of the channel-major layout, or as it is;
    applied to a (C, N, ...) array it gives the (N, C, ...) view back."""
    return image if sample_major else image.swapaxes(0, 1)


def _to_planes(x, win, sample_major):
    """x (N, C, H, W) -> the zero-padded planes, flat: N·C·Hp·Wp values plus the tail."""
    n, c, h, w = x.shape
    (pt, _), (pl, _) = win.padding
    hp, wp, tail = _plane_geometry(win)
    flat = np.zeros(n * c * hp * wp + tail, dtype=x.dtype)
    planes = flat[:n * c * hp * wp].reshape(_in_layout(x, sample_major).shape[:2] + (hp, wp))
    planes[:, :, pt:pt + h, pl:pl + w] = _in_layout(x, sample_major)
    return flat


def by_sample(weight, groups, columns):
    """Multiply sample by sample, in the sample-major layout (else all samples in one product,
    channel-major)? One product lets BLAS share the work between threads. On one thread, or for
    a weight with under 16 rows or columns per group (a first layer: 6 filters of 1×5×5),
    OpenBLAS runs the per-sample products faster. Measured on LeNet's convolutions: a 6×25
    weight's gradient takes 0.20 ms per sample against 0.73 ms in one product on two threads;
    a 16×150 weight's forward 0.47 against 0.64 ms on one thread, and 0.46 against 0.34 ms on
    two."""
    rows, inner = weight.shape[0] // groups, weight[0].size
    if min(rows, inner) < 16:
        return True
    return use_threads_for((columns, inner), weight.shape[0]) == 1


def unfold_planes(x, win, sample_major):
    """im2col in the planes layout: (N, C, H, W) -> cols (C·kh·kw, N, L), L = H_out·Wp, or
    (N, C·kh·kw, L) when ``sample_major``:
    cols[(c, i, j), n, h·Wp + w] = x_pad[n, c, h·s_h + i·d_h, w + j·d_w]."""
    n, c = x.shape[:2]
    hp, wp, _ = _plane_geometry(win)
    (kh, kw), (dh, dw), (th, _) = win.kernel, win.dilation, win.stride
    flat = _to_planes(x, win, sample_major)
    item, plane = flat.itemsize, hp * wp * flat.itemsize
    sample, channel = (c * plane, plane) if sample_major else (plane, n * plane)
    windows = as_strided(flat, (n, c, kh, kw, win.out[0], wp),
                         (sample, channel, dh * wp * item, dw * item, th * wp * item, item),
                         writeable=False)
    if sample_major:
        return np.ascontiguousarray(windows).reshape(n, c * kh * kw, -1)
    return np.ascontiguousarray(windows.transpose(1, 2, 3, 0, 4, 5)).reshape(c * kh * kw, n, -1)


def fold_planes(gcols, win, n, sample_major):
    """col2im from planes: the gradient of the columns, rows (g, i, j, b) holding offset (i, j)'s
    contribution to channel g·B + b at the positions of the image's planes, as (G, kh·kw·B,
    N·Hp·Wp), or (N, G, kh·kw·B, Hp·Wp) when ``sample_major`` -> dL/dx (N, C, H, W). Each
    offset is one shifted addition of all channels and samples."""
    (pt, _), (pl, _) = win.padding
    (h, w), (kh, kw), (dh, dw) = win.size, win.kernel, win.dilation
    hp, wp, tail = _plane_geometry(win)
    per_offset = gcols.reshape(gcols.shape[:-2] + (kh * kw, -1))
    size = gcols.size // (kh * kw)      # the planes: one value per pixel
    flat = np.zeros(size + tail, dtype=gcols.dtype)
    for i in range(kh):
        for j in range(kw):
            start = i * dh * wp + j * dw
            target = flat[start:start + size].reshape(per_offset.shape[:-2] + (-1,))
            target += per_offset[..., i * kw + j, :]
    c = size // (n * hp * wp)
    planes = flat[:size].reshape(((n, c) if sample_major else (c, n)) + (hp, wp))
    return np.ascontiguousarray(_in_layout(planes[:, :, pt:pt + h, pl:pl + w], sample_major))


def _grad_planes(grad, win, sample_major, image=False):
    """dL/dy (N, O, H_out, W_out) in planes, zeros elsewhere: (O, N, H_out·Wp), the columns'
    layout (output (h, w) at h·Wp + w; for dL/dW), or (N, O, H_out·Wp) when ``sample_major``;
    with ``image`` Hp·Wp per plane, the image's layout (output (h, w) at h·s_h·Wp + w, where its
    window starts; for col2im)."""
    ho, wo = grad.shape[2:]
    hp, wp, _ = _plane_geometry(win)
    rows, step = (hp, win.stride[0]) if image else (ho, 1)
    in_layout = _in_layout(grad, sample_major)
    planes = np.zeros(in_layout.shape[:2] + (rows, wp), dtype=grad.dtype)
    planes[:, :, :(ho - 1) * step + 1:step, :wo] = in_layout
    return planes.reshape(in_layout.shape[:2] + (-1,))


def _times_all_samples(weight, cols, groups):
    """Per group, weight · cols in one product: weight (G·A, B) and cols (G·B, N, L), or
    (G·B, N·L) -> (G, A, N·L)."""
    w = weight.reshape((groups, weight.shape[0] // groups, -1))
    by_group = cols.reshape((groups, w.shape[2], -1))
    use_threads_for(by_group.shape[1:], w.shape[1])
    return w @ by_group


def _planes_weight_grad(g, cols, groups, shape):
    """dL/dW = Σ over samples and positions of g · colsᵀ in one product: g (O, N, L),
    cols (C·kh·kw, N, L) -> the weight's ``shape``."""
    a = g.reshape((groups, g.shape[0] // groups, -1))
    b = cols.reshape((groups, cols.shape[0] // groups, -1))
    use_threads_for(b.shape[1:], a.shape[1])
    return (a @ b.transpose(0, 2, 1)).reshape(shape)


def _planes_input_grad(grad, weight, win, groups, sample_major):
    """dL/dx = fold(Wᵀ · g), g laid out in the image's planes."""
    g = _grad_planes(grad, win, sample_major, image=True)
    o, b, kh, kw = weight.shape
    by_offset = weight.reshape((groups, o // groups, b, kh, kw)).transpose(0, 3, 4, 2, 1)
    wt = by_offset.reshape((groups * kh * kw * b, o // groups))     # rows (g, i, j, b)
    gcols = _mix(wt, g, groups) if sample_major else _times_all_samples(wt, g, groups)
    return fold_planes(gcols, win, grad.shape[0], sample_major)


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
    With horizontal stride 1 the columns use the planes layout (see above); the gradient
    then gets zeros at the discarded positions, so they contribute nothing to dL/dW or dL/dx."""

    dtype_rule = floating

    def forward(ctx, x, weight, bias=None, win=None, groups=1):
        ctx.win, ctx.groups = win, groups
        n, wp = x.shape[0], _plane_geometry(win)[1]
        ctx.planes = win.stride[1] == 1
        ctx.by_sample = ctx.planes and by_sample(weight, groups, n * win.out[0] * wp)
        if ctx.planes:
            cols = unfold_planes(x, win, ctx.by_sample)
            if ctx.by_sample:
                y = _mix(weight, cols, groups).reshape((n, -1, win.out[0], wp))
            else:
                y = _times_all_samples(weight, cols, groups).reshape((-1, n, win.out[0], wp))
                y = y.transpose(1, 0, 2, 3)
            y = y[..., :win.out[1]]
        else:
            cols = unfold_copy(x, win)
            y = _mix(weight, cols, groups).reshape((n, -1) + win.out)
        out = np.empty(y.shape, dtype=y.dtype)       # one pass: bias added into the copy
        if bias is None:
            np.copyto(out, y)
        else:
            np.add(y, bias.reshape(-1, 1, 1), out=out)
        ctx.save(x, weight, cols=cols)
        return out

    def backward(ctx, grad):
        x, weight = ctx.saved
        xp, win, groups = ctx.xp, ctx.win, ctx.groups
        need_x, need_w, need_b = (ctx.needs_input_grad + (False,))[:3]   # bias optional
        gb = grad.sum(axis=(0, 2, 3)) if need_b else None
        if not ctx.differentiable:
            gx, gw = _conv_backward_arrays(grad, x, weight, ctx.cols, win, groups, ctx.planes,
                                           ctx.by_sample, need_x, need_w)
            return gx, gw, gb
        # differentiable path: the same formulas with recorded unfold/fold/matmul
        gx = gw = None
        if need_x:
            gx = xp.fold(_mix_t(xp, weight, grad, groups).reshape(
                x.shape[:2] + win.kernel + win.out), win)
        if need_w:
            gw = _correlate(xp, grad, xp.unfold(x, win), groups, weight.shape)
        return gx, gw, gb


def _conv_backward_arrays(grad, x, weight, cols, win, groups, planes, sample_major, need_x,
                          need_w):
    """Conv2d's input and weight gradients on ndarrays, in the columns' layout."""
    gx = gw = None
    if planes:
        if need_w:
            g = _grad_planes(grad, win, sample_major)
            gw = (_correlate(np, g, cols, groups, weight.shape) if sample_major else
                  _planes_weight_grad(g, cols, groups, weight.shape))
        if need_x:
            gx = _planes_input_grad(grad, weight, win, groups, sample_major)
        return gx, gw
    if need_w:
        gw = _correlate(np, grad, cols, groups, weight.shape)
    if need_x:
        gcols = _mix_t(np, weight, grad, groups)
        gx = fold_array(gcols.reshape(x.shape[:2] + win.kernel + win.out), win)
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
