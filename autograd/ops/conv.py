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
from typing import NamedTuple

import numpy as np
from numpy.lib.stride_tricks import as_strided

from ..dtypes import floating
from ..function import Function
from ..tensor import as_tensor
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
    return w @ cols.reshape((cols.shape[0], groups, w.shape[2], -1))


def _mix_t(xp, weight, y, groups):
    """Per group, Wᵀ · y: weight (G·A, B, ...) and y (N, G·A, ...) -> (N, G, B·..., L)."""
    w = weight.reshape((groups, weight.shape[0] // groups, -1))
    n = y.shape[0]
    return xp.transpose(w, (0, 2, 1)) @ y.reshape((n, groups, w.shape[1], -1))


def _correlate(xp, a, cols, groups, shape):
    """Σ_n a[n] · cols[n]ᵀ per group, the weight gradient: a (N, G·A, L...) and
    cols (N, G·B..., L...) -> (G, A, B) reshaped to the weight's ``shape``."""
    n = a.shape[0]
    a = a.reshape((n, groups, a.shape[1] // groups, -1))
    cols = cols.reshape((n, groups, -1, a.shape[-1]))
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


# ----------------------------------------------------------------------- public functions
def conv_padding(op, padding, kernel, stride, dilation):
    """PyTorch's ``padding`` argument -> a (lo, hi) pair per axis.

    An int or tuple pads both sides equally; ``"valid"`` means no padding; ``"same"`` pads
    d·(k-1) in total per axis (the extra pixel of an odd total goes to the high side, as in
    PyTorch) so that the output has the input's size, which needs stride 1.
    """
    n = len(kernel)
    if isinstance(padding, str):
        if padding == "valid":
            return ((0, 0),) * n
        if padding == "same":
            if any(s != 1 for s in stride):
                raise ValueError(f"{op}: padding='same' needs stride 1 (got stride "
                                 f"{stride}); give the padding as numbers for a strided "
                                 f"convolution")
            return tuple((d * (k - 1) // 2, d * (k - 1) - d * (k - 1) // 2)
                         for k, d in zip(kernel, dilation))
        raise ValueError(f"{op}: padding must be an int, a tuple, 'same' or 'valid', "
                         f"got {padding!r}")
    pads = pair(padding, n, "padding", op)
    if any(p < 0 for p in pads):
        raise ValueError(f"{op}: padding must be non-negative, got {padding!r}")
    return tuple((p, p) for p in pads)


def _check_conv(op, x, weight, bias, groups, spatial, transposed):
    """Check the ranks, channel counts, groups and dtypes of a (transposed) convolution."""
    layout = "(N, C, L)" if spatial == 1 else "(N, C, H, W)"
    if x.ndim != spatial + 2:
        raise ValueError(f"{op}: expected an input of shape {layout}, got shape {x.shape}")
    if weight.ndim != spatial + 2:
        which = "(C_in, C_out/groups, " if transposed else "(C_out, C_in/groups, "
        raise ValueError(f"{op}: expected a weight of shape {which}"
                         f"{'k' if spatial == 1 else 'kh, kw'}), got shape {weight.shape}")
    if not isinstance(groups, (int, np.integer)) or groups < 1:
        raise ValueError(f"{op}: groups must be a positive int, got {groups!r}")
    c = x.shape[1]
    if transposed:
        c_out = weight.shape[1] * groups
        if weight.shape[0] != c or c % groups:
            raise ValueError(
                f"{op}: input of shape {x.shape} has {c} channels but the weight of shape "
                f"{weight.shape} expects {weight.shape[0]} (weight is (C_in, C_out/groups, "
                f"...)), and C_in must be divisible by groups={groups}")
    else:
        c_out = weight.shape[0]
        if weight.shape[1] * groups != c or c_out % groups:
            raise ValueError(
                f"{op}: input of shape {x.shape} has {c} channels but the weight of shape "
                f"{weight.shape} with groups={groups} expects {weight.shape[1] * groups} "
                f"(C_in/groups = {weight.shape[1]}); C_out={c_out} must also be divisible "
                f"by groups")
    if bias is not None and tuple(bias.shape) != (c_out,):
        raise ValueError(f"{op}: bias must have shape ({c_out},), got {bias.shape}")
    dtypes = {t.dtype for t in (x, weight, bias) if t is not None}
    if len(dtypes) > 1:
        raise TypeError(f"{op}: input, weight and bias must have the same dtype, got "
                        f"{', '.join(str(d) for d in dtypes)}; convert with .float() or "
                        f".double()")


def _lift(x, weight, spatial):
    """Treat a 1-d signal (N, C, L) as an image (N, C, 1, L) (and its weight likewise)."""
    if spatial == 2:
        return x, weight
    return (x.reshape(x.shape[:2] + (1,) + x.shape[2:]),
            weight.reshape(weight.shape[:2] + (1,) + weight.shape[2:]))


def batched(x, spatial, fn):
    """Run ``fn`` on a batch; an unbatched input (C, ...) is treated as a batch of one (and
    every output of ``fn`` loses that batch dimension again)."""
    if x.ndim != spatial + 1:
        return fn(x)
    out = fn(x.reshape((1,) + x.shape))
    if isinstance(out, tuple):
        return tuple(o.reshape(o.shape[1:]) for o in out)
    return out.reshape(out.shape[1:])


def _conv(op, x, weight, bias, stride, padding, dilation, groups, spatial):
    x, weight = as_tensor(x), as_tensor(weight)
    bias = None if bias is None else as_tensor(bias)

    def run(x):
        _check_conv(op, x, weight, bias, groups, spatial, transposed=False)
        kernel = weight.shape[2:]
        st = pair(stride, spatial, "stride", op)
        dil = pair(dilation, spatial, "dilation", op)
        if any(v < 1 for v in st + dil):
            raise ValueError(f"{op}: stride and dilation must be positive, got stride "
                             f"{stride!r} and dilation {dilation!r}")
        pads = conv_padding(op, padding, kernel, st, dil)
        win = window(op, x.shape[2:], kernel, st, pads, dil)
        if spatial == 1:    # a signal of length L is an image of size 1 x L
            win = Window(*(((0, 0),) + f if k == 3 else (1,) + f for k, f in enumerate(win)))
        xi, wi = _lift(x, weight, spatial)
        args = (xi, wi) if bias is None else (xi, wi, bias)
        out = Conv2d.apply(*args, win=win, groups=int(groups))
        return out if spatial == 2 else out.reshape(out.shape[:2] + out.shape[3:])

    return batched(x, spatial, run)


def conv2d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1):
    """2-d convolution (cross-correlation, as PyTorch):
    y[n, o, h, w] = b[o] + Σ_(c,i,j) W[o, c, i, j] · x_pad[n, c', h·s_h + i·d_h, w·s_w + j·d_w]
    where c' = g·C_in/groups + c runs over the input channels of o's group g.

    input (N, C_in, H, W) (or unbatched (C_in, H, W)), weight (C_out, C_in/groups, kh, kw),
    bias (C_out,) -> (N, C_out, H_out, W_out), H_out = ⌊(H + 2p - d·(kh-1) - 1)/s⌋ + 1.
    ``stride``, ``padding``, ``dilation``: int or (h, w); ``padding`` may be ``"same"`` or
    ``"valid"``. ``groups`` splits the channels into independent convolutions (groups = C_in:
    depthwise convolution).
    """
    return _conv("conv2d", input, weight, bias, stride, padding, dilation, groups, 2)


def conv1d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1):
    """1-d convolution (cross-correlation):
    y[n, o, t] = b[o] + Σ_(c,i) W[o, c, i] · x_pad[n, g·C/G + c, t·s + i·d].

    input (N, C_in, L) (or (C_in, L)), weight (C_out, C_in/groups, k), bias (C_out,)
    -> (N, C_out, L_out), L_out = ⌊(L + 2p - d·(k-1) - 1)/s⌋ + 1. Runs as conv2d on (N, C, 1, L).
    """
    return _conv("conv1d", input, weight, bias, stride, padding, dilation, groups, 1)


def conv_transpose2d(input, weight, bias=None, stride=1, padding=0, output_padding=0, groups=1,
                     dilation=1):
    """2-d transposed convolution (the gradient of conv2d with respect to its input):
    every input pixel x[n, c, h, w] adds x · W[c, o] into the output window at
    (h·s_h - p + i·d_h, w·s_w - p + j·d_w), i.e. y = fold(Wᵀ · x) + b.

    input (N, C_in, H, W) (or (C_in, H, W)), weight (C_in, C_out/groups, kh, kw), bias (C_out,)
    -> (N, C_out, H_out, W_out), H_out = (H-1)·s - 2p + d·(kh-1) + output_padding + 1.
    ``output_padding`` (< stride or dilation) adds rows/columns at the bottom/right to pick
    among the input sizes a strided conv2d maps to the same output size.
    """
    op = "conv_transpose2d"
    x, weight = as_tensor(input), as_tensor(weight)
    bias = None if bias is None else as_tensor(bias)

    def run(x):
        _check_conv(op, x, weight, bias, groups, 2, transposed=True)
        kernel = weight.shape[2:]
        st = pair(stride, 2, "stride", op)
        dil = pair(dilation, 2, "dilation", op)
        pads = pair(padding, 2, "padding", op)
        extra = pair(output_padding, 2, "output_padding", op)
        if any(v < 1 for v in st + dil) or any(p < 0 for p in pads):
            raise ValueError(f"{op}: stride and dilation must be positive and padding "
                             f"non-negative, got stride {stride!r}, dilation {dilation!r}, "
                             f"padding {padding!r}")
        if any(not 0 <= e < max(s, d) for e, s, d in zip(extra, st, dil)):
            raise ValueError(f"{op}: output_padding {extra} must be smaller than either the "
                             f"stride {st} or the dilation {dil} (and non-negative)")
        size = tuple((n - 1) * s - 2 * p + d * (k - 1) + e + 1
                     for n, s, p, d, k, e in zip(x.shape[2:], st, pads, dil, kernel, extra))
        if any(n <= 0 for n in size):
            raise ValueError(f"{op}: output size {size} would be empty for input size "
                             f"{x.shape[2:]}, kernel_size {kernel}, stride {st}, padding "
                             f"{pads}, dilation {dil} and output_padding {extra}; use less "
                             f"padding")
        # the windows are the input's pixels (output_padding adds rows no window covers)
        win = Window(size, kernel, st, tuple((p, p) for p in pads), dil, x.shape[2:])
        args = (x, weight) if bias is None else (x, weight, bias)
        return ConvTranspose2d.apply(*args, win=win, groups=int(groups))

    return batched(x, 2, run)


def _window_args(op, x, kernel_size, dilation, padding, stride, size=None):
    kernel = pair(kernel_size, 2, "kernel_size", op)
    st = pair(stride, 2, "stride", op)
    dil = pair(dilation, 2, "dilation", op)
    pads = pair(padding, 2, "padding", op)
    if any(v < 1 for v in kernel + st + dil) or any(p < 0 for p in pads):
        raise ValueError(f"{op}: kernel_size, stride and dilation must be positive and "
                         f"padding non-negative, got kernel_size {kernel_size!r}, stride "
                         f"{stride!r}, dilation {dilation!r}, padding {padding!r}")
    return window(op, size or x.shape[2:], kernel, st, tuple((p, p) for p in pads), dil)


def unfold(input, kernel_size, dilation=1, padding=0, stride=1):
    """Extract sliding windows (im2col):
    out[n, (c, i, j), (h, w)] = x_pad[n, c, h·s_h + i·d_h, w·s_w + j·d_w].

    input (N, C, H, W) -> (N, C·kh·kw, L) with L = H_out·W_out window positions.
    """
    x = as_tensor(input)
    if x.ndim != 4:
        raise ValueError(f"unfold: expected an input of shape (N, C, H, W), got {x.shape}")
    win = _window_args("unfold", x, kernel_size, dilation, padding, stride)
    cols = Unfold.apply(x, win=win)
    return cols.reshape((x.shape[0], -1, win.out[0] * win.out[1]))


def fold(input, output_size, kernel_size, dilation=1, padding=0, stride=1):
    """Sum sliding windows back into an image (col2im), the adjoint of ``unfold``:
    out[n, c, p, q] = Σ of the column entries (c, i, j) at positions reading pixel (p, q).

    input (N, C·kh·kw, L) -> (N, C, H, W) with (H, W) = ``output_size``.
    """
    cols = as_tensor(input)
    op = "fold"
    size = pair(output_size, 2, "output_size", op)
    win = _window_args(op, None, kernel_size, dilation, padding, stride, size=size)
    k = win.kernel[0] * win.kernel[1]
    L = win.out[0] * win.out[1]
    if cols.ndim != 3 or cols.shape[1] % k or cols.shape[2] != L:
        raise ValueError(f"fold: expected an input of shape (N, C·{k}, {L}) for kernel_size "
                         f"{win.kernel} and output_size {size} ({win.out[0]}x{win.out[1]} "
                         f"window positions), got {cols.shape}")
    cols = cols.reshape((cols.shape[0], cols.shape[1] // k) + win.kernel + win.out)
    return Fold.apply(cols, win=win)
