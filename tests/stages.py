"""The stages of the test suite (see tests/conftest.py): a test marked ``lesson``, ``site`` or
``browser`` is left out of ``make quick``; the entry points of those stages call
``refuse_in_quick_run`` so that a test that forgot its marker says so instead of slowing every
quick run down."""
import os

import pytest

STAGES = ("lesson", "site", "browser")      # in the order of the summary; the rest: "library"
QUICK = "DAGRAD_QUICK_TESTS"                # set by `make quick`


def stage_of(item):
    """The stage of test ``item``: its first stage marker, else "library"."""
    return next((stage for stage in STAGES if item.get_closest_marker(stage)), "library")


def refuse_in_quick_run(stage, what):
    """Fail the calling test when ``make quick`` runs it: it does ``what`` (a lesson, the site,
    a browser) without the ``stage`` marker that leaves it out of quick runs."""
    if os.environ.get(QUICK):
        pytest.fail(f"this test {what}, which `make quick` leaves out: mark it "
                    f"@pytest.mark.{stage} (tests/stages.py)", pytrace=False)
