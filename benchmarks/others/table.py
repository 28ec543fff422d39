"""The rows of the other engines: their step times against PyTorch's, beside dagrad's."""
import statistics
import subprocess

from benchmarks.common import worker_env
from benchmarks.others import ENGINES, WORKLOADS, venv
from benchmarks.others.reference import CHAIN_LENGTH
from benchmarks.others.worker import ROOT

NAMES = {"mygrad": "MyGrad", "hips": "HIPS autograd"}
DEEP_CHAIN = 1_000_000      # dagrad's and PyTorch's W6 (benchmarks.deep_chain)


def _time(exe, engine, workload, rounds):
    """Median seconds of the engine's step (each round a fresh process), or the error."""
    import json
    env = worker_env({"PYTHONPATH": str(ROOT)})
    times = []
    for _ in range(1 if workload == "W6" else rounds):
        out = subprocess.run([exe, "-m", "benchmarks.others.worker", engine, workload],
                             cwd=ROOT, env=env, capture_output=True, text=True)
        if out.returncode != 0:
            return out.stderr.strip().splitlines()[-1] if out.stderr.strip() else "failed"
        times.append(json.loads(out.stdout.strip().splitlines()[-1])["seconds"])
    seconds = statistics.median(times)
    return seconds * DEEP_CHAIN / CHAIN_LENGTH if workload == "W6" else seconds


def lines(summaries, rounds):
    """Markdown lines comparing every engine with PyTorch; ``summaries`` are the main table's
    results by workload id ({"W1": {"dagrad": {"ms": ...}, "torch": ...}, ...})."""
    exe = venv.python()
    if not exe.startswith("/"):
        return ["", f"Other NumPy engines: not measured ({exe})."]
    found = venv.versions(exe)
    out = ["", "Other NumPy autodiff engines, same workloads, same weights and data, each in its "
           "own process (`benchmarks.others`; "
           + ", ".join(f"{NAMES.get(k, k)} {v}" for k, v in found.items() if k != "numpy")
           + f"). W6 runs {CHAIN_LENGTH:,} operations in the other engines, scaled to "
           f"{DEEP_CHAIN:,}. Ratios are time / PyTorch's time.", "",
           "| id | PyTorch ms | dagrad | " + " | ".join(NAMES[e] for e in ENGINES)
           + " | best other NumPy engine |",
           "|---|---|---|" + "---|" * len(ENGINES) + "---|"]
    for wid in WORKLOADS:
        s = summaries.get(wid, {})
        if "torch" not in s:
            continue
        torch_ms = s["torch"]["ms"]
        cells, best = [], None
        for engine in ENGINES:
            result = _time(exe, engine, wid, rounds)
            if isinstance(result, str):
                cells.append(f"failed: {result[:60]}")
                continue
            ratio = 1e3 * result / torch_ms
            print(f"  {wid} {NAMES[engine]:14s} {1e3 * result:10.3f} ms   {ratio:6.2f}x torch")
            cells.append(f"{ratio:.2f}x")
            best = min(best or (ratio, engine), (ratio, engine))
        dagrad = f"{s['dagrad']['ms'] / torch_ms:.2f}x" if "dagrad" in s else "-"
        best_cell = f"{best[0]:.2f}x ({NAMES[best[1]]})" if best else "-"
        out.append(f"| {wid} | {torch_ms:.3f} | {dagrad} | " + " | ".join(cells)
                   + f" | {best_cell} |")
    return out
