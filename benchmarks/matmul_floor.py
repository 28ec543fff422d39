"""The matrix products of a training step alone, in NumPy and in PyTorch: the floor under any
NumPy engine.

For each workload this runs exactly the products one training step makes (same shapes, same
transposes, float32, 2 threads) and nothing else, NumPy (OpenBLAS) in one process and PyTorch
(MKL / oneDNN) in another, alternated. If NumPy's products alone take longer than the target
allows for the whole PyTorch step, no NumPy engine can meet that target.

    python -m benchmarks.matmul_floor            # W2 and W4
"""
import os
import statistics
import sys

import numpy as np

from benchmarks.common import run_worker, time_step

# (rows, inner, cols, a_transposed, b_transposed, repeats): C = op(A) op(B), C (rows, cols)
PRODUCTS = {
    "W2": [  # MLP 784-512-512-10, batch 128: 3 products forward, 5 backward
        (128, 784, 512, False, True, 1), (128, 512, 512, False, True, 1),
        (128, 512, 10, False, True, 1),
        (10, 128, 512, True, False, 1), (128, 10, 512, False, False, 1),
        (512, 128, 512, True, False, 1), (128, 512, 512, False, False, 1),
        (512, 128, 784, True, False, 1),
    ],
    "W4": [  # LSTM input 64, hidden 256, 32 steps of batch 32
        (1024, 64, 1024, False, True, 1),        # input projections of all steps
        (32, 256, 1024, False, False, 32),       # h Wₕₕᵀ per step (Wₕₕᵀ made contiguous)
        (32, 1024, 256, False, False, 32),       # dL/dh = dA Wₕₕ per step
        (1024, 1024, 256, True, False, 1),       # dL/dWₕₕ over all steps
        (1024, 1024, 64, True, False, 1),        # dL/dWᵢₕ over all steps
    ],
}
TITLES = {"W2": "MLP 784-512-512-10 step, batch 128", "W4": "LSTM step, hidden 256, seq 32"}
ENV = "DAGRAD_MATMUL_FLOOR_WORKLOAD"


def _operands(workload):
    rng = np.random.default_rng(0)
    operands = []
    for rows, inner, cols, ta, tb, repeats in PRODUCTS[workload]:
        a = rng.standard_normal((inner, rows) if ta else (rows, inner)).astype(np.float32)
        b = rng.standard_normal((cols, inner) if tb else (inner, cols)).astype(np.float32)
        operands.append((a, b, ta, tb, repeats))
    return operands


def _step(operands):
    def step():
        for a, b, ta, tb, repeats in operands:
            left, right = (a.T if ta else a), (b.T if tb else b)
            for _ in range(repeats):
                left @ right
    return step


def setup_numpy(workload):
    return _step(_operands(workload))


def setup_torch(workload):
    import torch
    return _step([(torch.from_numpy(a), torch.from_numpy(b), ta, tb, r)
                  for a, b, ta, tb, r in _operands(workload)])


def _worker(name):
    if name == "torch":
        import torch
        torch.set_num_threads(2)
    setup = setup_torch if name == "torch" else setup_numpy
    print('{"seconds": %r}' % time_step(setup(os.environ[ENV])))


def measure(workload, rounds=5):
    """Median milliseconds of ``workload``'s products: (NumPy, PyTorch), alternated."""
    times = {"numpy": [], "torch": []}
    for _ in range(rounds):
        for name in times:
            result = run_worker("benchmarks.matmul_floor", name, {ENV: workload})
            times[name].append(1e3 * result["seconds"])
    return statistics.median(times["numpy"]), statistics.median(times["torch"])


def main():
    for workload in PRODUCTS:
        numpy_ms, torch_ms = measure(workload)
        print(f"{workload} {TITLES[workload]}: products alone, NumPy {numpy_ms:.3f} ms, "
              f"PyTorch {torch_ms:.3f} ms, ratio {numpy_ms / torch_ms:.2f}x")


if __name__ == "__main__":
    if sys.argv[1:2] == ["--worker"]:
        _worker(sys.argv[2])
    else:
        main()
