"""The Python examples of the README and of every page in docs/ run, so the documentation
cannot drift from the code. Each block runs alone, in a fresh interpreter, as a reader who
pastes that one block would run it: a block that needs an import or a name says so itself."""
import os
import pathlib
import re
import subprocess
import sys
import textwrap

import pytest

ROOT = pathlib.Path(__file__).resolve().parent.parent
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]


def python_blocks(page):
    """The Python blocks of a page (a block indented inside a list item is dedented)."""
    return [textwrap.dedent(block) for block in
            re.findall(r"```python\n(.*?)```", page.read_text(encoding="utf-8"), re.S)]


def test_the_documentation_has_examples():
    assert len(python_blocks(ROOT / "README.md")) >= 1, "the README lost its example"
    assert sum(len(python_blocks(p)) for p in PAGES) >= 6, "the docs lost their examples"


BLOCKS = [(page, number) for page in PAGES for number in range(len(python_blocks(page)))]
BLOCK_TIMEOUT = 300


def first_line(page, number):
    """The line of ``page`` where its python block ``number`` starts (for the test's id)."""
    text = page.read_text(encoding="utf-8")
    starts = [m.start() for m in re.finditer(r"```python\n", text)]
    return text.count("\n", 0, starts[number]) + 1


@pytest.mark.parametrize("page, number", BLOCKS, ids=[
    f"{page.relative_to(ROOT)}:{first_line(page, number)}" for page, number in BLOCKS])
def test_each_example_runs_alone_in_a_fresh_interpreter(page, number, tmp_path):
    source = python_blocks(page)[number]
    env = dict(os.environ, MPLBACKEND="Agg")
    # the example runs in an empty folder (examples that save pictures write there)
    result = subprocess.run([sys.executable, "-c", source], cwd=tmp_path, env=env,
                            capture_output=True, text=True, timeout=BLOCK_TIMEOUT)
    assert result.returncode == 0, (
        f"{page.relative_to(ROOT)}, the python block at line {first_line(page, number)}, "
        f"fails when run alone:\n{result.stderr[-3000:]}")


def test_readme_links_resolve():
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    for target in re.findall(r"\]\(([^)#:]+)\)", text):
        assert (ROOT / target).exists(), f"README links to {target}, which does not exist"


def test_layout_page_lists_every_module():
    """docs/layout.md names every Python file of the packages, and only files that exist."""
    text = (ROOT / "docs" / "layout.md").read_text(encoding="utf-8")
    listed = set(re.findall(r"^((?:autograd|nn|optim|viz|dagrad)/\S+\.py)\b", text, re.M))
    present = {str(p.relative_to(ROOT)) for folder in ("autograd", "nn", "optim", "viz", "dagrad")
               for p in (ROOT / folder).rglob("*.py")}
    assert not present - listed, f"docs/layout.md does not list {sorted(present - listed)}"
    assert not listed - present, f"docs/layout.md lists missing files {sorted(listed - present)}"
