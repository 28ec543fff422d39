"""Keep freed array memory in the process between training steps (Linux with glibc only).

A training step allocates its activations and gradients, frees them all after backward, and
allocates the same sizes again in the next step. By default glibc gives freed memory back to
the operating system as soon as 128 KiB sit free at the top of the heap, and serves large
arrays from fresh ``mmap`` regions, so every step's arrays start as untouched pages that fault
in one 4 KiB page at a time on first write: an LSTM or LeNet training step spent a fifth to a
third of its time there. ``keep_freed_memory()`` raises both thresholds (arrays up to 32 MiB
come from the heap, up to 256 MiB of free heap is kept), as PyTorch's caching allocator keeps
its blocks.

It changes the whole process's allocator, so importing dagrad never calls it: a program opts in
with ``ag.keep_freed_memory()``. ``nn.training.fit``, ``python -m dagrad.viz demo`` and the
benchmarks call it; the environment variable ``DAGRAD_KEEP_FREED_MEMORY=0`` turns every call
into a no-op (the benchmarks use it to show the gain: ``python -m benchmarks --malloc``).
"""
import ctypes
import os
import platform

M_TRIM_THRESHOLD = -1       # mallopt parameters, from glibc's malloc.h
M_MMAP_THRESHOLD = -3
TRIM_BYTES = 256 << 20
MMAP_BYTES = 32 << 20


def keep_freed_memory():
    """Set glibc's trim and mmap thresholds (see the module docstring). Returns True if they
    were set, False where this is not Linux/glibc or the environment variable says no."""
    if os.environ.get("DAGRAD_KEEP_FREED_MEMORY", "1") == "0":
        return False
    if platform.system() != "Linux" or platform.libc_ver()[0] != "glibc":
        return False
    try:
        mallopt = ctypes.CDLL(None).mallopt
    except (OSError, AttributeError):
        return False
    mallopt.argtypes = [ctypes.c_int, ctypes.c_int]
    return bool(mallopt(M_MMAP_THRESHOLD, MMAP_BYTES)) and bool(
        mallopt(M_TRIM_THRESHOLD, TRIM_BYTES))
