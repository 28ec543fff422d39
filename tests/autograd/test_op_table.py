"""Walks the table of operations: float64 gradcheck, and parity with PyTorch."""
import numpy as np
import pytest

import autograd as ag
from tests.autograd.op_table import OPS
from tests.helpers import leaves, random_inputs, torch_or_skip, torch_parity

CASES = [pytest.param(op, shapes, id=f"{op.name}-{'x'.join(map(str, shapes))}")
         for op in OPS for shapes in op.shapes]


@pytest.mark.parametrize("op,shapes", CASES)
def test_gradcheck(op, shapes):
    xs = leaves(random_inputs(shapes, op.domain))
    assert ag.gradcheck(lambda *t: op.fn(ag, *t), xs)


@pytest.mark.parametrize("op,shapes", CASES)
def test_matches_pytorch(op, shapes):
    torch = torch_or_skip()
    torch_fn = op.torch_fn or op.fn
    torch_parity(lambda *t: op.fn(ag, *t), lambda *t: torch_fn(torch, *t),
                 random_inputs(shapes, op.domain))


def test_every_row_has_a_unique_name():
    names = [op.name for op in OPS]
    assert len(names) == len(set(names))
