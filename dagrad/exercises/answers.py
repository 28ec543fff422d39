"""The lessons' answer files and exercise cells, as the tests and the course builder read them.

The exercise protocol (docs/notebooks.md, "Exercises"): the cell where the student answers
exercise ``08.3`` is tagged ``exercise:08.3``, the cell that judges it ``check:08.3``. Answers
are plain Python files in the "percent" format: a line ``# %% exercise 08.3`` starts the text
for that exercise's answer cell (``notebooks/solutions/<lesson>.py``, the worked solutions;
``tests/notebooks/wrong_answers/<lesson>.py``; ``notebooks/hidden_tests/<lesson>.py``, the
exercise set up at other inputs).
"""
import copy
import pathlib
import re

SECTION = re.compile(r"^# %% exercise (\d\d\.\d+)[ \t]*$", re.M)
TAG = re.compile(r"^(exercise|check):(\d\d\.\d+)$")


def cell_source(cell):
    """A cell's source as one string (nbformat stores a string or a list of lines)."""
    source = cell.get("source", "")
    return "".join(source) if isinstance(source, list) else source


def cell_tag(cell):
    """(kind, exercise id) of a cell tagged ``exercise:<id>`` or ``check:<id>``, else None."""
    for tag in cell.get("metadata", {}).get("tags", []):
        match = TAG.match(tag)
        if match:
            return match.group(1), match.group(2)
    return None


def tagged_cells(nb, kind):
    """{exercise id: [cell, ...]} for the cells tagged `kind:<id>` (kind: exercise or check)."""
    found = {}
    for cell in nb["cells"]:
        for tag in cell.get("metadata", {}).get("tags", []):
            match = TAG.match(tag)
            if match and match.group(1) == kind:
                found.setdefault(match.group(2), []).append(cell)
    return found


def exercise_ids(nb):
    """The ids of the exercises whose answer cell is in the notebook, in notebook order."""
    return list(tagged_cells(nb, "exercise"))


def read_sections(path):
    """{exercise id: source} of a percent-format answers file; {} when the file is absent."""
    path = pathlib.Path(path)
    if not path.exists():
        return {}
    text = path.read_text(encoding="utf-8")
    marks = list(SECTION.finditer(text))
    sections = {}
    for mark, following in zip(marks, marks[1:] + [None]):
        body = text[mark.end():following.start() if following else len(text)]
        ident = mark.group(1)
        if ident in sections:
            raise ValueError(f"{path.name}: exercise {ident} appears twice")
        sections[ident] = body.strip("\n") + "\n"
    return sections


def inject(nb, sections):
    """A copy of `nb` whose exercise cells hold the given sources (other cells unchanged)."""
    nb = copy.deepcopy(nb)
    cells = tagged_cells(nb, "exercise")
    unknown = set(sections) - set(cells)
    if unknown:
        raise ValueError(f"answers for exercises the notebook does not have: {sorted(unknown)}")
    for ident, source in sections.items():
        for cell in cells[ident]:
            cell["source"] = source
    return nb
