"""``python -m benchmarks.others.worker ENGINE WORKLOAD``: time one engine's step in this
process (run by the other engines' venv) and print the result as JSON, as
``benchmarks.common``'s workers do."""
import importlib
import json
import os
import pathlib
import resource
import sys

from benchmarks.common import _reset_peak_rss, _status_kib, time_step

# The repository's root holds dagrad's folders (autograd/, nn/, ...): take it off the path so
# that ``import autograd`` finds HIPS autograd. ``benchmarks`` is loaded, so its modules still are.
ROOT = pathlib.Path(__file__).resolve().parents[2]
sys.path[:] = [p for p in sys.path if pathlib.Path(os.path.abspath(p or ".")) != ROOT]

STEPS = {"mygrad": "benchmarks.others.steps_mygrad", "hips": "benchmarks.others.steps_hips"}


def main(engine, workload):
    step = importlib.import_module(STEPS[engine]).SETUPS[workload]()
    before = _status_kib("VmRSS")
    can_reset = _reset_peak_rss()
    once = workload == "W6"            # the deep chain: one build and backward, as dagrad's
    seconds = time_step(step, warmup=0, repeats=1) if once else time_step(step)
    peak = _status_kib("VmHWM")
    print(json.dumps({"seconds": seconds,
                      "peak_mib": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
                      "work_mib": (peak - before) / 1024 if can_reset and peak and before
                      else None}))


if __name__ == "__main__":
    main(*sys.argv[1:3])
