"""Every teaching notebook runs top to bottom from a clean kernel (its last cell checks its
claim, so a notebook that runs is a notebook whose lesson holds)."""
import os
import pathlib

import pytest

NOTEBOOKS = sorted((pathlib.Path(__file__).resolve().parent.parent / "notebooks").glob("[0-9]*.ipynb"))
CELL_TIMEOUT = 300       # a hung cell fails the test instead of stalling CI
# One BLAS thread per kernel, for the reason of the one_blas_thread fixture: with two test
# workers on two cores a second BLAS thread spins waiting for a core, and the notebooks'
# training loops of small matrix products run several times slower.
KERNEL_ENV = {**os.environ, "OPENBLAS_NUM_THREADS": "1", "OMP_NUM_THREADS": "1"}


@pytest.mark.parametrize("path", NOTEBOOKS, ids=[p.stem for p in NOTEBOOKS])
def test_notebook_runs(path):
    nbformat = pytest.importorskip("nbformat", reason="install the notebooks extra")
    nbclient = pytest.importorskip("nbclient", reason="install the notebooks extra")
    nb = nbformat.read(path, as_version=4)
    client = nbclient.NotebookClient(nb, timeout=CELL_TIMEOUT, kernel_name="python3",
                                     resources={"metadata": {"path": str(path.parent)}})
    # raises CellExecutionError, with the cell and traceback, on any error
    client.execute(env=KERNEL_ENV)


def test_notebooks_are_numbered_uniquely():
    numbers = [p.name.split("_")[0] for p in NOTEBOOKS]
    assert len(numbers) == len(set(numbers))
