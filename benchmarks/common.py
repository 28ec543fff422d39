"""The shared benchmark harness: every framework in its own process, alternated, medians.

On a 2-core machine PyTorch's OpenMP threads and NumPy's BLAS threads fight when both run in one
process, so each framework is timed in a fresh worker process (``--worker NAME``), the workers
are alternated A B A B ... for a few rounds so drift of the machine's speed hits all of them,
and the medians are compared. Same thread count (2) and float32 for all.

dagrad against its hand-written NumPy floor is measured differently (``paired_ratio``): the
two share no threads but OpenBLAS's, so both steps are built in one process and timed in short
alternated blocks, which cancels the machine's changes of speed that separate processes cannot.

A workload module defines ``SETUPS = {"dagrad": fn, "torch": fn, ...}``, each ``fn()``
returning a ``step()`` callable that runs one iteration, and calls ``main(__name__, SETUPS)``.
"""
import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import time

THREADS = "2"


def time_step(step, min_time=0.5, repeats=7, warmup=3):
    """Median seconds per call of ``step`` (after warm-up), over ``repeats`` timed batches."""
    for _ in range(warmup):
        step()
    if repeats == 1:
        t0 = time.perf_counter()
        step()
        return time.perf_counter() - t0
    t0 = time.perf_counter()
    step()
    single = max(time.perf_counter() - t0, 1e-6)
    number = max(1, int(min_time / repeats / single))
    samples = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        for _ in range(number):
            step()
        samples.append((time.perf_counter() - t0) / number)
    return statistics.median(samples)


def paired_ratio(step, floor, seconds=6.0, block_seconds=0.03):
    """dagrad's time per step over the hand-written NumPy step's, from blocks of each
    alternated in one process: {"ratio": median of the block ratios, "q1", "q3": quartiles}.

    The shared machines these run on change speed from one minute to the next (the same NumPy
    MLP step in consecutive processes: 3.1 ms, then 5.0 ms), so medians over separate processes
    compare steps timed at different speeds and their ratio moves by ±10%. Here each ratio
    compares two blocks of ~``block_seconds`` (the same number of steps of each) timed
    back to back, ``seconds`` in all."""
    for _ in range(3):
        step()
        floor()
    t0 = time.perf_counter()
    floor()
    per_block = max(1, int(block_seconds / max(time.perf_counter() - t0, 1e-6)))
    ratios, clock, end = [], time.perf_counter, time.perf_counter() + seconds
    while clock() < end or len(ratios) < 8:
        t0 = clock()
        for _ in range(per_block):
            step()
        t1 = clock()
        for _ in range(per_block):
            floor()
        ratios.append((t1 - t0) / (clock() - t1))
    q1, median, q3 = statistics.quantiles(ratios, n=4)
    return {"ratio": median, "q1": q1, "q3": q3}


def training_step(model, loss_fn, optimizer, x, y, forward=None):
    """One training step, written once for dagrad and PyTorch (they share the API).

    ``forward(model, x)`` gives the prediction (default ``model(x)``). For a dagrad model the
    step is first checked once to compute in float32 throughout (``check_float32_step``)."""
    forward = forward or _call

    if type(model).__module__.startswith("dagrad."):
        check_float32_step(model, loss_fn, x, y, forward)

    def step():
        optimizer.zero_grad()
        loss = loss_fn(forward(model, x), y)
        loss.backward()
        optimizer.step()
    return step


def _call(model, x):
    return model(x)


def check_float32_step(model, loss_fn, x, y, forward=_call):
    """Raise unless one forward and backward of a dagrad float32 training step keeps every
    floating-point value in float32: each activation and each gradient on every edge of the
    graph (``viz.trace``), and each parameter's ``.grad``. A float64 creeping in (NumPy's
    default dtype) doubles the cost of what it touches, so a benchmark must not time it.
    Leaves the parameters and their gradients as they were."""
    from dagrad import viz
    with viz.record():
        loss = loss_fn(forward(model, x), y)
    graph = viz.trace(loss, grads=True)
    found = set()

    def check(dtype, what, node):
        if dtype is not None and dtype.kind == "f" and dtype != "float32":
            found.add(f"{dtype} {what} {node.name}{f' in {node.module}' if node.module else ''}")

    for node in graph.nodes:           # every activation, leaf and constant array
        check(node.dtype, "output of", node)   # (a Python number has no dtype of its own)
    for e in graph.edges:              # the gradient each use sends back
        check(getattr(e.grad, "dtype", None), "gradient from", graph[e.dst])
    loss.backward()
    for name, p in model.named_parameters():
        if p.grad is not None and p.grad.dtype != "float32":
            found.add(f"{p.grad.dtype} gradient of parameter {name}")
    model.zero_grad()
    if found:
        raise RuntimeError(f"{type(model).__name__}: the float32 training step computes in "
                           f"another dtype: {'; '.join(sorted(found))}")


def _status_kib(field):
    """A field of /proc/self/status in KiB (Linux), or None elsewhere."""
    try:
        with open("/proc/self/status") as f:
            for line in f:
                if line.startswith(field + ":"):
                    return int(line.split()[1])
    except OSError:
        pass
    return None


def _reset_peak_rss():
    """Reset the kernel's high-water mark of resident memory (Linux: clear_refs 5)."""
    try:
        with open("/proc/self/clear_refs", "w") as f:
            f.write("5")
        return True
    except OSError:
        return False


# A worker name with this suffix runs the named framework with glibc's malloc left at its
# defaults (DAGRAD_KEEP_FREED_MEMORY=0), to show what ``ag.keep_freed_memory()`` gains.
MALLOC_DEFAULTS = "+malloc-defaults"
# A worker name with this suffix runs the named framework from the folder ``compare`` is given
# for it: an earlier commit's dagrad (``benchmarks.before``, ``--before REV``).
BEFORE = "@before"
# The worker that times dagrad against the hand-written NumPy step in one process.
PAIRED = "dagrad/numpy"


def _worker(setups, name, timing):
    if name == "torch":
        import torch
        torch.set_num_threads(int(THREADS))
    else:
        from dagrad.autograd import keep_freed_memory
        keep_freed_memory()   # what a training loop (nn.training.fit) opts into
    if name == PAIRED:
        print(json.dumps(paired_ratio(setups["dagrad"](), setups["numpy"]())))
        return
    step = setups[name.removesuffix(MALLOC_DEFAULTS).removesuffix(BEFORE)]()
    # Working memory of training: the peak resident memory while stepping, above what the
    # process held once the model and data were built (so interpreter and library imports,
    # 200+ MiB for PyTorch alone, do not count).
    before = _status_kib("VmRSS")
    can_reset = _reset_peak_rss()
    seconds = time_step(step, **timing)
    peak = _status_kib("VmHWM")
    work_mib = (peak - before) / 1024 if can_reset and peak and before else None
    total_mib = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(json.dumps({"seconds": seconds, "peak_mib": total_mib, "work_mib": work_mib,
                      "blas": blas_kernel() if name != "torch" else None}))


# Some machines force OpenBLAS onto an older kernel (OPENBLAS_CORETYPE=Haswell on a CPU with
# AVX-512, for old OpenBLAS builds that crashed there): a (128, 784) @ (784, 512) product then
# takes 0.50 ms instead of 0.38, while PyTorch keeps AVX-512. A user's NumPy picks its own
# kernel, so the timed processes run without these (tests and CI keep them).
FORCED_BLAS_SETTINGS = ("OPENBLAS_CORETYPE", "OPENBLAS_L2_SIZE")


def worker_env(extra_env=None):
    """The environment of a timed process: 2 threads for every library, OpenBLAS free to choose
    its kernel."""
    env = {k: v for k, v in os.environ.items() if k not in FORCED_BLAS_SETTINGS}
    env.update(OMP_NUM_THREADS=THREADS, OPENBLAS_NUM_THREADS=THREADS, MKL_NUM_THREADS=THREADS)
    env.update(extra_env or {})
    return env


def blas_kernel():
    """NumPy's BLAS as threadpoolctl sees it in this process, e.g. 'openblas 0.3.31
    (SkylakeX kernel)', or None without threadpoolctl."""
    try:
        import numpy  # noqa: F401  (loads the BLAS for threadpoolctl to find)
        import threadpoolctl
    except ImportError:
        return None
    libs = threadpoolctl.threadpool_info()
    return ", ".join(f"{lib['internal_api']} {lib.get('version')}"
                     + (f" ({lib['architecture']} kernel)" if lib.get("architecture") else "")
                     for lib in libs if lib.get("user_api") == "blas") or None


def run_worker(module, name, extra_env=None, cwd=None):
    """Run one framework's worker in a fresh process (in folder ``cwd``, default this one);
    returns its JSON result."""
    extra_env = dict(extra_env or {})
    if name.endswith(MALLOC_DEFAULTS):
        extra_env["DAGRAD_KEEP_FREED_MEMORY"] = "0"
    env = worker_env(extra_env)
    out = subprocess.run([sys.executable, "-m", module, "--worker", name], env=env, cwd=cwd,
                         capture_output=True, text=True, check=False)
    if out.returncode != 0:
        raise RuntimeError(f"benchmark worker {module} {name} failed:\n{out.stderr}")
    return json.loads(out.stdout.strip().splitlines()[-1])


def compare(module, names, rounds=3, where=None):
    """Alternate the workers of ``names`` for ``rounds`` (a worker named in ``where`` runs in
    that folder); return {name: {"ms", "min_ms",
    "peak_mib", "work_mib", "blas"}}: the median and the minimum over the processes (timed
    processes are bimodal on some machines, the same one taking 0.41 or 0.69 ms a step, so
    the minimum is given beside the median)."""
    results = {n: [] for n in names}
    for _ in range(rounds):
        for n in names:
            results[n].append(run_worker(module, n, cwd=(where or {}).get(n)))
    summary = {}
    for n, rs in results.items():
        work = [r["work_mib"] for r in rs if r.get("work_mib") is not None]
        summary[n] = {"ms": 1e3 * statistics.median(r["seconds"] for r in rs),
                      "min_ms": 1e3 * min(r["seconds"] for r in rs),
                      "blas": rs[0].get("blas"),
                      "peak_mib": statistics.median(r["peak_mib"] for r in rs),
                      "work_mib": statistics.median(work) if work else None}
    return summary


def paired(module, processes=3):
    """``paired_ratio`` in ``processes`` fresh processes (where the memory lands differs from
    one process to the next): {"ratio", "q1", "q3"}, each the median over the processes."""
    runs = [run_worker(module, PAIRED) for _ in range(processes)]
    return {k: statistics.median(r[k] for r in runs) for k in ("ratio", "q1", "q3")}


def available(setups):
    """The frameworks whose setup can run here (torch may be missing)."""
    names = []
    for n in setups:
        if n == "torch":
            try:
                import importlib.util
                if importlib.util.find_spec("torch") is None:
                    continue
            except ImportError:
                continue
        names.append(n)
    return names


def report(title, summary, baseline="torch"):
    """Print a table of median times and ratios against ``baseline``."""
    print(f"\n{title}")
    base = summary.get(baseline, {}).get("ms")
    for n, r in summary.items():
        ratio = f"{r['ms'] / base:6.2f}x {baseline}" if base else ""
        work = "" if r.get("work_mib") is None else f"   working memory {r['work_mib']:7.1f} MiB"
        print(f"  {n:26s} {r['ms']:10.3f} ms [min {r.get('min_ms', r['ms']):.3f}]"
              f"   process peak {r['peak_mib']:7.1f} MiB{work}"
              f"   {ratio}")


def main(module, setups, title, rounds=3, **timing):
    """Command line of a workload module: ``--worker NAME`` (internal) or the comparison.

    ``timing`` goes to ``time_step`` (``warmup``, ``repeats``, ``min_time``)."""
    parser = argparse.ArgumentParser(description=title)
    parser.add_argument("--worker", help=argparse.SUPPRESS)
    parser.add_argument("--rounds", type=int, default=rounds)
    args = parser.parse_args()
    if args.worker:
        _worker(setups, args.worker, timing)
        return None
    summary = compare(module, available(setups), args.rounds)
    report(title, summary)
    return summary
