"""Synthetic data: linear regression (as in the d2l book), two moons, spirals."""
import numpy as np


def synthetic_data(w=(2.0, -3.4), b=4.2, num_examples=1000, noise=0.01, seed=None):
    """Linear-regression data as in Dive into Deep Learning:

        X ~ N(0, 1) of shape (num_examples, len(w)),   y = X w + b + ε,   ε ~ N(0, noise²)

    Returns (X, y) as float32 arrays, y of shape (num_examples, 1). The defaults are the book's
    w = [2, -3.4], b = 4.2, noise 0.01.
    """
    rng = np.random.default_rng(seed)
    w = np.asarray(w, dtype=np.float64).reshape(-1)
    X = rng.standard_normal((num_examples, len(w)))
    y = X @ w + b + rng.normal(0.0, noise, num_examples)
    return X.astype(np.float32), y.reshape(-1, 1).astype(np.float32)


def make_moons(n_samples=200, noise=0.1, seed=None):
    """Two interleaving half circles in 2-D (as scikit-learn's make_moons): class 0 on
    (cos t, sin t), class 1 on (1 - cos t, 1/2 - sin t), t ∈ [0, π], plus N(0, noise²) noise.
    Returns X float32 (n_samples, 2) and y int64 (n_samples,)."""
    rng = np.random.default_rng(seed)
    n_out = n_samples // 2
    n_in = n_samples - n_out
    t_out = np.linspace(0, np.pi, n_out)
    t_in = np.linspace(0, np.pi, n_in)
    X = np.concatenate([np.stack([np.cos(t_out), np.sin(t_out)], 1),
                        np.stack([1 - np.cos(t_in), 0.5 - np.sin(t_in)], 1)])
    y = np.concatenate([np.zeros(n_out, np.int64), np.ones(n_in, np.int64)])
    X = X + rng.normal(0.0, noise, X.shape)
    order = rng.permutation(n_samples)
    return X[order].astype(np.float32), y[order]


def make_spirals(n_samples=300, n_classes=3, noise=0.2, seed=None):
    """``n_classes`` interleaved spiral arms in 2-D (the CS231n toy problem), not linearly
    separable. Arm k: radius r ∈ [0, 1], angle θ = 4k + 4r + N(0, noise²), point
    r (sin θ, cos θ). ``n_samples`` in total, split evenly. Returns X float32 (n, 2) and
    y int64 (n,)."""
    rng = np.random.default_rng(seed)
    per = np.full(n_classes, n_samples // n_classes)
    per[: n_samples % n_classes] += 1
    xs, ys = [], []
    for k, m in enumerate(per):
        r = np.linspace(0.0, 1.0, m)
        theta = np.linspace(4.0 * k, 4.0 * (k + 1), m) + rng.normal(0.0, noise, m)
        xs.append(np.stack([r * np.sin(theta), r * np.cos(theta)], 1))
        ys.append(np.full(m, k, np.int64))
    X, y = np.concatenate(xs), np.concatenate(ys)
    order = rng.permutation(n_samples)
    return X[order].astype(np.float32), y[order]
