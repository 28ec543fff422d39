"""What every engine's first step must reproduce, computed in NumPy (float64)."""
import numpy as np

from benchmarks import mlp_step, overhead
from benchmarks.lstm_cell_step import first_loss as lstm_cell_loss  # noqa: F401 (re-exported)

CHAIN_LENGTH = 100_000      # W6 for the other engines (see benchmarks.others)
CHAIN_FACTOR = 1.0000001


def chain_value():
    """W1: the 100-op chain's value at x = 0.5."""
    y = np.float64(0.5)
    for _ in range(overhead.LINKS):
        y = np.tanh((y + 1.0) * 0.5)
    return float(y)


def mlp_loss():
    """W2: the cross-entropy of the MLP's first step."""
    layers, x, y = mlp_step._problem()
    a = x.astype(np.float64)
    for k, (w, b) in enumerate(layers):
        a = a @ w.T.astype(np.float64) + b
        if k < len(layers) - 1:
            a = np.maximum(a, 0)
    a = a - a.max(axis=1, keepdims=True)
    log_p = a - np.log(np.exp(a).sum(axis=1, keepdims=True))
    return float(-log_p[np.arange(len(y)), y].mean())


def check(workload, got, expected, rtol=1e-4):
    """Raise unless the engine's first value matches NumPy's: the workloads are the same."""
    if not np.isclose(float(got), expected, rtol=rtol):
        raise RuntimeError(f"{workload}: the engine computes {float(got)}, NumPy {expected}; "
                           f"the workload differs")
