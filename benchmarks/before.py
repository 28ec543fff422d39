"""dagrad of an earlier commit, timed in the same run as this one (``--before REV``).

"No workload slower than before" can only be answered on one machine in one run: figures from
another day move by more than the change measured. So the earlier commit runs as one more
framework, ``dagrad@before``, its processes alternated with the others'. ``checkout(rev)``
writes that commit's files into a temporary folder laid out as the installed package (the
``dagrad`` folder with ``autograd``, ``nn``, ... inside it) with ``benchmarks`` pointing at this
checkout's workloads, so both commits run the same step; a worker started in that folder
imports the earlier dagrad (a ``python -m`` process looks in its working folder first).
"""
import io
import pathlib
import subprocess
import sys
import tarfile
import tempfile

HERE = pathlib.Path(__file__).resolve().parent


def checkout(rev):
    """The folder to run ``rev``'s dagrad from (``git archive``, nothing built; the caller
    removes it). Raises when git cannot read ``rev`` or the layout does not import."""
    archive = subprocess.run(["git", "-C", str(HERE.parent), "archive", rev],
                             capture_output=True, check=False)
    if archive.returncode != 0:
        raise SystemExit(f"--before {rev}: git archive failed: {archive.stderr.decode().strip()}")
    tree = pathlib.Path(tempfile.mkdtemp(prefix="dagrad-before-"))
    with tarfile.open(fileobj=io.BytesIO(archive.stdout)) as tar:
        tar.extractall(tree, filter="data")
    for folder in sorted(tree.iterdir()):      # pyproject's package-dir: dagrad.X is folder X
        if (folder / "__init__.py").exists() and folder.name not in {"dagrad", "benchmarks",
                                                                     "tests"}:
            (tree / "dagrad" / folder.name).symlink_to(folder, target_is_directory=True)
    old_benchmarks = tree / "benchmarks"
    if old_benchmarks.exists():
        old_benchmarks.rename(tree / "benchmarks-of-that-commit")
    old_benchmarks.symlink_to(HERE, target_is_directory=True)
    found = subprocess.run([sys.executable, "-c", "import dagrad.autograd as a; print(a.__file__)"],
                           cwd=tree, capture_output=True, text=True, check=False)
    if not found.stdout.startswith(str(tree)):
        raise SystemExit(f"--before {rev}: its dagrad does not import from {tree}:\n"
                         f"{found.stdout}{found.stderr}")
    return tree
