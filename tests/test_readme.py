"""The Python examples of the README and of every page in docs/ run, so the documentation
cannot drift from the code. Each page runs as one session, its blocks in order (later blocks
use names the earlier ones defined)."""
import pathlib
import re

import pytest

ROOT = pathlib.Path(__file__).resolve().parent.parent
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]


def python_blocks(page):
    return re.findall(r"```python\n(.*?)```", page.read_text(encoding="utf-8"), re.S)


def test_the_documentation_has_examples():
    assert len(python_blocks(ROOT / "README.md")) >= 1, "the README lost its example"
    assert sum(len(python_blocks(p)) for p in PAGES) >= 6, "the docs lost their examples"


@pytest.mark.parametrize("page", PAGES, ids=lambda p: str(p.relative_to(ROOT)))
def test_page_examples_run(page, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)           # examples that save pictures write here
    namespace = {}
    for number, source in enumerate(python_blocks(page)):
        exec(compile(source, f"{page.name} python block {number}", "exec"), namespace)


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
