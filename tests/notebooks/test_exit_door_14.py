"""Notebook 14 through the exit door: the course's code, written with ``from dagrad import torch,
d2l``, runs on PyTorch and the book's own ``d2l`` library once its first cell's imports are
changed back, and both runs agree.

Both runs read the same data: the digits that stand in for Fashion-MNIST, written in
Fashion-MNIST's IDX files at ``../data/FashionMNIST/raw`` (where torchvision keeps them), so
the book's data line finds them on both. Both run with the worked solutions typed in.
The PyTorch run leaves out the cells tagged ``dagrad-only`` (drawing a step's graph).

What is compared:
- every line printed by the cells both run, verbatim (the device line, what the lazy layer
  became, the data's shapes and dtypes, LeNet's layer summary), except the lines that report
  a trained value, whose words and layout must agree with the digits masked; the one known
  difference is the name of a dtype: PyTorch prints ``torch.float32``, dagrad (whose dtypes
  are NumPy's) ``float32``;
- every exercise check passes on both (they take PyTorch's numbers, tensors and shapes);
- the training results within tolerances that a correct run meets and a broken one does not:
  both libraries draw different random numbers (weights, shuffling), so losses are not equal
  step by step, but linear regression recovers w on both, and the classifiers' accuracies
  agree to a few points;
- the validation labels exactly, and the resized validation images to 1e-3 (torchvision
  resizes through PIL's 8-bit images, dagrad in float32).

PyTorch's side needs torchvision, pandas and the book's ``d2l`` 1.0.3 (installed without its
dependencies, whose pins are for NumPy 1.x); ``make test`` installs them. The torchvision wheel
the package index has is built for CUDA: next to a CPU build of torch its compiled operators
(detection ops: non-maximum suppression, RoI pooling) cannot load, and its import stops where it
attaches shape functions to two of them. For that case the PyTorch kernel declares those two
operators' schemas first, as the compiled library would have (kernels stay absent; nothing the
book's library or this notebook runs calls them); with a matching torchvision nothing is
declared.
"""
import copy
import json
import os
import re
import textwrap

import numpy as np
import pytest

from tests.facade.book_data import idx_bytes
from tests.facade.programs import to_torch
from tests.notebooks import harness
from tests.helpers import torch_or_skip

pytestmark = pytest.mark.lesson

NOTEBOOK = harness.NOTEBOOK_DIR / "14_course_code.ipynb"
DAGRAD_ONLY = "dagrad-only"
RESULT = "RESULT "
NUMBER = re.compile(r"[-+]?(\d+\.?\d*|\.\d+)(e[-+]?\d+)?")

# Printed lines that report a trained value (random weights and shuffling decide its digits):
# compared with their numbers masked here, and their values within tolerance below.
TRAINED = ("error in estimating w:", "error in estimating b:", "validation accuracy of",
           "sigmoid LeNet validation loss", "ReLU LeNet validation accuracy")

READOUT = """
import json as _json
_X, _y = next(iter(data.val_dataloader()))          # LeNet's data: 16x16, not shuffled
print(%r + _json.dumps({
    "torch": torch.__name__, "d2l": d2l.__name__, "offline": offline,
    "scratch_error": scratch_error, "concise_error": concise_error,
    "softmax_acc": softmax_acc, "mlp_acc": mlp_acc,
    "sigmoid_loss": float(sigmoid_loss), "lenet_acc": lenet_acc,
    "val_shape": list(_X.shape), "val_labels": _y.tolist(), "val_pixels": _X.sum().item()}))
""" % RESULT

# Run at the PyTorch kernel's start (an IPython startup file): see the module's docstring.
TORCHVISION_OPERATORS = """
import importlib.util
import os

import torch

_spec = importlib.util.find_spec("torchvision")
if _spec is not None:
    try:
        torch.ops.load_library(os.path.join(os.path.dirname(_spec.origin), "_C.so"))
    except OSError:          # a CUDA torchvision next to a CPU torch
        _declared = torch.library.Library("torchvision", "DEF")
        for _name in ("nms", "qnms"):
            _declared.define(_name + "(Tensor dets, Tensor scores, float iou_threshold) -> Tensor")
"""


def write_digits_as_fashion_mnist(root):
    """The digits stand-in of ``d2l.FashionMNIST`` (the same split), as the four IDX files at
    ``root/FashionMNIST/raw``: 8x8 uint8 images that both libraries resize on loading."""
    from dagrad.nn.datasets import load_digits
    X, y = load_digits()
    images = np.round(X.reshape(-1, 8, 8) * 255).astype(np.uint8)
    order = np.random.default_rng(0).permutation(len(y))
    split = int(0.8 * len(y))
    raw = root / "FashionMNIST" / "raw"
    raw.mkdir(parents=True)
    for prefix, part in (("train", order[:split]), ("t10k", order[split:])):
        (raw / f"{prefix}-images-idx3-ubyte").write_bytes(idx_bytes(images[part]))
        (raw / f"{prefix}-labels-idx1-ubyte").write_bytes(idx_bytes(y[part]))


def imports_changed_back(source):
    """The first cell as a user leaving for PyTorch writes it: the imports of ``torch``,
    ``d2l``, ``nn`` and ``F`` changed back, every other line as it was."""
    source = re.sub(r"^from dagrad import torch, d2l$",
                    "import torch\nfrom d2l import torch as d2l", source, flags=re.M)
    return to_torch(source)


def pytorch_version(nb):
    """``nb`` with its first code cell's imports changed back and its dagrad-only cells left
    out."""
    nb = copy.deepcopy(nb)
    nb["cells"] = [c for c in nb["cells"] if DAGRAD_ONLY not in c["metadata"].get("tags", [])]
    first = next(c for c in nb["cells"] if c["cell_type"] == "code")
    first["source"] = imports_changed_back(first["source"])
    return nb


def with_readout(nb):
    nb = copy.deepcopy(nb)
    import nbformat
    nb["cells"].append(nbformat.v4.new_code_cell(READOUT))
    return nb


# What prints differently, and why: dagrad's dtypes are NumPy's, whose names have no "torch.".
DTYPE_NAME = re.compile(r"\btorch\.(float(16|32|64)|int(8|16|32|64)|uint8|bool)\b")


def as_dagrad_prints(line):
    """A line printed on PyTorch as dagrad prints it (``torch.float32`` -> ``float32``)."""
    return DTYPE_NAME.sub(r"\1", line)


def printed(cell):
    return "".join(o.get("text", "") for o in cell.get("outputs", [])
                   if o.get("output_type") == "stream" and o.get("name") == "stdout")


def masked(text):
    """``text`` with every number replaced by ``#``, runs of spaces by one space, and no space
    after a bracket (a tensor pads its positive numbers when one of them is negative)."""
    return re.sub(r"\[ ", "[", re.sub(r" +", " ", NUMBER.sub("#", text)))


def result(nb):
    line = next(line for line in printed(nb["cells"][-1]).splitlines()
                if line.startswith(RESULT))
    return json.loads(line[len(RESULT):])


def run(nb, folder, log_name, env=None):
    """(the executed notebook, the exercise checks' records)."""
    nb = with_readout(nb)
    records = harness.execute(nb, folder.parent / log_name, folder=folder, env=env)
    return nb, records


def pytorch_or_fail(tmp_path):
    """The environment of a kernel that runs the book's library on PyTorch."""
    torch_or_skip()
    import importlib.util
    missing = [name for name in ("torchvision", "d2l", "pandas")
               if importlib.util.find_spec(name) is None]
    if missing:
        reason = (f"notebook 14's PyTorch run needs {', '.join(missing)}: pip install "
                  f"torchvision==0.28.0 pandas && pip install --no-deps d2l==1.0.3 "
                  f"(make test installs them)")
        if os.environ.get("CI"):
            pytest.fail(reason)
        pytest.skip(reason)
    startup = tmp_path / "ipython" / "profile_default" / "startup"
    startup.mkdir(parents=True)
    (startup / "00-torchvision-operators.py").write_text(textwrap.dedent(TORCHVISION_OPERATORS))
    # One OpenMP thread, as `make test` gives its own processes: with two test workers on two
    # cores, PyTorch's spinning threads doubled this run's CPU time (33 s against 70 s).
    # dagrad's kernel keeps a student's default, since its own thread policy is under test.
    return {"IPYTHONDIR": str(tmp_path / "ipython"), "MPLBACKEND": "Agg",
            "OMP_NUM_THREADS": "1", "MKL_NUM_THREADS": "1"}


@pytest.fixture(scope="module")
def both_runs(tmp_path_factory):
    """Notebook 14 with its solutions, run on dagrad and on PyTorch with the book's library."""
    pytest.importorskip("nbclient", reason="install the notebooks extra")
    tmp_path = tmp_path_factory.mktemp("exit_door_14")
    env = pytorch_or_fail(tmp_path)
    write_digits_as_fashion_mnist(tmp_path / "data")
    folder = tmp_path / "notebooks"                  # the book's ../data is tmp_path/data
    folder.mkdir()
    nb = harness.read_notebook(NOTEBOOK)
    solutions = harness.read_sections(harness.solutions_path(NOTEBOOK))
    ours = harness.inject(nb, solutions)
    on_pytorch = pytorch_version(nb)
    theirs = harness.inject(on_pytorch, {k: v for k, v in solutions.items()
                                         if k in harness.exercise_ids(on_pytorch)})
    return run(ours, folder, "ours.jsonl"), run(theirs, folder, "theirs.jsonl", env)


def test_only_the_first_cell_changes_and_only_its_imports():
    nb = harness.read_notebook(NOTEBOOK)
    on_pytorch = pytorch_version(nb)
    kept = [c for c in nb["cells"] if DAGRAD_ONLY not in c["metadata"].get("tags", [])]
    changed = [(a["source"], b["source"]) for a, b in zip(kept, on_pytorch["cells"])
               if a["source"] != b["source"]]
    assert len(changed) == 1
    before, after = changed[0]
    assert "import torch\nfrom d2l import torch as d2l\nfrom torch import nn\n" in after
    assert "from torch.nn import functional as F" in after
    assert [line for line in after.splitlines() if "dagrad" in line] == [
        "from dagrad.exercises import check, given"]
    assert "from dagrad import torch, d2l" in before
    # what is left out is dagrad's own drawing of a step, and the lesson's checks stay
    left_out = [c["source"] for c in nb["cells"] if c not in kept]
    assert len(left_out) == 5 and all("viz" in s or "graph" in s or "delta_" in s
                                      for s in left_out)
    assert any("assert softmax_acc" in c["source"] for c in on_pytorch["cells"])


def test_both_runs_use_their_own_libraries(both_runs):
    ours, theirs = (result(nb) for (nb, _) in both_runs)
    assert (ours["torch"], ours["d2l"]) == ("dagrad.torch", "dagrad.d2l")
    assert (theirs["torch"], theirs["d2l"]) == ("torch", "d2l.torch")
    assert ours["offline"] == theirs["offline"] == {}      # both read the files: no stand-in


def test_only_a_dtype_name_may_print_differently():
    assert as_dagrad_prints("torch.Size([256, 1, 28, 28]) torch.float32 torch.Size([256]) "
                            "torch.int64") == ("torch.Size([256, 1, 28, 28]) float32 "
                                               "torch.Size([256]) int64")
    assert as_dagrad_prints("Linear output shape:\t torch.Size([1, 84])").endswith("([1, 84])")
    assert masked("accuracy: 0.941, loss tensor([ 0.0022, -5e-03])") == \
        masked("accuracy: 0.5, loss tensor([0.1, 2.0])") != masked("accuracy: 0.5, loss 0.1")


def test_every_exercise_check_passes_on_both(both_runs):
    (_, ours), (_, theirs) = both_runs
    assert sorted(r["exercise"] for r in ours) == ["14.1", "14.2", "14.4", "14.5", "14.6"]
    assert sorted(r["exercise"] for r in theirs) == ["14.1", "14.2", "14.4", "14.5"]
    assert all(r["ok"] for r in ours + theirs), [r for r in ours + theirs if not r["ok"]]


def test_the_same_lines_are_printed(both_runs):
    """Every line both runs print is the same, verbatim, except the trained values' digits."""
    (ours, _), (theirs, _) = both_runs
    mine = {c["id"]: c for c in ours["cells"] if c["cell_type"] == "code"}
    verbatim = trained = 0
    for cell in theirs["cells"][:-1]:
        if cell["cell_type"] != "code":
            continue
        lines, their_lines = printed(mine[cell["id"]]).splitlines(), printed(cell).splitlines()
        assert len(lines) == len(their_lines), cell["source"]
        for line, theirs_line in zip(lines, their_lines):
            if line.startswith(TRAINED):
                assert masked(line) == masked(theirs_line), cell["source"]
                trained += 1
            else:
                assert line == as_dagrad_prints(theirs_line), cell["source"]
                verbatim += 1
    assert verbatim >= 15 and trained == 8     # 4 lines of estimation errors, 4 of accuracies


def test_training_results_agree_within_tolerance(both_runs):
    ours, theirs = (result(nb) for (nb, _) in both_runs)
    for run in (ours, theirs):
        assert run["concise_error"] < 0.05 and run["scratch_error"] < 0.5
        assert run["softmax_acc"] > 0.85 and run["mlp_acc"] > 0.7
        assert run["sigmoid_loss"] > 2.0 and run["lenet_acc"] > 0.75
    for key, tolerance in (("softmax_acc", 0.05), ("mlp_acc", 0.1), ("lenet_acc", 0.15),
                           ("sigmoid_loss", 0.1)):
        assert abs(ours[key] - theirs[key]) < tolerance, (key, ours[key], theirs[key])
    assert ours["val_shape"] == theirs["val_shape"] == [32, 1, 16, 16]
    assert ours["val_labels"] == theirs["val_labels"]
    assert ours["val_pixels"] == pytest.approx(theirs["val_pixels"], rel=1e-3)
