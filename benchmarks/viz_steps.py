"""viz.steps + viz.player on a 10,000-operation graph: seconds and peak memory (not a test).

    python -m benchmarks.viz_steps [--ops 10000]

The graph is a chain of tanh/mul/add operations on a 4-element tensor, built inside
viz.record(); the figure includes the one Graphviz layout the player makes.
"""
import argparse
import resource
import time

from dagrad import autograd as ag
from dagrad import viz


def chain(ops):
    x = ag.tensor([0.1, 0.2, 0.3, 0.4], requires_grad=True)
    y = x
    with viz.record():
        for k in range(ops // 3):
            y = (ag.tanh(y) * 0.9) + 0.01
        loss = y.sum()
    return loss


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--ops", type=int, default=10_000)
    args = parser.parse_args()
    loss = chain(args.ops)
    t0 = time.perf_counter()
    frames = viz.steps(loss, max_nodes=4 * args.ops)
    t1 = time.perf_counter()
    page = viz.player(frames).page()
    t2 = time.perf_counter()
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"{len(frames) // 2} operations, {len(frames)} frames: viz.steps {t1 - t0:.1f} s, "
          f"viz.player {t2 - t1:.1f} s (one dot layout), total {t2 - t0:.1f} s; page "
          f"{len(page) / 2**20:.1f} MiB; process peak memory {peak:.0f} MiB")


if __name__ == "__main__":
    main()
