"""Shape arguments PyTorch rejects are rejected with PyTorch's error, instead of silently
adding a dimension (flatten(2, 1)), returning nothing (split(0)), inferring from a negative size
(reshape(-2, 2)) or wrapping a negative index around (gather with -1)."""
import numpy as np
import pytest

from dagrad import autograd as ag
from tests.helpers import torch_or_skip

CASES = {
    "flatten(2, 1)": (lambda m: m.ones(2, 3, 4).flatten(2, 1),
                      "start_dim cannot come after end_dim"),
    "split(0)": (lambda m: m.ones(3).split(0),
                 "split_size can only be 0 if dimension size is 0, but got dimension size of 3"),
    "split(-1)": (lambda m: m.ones(3).split(-1),
                  "split expects split_size be non-negative, but got split_size=-1"),
    "reshape(-2, 2)": (lambda m: m.ones(4).reshape(-2, 2), "invalid shape dimension -2"),
    "reshape(-1, -1)": (lambda m: m.ones(4).reshape(-1, -1), "only one dimension can be inferred"),
    "gather(-1)": (lambda m: m.ones(2, 3).gather(1, m.tensor([[-1], [0]])),
                   "index -1 is out of bounds for dimension 1 with size 3"),
    "gather(3)": (lambda m: m.ones(2, 3).gather(1, m.tensor([[3], [0]])),
                  "index 3 is out of bounds for dimension 1 with size 3"),
}


@pytest.mark.parametrize("case", list(CASES))
def test_shape_arguments_pytorch_rejects_raise_its_error(case):
    torch = torch_or_skip()
    call, message = CASES[case]
    with pytest.raises(RuntimeError, match=message):
        call(torch)
    with pytest.raises(RuntimeError, match=message):
        call(ag)


def test_split_of_an_empty_dimension_gives_one_empty_piece_as_in_torch():
    torch = torch_or_skip()
    for size in (0, 2):
        ours, theirs = ag.ones(0, 2).split(size), torch.ones(0, 2).split(size)
        assert [p.shape for p in ours] == [tuple(p.shape) for p in theirs]


def test_valid_shape_arguments_still_work():
    x = ag.arange(24.0).reshape(2, 3, 4)
    assert x.flatten(1, 1).shape == (2, 3, 4) and x.flatten(1).shape == (2, 12)
    assert [p.shape for p in x.split(2, dim=2)] == [(2, 3, 2), (2, 3, 2)]
    assert x.reshape(-1, 4).shape == (6, 4)
    picked = x.gather(2, ag.tensor(np.full((2, 3, 1), 3)))
    np.testing.assert_array_equal(picked.numpy()[..., 0], x.numpy()[..., 3])
