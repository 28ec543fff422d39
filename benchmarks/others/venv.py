"""The venv the other engines run from (made once, reused; ``benchmarks/.venv-others``)."""
import pathlib
import subprocess
import sys

VENV = pathlib.Path(__file__).resolve().parent.parent / ".venv-others"
PACKAGES = ["numpy", "mygrad", "autograd"]


def python():
    """The venv's interpreter, made and filled on first use; or a string saying why not."""
    exe = VENV / "bin" / "python"
    if not exe.exists():
        made = subprocess.run([sys.executable, "-m", "venv", str(VENV)], capture_output=True,
                              text=True)
        if made.returncode != 0:
            return f"could not make a venv: {made.stderr.strip()[-200:]}"
    check = subprocess.run([str(exe), "-c", "import mygrad, autograd, numpy"],
                           capture_output=True, text=True)
    if check.returncode != 0:
        got = subprocess.run([str(exe), "-m", "pip", "install", "-q", *PACKAGES],
                             capture_output=True, text=True)
        if got.returncode != 0:
            return f"pip install {' '.join(PACKAGES)} failed: {got.stderr.strip()[-200:]}"
    return str(exe)


def versions(exe):
    """{package: version} inside the venv."""
    code = ("import importlib.metadata as m\n"
            "print(' '.join(f'{p}={m.version(p)}' for p in ('numpy', 'mygrad', 'autograd')))")
    out = subprocess.run([exe, "-c", code], capture_output=True, text=True)
    return dict(item.split("=") for item in out.stdout.split()) if out.returncode == 0 else {}
