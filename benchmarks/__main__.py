"""Run every workload against PyTorch (and the hand-written NumPy floor, and the other NumPy
autodiff engines) and write a table.

    python -m benchmarks                       # all workloads -> benchmarks/results-latest.md
    python -m benchmarks --only W1 W2          # some of them
    python -m benchmarks --malloc              # also dagrad with glibc's malloc defaults
    python -m benchmarks --no-others           # without MyGrad and HIPS autograd
    python -m benchmarks --before main~3       # also an earlier commit's dagrad, alternated
    python -m benchmarks --out benchmarks/RESULTS.md   # the committed table (make bench-results)

A full run takes 7 to 12 minutes on 2 cores (the first run also installs the other engines
into ``benchmarks/.venv-others``); ``--only`` and ``--rounds`` shorten it. Rounds are 7 per
framework, 2 for W6 (one of its processes runs 10-16 s); ``--rounds N`` sets N for every
workload, W6 included (a before/after gap of a few percent on W6 needs more than 2).

Each framework runs in its own process (see ``benchmarks.common``); the table gives medians,
ratios against PyTorch CPU, and the working memory of a step (peak resident memory above the
built model) for the workloads where memory is a target. dagrad against the hand-written NumPy
step is also timed paired in one process (``common.paired_ratio``); that ratio is the one the
floor targets are judged by.
"""
import argparse
import datetime
import importlib
import os
import pathlib
import platform
import shutil

from benchmarks import before, matmul_floor
from benchmarks.others import table as others
from benchmarks.common import (BEFORE, MALLOC_DEFAULTS, THREADS, available, compare, paired,
                               report)

WORKLOADS = [
    ("W1", "benchmarks.overhead", "per-op overhead: 100-op add/mul/tanh chain, 1 element", 0.7),
    ("W2", "benchmarks.mlp_step", "MLP 784-512-512-10 step, batch 128, cross-entropy, SGD", 1.2),
    ("W3", "benchmarks.lenet_step", "LeNet-5 step, batch 64, 1x28x28", 1.15),
    ("W4", "benchmarks.lstm_step", "LSTM step, input 64, hidden 256, seq 32, batch 32", 1.3),
    ("W4c", "benchmarks.lstm_cell_step", "the same LSTM step, cell unrolled by hand", None),
    ("W4g", "benchmarks.gru_step", "GRU step, input 64, hidden 256, seq 32, batch 32", None),
    ("W4r", "benchmarks.rnn_step", "RNN (tanh) step, input 64, hidden 256, seq 32, batch 32",
     None),
    ("W5", "benchmarks.transformer_step",
     "2-layer Transformer encoder step, d 128, 4 heads, ff 512, seq 64, batch 16", 1.5),
    ("W6", "benchmarks.deep_chain", "1,000,000-op chain, build + backward once", 1.0),
]
MEMORY_TARGET = {"W2": 1.5, "W5": 1.5}
# dagrad / hand-written NumPy (paired in one process): the MLP and LeNet steps, recurrent and
# attention modules near what NumPy itself can do.
FLOOR_TARGET = {"W2": 1.10, "W3": 1.15, "W4": 1.25, "W4g": 1.25, "W4r": 1.25, "W5": 1.15}


# The vector extensions that decide which kernels BLAS and PyTorch can run.
VECTOR_FLAGS = ("avx", "avx2", "fma", "avx512f", "avx512_bf16", "avx512_vnni", "amx_tile")


def _cpuinfo(field):
    """The first value of a /proc/cpuinfo field (Linux), or None."""
    try:
        with open("/proc/cpuinfo") as f:
            return next(line.split(":", 1)[1].strip() for line in f
                        if line.split(":", 1)[0].strip() == field)
    except (OSError, StopIteration):
        return None


def _machine():
    cpu = _cpuinfo("model name") or platform.processor() or platform.machine()
    flags = set((_cpuinfo("flags") or "").split())
    vector = ", ".join(f for f in VECTOR_FLAGS if f in flags) or "unknown"
    versions = {"python": platform.python_version()}
    for mod in ("numpy", "torch"):
        try:
            versions[mod] = importlib.import_module(mod).__version__
        except ImportError:
            versions[mod] = "not installed"
    try:
        import threadpoolctl
        blas = threadpoolctl.ThreadpoolController().select(user_api="blas").lib_controllers
        versions["BLAS"] = ", ".join(f"{c.internal_api} {c.version}" for c in blas)
    except Exception:
        pass
    return cpu, f"{os.cpu_count()} cores", vector, versions


def _fmt(x, unit=""):
    return "–" if x is None else f"{x:.3f}{unit}" if x < 10 else f"{x:.1f}{unit}"


def _ms(result):
    """'median [minimum]' of one framework's times, or '–'."""
    return "–" if not result else f"{_fmt(result['ms'])} [{_fmt(result.get('min_ms'))}]"


def _ratio(a, b):
    """'a/b of the medians [of the minimums]', or '–'."""
    if not a or not b:
        return "–"
    low = (f" [{_fmt(a['min_ms'] / b['min_ms'], 'x')}]"
           if a.get("min_ms") and b.get("min_ms") else "")
    return _fmt(a["ms"] / b["ms"], "x") + low


def _products_alone(workloads, rounds):
    """Lines of RESULTS.md: the matrix products of each workload alone, NumPy vs PyTorch (the
    floor under any NumPy engine; ``benchmarks.matmul_floor``)."""
    if not workloads or "torch" not in available(["torch"]):
        return []
    lines = ["", "Matrix products alone (`benchmarks.matmul_floor`): exactly the products one "
             "step makes, nothing else. Where NumPy's products alone approach the target's "
             "budget for the whole step, the target is out of reach of any NumPy engine.", "",
             "| id | NumPy (OpenBLAS) ms | PyTorch ms | ratio |", "|---|---|---|---|"]
    for wid in workloads:
        numpy_ms, torch_ms = matmul_floor.measure(wid, rounds)
        print(f"{wid} matrix products alone: NumPy {numpy_ms:.3f} ms, PyTorch {torch_ms:.3f} ms")
        lines.append(f"| {wid} | {_fmt(numpy_ms)} | {_fmt(torch_ms)} | "
                     f"{_fmt(numpy_ms / torch_ms, 'x')} |")
    return lines


def _floor_ratio(s):
    """'paired ratio [quartiles]; apart: ratio of the separate processes' medians', or '–'."""
    d, n, p = s.get("dagrad"), s.get("numpy"), s.get("paired")
    if not p:
        return _ratio(d, n)
    apart = f"; apart {_fmt(d['ms'] / n['ms'], 'x')}" if d and n else ""
    return f"{_fmt(p['ratio'], 'x')} [{p['q1']:.3f}-{p['q3']:.3f}{apart}]"


def _before_and_now(rows, rev):
    """Lines of the table: dagrad as of ``rev`` and now, timed in the same rounds."""
    lines = ["", f"dagrad before (`{rev}`) and now, their processes alternated in the same "
             "rounds: median [minimum] per step.", "",
             "| id | before ms | now ms | now / before |", "|---|---|---|---|"]
    for wid, _, _, s in rows:
        if "dagrad" + BEFORE in s and "dagrad" in s:
            lines.append(f"| {wid} | {_ms(s['dagrad' + BEFORE])} | {_ms(s['dagrad'])} | "
                         f"{_ratio(s['dagrad'], s['dagrad' + BEFORE])} |")
    return lines


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", nargs="*", help="workload ids, e.g. W1 W3")
    parser.add_argument("--rounds", type=int,
                        help="alternated rounds per framework (default 7, and 2 for W6, whose "
                             "process runs 10-16 s; given, it applies to W6 too)")
    parser.add_argument("--malloc", action="store_true",
                        help="also time dagrad without ag.keep_freed_memory() (glibc defaults)")
    parser.add_argument("--no-others", action="store_true",
                        help="skip the other NumPy engines (MyGrad, HIPS autograd)")
    parser.add_argument("--before", metavar="REV",
                        help="also time dagrad as of git revision REV, in the same rounds")
    parser.add_argument("--out", default=str(pathlib.Path(__file__).with_name(
        "results-latest.md")))
    args = parser.parse_args()
    where = {"dagrad" + BEFORE: before.checkout(args.before)} if args.before else {}
    rows = []
    for wid, module, title, target in WORKLOADS:
        if args.only and wid not in args.only:
            continue
        try:
            setups = importlib.import_module(module).SETUPS
        except ImportError as e:
            print(f"{wid}: skipped ({e})")
            continue
        rounds = args.rounds or (2 if wid == "W6" else 7)
        names = available(setups)
        if args.malloc and "dagrad" in names:
            names.append("dagrad" + MALLOC_DEFAULTS)
        if where and "dagrad" in names:
            names.append("dagrad" + BEFORE)
        summary = compare(module, names, rounds, where)
        report(f"{wid} {title}", summary)
        if "dagrad" in summary and "numpy" in summary:
            summary["paired"] = paired(module)
            p = summary["paired"]
            print(f"  dagrad / NumPy paired in one process {p['ratio']:.3f}x "
                  f"[quartiles {p['q1']:.3f}-{p['q3']:.3f}]")
        rows.append((wid, title, target, summary))
    cpu, cores, vector, versions = _machine()
    kernels = {s["dagrad"].get("blas") for *_, s in rows if "dagrad" in s} - {None}
    lines = [
        "# Benchmark results", "",
        f"Written by `python -m benchmarks` on {datetime.date.today().isoformat()}.", "",
        f"- machine: {cpu}, {cores}, {platform.system()} {platform.machine()}, "
        f"{THREADS} threads for every framework, float32",
        f"- vector extensions: {vector}",
        "- versions: " + ", ".join(f"{k} {v}" for k, v in versions.items()),
        "- NumPy's BLAS in the timed processes: " + ("; ".join(sorted(kernels)) or "unknown")
        + " (OPENBLAS_CORETYPE and OPENBLAS_L2_SIZE removed from their environment)",
        "- method: each framework in its own process, processes alternated for several rounds; "
        "times are the median [the minimum] over the processes, ratios those of the medians "
        "[of the minimums]; dagrad / PyTorch (lower is better). Working memory is the peak "
        "resident memory while stepping, above what the process held once the model was built.",
        "- dagrad / NumPy: both steps built in one process and timed in alternated blocks of "
        "~30 ms for 6 s (`common.paired_ratio`), the median of the block ratios [their "
        "quartiles], then the median over 3 processes; the floor targets are judged by it. "
        "'apart' is the ratio of the two columns of separate processes beside it, which the "
        "machine's changes of speed move by ±10%.",
        "",
        "| id | workload | dagrad ms | PyTorch ms | ratio (target) | NumPy floor ms | "
        "dagrad / NumPy | working MiB dagrad / PyTorch |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for wid, title, target, s in rows:
        d, t, n = s.get("dagrad"), s.get("torch"), s.get("numpy")
        mem = ""
        if d and t and d.get("work_mib") is not None and t.get("work_mib"):
            mem = f"{d['work_mib']:.1f} / {t['work_mib']:.1f}"
            if wid in MEMORY_TARGET:
                mem += f" = {d['work_mib'] / t['work_mib']:.2f}x (<= {MEMORY_TARGET[wid]})"
        lines.append(
            f"| {wid} | {title} | {_ms(d)} | {_ms(t)} | {_ratio(d, t)}"
            + (f" (<= {target})" if target else "") + f" | {_ms(n)} | {_floor_ratio(s)}"
            + (f" (<= {FLOOR_TARGET[wid]})" if wid in FLOOR_TARGET else "") + f" | {mem} |")
    gains = [(wid, s["dagrad"]["ms"], s["dagrad" + MALLOC_DEFAULTS]["ms"]) for wid, _, _, s in rows
             if "dagrad" + MALLOC_DEFAULTS in s and "dagrad" in s]
    if gains:
        lines += ["", "`ag.keep_freed_memory()` (glibc malloc keeps freed arrays for the next step; "
                  "opt-in, called by `nn.training.fit`):", "",
                  "| id | with it ms | glibc defaults ms | defaults / with |", "|---|---|---|---|"]
        lines += [f"| {wid} | {_fmt(on)} | {_fmt(off)} | {_fmt(off / on, 'x')} |"
                  for wid, on, off in gains]
    if args.before:
        lines += _before_and_now(rows, args.before)
    if not args.no_others:
        print("\nother NumPy engines (benchmarks.others)")
        lines += others.lines({wid: s for wid, _, _, s in rows}, args.rounds or 7)
    lines += _products_alone([wid for wid, *_ in rows if wid in matmul_floor.PRODUCTS],
                             args.rounds or 7)
    pathlib.Path(args.out).write_text("\n".join(lines) + "\n")
    print(f"\nwrote {args.out}")
    for tree in where.values():
        shutil.rmtree(tree)


if __name__ == "__main__":
    main()
