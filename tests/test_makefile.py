"""The Makefile's entry points as a new user meets them."""
import os
import pathlib
import shutil
import subprocess

import pytest

ROOT = pathlib.Path(__file__).resolve().parent.parent


def recipe(target, *overrides):
    """The commands `make target` would run, printed instead of run (PY=echo), with the
    installation step taken as done."""
    if shutil.which("make") is None:
        pytest.skip("make is not installed")
    result = subprocess.run(["make", "-s", "-o", ".venv/.installed-demo", "-o",
                             ".venv/.installed-site", target, "PY=echo", *overrides],
                            cwd=ROOT, capture_output=True, text=True, check=True, timeout=60)
    return result.stdout


def test_make_notebooks_allows_root_exactly_when_run_as_root():
    """JupyterLab stops with "Running as root is not recommended" unless given --allow-root;
    containers and cloud machines often run as root."""
    command = recipe("notebooks")
    assert "-m jupyter lab --no-browser --notebook-dir=notebooks" in command
    assert ("--allow-root" in command) == (os.geteuid() == 0), command


def test_make_site_builds_into_build_site():
    assert "website/build.py --out build/site" in recipe("site")
