"""Every code cell of the course notes runs as printed after ``from dagrad import torch, d2l``
(with ``nn`` and ``F`` imported as the book does), in order in one namespace, on Fashion-MNIST
files generated in the book's layout (``../data/FashionMNIST/raw``)."""
import os

import pytest

from tests.facade.book_data import write_fashion_mnist
from tests.facade.book_programs import d2l_on_pytorch
from tests.facade.course_cells import CourseRun, code_cells, notes_folder

FOLDER = notes_folder()
CELLS = code_cells(FOLDER) if FOLDER else []

# Cells that cannot run as printed, with why; each must fail in dagrad with the exception
# PyTorch and the book's library raise for it.
CANNOT_RUN = {
    "001_3925ed8ae861edfe:10": (SyntaxError, "the cell holds the printed output lines "
                                "('error in estimating w: tensor([...])') among its code"),
    "001_3925ed8ae861edfe:18": (TypeError, "the notes' cross_entropy (the cell before) closes "
                                "the bracket early, torch.log(y_hat[...], y): log() takes one "
                                "argument, in PyTorch as in dagrad"),
}


def _in_book_layout(tmp_path_factory, namespace=None):
    """A CourseRun whose working folder sees generated Fashion-MNIST files at ../data."""
    pytest.importorskip("matplotlib")
    import matplotlib
    matplotlib.use("Agg")
    base = tmp_path_factory.mktemp("course")
    write_fashion_mnist(base / "data", n_train=300, n_val=100)
    (base / "work").mkdir()
    before = os.getcwd()
    os.chdir(base / "work")                     # the book's root "../data" is base/data
    try:
        yield CourseRun(CELLS, namespace)
    finally:
        os.chdir(before)
        import matplotlib.pyplot as plt
        plt.close("all")


@pytest.fixture(scope="module")
def course(tmp_path_factory):
    yield from _in_book_layout(tmp_path_factory)


def test_the_notes_have_their_45_code_cells():
    if not CELLS:
        pytest.skip("the course notes (shared/course/*.txt) are not beside the repository")
    assert len(CELLS) == 45
    assert set(CANNOT_RUN) <= {name for name, _ in CELLS}


@pytest.mark.parametrize("index", range(len(CELLS)), ids=[name for name, _ in CELLS])
def test_course_cell_runs_as_printed(course, index):
    name, source = CELLS[index]
    error = course.run_through(index)
    if name in CANNOT_RUN:
        kind, why = CANNOT_RUN[name]
        assert isinstance(error, kind), f"cell {name} was expected to raise {kind.__name__}"
        pytest.skip(f"cell {name} cannot run as printed: {why}")
    if error is not None:
        raise error


def test_the_last_cell_trained_lenet_for_ten_epochs(course):
    """The last cell's Trainer ran the book's 10 epochs: one validation point per epoch on
    the live plot, finite losses, and the lazy layers took their sizes from the data."""
    if not CELLS:
        pytest.skip("the course notes are not beside the repository")
    course.run_through(len(CELLS) - 1)
    model = course.namespace["model"]
    losses = [p.y for p in model.board.data["val_loss"]]
    assert len(losses) == 10 and all(0 < loss < 10 for loss in losses)
    assert tuple(model.net[-1].weight.shape) == (10, 84)


def test_on_pytorch_the_same_cells_fail_and_the_others_run(tmp_path_factory, monkeypatch):
    """The skip list is PyTorch's: the notes' cells on PyTorch (with dagrad.d2l's source
    pointed at PyTorch) fail at exactly the cells above, with the same exceptions."""
    if not CELLS:
        pytest.skip("the course notes are not beside the repository")
    d2l = d2l_on_pytorch()
    real = d2l.torch
    names = {"torch": real, "nn": real.nn, "F": real.nn.functional, "d2l": d2l}
    loader = real.utils.data.DataLoader

    class InProcess(loader):                    # the book's 4 worker processes change nothing
        def __init__(self, *args, num_workers=0, **kwargs):
            super().__init__(*args, num_workers=0, **kwargs)
    monkeypatch.setattr(real.utils.data, "DataLoader", InProcess)
    threads = real.get_num_threads()
    real.set_num_threads(1)
    for run in _in_book_layout(tmp_path_factory, names):
        run.run_through(len(CELLS) - 1)
        failed = {name: type(error) for (name, _), error in zip(CELLS, run.errors) if error}
    monkeypatch.undo()
    real.set_num_threads(threads)
    assert failed == {name: kind for name, (kind, _) in CANNOT_RUN.items()}
