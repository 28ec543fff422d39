"""The 8x8 handwritten digits (1797 images, 10 classes), from scikit-learn's bundled copy."""
import gzip
import importlib.util
import pathlib

import numpy as np

from dagrad.autograd.extras import missing_extra

SHAPE = (1797, 65)            # 64 pixels and the label per row


def load_digits():
    """(X, y): X float32 of shape (1797, 64), pixel intensities scaled from 0..16 to [0, 1];
    y int64 of shape (1797,), the digit 0..9. Works offline: the data ship with scikit-learn.
    Each row of X is an 8x8 image flattened row by row (``X.reshape(-1, 8, 8)`` gives images).

    The file is read where scikit-learn keeps it, without importing scikit-learn: its import
    takes 1-2 s, reading the file 16 ms, and every lesson on the digits starts with this call.
    """
    path = _bundled_file()
    table = None
    if path is not None:
        with gzip.open(path, "rt") as f:
            table = np.loadtxt(f, delimiter=",", dtype=np.float32)
    if table is None or table.shape != SHAPE:       # a scikit-learn that keeps it elsewhere
        table = _through_scikit_learn()
    X = table[:, :-1] / np.float32(16.0)
    y = table[:, -1].astype(np.int64)
    return X, y


def _bundled_file():
    """scikit-learn's ``datasets/data/digits.csv.gz``, or None when scikit-learn keeps it
    elsewhere; raises ImportError (naming the extra) when scikit-learn is not installed."""
    try:
        spec = importlib.util.find_spec("sklearn")
    except (ImportError, ValueError):
        spec = None
    if spec is None:
        raise _missing()
    for folder in spec.submodule_search_locations or ():
        path = pathlib.Path(folder) / "datasets" / "data" / "digits.csv.gz"
        if path.is_file():
            return path
    return None


def _through_scikit_learn():
    """The table (1797, 65) as scikit-learn's own loader gives it."""
    try:
        from sklearn.datasets import load_digits as sklearn_load_digits
    except ImportError:
        raise _missing() from None
    data = sklearn_load_digits()
    return np.column_stack([data.data, data.target]).astype(np.float32)


def _missing():
    return missing_extra("nn.datasets.load_digits (scikit-learn ships the digits data)",
                         "scikit-learn")
