"""The code cells of the course notes, read from the notes themselves.

The notes live in ``shared/course/*.txt`` beside the repository (found by walking up from it);
each fenced block is a code cell, except the blocks that show printed output (a tensor's
repr, the "error in estimating" lines). The notes were transcribed from slides: the
transcription reads the book's ``d2l`` as ``d21`` in two cells, and that is read back as
``d2l``; nothing else in a cell is changed.
"""
import re
from pathlib import Path

FENCE = re.compile(r"^```[^\n]*\n(.*?)^```", re.S | re.M)
OUTPUT_PREFIXES = ("tensor(", "error in estimating")
PREAMBLE = ("from dagrad import torch, d2l\n"
            "from dagrad.torch import nn\n"
            "from dagrad.torch.nn import functional as F\n")


def notes_folder():
    """The folder of the course notes, or None when they are not beside the repository."""
    for parent in Path(__file__).resolve().parents:
        folder = parent / "shared" / "course"
        if folder.is_dir() and list(folder.glob("*.txt")):
            return folder
    return None


def code_cells(folder):
    """[(name, source)] of every code cell of the notes in ``folder``, in order; the name is
    "<file stem>:<number of the cell in that file>"."""
    cells = []
    for path in sorted(folder.glob("*.txt")):
        blocks = FENCE.findall(path.read_text(encoding="utf-8"))
        code = [b for b in blocks if not b.lstrip().startswith(OUTPUT_PREFIXES)]
        for i, source in enumerate(code):
            cells.append((f"{path.stem}:{i}", re.sub(r"\bd21\.", "d2l.", source)))
    return cells


class CourseRun:
    """Runs the cells in order in one namespace (as a notebook does), each once, remembering
    the exception a cell raised (None when it ran)."""

    def __init__(self, cells, namespace=None):
        """``namespace``: the names the cells start with; dagrad's (PREAMBLE) by default."""
        self.cells = cells
        self.namespace = {"__name__": "__course__"}
        if namespace is None:
            exec(PREAMBLE, self.namespace)
        else:
            self.namespace.update(namespace)
        self.errors = []

    def run_through(self, index):
        """Run every cell up to ``index`` not yet run; the exception of cell ``index``."""
        while len(self.errors) <= index:
            name, source = self.cells[len(self.errors)]
            try:
                exec(compile(source, f"<course cell {name}>", "exec"), self.namespace)
                self.errors.append(None)
            except Exception as e:  # noqa: BLE001  (recorded for the cell's own test)
                self.errors.append(e)
        return self.errors[index]
