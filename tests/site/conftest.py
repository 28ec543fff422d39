"""The built site, a local server for it, and what a reader's browser finds on its pages: each
made once per test run, by whichever worker asks first, and shared with the other
(tests/once.py)."""
import os
import pathlib

import pytest

from tests import once
from website import build as site_build

from . import page_facts
from .browsing import PHONE, WIDTH, HEIGHT, serve


def _require(module, what):
    try:
        __import__(module)
    except ImportError:
        if os.environ.get("CI"):
            pytest.fail(f"the site test must run in CI: {what} is missing")
        pytest.skip(f"{what} is not installed (pip install -e '.[site]')")


@pytest.fixture(scope="session")
def shared(tmp_path_factory, request):
    """This test run's folder that both workers see."""
    return once.run_folder(tmp_path_factory, request.config)


@pytest.fixture(scope="session")
def site(shared, executed_lessons):
    """The built site's folder, built once per test run from this run's blank lesson runs
    (the lessons the notebook tests have not executed yet are executed here, two at a time,
    under the same per-lesson locks; a copy from an earlier run is taken when it matches the
    lessons and the library as they are)."""
    for module in ("mkdocs", "mkdocs_jupyter", "mathjax"):        # the site extra
        _require(module, module)
    out, staging = shared / "site", shared / "site-src"

    def build():
        executed_lessons.for_the_site(site_build.lessons())
        ran, _ = site_build.build(out, reuse_dir=executed_lessons.folder, jobs=1,
                                  staging=staging)
        return {"ran": ran}
    once.once(shared, "site", build)
    return pathlib.Path(out)


@pytest.fixture(scope="session")
def served(site):
    """The base URL of a local HTTP server for the built site."""
    with serve(site) as base:
        yield base


@pytest.fixture(scope="session")
def wide_pages(site, served, shared):
    """{page: its facts} for every page of the site, each visited once at 1280 x 800
    (page_facts.read_wide): the tests of test_pages.py and test_reading.py assert on them."""
    return once.once(shared, f"pages-{WIDTH}x{HEIGHT}",
                     lambda: page_facts.read_wide(site, served))


@pytest.fixture(scope="session")
def phone_pages(site, served, shared):
    """{page: its facts} for the home page and every lesson page with a picture, each visited
    once on a phone (page_facts.read_phone)."""
    return once.once(shared, "pages-{}x{}".format(*PHONE),
                     lambda: page_facts.read_phone(site, served))
