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


# ---- round 4: each names the operation, the shapes or values, and the fix
def _custom_backward_of_shape(lib, shape):
    """A custom Function whose backward returns ones of ``shape`` for an input of shape (2,)."""
    class Doubled(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x * 2

        @staticmethod
        def backward(ctx, grad):
            return lib.ones(*shape)
    return Doubled


def _optimizer_without_betas(lib):
    p = lib.nn.Parameter(lib.ones(2))
    opt = lib.optim.Adam([p])
    saved = opt.state_dict()
    del saved["param_groups"][0]["betas"]
    opt.load_state_dict(saved)
    p.grad = lib.ones(2)
    opt.step()


def _lambda_lr_returning(lib, value):
    p = lib.nn.Parameter(lib.ones(2))
    opt = lib.optim.SGD([p], lr=0.1)
    scheduler = lib.optim.lr_scheduler.LambdaLR(opt, lambda epoch: value)
    opt.step()
    scheduler.step()


UNCLEAR = {
    "comparison": (lambda lib: lib.zeros(3) < lib.zeros(4), ValueError,
                   r"lt \(<\): the size of tensor a \(3\) must match the size of tensor b \(4\) "
                   r"at non-singleton dimension 0 \(inputs: \(3,\) float32, \(4,\) float32\)"
                   r".*reshape or unsqueeze"),
    "equality": (lambda lib: lib.zeros(2, 3) == lib.zeros(3, 2), ValueError,
                 r"eq \(==\): the size of tensor a \(2\) must match the size of tensor b \(3\)"),
    "linspace": (lambda lib: lib.linspace(0, 1, -1), RuntimeError,
                 r"linspace: number of steps must be non-negative, got -1"),
    "string_gradient": (lambda lib: (lib.ones(2, requires_grad=True) * 2).backward("a"),
                        TypeError, r"backward: gradients can be either Tensors or None, but got "
                                   r"str 'a'; pass dL/d\(output\) as a tensor of shape \(2,\)"),
    "cat_0d": (lambda lib: lib.cat([lib.ones(2), lib.tensor(2.0)]), RuntimeError,
               r"cat: zero-dimensional tensor \(at position 1\) cannot be concatenated.*"
               r"reshape\(1\) \(shapes: \[\(2,\), \(\)\]\)"),
    "lazy_linear_0d": (lambda lib: lib.nn.LazyLinear(3)(lib.tensor(1.0)), RuntimeError,
                       r"LazyLinear: its input must have at least one dimension.*got a 0-d "
                       r"tensor.*x.reshape\(1\)"),
    "optimizer_without_betas": (_optimizer_without_betas, ValueError,
                                r"Adam.load_state_dict: parameter group 0 of the saved state "
                                r"lacks the option 'betas'.*\{'betas': \(0.9, 0.999\)\}"),
    "lambda_lr_string": (lambda lib: _lambda_lr_returning(lib, "x"), TypeError,
                         r"LambdaLR: lr_lambda must return a number.*'<lambda>' returned str "
                         r"'x' at epoch 0"),
    "tensor_dataset_index": (lambda lib: lib.utils.data.TensorDataset(lib.zeros(3, 2))[5],
                             IndexError, r"TensorDataset: index 5 is out of bounds for "
                                         r"dimension 0 with size 3 \(its samples are 0..2"),
    "subset_index": (lambda lib: lib.utils.data.Subset(
        lib.utils.data.TensorDataset(lib.zeros(3, 2)), [0, 1])[5], IndexError,
        r"Subset: index 5 is out of bounds for dimension 0 with size 2"),
    "backward_of_the_wrong_shape": (
        lambda lib: _custom_backward_of_shape(lib, (5,)).apply(
            lib.ones(2, requires_grad=True)).sum().backward(), RuntimeError,
        r"Function DoubledBackward returned an invalid gradient at index 0 - got \[5\] but "
        r"expected shape compatible with \[2\]"),
    "backward_transposed": (
        lambda lib: _custom_backward_of_shape(lib, (3, 2)).apply(
            lib.ones(2, 3, requires_grad=True)).sum().backward(), RuntimeError,
        r"DoubledBackward returned an invalid gradient at index 0 - got \[3, 2\] but expected "
        r"shape compatible with \[2, 3\]"),
    "invert_float": (lambda lib: ~lib.ones(2), TypeError,
                     r"~ \(operator.invert\) is only implemented on integer and Boolean-type "
                     r"tensors, got a float32 tensor of shape \(2,\); for a mask"),
}


@pytest.mark.parametrize("case", UNCLEAR.values(), ids=UNCLEAR.keys())
def test_unclear_errors_name_the_operation_the_values_and_the_fix(case):
    call, error, words = case
    with pytest.raises(error, match=words):
        call(dt)


@pytest.mark.parametrize("call", [
    lambda lib: lib.zeros(0).softmax(0), lambda lib: lib.zeros(2, 0).log_softmax(1),
    lambda lib: lib.zeros(0).logsumexp(0), lambda lib: lib.zeros(2, 0).logsumexp(1),
    lambda lib: lib.zeros(0, 3).softmax(0)], ids=["softmax", "log_softmax", "logsumexp",
                                                  "logsumexp-rows", "softmax-no-rows"])
def test_softmax_and_logsumexp_of_nothing_work_as_in_pytorch(call):
    torch = torch_or_skip()
    theirs, ours = call(torch), call(dt)
    assert tuple(ours.shape) == tuple(theirs.shape)
    np.testing.assert_array_equal(ours.numpy(), theirs.numpy())      # empty, or -inf
