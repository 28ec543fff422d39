"""The 8x8 handwritten digits (1797 images, 10 classes), from scikit-learn's bundled copy."""
import numpy as np

from dagrad.autograd.extras import missing_extra


def load_digits():
    """(X, y): X float32 of shape (1797, 64), pixel intensities scaled from 0..16 to [0, 1];
    y int64 of shape (1797,), the digit 0..9. Works offline: the data ship with scikit-learn.
    Each row of X is an 8x8 image flattened row by row (``X.reshape(-1, 8, 8)`` gives images).
    """
    try:
        from sklearn.datasets import load_digits as sklearn_load_digits
    except ImportError:
        raise missing_extra("nn.datasets.load_digits (scikit-learn ships the digits data)",
                            "scikit-learn") from None
    data = sklearn_load_digits()
    X = (np.asarray(data.data, dtype=np.float32) / np.float32(16.0))
    y = np.asarray(data.target, dtype=np.int64)
    return X, y
