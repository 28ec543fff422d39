"""Two-dimensional test functions and a helper that records an optimizer's path on them.

For the optimizer lesson: run SGD, momentum, RMSprop, Adam ... from the same start on the
same surface and plot the returned trajectories over a contour plot of the function.  The
functions use only arithmetic operators, so they take autograd Tensors (for the gradients),
NumPy arrays (e.g. a meshgrid for the contour plot) and floats alike.
"""
import numbers

import numpy as np

from dagrad import autograd as ag

from .optimizer import Optimizer


def rosenbrock(x, y, a=1.0, b=100.0):
    """Rosenbrock's banana function f(x, y) = (a - x)² + b (y - x²)².

    A curved, flat-bottomed valley; the minimum f = 0 is at (a, a²) = (1, 1) by default.
    x, y: Tensors, arrays (same or broadcastable shapes) or floats; returns the same kind.
    """
    return (a - x) ** 2 + b * (y - x ** 2) ** 2


def narrow_valley(x, y):
    """An ill-conditioned quadratic f(x, y) = 0.1 x² + 2 y² (condition number 20).

    Minimum f = 0 at (0, 0).  Gradient descent zig-zags across the steep y direction while
    crawling along the shallow x direction, which momentum and adaptive methods fix.
    x, y: Tensors, arrays or floats; returns the same kind.
    """
    return 0.1 * x ** 2 + 2 * y ** 2


def run_trajectory(make_optimizer, fn, start, steps):
    """Run an optimizer on a 2-D function and return the points it visits.

    Args:
        make_optimizer: callable taking the list ``[x, y]`` of two scalar float64 Tensors and
            returning an ``Optimizer`` over them, e.g.
            ``lambda params: optim.SGD(params, lr=0.1, momentum=0.9)``.
        fn: the objective ``fn(x, y) -> scalar Tensor``, e.g. ``rosenbrock``.
        start: the starting point ``(x0, y0)``.
        steps: number of optimizer steps (>= 0).

    Returns:
        float64 ndarray of shape (steps + 1, 2): row 0 is ``start``, row k the point after
        k steps.
    """
    start = np.asarray(start, dtype=np.float64)
    if start.shape != (2,):
        raise ValueError(f"run_trajectory: start must be a point (x0, y0), got shape "
                         f"{tuple(start.shape)}")
    if isinstance(steps, bool) or not isinstance(steps, numbers.Integral) or steps < 0:
        raise ValueError(f"run_trajectory: steps must be an integer >= 0, got {steps!r}")
    x = ag.tensor(start[0], requires_grad=True)
    y = ag.tensor(start[1], requires_grad=True)
    optimizer = make_optimizer([x, y])
    if not isinstance(optimizer, Optimizer):
        raise TypeError(f"run_trajectory: make_optimizer must return an optim.Optimizer, got "
                        f"{type(optimizer).__name__}")
    path = np.empty((steps + 1, 2))
    path[0] = start
    for k in range(1, steps + 1):
        optimizer.zero_grad()
        fn(x, y).backward()
        optimizer.step()
        path[k] = x._data, y._data
    return path
