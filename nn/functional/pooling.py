"""Pooling and resampling of images (stateless forms, PyTorch's arguments).

    max pool:  y = max over the window            (one operation, ``autograd.ops.pool``)
    avg pool:  y = (Σ over the window) / divisor   (composed: unfold, sum, divide)

Adaptive average pooling and interpolation are *separable linear maps*: along each spatial axis
every output is a fixed weighted sum of inputs, y = A_h · x · A_wᵀ with a constant matrix per
axis (averages over PyTorch's adaptive bins; 0/1 picks for nearest; two weights for linear). They
are composed from matrix products, so their gradients (y = A x  ⇒  dL/dx = Aᵀ g) need no code.
"""
import math

import numpy as np

from dagrad.autograd import as_tensor
from dagrad.autograd.tensor import make_tensor
from dagrad.autograd.ops.conv import Unfold, unfold_copy, window
from dagrad.autograd.ops.pool import MaxPool2d, flat_windows

from .conv import batched, checked_once, pair

__all__ = ["adaptive_avg_pool2d", "avg_pool1d", "avg_pool2d", "interpolate", "max_pool1d",
           "max_pool2d"]


def _pool_window(op, x, kernel_size, stride, padding, dilation, ceil_mode):
    """The ``Window`` of a pooling; ``stride`` defaults to ``kernel_size`` (as PyTorch)."""
    if x.ndim != 4:
        raise ValueError(f"{op}: expected an input of shape (N, C, H, W) or (C, H, W), got "
                         f"shape {tuple(x.shape)}")
    return pool_window(op, x._data.shape[2:], kernel_size, stride, padding, dilation, ceil_mode)


@checked_once
def pool_window(op, size, kernel_size, stride, padding, dilation, ceil_mode):
    """The ``Window`` of a pooling of an image of spatial ``size``, its arguments checked."""
    kernel = pair(kernel_size, 2, "kernel_size", op)
    st = kernel if stride is None or stride == () or stride == [] else pair(
        stride, 2, "stride", op)
    pads = pair(padding, 2, "padding", op)
    dil = pair(dilation, 2, "dilation", op)
    if any(v < 1 for v in kernel + st + dil):
        raise ValueError(f"{op}: kernel_size, stride and dilation must be positive, got "
                         f"kernel_size {kernel_size!r}, stride {stride!r}, dilation "
                         f"{dilation!r}")
    if any(not 0 <= p <= k // 2 for p, k in zip(pads, kernel)):
        raise ValueError(f"{op}: padding {pads} must be non-negative and at most half of "
                         f"kernel_size {kernel}")
    return window(op, size, kernel, st, tuple((p, p) for p in pads), dil, ceil_mode)


def max_pool2d(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False,
               return_indices=False):
    """Max pooling: y[n, c, h, w] = max_(i,j) x_pad[n, c, h·s_h + i·d_h, w·s_w + j·d_w].

    input (N, C, H, W) (or (C, H, W)) -> (N, C, H_out, W_out) with
    H_out = ⌊(H + 2p - d·(k-1) - 1)/s⌋ + 1 (⌈⌉ with ``ceil_mode``); ``stride`` defaults to
    ``kernel_size``; padding (≤ k/2) counts as -inf. With ``return_indices`` also returns the
    position of each maximum in the flattened H·W plane of the input (int64), as PyTorch.
    """
    x = as_tensor(input)

    def run(x):
        win = _pool_window("max_pool2d", x, kernel_size, stride, padding, dilation, ceil_mode)
        out = MaxPool2d.apply(x, win=win)
        if not return_indices:
            return out
        return out, _argmax_positions(x, win)

    return batched(x, 2, run)


def _argmax_positions(x, win):
    """Index into the flattened input plane (row·W + column) of every window's first maximum."""
    k = np.argmax(flat_windows(unfold_copy(x._data, win, -np.inf), win), axis=2)
    kw, (sh, sw), (dh, dw) = win.kernel[1], win.stride, win.dilation
    (pt, _), (pl, _) = win.padding
    rows = np.arange(win.out[0]).reshape(-1, 1) * sh + (k // kw) * dh - pt
    cols = np.arange(win.out[1]) * sw + (k % kw) * dw - pl
    return make_tensor((rows * x.shape[3] + cols).astype(np.int64), None)


def avg_pool2d(input, kernel_size, stride=None, padding=0, ceil_mode=False,
               count_include_pad=True, divisor_override=None):
    """Average pooling: y[n, c, h, w] = Σ_(i,j) x_pad[n, c, h·s_h + i, w·s_w + j] / divisor.

    input (N, C, H, W) (or (C, H, W)) -> (N, C, H_out, W_out), sizes as ``max_pool2d``. The
    divisor is the window size (``count_include_pad=True``: the part inside the padded input),
    the number of real pixels in it (``False``), or ``divisor_override``. Composed from unfold,
    sum and a division, so its gradient (g / divisor, spread over each window) comes for free.
    """
    x = as_tensor(input)

    def run(x):
        win = _pool_window("avg_pool2d", x, kernel_size, stride, padding, 1, ceil_mode)
        total = flat_windows(Unfold.apply(x, win=win), win).sum(axis=2)
        if divisor_override:
            return total / float(divisor_override)
        return total / _divisor(win, count_include_pad, x.dtype)

    return batched(x, 2, run)


def _divisor(win, count_include_pad, dtype):
    """Per output pixel, the number of pixels averaged (PyTorch's rule, per axis then outer
    product): the window clipped to the padded input, or to the input itself."""
    counts = []
    for n, k, s, (p, _), m in zip(win.size, win.kernel, win.stride, win.padding, win.out):
        start = np.arange(m) * s - p
        end = np.minimum(start + k, n + p)
        if not count_include_pad:
            start, end = np.maximum(start, 0), np.minimum(end, n)
        counts.append(end - start)
    return np.outer(*counts).astype(dtype)


def _single(value, name, op):
    """An int or a one-int sequence -> the int (PyTorch's ``_single``)."""
    return pair(value, 1, name, op)[0]


def _as_image(x, op):
    """A signal (N, C, L) or (C, L) as an image of height 1, (N, C, 1, L) or (C, 1, L)."""
    if x.ndim not in (2, 3):
        raise ValueError(f"{op}: expected an input of shape (N, C, L) or (C, L), got shape "
                         f"{x.shape}")
    return x.unsqueeze(-2)


def max_pool1d(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False,
               return_indices=False):
    """Max pooling of signals: y[n, c, l] = max_i x_pad[n, c, l·s + i·d].

    input (N, C, L) (or (C, L)) -> (N, C, L_out), L_out = ⌊(L + 2p - d·(k-1) - 1)/s⌋ + 1;
    a signal is pooled as an image of height 1 (``max_pool2d`` with a 1 x k window), so the
    gradient goes to each window's maximum. ``return_indices`` gives each maximum's position
    along L."""
    op = "max_pool1d"
    k = _single(kernel_size, "kernel_size", op)
    st = None if stride is None or stride == () or stride == [] else (
        1, _single(stride, "stride", op))
    out = max_pool2d(_as_image(as_tensor(input), op), (1, k), st,
                     (0, _single(padding, "padding", op)), (1, _single(dilation, "dilation", op)),
                     ceil_mode, return_indices)
    if return_indices:
        return out[0].squeeze(-2), out[1].squeeze(-2)
    return out.squeeze(-2)


def avg_pool1d(input, kernel_size, stride=None, padding=0, ceil_mode=False,
               count_include_pad=True):
    """Average pooling of signals: y[n, c, l] = Σ_i x_pad[n, c, l·s + i] / divisor.

    input (N, C, L) (or (C, L)) -> (N, C, L_out), sizes and divisor as ``avg_pool2d`` on an
    image of height 1."""
    op = "avg_pool1d"
    k = _single(kernel_size, "kernel_size", op)
    st = None if stride is None or stride == () or stride == [] else (
        1, _single(stride, "stride", op))
    out = avg_pool2d(_as_image(as_tensor(input), op), (1, k), st,
                     (0, _single(padding, "padding", op)), ceil_mode, count_include_pad)
    return out.squeeze(-2)


def adaptive_avg_pool2d(input, output_size):
    """Adaptive average pooling to a fixed output size (H_out, W_out): output row i averages
    input rows ⌊i·H/H_out⌋ .. ⌈(i+1)·H/H_out⌉ - 1 (likewise for columns), i.e.
    y = A_h · x · A_wᵀ with A[i, r] = 1/(bin size) for r in bin i.

    input (N, C, H, W) (or (C, H, W)) -> (N, C, H_out, W_out); ``output_size`` an int or a
    pair, None keeping that dimension's size.
    """
    x = as_tensor(input)

    def run(x):
        op = "adaptive_avg_pool2d"
        if x.ndim != 4:
            raise ValueError(f"{op}: expected an input of shape (N, C, H, W) or (C, H, W), "
                             f"got shape {tuple(x.shape)}")
        sizes = output_size if isinstance(output_size, (tuple, list)) else (output_size,) * 2
        sizes = tuple(n if m is None else m for n, m in zip(x.shape[2:], sizes))
        sizes = pair(sizes, 2, "output_size", op)
        if any(m < 1 for m in sizes):
            raise ValueError(f"{op}: output_size must be positive, got {output_size!r}")
        return _separable(x, [_adaptive_matrix(n, m, x.dtype)
                              for n, m in zip(x.shape[2:], sizes)])

    return batched(x, 2, run)


def _adaptive_matrix(n, m, dtype):
    """(m, n) averaging matrix of adaptive pooling from n to m (None when it is the identity)."""
    if n == m:
        return None
    i = np.arange(m)
    start, end = (i * n) // m, -(-((i + 1) * n) // m)
    r = np.arange(n)
    inside = (r >= start[:, None]) & (r < end[:, None])
    return (inside / (end - start)[:, None]).astype(dtype)


def _separable(x, mats):
    """Apply one matrix per spatial axis: x (N, C, *spatial) -> A_h · x · A_wᵀ (None skips)."""
    if mats[-1] is not None:
        x = x @ mats[-1].T
    if len(mats) == 2 and mats[0] is not None:
        x = mats[0] @ x
    return x


def interpolate(input, size=None, scale_factor=None, mode="nearest", align_corners=None):
    """Resample a signal (N, C, L) or an image (N, C, H, W) to ``size`` or by ``scale_factor``.

    Output size per axis: ``size``, or ⌊n · scale_factor⌋. With the source scale
    σ = 1/scale_factor (when given) or n/size:

    - ``"nearest"``: out[i] = in[min(⌊i·σ⌋, n-1)];
    - ``"linear"`` / ``"bilinear"``: out[i] = (1-λ)·in[i₀] + λ·in[i₀+1] at source position
      t = max((i + ½)·σ - ½, 0) (``align_corners=True``: t = i·(n-1)/(size-1)), i₀ = ⌊t⌋,
      λ = t - i₀.

    Each is y = A_h · x · A_wᵀ with constant matrices, so the gradient is Aᵀ applied to g.
    """
    op = "interpolate"
    x = as_tensor(input)
    spatial = x.ndim - 2
    linear = {1: "linear", 2: "bilinear"}.get(spatial)
    if spatial not in (1, 2):
        raise ValueError(f"{op}: expected an input of shape (N, C, L) or (N, C, H, W), got "
                         f"shape {tuple(x.shape)}")
    if mode not in ("nearest", linear):
        raise ValueError(f"{op}: mode {mode!r} is not supported for a {x.ndim}-d input; use "
                         f"'nearest' or '{linear}'")
    if align_corners is not None and mode == "nearest":
        raise ValueError(f"{op}: align_corners applies only to '{linear}' mode, not 'nearest'")
    if (size is None) == (scale_factor is None):
        raise ValueError(f"{op}: give exactly one of size and scale_factor")
    n_in = x.shape[2:]
    if size is not None:
        n_out = pair(size, spatial, "size", op)
        scales = [None] * spatial
    else:
        scales = (list(scale_factor) if isinstance(scale_factor, (tuple, list))
                  else [scale_factor] * spatial)
        if len(scales) != spatial or any(not s > 0 for s in scales):
            raise ValueError(f"{op}: scale_factor must be a positive number or {spatial} of "
                             f"them, got {scale_factor!r}")
        n_out = tuple(int(math.floor(n * float(s))) for n, s in zip(n_in, scales))
    if any(m < 1 for m in n_out):
        raise ValueError(f"{op}: output size {n_out} is empty for input size {n_in}")
    make = _nearest_matrix if mode == "nearest" else _linear_matrix
    return _separable(x, [make(n, m, s, bool(align_corners), x.dtype)
                          for n, m, s in zip(n_in, n_out, scales)])


def _source_scale(n, m, scale, dtype):
    """PyTorch's source step σ = 1/scale_factor (when given) or n/m, in the precision its
    kernels use."""
    return dtype.type(1.0 / scale) if scale else dtype.type(n) / dtype.type(m)


def _nearest_matrix(n, m, scale, align_corners, dtype):
    """(m, n) 0/1 matrix: output i copies input min(⌊i·σ⌋, n-1) (σ in float32, as PyTorch)."""
    if n == m:
        return None
    f32 = np.dtype(np.float32)
    src = np.minimum(np.floor(np.arange(m, dtype=f32) * _source_scale(n, m, scale, f32)),
                     n - 1).astype(np.int64)
    return (src[:, None] == np.arange(n)).astype(dtype)


def _linear_matrix(n, m, scale, align_corners, dtype):
    """(m, n) matrix of linear interpolation: weights 1-λ and λ on inputs i₀ and i₀+1."""
    dtype = np.dtype(dtype)
    i = np.arange(m, dtype=dtype)
    if align_corners:
        t = i * dtype.type((n - 1) / (m - 1) if m > 1 else 0.0)
    else:
        half = dtype.type(0.5)
        t = np.maximum((i + half) * _source_scale(n, m, scale, dtype) - half, 0)
    i0 = np.minimum(np.floor(t).astype(np.int64), n - 1)
    i1 = np.minimum(i0 + 1, n - 1)
    lam = (t - i0).astype(dtype)
    r = np.arange(n)
    return (r == i0[:, None]) * (1 - lam)[:, None] + (r == i1[:, None]) * lam[:, None]
