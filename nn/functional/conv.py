"""Convolution, pooling and resampling (stateless forms). Each is one autograd operation (or a
short composition) from ``autograd.ops.conv`` / ``autograd.ops.pool``; the formulas and shapes
are in their docstrings. Layout NCHW; weights (C_out, C_in/groups, kh, kw) as PyTorch."""
from dagrad.autograd.ops.conv import conv1d, conv2d, conv_transpose2d, fold, unfold
from dagrad.autograd.ops.pool import adaptive_avg_pool2d, avg_pool2d, interpolate, max_pool2d

__all__ = ["conv1d", "conv2d", "conv_transpose2d", "fold", "unfold", "adaptive_avg_pool2d",
           "avg_pool2d", "interpolate", "max_pool2d"]
