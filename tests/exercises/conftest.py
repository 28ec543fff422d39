import pytest

from dagrad.exercises import ladder, tutor


@pytest.fixture(autouse=True)
def fresh_kernel_state():
    """Each test starts as a fresh kernel would: no attempts counted, nothing given, no answers
    on a progress map, and the
    exercises a test defines (ids 9x.k) removed afterwards."""
    ladder.ATTEMPTS.clear()
    ladder.LAST.clear()
    tutor.GIVEN.clear()
    tutor.PROGRESS.clear()
    yield
    for ident in [k for k in tutor.REGISTRY if k.startswith("9")]:
        del tutor.REGISTRY[ident]
        tutor.GIVEN.pop(ident, None)
