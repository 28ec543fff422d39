"""Complexity tests: how a cost grows with the work, asserted as a ratio, never as a time.

``growth(make, run, n)`` times ``run(make(n))`` and ``run(make(10 n))`` and returns the growth
exponent k = log(t_10n / t_n) / log 10: 1 for a linear cost, 2 for a quadratic one. Only the
ratio of two times taken in one process is used, so a slow or busy machine moves both and k
stays put. Each size is set up once (``make``, untimed) and timed a few times, alternating the
sizes; the minimum CPU time of each is kept (the run least disturbed by other processes).
"""
import gc
import math
import time

LINEAR = 1.3          # the bound the tests assert: k <= 1.3 between n and 10n


def growth(make, run, n, factor=10, repeats=3):
    """The growth exponent of ``run``'s CPU time between sizes ``n`` and ``factor * n``."""
    small, large = make(n), make(factor * n)
    best = [math.inf, math.inf]
    for _ in range(repeats):
        for i, arg in enumerate((small, large)):
            gc.collect()
            start = time.process_time()
            run(arg)
            best[i] = min(best[i], time.process_time() - start)
    return math.log(best[1] / best[0]) / math.log(factor)
