"""Every teaching notebook runs top to bottom from a clean kernel (its last cell checks its
claim, so a notebook that runs is a notebook whose lesson holds), offline, and has the shape
students rely on: what it teaches and which course section it follows at the top, a cell of
checks, and exercises that a check judges (or, open-ended, that carry a model answer).

Running a notebook here is the student's first run, with every answer still blank: each
exercise check must then say "not answered" and the notebook must still run to the end.
tests/test_exercises_notebooks.py runs them again, each exercise answered wrong and then right."""
import json
import pathlib
import re

import pytest

from tests.notebooks import harness
from website import build as site_build

ROOT = pathlib.Path(__file__).resolve().parent.parent
NOTEBOOKS = sorted((ROOT / "notebooks").glob("[0-9]*.ipynb"))

# What each notebook must teach (issue "Teaching notebooks"): phrases searched, case-insensitive,
# in its text and code.
TOPICS = {
    "00": ["chain rule", "compute graph", "local derivative", "multiple use", "topological",
           "backward", "viz.draw", "micrograd"],
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
    "15": ["byte-pair encoding", "merges", "encoder block", "add & norm", "feed-forward",
           "viz.player", "pre-norm", "post-norm", "next-token", "masked language model",
           "span corruption", "relative positions", "alibi", "path length"],
    "16": ["forward process", "closed form", "ᾱ", "predict the noise", "training objective",
           "sampling", "reverse step", "viz.draw", "moons"],
    "14": ["from dagrad import torch, d2l", "add_to_class", "lazylinear", ".data.normal_",
           "torch.no_grad", "softmax regression", "dropout", "lenet", "stand_in",
           "grads=true"],
}

# Code that reaches for the network, or installs packages, in a notebook's cells.
NETWORK_CODE = re.compile(
    r"https?://|\burllib\b|\brequests\b|\bsocket\b|\bfetch_\w+|\bdownload\s*=\s*True"
    r"|pip install|^\s*!|%%(?:bash|sh|script)", re.M)


def tagged_cells(path):
    """[(cell type, source text, tags)] of a notebook, read as plain JSON."""
    with open(path, encoding="utf-8") as f:
        nb = json.load(f)
    return [(c["cell_type"], "".join(c["source"]) if isinstance(c["source"], list)
             else c["source"], c.get("metadata", {}).get("tags", [])) for c in nb["cells"]]


def cells(path):
    """[(cell type, source text)] of a notebook."""
    return [(kind, text) for kind, text, _ in tagged_cells(path)]


@pytest.mark.lesson
@pytest.mark.parametrize("path", NOTEBOOKS, ids=[p.stem for p in NOTEBOOKS])
def test_notebook_runs(path, executed_lessons):
    """The blank notebook runs (raises CellExecutionError, with the cell and traceback, on any
    error), and every exercise's check ran and said "not answered". The run is this test run's
    one blank run of the lesson, which the site's pages are built from too
    (tests/notebooks/executed.py): executed here, or read if the site's build executed it
    first."""
    pytest.importorskip("nbformat", reason="install the notebooks extra")
    pytest.importorskip("nbclient", reason="install the notebooks extra")
    nb, records = executed_lessons.blank_run(path)
    assert set(harness.by_exercise(records)) == set(harness.exercise_ids(nb)), \
        "every exercise's check cell calls a check with exercise=<its id>, and no other id"
    answered = [r for r in records if r["ok"] or r["diagnosis"] != "not_answered"]
    assert not answered, f"checks that did not say 'not answered' on a blank notebook: {answered}"


def test_notebooks_are_numbered_uniquely():
    numbers = [p.name.split("_")[0] for p in NOTEBOOKS]
    assert len(numbers) == len(set(numbers))
    assert set(TOPICS) <= set(numbers), "a notebook of the course is missing"


OPEN_ENDED = "(open-ended)"
MODEL_ANSWER = "<details><summary>A model answer</summary>"


def exercise_counts(path):
    """(exercises a check judges, open-ended exercises with a model answer) of a notebook."""
    checked = {tag for _, _, tags in tagged_cells(path) for tag in tags
               if tag.startswith("exercise:")}
    open_ended = [text for kind, text, _ in tagged_cells(path)
                  if kind == "markdown" and OPEN_ENDED in text and MODEL_ANSWER in text]
    return len(checked), len(open_ended)


@pytest.mark.parametrize("path", NOTEBOOKS, ids=[p.stem for p in NOTEBOOKS])
def test_notebook_carries_the_kernels_own_metadata(path):
    """JupyterLab writes the running kernel's kernelspec and language_info into a notebook it
    opens: a lesson committed with anything else ("Python 3" for "Python 3 (ipykernel)", no
    language version) opens marked as modified before the student has done anything
    (tests/viz/test_jupyterlab.py opens one). The python3 kernel's values, its Python's
    version included."""
    from ipykernel.ipkernel import IPythonKernel
    from jupyter_client.kernelspec import KernelSpecManager
    spec = KernelSpecManager().get_kernel_spec("python3")
    metadata = json.loads(path.read_text(encoding="utf-8"))["metadata"]
    assert metadata["kernelspec"] == {"display_name": spec.display_name,
                                      "language": spec.language, "name": "python3"}
    assert metadata["language_info"] == IPythonKernel.language_info


@pytest.mark.parametrize("path", NOTEBOOKS, ids=[p.stem for p in NOTEBOOKS])
def test_notebook_opens_with_its_lesson_and_has_checks(path):
    parts = cells(path)
    kind, first = parts[0]
    number = path.name.split("_")[0]
    assert kind == "markdown" and first.startswith(f"# {number} ·"), first[:80]
    assert "**What this notebook teaches.**" in first and "**Course section.**" in first
    checks = [code for (heading_kind, heading), (code_kind, code) in zip(parts, parts[1:])
              if heading_kind == "markdown" and "## Checks" in heading and code_kind == "code"]
    assert checks, "a '## Checks' heading followed by the cell that checks the lesson's claims"
    assert len(re.findall(r"^\s*assert\b", checks[-1], re.M)) >= 3, "the checks cell asserts little"


@pytest.mark.parametrize("path", NOTEBOOKS, ids=[p.stem for p in NOTEBOOKS])
def test_notebook_exercises_follow_the_protocol(path):
    """Exercises are numbered 1, 2, ... in the order the lesson's text asks them; exercise k is either checked (a
    markdown cell with "Exercise k", the answer cell tagged `exercise:NN.k`, then a check cell
    tagged `check:NN.k` that calls check("NN.k", ...) or passes exercise="NN.k") or open-ended
    (its markdown says
    "(open-ended)" and holds a model answer in <details>)."""
    number = path.name.split("_")[0]
    parts = tagged_cells(path)
    assert any(tag.startswith("exercise:") for _, _, tags in parts for tag in tags), \
        "a lesson asks the student to do something a check judges: at least one answer cell"
    numbers = []
    for i, (kind, text, tags) in enumerate(parts):
        for tag in tags:
            if tag == "dagrad-only":        # left out when the lesson runs on PyTorch
                continue
            role, _, ident = tag.partition(":")
            assert role in ("exercise", "check"), f"unknown tag {tag!r}"
            lesson, _, k = ident.partition(".")
            assert lesson == number and k.isdigit(), f"{tag!r}: ids are '{number}.<k>'"
            assert kind == "code", f"{tag!r} is on a {kind} cell"
            if role == "exercise":
                numbers.append(int(k))
                task_kind, task, _ = parts[i - 1]
                assert task_kind == "markdown" and re.search(rf"\bExercise {k}\b", task), \
                    f"the cell before {tag!r} states the task, 'Exercise {k}'"
                assert "None" in text or "..." in text, f"{tag!r} starts blank (None or ...)"
                later = [t for _, t, ts in parts[i + 1:] if f"check:{ident}" in ts]
                assert later, f"exercise {ident} has no check cell after its answer cell"
            else:
                assert f'check("{ident}"' in text or f'exercise="{ident}"' in text, \
                    f"{tag!r} calls check(\"{ident}\", ...) or a check with exercise=\"{ident}\""
        if kind == "markdown" and OPEN_ENDED in text:
            match = re.search(r"\bExercise (\d+)\b", text)
            assert match and MODEL_ANSWER in text and "</details>" in text, \
                f"an open-ended exercise names its number and has a model answer:\n{text[:200]}"
            numbers.append(int(match.group(1)))
    assert numbers == list(range(1, len(numbers) + 1)), \
        f"exercises are numbered 1, 2, ... in the order they appear: {numbers}"
    assert len(numbers) >= 3, "a few exercises"


def test_docs_count_the_exercises():
    """docs/notebooks.md gives, per notebook, the exercises a check judges and the open-ended
    ones with a model answer, and the totals."""
    page = (ROOT / "docs" / "notebooks.md").read_text(encoding="utf-8")
    rows = {number: (int(a), int(b)) for number, a, b in
            re.findall(r"^\| (\d\d) \| (\d+) \| (\d+) \|$", page, re.M)}
    counts = {p.name[:2]: exercise_counts(p) for p in NOTEBOOKS}
    assert rows == counts
    total_checked = sum(a for a, _ in counts.values())
    total_open = sum(b for _, b in counts.values())
    assert (f"In all: {total_checked} exercises with a check and {total_open} open-ended "
            f"exercises with a model answer.") in page


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



PLANNED_TOPICS_AT_MOST = 0       # topics assigned to a lesson that does not teach them yet (none now)


def test_every_course_topic_is_mapped_to_the_lesson_that_teaches_it():
    """docs/notebooks.md maps each of the course's 84 topics to a lesson (or several); the
    phrase it gives is in each of them (so the map cannot drift from the lessons), except for
    the few topics marked "(planned)", whose number may only shrink."""
    page = (ROOT / "docs" / "notebooks.md").read_text(encoding="utf-8")
    rows = re.findall(r"^\| (\d+) \| (.+?) \| (\d\d(?:, \d\d)*)( \(planned\))? \| `(.+?)` \|$",
                      page, re.M)
    numbers = [int(n) for n, *_ in rows]
    assert sorted(numbers) == list(range(1, 85)), "every topic 1-84 once, none unmapped"
    lessons = {p.name[:2]: p for p in NOTEBOOKS}
    planned, missing = [], []
    for number, topic, taught_in, is_planned, phrase in rows:
        for lesson in taught_in.split(", "):
            assert lesson in lessons, \
                f"topic {number} ({topic}) names lesson {lesson}, which does not exist"
        if is_planned:
            planned.append(number)
            continue
        for lesson in taught_in.split(", "):
            text = "\n".join(s for _, s in cells(lessons[lesson])).lower().replace("√", "sqrt ")
            if phrase.lower() not in text:
                missing.append(f"topic {number} ({topic}): {phrase!r} is not in lesson {lesson}")
    assert not missing, "\n".join(missing)
    assert len(planned) <= PLANNED_TOPICS_AT_MOST, f"more topics planned than taught: {planned}"


def test_the_lesson_map_gives_the_order_and_the_topics_of_the_capstone():
    """The site takes the lessons in docs/notebooks.md's order, where 17, the capstone of the
    backprop part, follows 06, and lists the topics the topic map gives it."""
    stems = [p.stem for p in site_build.lessons()]
    assert sorted(stems) == [p.stem for p in NOTEBOOKS]
    assert stems.index("17_backward_by_hand") == stems.index("06_deep_networks") + 1
    assert stems[:7] == [p.stem for p in NOTEBOOKS[:7]]
    topics = site_build.course_topics()
    assert topics["17"] == ["5", "14", "32", "34", "71"] and "5" in topics["02"]
