"""Every code cell of the course notes runs as printed after ``from dagrad import torch, d2l``
(with ``nn`` and ``F`` imported as the book does), in order in one namespace, on Fashion-MNIST
files generated in the book's layout (``../data/FashionMNIST/raw``)."""
import os

import pytest

from tests.facade.book_data import write_fashion_mnist
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


@pytest.fixture(scope="module")
def course(tmp_path_factory):
    pytest.importorskip("matplotlib")
    import matplotlib
    matplotlib.use("Agg")
    base = tmp_path_factory.mktemp("course")
    write_fashion_mnist(base / "data", n_train=300, n_val=100)
    (base / "work").mkdir()
    before = os.getcwd()
    os.chdir(base / "work")                     # the book's root "../data" is base/data
    try:
        yield CourseRun(CELLS)
    finally:
        os.chdir(before)
        import matplotlib.pyplot as plt
        plt.close("all")


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
