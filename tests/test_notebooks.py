"""Every teaching notebook runs top to bottom from a clean kernel (its last cell checks its
claim, so a notebook that runs is a notebook whose lesson holds), offline, and has the shape
students rely on: what it teaches and which course section it follows at the top, a cell of
checks and a few exercises at the end."""
import json
import os
import pathlib
import re

import pytest

ROOT = pathlib.Path(__file__).resolve().parent.parent
NOTEBOOKS = sorted((ROOT / "notebooks").glob("[0-9]*.ipynb"))
CELL_TIMEOUT = 300       # a hung cell fails the test instead of stalling CI
# The kernels run in a student's default environment: the thread settings the test run gives
# its own processes are removed, so NumPy's BLAS starts with a thread per core, and dagrad's
# thread policy (autograd/blas.py) must keep the notebooks fast with two kernels on two cores.
THREAD_SETTINGS = {"OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"}
KERNEL_ENV = {k: v for k, v in os.environ.items() if k not in THREAD_SETTINGS}

# What each notebook must teach (issue "Teaching notebooks"): phrases searched, case-insensitive,
# in its text and code.
TOPICS = {
    "01": ["by hand", "compute graph", "chain rule", "many inputs", "many outputs",
           "multiple use", "gradients of tensors", "gradcheck", "viz.draw"],
    "02": ["viz.steps", "viz.player", "grads=True", "jacobian", "forward", "reverse"],
    "03": ["synthetic", "squared loss", "minibatch", "by hand", "optim.", "closed-form",
           "weight decay", "validation", "underfitting", "overfitting", "polynomial"],
    "04": ["softmax regression", "digits", "step", "piecewise linear", "sigmoid", "tanh",
           "relu", "leaky", "derivative", "collapse", "dropout", "early stopping"],
    "05": ["sgd", "momentum", "nesterov", "adagrad", "rmsprop", "adam", "narrow valley",
           "batch size", "learning rate", "lr_scheduler"],
    "06": ["vanishing", "exploding", "viz.plots.grad_norms", "sigmoid", "tanh", "relu",
           "all zeros", "normal_", "xavier", "kaiming", "residual", "batchnorm1d", "layernorm"],
    "07": ["cross-correlation", "padding", "stride", "dilation", "channels", "1×1", "pooling",
           "receptive field", "lenet", "feature map", "depthwise"],
    "08": ["backpropagation through time", "viz.draw", "vanishing", "lstm", "gru", "gate",
           "character-level", "sequence to sequence", "attention", "heat map"],
    "09": ["self-attention", "step by step", "sqrt d", "multi-head", "mask",
           "positional encoding", "encoder–decoder", "reverse", "gpt", "generat"],
    "10": ["linear autoencoder is pca", "deep autoencoder", "denoising", "sparse"],
    "11": ["latent-variable", "elbo", "reparameteris", "kl", "samples", "latent space"],
    "14": ["from dagrad import torch, d2l", "add_to_class", "lazylinear", ".data.normal_",
           "torch.no_grad", "softmax regression", "dropout", "lenet", "stand_in",
           "grads=true"],
}

# Code that reaches for the network, or installs packages, in a notebook's cells.
NETWORK_CODE = re.compile(
    r"https?://|\burllib\b|\brequests\b|\bsocket\b|\bfetch_\w+|\bdownload\s*=\s*True"
    r"|pip install|^\s*!|%%(?:bash|sh|script)", re.M)


def cells(path):
    """[(cell type, source text)] of a notebook, read as plain JSON."""
    with open(path, encoding="utf-8") as f:
        nb = json.load(f)
    return [(c["cell_type"], "".join(c["source"]) if isinstance(c["source"], list)
             else c["source"]) for c in nb["cells"]]


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
    assert set(TOPICS) <= set(numbers), "a notebook of the course is missing"


@pytest.mark.parametrize("path", NOTEBOOKS, ids=[p.stem for p in NOTEBOOKS])
def test_notebook_opens_with_its_lesson_and_ends_with_checks_and_exercises(path):
    parts = cells(path)
    kind, first = parts[0]
    number = path.name.split("_")[0]
    assert kind == "markdown" and first.startswith(f"# {number} ·"), first[:80]
    assert "**What this notebook teaches.**" in first and "**Course section.**" in first
    (heading_kind, heading), (checks_kind, checks), (last_kind, last) = parts[-3:]
    assert heading_kind == "markdown" and "## Checks" in heading
    assert checks_kind == "code"
    assert len(re.findall(r"^\s*assert\b", checks, re.M)) >= 3, "the checks cell asserts little"
    assert last_kind == "markdown" and last.startswith("## Exercises")
    assert len(re.findall(r"^\d+\. ", last, re.M)) >= 3, "a few exercises"


@pytest.mark.parametrize("path", NOTEBOOKS, ids=[p.stem for p in NOTEBOOKS])
def test_notebook_code_stays_offline(path):
    for kind, source in cells(path):
        if kind == "code":
            found = NETWORK_CODE.search(source)
            assert found is None, f"{path.name}: {found.group(0)!r} in\n{source[:300]}"


@pytest.mark.parametrize("number", sorted(TOPICS))
def test_notebook_covers_its_topics(number):
    (path,) = [p for p in NOTEBOOKS if p.name.startswith(number + "_")]
    text = "\n".join(source for _, source in cells(path)).lower().replace("√", "sqrt ")
    missing = [topic for topic in TOPICS[number] if topic.lower() not in text]
    assert not missing, f"{path.name} does not cover {missing}"


def test_docs_list_every_notebook():
    page = (ROOT / "docs" / "notebooks.md").read_text(encoding="utf-8")
    rows = dict(re.findall(r"^\| `(\d\d_\w+)` \| (.+) \|$", page, re.M))
    assert sorted(rows) == [p.stem for p in NOTEBOOKS]
    assert all(len(line.split()) >= 5 for line in rows.values())

