"""Convolution, unfold and fold (stateless forms, PyTorch's arguments). Each checks and
normalises its arguments (ints or pairs, ``padding="same"``, unbatched inputs, conv1d as a
conv2d of height 1), then calls one operation of ``autograd.ops.conv`` (im2col, one matrix
product, col2im; the formulas are there). Layout NCHW; weights (C_out, C_in/groups, kh, kw)
as PyTorch. Pooling and resampling are in ``nn.functional.pooling``."""
import functools

import numpy as np

from dagrad.autograd import as_tensor
from dagrad.autograd.ops.conv import Conv2d, ConvTranspose2d, Fold, Unfold, Window, window

__all__ = ["conv1d", "conv2d", "conv_transpose2d", "fold", "unfold"]


def pair(value, n, name, op):
    """An int or a sequence of ``n`` ints -> a tuple of ``n`` ints."""
    items = tuple(value) if isinstance(value, (tuple, list)) else (value,) * n
    if len(items) != n or not all(isinstance(v, (int, np.integer)) for v in items):
        raise TypeError(f"{op}: {name} must be an int or a tuple of {n} ints, got {value!r}")
    return tuple(int(v) for v in items)


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
    """Check the ranks, channel counts, groups and dtypes of a (transposed) convolution (of
    Tensors ``x``, ``weight``, ``bias``; read through their arrays, as every layer call checks)."""
    xs, ws = x._data.shape, weight._data.shape
    layout = "(N, C, L)" if spatial == 1 else "(N, C, H, W)"
    if len(xs) != spatial + 2:
        raise ValueError(f"{op}: expected an input of shape {layout}, got shape {xs}")
    if len(ws) != spatial + 2:
        which = "(C_in, C_out/groups, " if transposed else "(C_out, C_in/groups, "
        raise ValueError(f"{op}: expected a weight of shape {which}"
                         f"{'k' if spatial == 1 else 'kh, kw'}), got shape {ws}")
    if not isinstance(groups, (int, np.integer)) or groups < 1:
        raise ValueError(f"{op}: groups must be a positive int, got {groups!r}")
    c = xs[1]
    if transposed:
        c_out = ws[1] * groups
        if ws[0] != c or c % groups:
            raise ValueError(
                f"{op}: input of shape {xs} has {c} channels but the weight of shape "
                f"{ws} expects {ws[0]} (weight is (C_in, C_out/groups, "
                f"...)), and C_in must be divisible by groups={groups}")
    else:
        c_out = ws[0]
        if ws[1] * groups != c or c_out % groups:
            raise ValueError(
                f"{op}: input of shape {xs} has {c} channels but the weight of shape "
                f"{ws} with groups={groups} expects {ws[1] * groups} "
                f"(C_in/groups = {ws[1]}); C_out={c_out} must also be divisible "
                f"by groups")
    dtype = x._data.dtype
    if bias is not None and bias._data.shape != (c_out,):
        raise ValueError(f"{op}: bias must have shape ({c_out},), got {bias._data.shape}")
    if weight._data.dtype != dtype or (bias is not None and bias._data.dtype != dtype):
        dtypes = dict.fromkeys(t._data.dtype for t in (x, weight, bias) if t is not None)
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


def checked_once(compute):
    """``compute(op, size, *arguments)`` (a window, its arguments checked) computed once per
    spatial ``size`` and arguments: a layer calls with the same ones at every step, and a cache
    hit, keys included, costs ~1.3 µs where checking the arguments again costs ~7. Arguments
    that cannot be keys (``cache_key``) are checked at every call."""
    cached = functools.lru_cache(maxsize=256)(compute)

    @functools.wraps(compute)
    def window_of(op, size, *arguments):
        keys = tuple([cache_key(a) for a in arguments])
        if UNCACHED in keys:
            return compute(op, size, *arguments)
        return cached(op, size, *keys)
    return window_of


def cache_key(value):
    """An argument as a cache key: an int, bool, string or None as it is, a tuple or list of
    ints as a tuple; ``UNCACHED`` for anything else (a float 1.0 would otherwise find the entry
    of 1 and pass)."""
    kind = type(value)
    if kind is int or kind is bool or kind is str or value is None:
        return value
    if (kind is tuple or kind is list) and all(type(v) is int for v in value):
        return tuple(value)
    return UNCACHED


UNCACHED = object()


@checked_once
def conv_window(op, size, kernel, stride, padding, dilation, spatial):
    """The ``Window`` of a convolution of an image of spatial ``size``, its arguments checked."""
    st = pair(stride, spatial, "stride", op)
    dil = pair(dilation, spatial, "dilation", op)
    if any(v < 1 for v in st + dil):
        raise ValueError(f"{op}: stride and dilation must be positive, got stride "
                         f"{stride!r} and dilation {dilation!r}")
    pads = conv_padding(op, padding, kernel, st, dil)
    win = window(op, size, kernel, st, pads, dil)
    if spatial == 1:    # a signal of length L is an image of size 1 x L
        win = Window(*(((0, 0),) + f if k == 3 else (1,) + f for k, f in enumerate(win)))
    return win


def _conv(op, x, weight, bias, stride, padding, dilation, groups, spatial):
    x, weight = as_tensor(x), as_tensor(weight)
    bias = None if bias is None else as_tensor(bias)

    def run(x):
        _check_conv(op, x, weight, bias, groups, spatial, transposed=False)
        win = conv_window(op, x._data.shape[2:], weight._data.shape[2:], stride, padding,
                          dilation, spatial)
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
                             f"{tuple(x.shape[2:])}, kernel_size "
                             f"{tuple(kernel)}, stride {st}, padding "
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
        raise ValueError(f"unfold: expected an input of shape (N, C, H, W), got {tuple(x.shape)}")
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
                         f"window positions), got {tuple(cols.shape)}")
    cols = cols.reshape((cols.shape[0], cols.shape[1] // k) + win.kernel + win.out)
    return Fold.apply(cols, win=win)
