"""Speed and memory benchmarks against PyTorch (CPU) and hand-written NumPy.

Each workload module runs as ``python -m benchmarks.<name>``; see ``benchmarks.common``.
"""
