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
    executed when they match the lessons as they are)."""
    for module in ("mkdocs", "mkdocs_jupyter", "mathjax"):        # the site extra
        _require(module, module)
    out = tmp_path_factory.mktemp("site")
    site_build.build(out, reuse_dir=site_build.EXECUTED, jobs=1,
                     staging=tmp_path_factory.mktemp("site-src"))
    return out


@pytest.fixture(scope="session")
def served(site):
    """The base URL of a local HTTP server for the built site."""
    with serve(site) as base:
        yield base
