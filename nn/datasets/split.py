"""A reproducible train/test split."""
import numpy as np


def train_test_split(*arrays, test_size=0.2, seed=0):
    """Shuffle the rows (same permutation for every array, from ``seed``) and split off the
    last ``test_size`` fraction (or that many rows, if an int) as the test set.

    Returns ``train_0, test_0, train_1, test_1, ...`` (scikit-learn's order), e.g.
    ``X_train, X_test, y_train, y_test = train_test_split(X, y)``.
    """
    if not arrays:
        raise ValueError("train_test_split: give at least one array")
    n = len(arrays[0])
    if any(len(a) != n for a in arrays):
        raise ValueError(f"train_test_split: arrays have different lengths "
                         f"{[len(a) for a in arrays]}")
    n_test = int(test_size) if isinstance(test_size, (int, np.integer)) \
        else int(round(n * float(test_size)))
    if not 0 < n_test < n:
        raise ValueError(f"train_test_split: test_size={test_size!r} leaves {n_test} of {n} "
                         f"rows for testing; it must leave at least one row on each side")
    order = np.random.default_rng(seed).permutation(n)
    train, test = order[:n - n_test], order[n - n_test:]
    out = []
    for a in arrays:
        a = np.asarray(a)
        out += [a[train], a[test]]
    return out
