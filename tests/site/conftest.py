"""The built site (once per test session) and a local server for it."""
import os

import pytest

from website import build as site_build

from .browsing import serve


def _require(module, what):
    try:
        __import__(module)
    except ImportError:
        if os.environ.get("CI"):
            pytest.fail(f"the site test must run in CI: {what} is missing")
        pytest.skip(f"{what} is not installed (pip install -e '.[site]')")


@pytest.fixture(scope="session")
def site(tmp_path_factory):
    """The built site's folder (built once per session, from the lessons the notebook tests
    executed when they match the lessons and the library as they are; the lessons it executes
    itself are kept for the next session)."""
    for module in ("mkdocs", "mkdocs_jupyter", "mathjax"):        # the site extra
        _require(module, module)
    import nbformat
    out, staging = tmp_path_factory.mktemp("site"), tmp_path_factory.mktemp("site-src")
    ran, _ = site_build.build(out, reuse_dir=site_build.EXECUTED, jobs=1, staging=staging)
    for lesson in site_build.lessons():        # kept for the next session, as the notebook
        if ran[lesson.stem] == "executed":     # tests keep the lessons they execute
            executed = staging / "pages" / "lessons" / lesson.name
            site_build.keep_executed(nbformat.read(executed, as_version=4), lesson)
    return out


@pytest.fixture(scope="session")
def served(site):
    """The base URL of a local HTTP server for the built site."""
    with serve(site) as base:
        yield base
