"""The README's Python examples run, in order, as one session (later blocks use names the earlier
ones defined), so the documentation cannot drift from the code."""
import pathlib
import re

README = pathlib.Path(__file__).resolve().parent.parent / "README.md"


def test_readme_examples_run(tmp_path, monkeypatch):
    blocks = re.findall(r"```python\n(.*?)```", README.read_text(encoding="utf-8"), re.S)
    assert len(blocks) >= 5, "the README lost its examples"
    monkeypatch.chdir(tmp_path)           # examples that save pictures write here
    namespace = {}
    for number, source in enumerate(blocks):
        exec(compile(source, f"README.md python block {number}", "exec"), namespace)
