"""Complexity tests: a path that takes n things is timed at n and at 10n in one test, and the
test asserts the ratio of the two times, never a time. The growth exponent
k = log(t(10n) / t(n)) / log(10) is 1 for a linear path and 2 for a quadratic one; k <= 1.3
leaves room for a noisy shared machine and still fails a quadratic step. Times are the
process's CPU time (other processes do not count), the minimum of a few runs, with Python's
garbage collector paused as ``timeit`` pauses it: its full passes start when the heap has grown
by a quarter, so a run making 10x the objects pays passes a small one does not, a step in the
measure that is CPython's, not the path's."""
import gc
import math
import time


def growth_exponent(prepare, n, factor=10, repeats=(5, 2)):
    """k for the work ``prepare(m)`` returns (a callable taking no argument, run ``repeats``
    times, 5 at n and 2 at factor·n; what ``prepare`` itself does is not timed), at m = n and
    m = factor·n; also returns the two times."""
    times = []
    for m, runs in zip((n, factor * n), repeats):
        work, best = prepare(m), math.inf
        gc.collect()
        gc.disable()
        try:
            for _ in range(runs):
                start = time.process_time()
                work()
                best = min(best, time.process_time() - start)
        finally:
            gc.enable()
        del work
        times.append(max(best, 1e-6))
    return math.log(times[1] / times[0]) / math.log(factor), times


def assert_linear(prepare, n, what, factor=10, limit=1.3):
    """Fail when ``prepare(m)``'s work grows faster than m^limit between n and factor·n."""
    k, (small, big) = growth_exponent(prepare, n, factor)
    assert k <= limit, (f"{what}: {small * 1e3:.1f} ms at n = {n:,}, {big * 1e3:.1f} ms at "
                        f"{factor * n:,}: growth exponent {k:.2f} (1 linear, 2 quadratic)")
