"""dagrad installs one import package, `dagrad`, and lives beside other packages: the wheel
holds one top-level name, nothing imports the bare folder names, a student's own `nn.py`
does not shadow the library, and HIPS autograd (the PyPI `autograd`) works in the same venv."""
import json
import os
import pathlib
import re
import shutil
import subprocess
import sys
import zipfile

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]
SUBPACKAGES = ("autograd", "nn", "optim", "viz")
BARE_IMPORT = re.compile(rf"^\s*(?:import|from)\s+(?:{'|'.join(SUBPACKAGES)})(?:\.|\s|$)", re.M)


@pytest.fixture(scope="module")
def wheel(tmp_path_factory):
    """A wheel built from a copy of the checkout (setuptools writes build/ into the source
    tree, and test workers in parallel would share it; no build isolation: setuptools comes
    from this venv)."""
    source = tmp_path_factory.mktemp("source")
    for name in ("pyproject.toml", "README.md"):
        shutil.copy(ROOT / name, source / name)
    for folder in ("dagrad", *SUBPACKAGES):
        shutil.copytree(ROOT / folder, source / folder,
                        ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
    out = tmp_path_factory.mktemp("wheel")
    subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation",
                    "-q", "-w", str(out), str(source)], check=True, capture_output=True)
    (path,) = out.glob("dagrad-*.whl")
    return path


def test_the_wheel_installs_one_top_level_package(wheel):
    names = zipfile.ZipFile(wheel).namelist()
    top = {n.split("/")[0] for n in names if not n.split("/")[0].endswith(".dist-info")}
    assert top == {"dagrad"}


def test_the_wheel_holds_every_subpackage_and_the_bundled_data(wheel):
    names = set(zipfile.ZipFile(wheel).namelist())
    for folder in SUBPACKAGES:
        for init in (ROOT / folder).rglob("__init__.py"):
            inside = "dagrad/" + init.relative_to(ROOT).as_posix()
            assert inside in names, (f"{inside} is missing from the wheel: add its package to "
                                     f"[tool.setuptools] packages in pyproject.toml")
    data = [p.relative_to(ROOT).as_posix() for p in (ROOT / "nn/datasets/data").iterdir()]
    assert data and all("dagrad/" + d in names for d in data)


def _sources():
    """(path, text) of every Python file, notebook code cell and Markdown python block."""
    tracked = subprocess.run(["git", "ls-files"], cwd=ROOT, capture_output=True, text=True)
    paths = [ROOT / p for p in tracked.stdout.split()] if tracked.returncode == 0 else \
        [p for p in ROOT.rglob("*") if ".venv" not in p.parts]
    for path in paths:
        if path.suffix == ".py":
            yield path, path.read_text(encoding="utf-8")
        elif path.suffix == ".ipynb":
            cells = json.loads(path.read_text(encoding="utf-8"))["cells"]
            yield path, "\n".join("".join(c["source"]) for c in cells if c["cell_type"] == "code")
        elif path.suffix == ".md":
            yield path, "\n".join(re.findall(r"```python\n(.*?)```", path.read_text(
                encoding="utf-8"), re.S))


def test_nothing_imports_the_bare_folder_names():
    offenders = [f"{path.relative_to(ROOT)}: {m.group(0).strip()}"
                 for path, text in _sources() for m in BARE_IMPORT.finditer(text)]
    assert offenders == [], "use `from dagrad import ...` or a relative import:\n" + \
        "\n".join(offenders)


def test_a_local_nn_py_does_not_shadow_the_library(tmp_path):
    for name in SUBPACKAGES:
        (tmp_path / f"{name}.py").write_text(f"raise ImportError('the local {name}.py')\n")
    code = ("from dagrad import autograd as ag, nn, optim, viz\n"
            "import dagrad.nn.functional as F\n"
            "m = nn.Linear(2, 1); opt = optim.SGD(m.parameters(), lr=0.1)\n"
            "F.mse_loss(m(ag.ones(3, 2)), ag.zeros(3, 1)).backward(); opt.step()\n"
            "print(type(viz.trace).__name__)")
    out = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, capture_output=True,
                         text=True)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "function"


def test_import_dagrad_is_lazy():
    code = ("import sys, dagrad; print(sorted(m for m in sys.modules if m.startswith('dagrad')))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True, cwd=ROOT)
    assert out.stdout.strip() == "['dagrad']"


def test_importing_dagrad_leaves_the_allocator_alone():
    """malloc tuning is opt-in (ag.keep_freed_memory()): no import loads libc to call mallopt."""
    code = ("import ctypes, numpy\n"
            "calls = []\n"
            "real = ctypes.CDLL\n"
            "ctypes.CDLL = lambda *a, **k: calls.append(a) or real(*a, **k)\n"
            "from dagrad import autograd as ag, nn, optim, viz\n"
            "print(calls)\n"
            "ag.keep_freed_memory()\n"
            "print(len(calls))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True, cwd=ROOT, env={**os.environ, "DAGRAD_KEEP_FREED_MEMORY": "1"})
    imported, after_call = out.stdout.split()
    assert imported == "[]"
    if sys.platform.startswith("linux"):
        assert after_call == "1"


@pytest.mark.slow
def test_hips_autograd_and_dagrad_work_side_by_side(wheel, tmp_path):
    """Installs HIPS autograd from the package index next to dagrad's wheel in a new venv."""
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    python = str(venv / "bin" / "python")
    pip = [python, "-m", "pip", "install", "-q", "--disable-pip-version-check"]
    installed = subprocess.run([*pip, "autograd", str(wheel)], capture_output=True, text=True)
    if installed.returncode != 0 and not os.environ.get("CI"):
        pytest.skip(f"could not install HIPS autograd from the package index: "
                    f"{installed.stderr[-300:]}")
    assert installed.returncode == 0, installed.stderr
    code = ("import autograd, autograd.numpy as anp\n"
            "from dagrad import autograd as ag\n"
            "hips = autograd.grad(lambda x: anp.tanh(x) * x)(0.5)\n"
            "x = ag.tensor(0.5, dtype=ag.float64, requires_grad=True)\n"
            "(ag.tanh(x) * x).backward()\n"
            "print(autograd.__file__.split('site-packages')[1], ag.__file__.split("
            "'site-packages')[1])\n"
            "print(abs(hips - x.grad.item()) < 1e-12, hips)")
    out = subprocess.run([python, "-c", code], cwd=tmp_path, capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    files, same = out.stdout.splitlines()
    assert files.split() == ["/autograd/__init__.py", "/dagrad/autograd/__init__.py"]
    assert same.startswith("True")
