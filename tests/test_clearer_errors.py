"""Errors that used to be raw NumPy messages, "internal error", ZeroDivisionError, KeyError or
RecursionError now name the operation, the shapes or values and the fix; where PyTorch raises,
the type and its words are PyTorch's. Where PyTorch works (Linear(0, n)), dagrad works too."""
import numpy as np
import pytest

from dagrad import autograd as ag
from dagrad import nn, optim
from dagrad import torch as dt
from tests.helpers import torch_or_skip


@pytest.mark.parametrize("index,words", [
    (5, "index 5 is out of bounds for dimension 0 with size 2"),
    ((slice(None), 7), "index 7 is out of bounds for dimension 1 with size 3"),
    ((0, 0, 0), "too many indices for tensor of dimension 2"),
    (1.5, "None and integer or boolean tensors are valid indices"),
])
def test_index_errors_speak_of_dimensions_and_tensors(index, words):
    torch = torch_or_skip()
    with pytest.raises(IndexError):
        torch.zeros(2, 3)[index]
    with pytest.raises(IndexError, match=r"indexing a tensor of shape \(2, 3\): .*"
                                         + words.replace("(", r"\(").replace(")", r"\)")):
        ag.zeros(2, 3)[index]


def test_a_mask_of_the_wrong_shape_names_both_shapes():
    with pytest.raises(IndexError, match=r"shape of the mask \(3 at dimension 0\) does not "
                                         r"match .* \(2 at dimension 0\)"):
        ag.zeros(2, 3)[ag.tensor([True, False, True])]


def test_reshape_to_the_wrong_size_raises_pytorchs_error_with_the_fix():
    torch = torch_or_skip()
    with pytest.raises(RuntimeError, match=r"shape '\[4, 2\]' is invalid for input of size 6"):
        torch.zeros(2, 3).reshape(4, 2)
    with pytest.raises(RuntimeError, match=r"shape '\[4, 2\]' is invalid for input of size 6.*"
                                           r"-1 to infer"):
        ag.zeros(2, 3).reshape(4, 2)


@pytest.mark.parametrize("call,error,words", [
    (lambda m: m.ones(0).max(), RuntimeError, "max\\(\\): Expected reduction dim to be specified"),
    (lambda m: m.ones(0).amax(), RuntimeError, "amax\\(\\): Expected reduction dim to be"),
    (lambda m: m.ones(0, 3).max(0), IndexError, "max\\(\\): Expected reduction dim 0 to have "
                                                "non-zero size"),
    (lambda m: m.ones(0).argmax(), IndexError, "argmax\\(\\): Expected reduction dim to be"),
    (lambda m: m.ones(2, 0).amin(1), IndexError, "amin\\(\\): Expected reduction dim 1"),
], ids=["max", "amax", "max-dim", "argmax", "amin-dim"])
def test_reducing_nothing_raises_pytorchs_error(call, error, words):
    torch = torch_or_skip()
    for module in (torch, dt):
        with pytest.raises(error, match=words):
            call(module)


def test_a_hook_returning_the_wrong_gradient_is_named():
    torch = torch_or_skip()
    for lib in (torch, dt):
        for leaf in (True, False):
            a = lib.ones(3, requires_grad=True)
            b = a if leaf else a * 2
            b.register_hook(lambda g: g.sum())
            with pytest.raises(RuntimeError, match="hook '.*' has changed the size of value"):
                (b * 1).sum().backward()
        a = lib.ones(3, requires_grad=True)
        a.register_hook(lambda g: 3)
        with pytest.raises(TypeError, match="but hook returned 'int'"):
            (a * 2).sum().backward()


@pytest.mark.parametrize("make", [
    lambda m, o: m.StepLR(o, step_size=0),
    lambda m, o: m.CosineAnnealingLR(o, T_max=0),
], ids=["StepLR", "CosineAnnealingLR"])
def test_a_scheduler_with_a_zero_period_says_so(make):
    opt = optim.SGD([ag.ones(2, requires_grad=True)], lr=0.1)
    with pytest.raises(ValueError, match="must be a positive number"):
        make(optim.lr_scheduler, opt)


def test_layers_with_no_inputs_work_as_in_pytorch():
    torch = torch_or_skip()
    ours = nn.Linear(0, 3)
    theirs = torch.nn.Linear(0, 3)
    np.testing.assert_array_equal(ours(ag.ones(2, 0)).detach().numpy(),
                                  theirs(torch.ones(2, 0)).detach().numpy())
    assert nn.Conv2d(0, 3, 3).weight.shape == tuple(torch.nn.Conv2d(0, 3, 3).weight.shape)


def test_saving_a_container_that_contains_itself_names_where(tmp_path):
    state = {"w": ag.ones(2)}
    state["self"] = state
    with pytest.raises(ValueError, match="'self' is the dict that contains it"):
        nn.save(state, tmp_path / "x.npz")
    items = [1.0]
    items.append(items)
    with pytest.raises(ValueError, match="'l/1' is the list that contains it"):
        nn.save({"l": items}, tmp_path / "y.npz")
    shared = ag.ones(2)
    nn.save({"a": [shared], "b": [shared]}, tmp_path / "z.npz")   # shared, not cyclic: fine
    assert not (tmp_path / "x.npz").exists()


@pytest.mark.parametrize("batch,error,words", [
    ([[1, 2], [3]], RuntimeError, "each element in list of batch should be of equal size"),
    ([{"a": 1}, {"b": 2}], KeyError, "sample 0 has keys \\['a'\\] but sample 1 has \\['b'\\]"),
    ([np.ones(2), np.ones(3)], RuntimeError, "stack expects each tensor to be equal size, "
                                             "but got \\[2\\] at entry 0 and \\[3\\] at entry 1"),
], ids=["ragged-lists", "different-keys", "ragged-arrays"])
def test_batches_that_do_not_collate_say_which_sample_differs(batch, error, words):
    with pytest.raises(error, match=words):
        nn.data.default_collate(batch)


def test_an_error_that_is_not_about_shapes_gets_no_shape_advice():
    with pytest.raises(ValueError) as info:
        ag.tensor([2]) ** -1
    assert "Integers to negative integer powers" in str(info.value)
    assert "broadcasting" not in str(info.value)


def test_impossible_sizes_are_refused_before_numpy_tries():
    torch = torch_or_skip()
    with pytest.raises(RuntimeError, match="Storage size calculation overflowed"):
        torch.ones(10 ** 12, 10 ** 12)
    with pytest.raises(RuntimeError, match="Storage size calculation overflowed"):
        ag.ones(10 ** 12, 10 ** 12)
    with pytest.raises(RuntimeError, match="invalid size, possible overflow"):
        ag.arange(0, 1e30, 1e-30)
    with pytest.raises(ValueError, match="the integer 1180591620717411303424 does not fit "
                                         "in int64"):
        ag.tensor([2 ** 70])
