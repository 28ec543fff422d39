"""Headless Chromium for the viz tests, through Playwright's Python API and the system browser
(Playwright cannot download its own browsers here). Missing browser or Playwright: the tests
are skipped with the reason, except under CI, where they fail."""
import contextlib
import os
import shutil

import pytest

from tests.stages import refuse_in_quick_run

ARGS = ["--headless=new", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
        "--disable-component-update", "--disable-sync", "--no-first-run"]


def chromium_path():
    return shutil.which("chromium") or shutil.which("chromium-browser")


def _unavailable(reason):
    if os.environ.get("CI"):
        pytest.fail(f"browser tests must run in CI: {reason}")
    pytest.skip(reason)


@contextlib.contextmanager
def browser_page(width=1280, height=800):
    """A Playwright page in the system's headless Chromium at ``width`` x ``height``."""
    refuse_in_quick_run("browser", "opens a page in headless Chromium")
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        _unavailable("Playwright is not installed (it is in the test extra)")
    path = chromium_path()
    if path is None:
        _unavailable("Debian's chromium is not installed (make test installs it with apt-get)")
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=path, args=ARGS)
        try:
            page = browser.new_page(viewport={"width": width, "height": height})
            yield page
        finally:
            browser.close()
