"""Pooling and resampling operations (autograd.ops.pool): PyTorch parity of outputs and input
gradients over every option (batch 1 and 3, non-square inputs and per-axis options), float64
gradcheck, and second derivatives."""
import itertools
import re

import numpy as np
import pytest

from dagrad import autograd as ag
import dagrad.nn.functional as F
from tests.helpers import (leaves, one_torch_thread, random_inputs, torch_or_skip,  # noqa: F401
                           torch_parity)

pytestmark = pytest.mark.usefixtures("one_torch_thread")
SHAPE = (3, 2, 7, 6)     # non-square


def _max_grid():
    for k, s, p, d, ceil, n in itertools.product((1, 2, 3), (None, 1, 2), (0, 1), (1, 2),
                                                 (False, True), (1, 3)):
        if p > k // 2:
            continue     # padding is at most half the kernel
        yield pytest.param(k, s, p, d, ceil, n, id=f"k{k}-s{s}-p{p}-d{d}-ceil{ceil}-n{n}")


@pytest.mark.slow      # the grid; a quick run checks the operation in the op table
@pytest.mark.parametrize("k,s,p,d,ceil,n", list(_max_grid()))
def test_max_pool2d_matches_pytorch(k, s, p, d, ceil, n):
    torch = torch_or_skip()
    TF = torch.nn.functional
    x, = random_inputs([(n,) + SHAPE[1:]])
    torch_parity(lambda x: F.max_pool2d(x, k, s, p, d, ceil),
                 lambda x: TF.max_pool2d(x, k, s, p, d, ceil), [x], rtol=1e-12, atol=1e-12)
    _, idx = F.max_pool2d(ag.tensor(x), k, s, p, d, ceil, return_indices=True)
    _, tidx = TF.max_pool2d(torch.tensor(x), k, s, p, d, ceil, return_indices=True)
    np.testing.assert_array_equal(idx.numpy(), tidx.numpy())
    assert idx.dtype == np.int64


@pytest.mark.slow      # the grid; a quick run checks the operation in the op table
@pytest.mark.parametrize("k,s,p,d,ceil,n", list(_max_grid()))
def test_max_pool2d_gradcheck(k, s, p, d, ceil, n):
    x = leaves(random_inputs([(n, 2, 6, 5)]))
    assert ag.gradcheck(lambda x: F.max_pool2d(x, k, s, p, d, ceil), x)


def test_max_pool2d_ties_go_to_the_first_maximum():
    """Many equal values (as after a ReLU): PyTorch gives each window's gradient to its first
    maximum, never shares it."""
    torch = torch_or_skip()
    x = np.random.default_rng(0).integers(0, 2, size=(2, 3, 6, 7)).astype(np.float64)
    for k, s in [(2, 2), (3, 1), (3, 2)]:
        torch_parity(lambda x: F.max_pool2d(x, k, s, 1),
                     lambda x: torch.nn.functional.max_pool2d(x, k, s, 1), [x])
        _, idx = F.max_pool2d(ag.tensor(x), k, s, 1, return_indices=True)
        _, tidx = torch.nn.functional.max_pool2d(torch.tensor(x), k, s, 1, return_indices=True)
        np.testing.assert_array_equal(idx.numpy(), tidx.numpy())


def test_tiled_max_pool2d_ties_nan_and_leftover_rows_match_pytorch():
    """Windows that tile the image (stride = kernel, no padding) are pooled in the samples-last
    layout: ties go to the first maximum, a window with NaN gives its gradient to its last
    NaN, rows and columns that fill no window get none, as PyTorch's."""
    torch = torch_or_skip()
    rng = np.random.default_rng(1)
    ties = rng.integers(0, 2, size=(3, 2, 8, 9)).astype(np.float64)
    nans = rng.standard_normal((2, 2, 6, 6))
    nans[0, 0, 0, 0] = nans[0, 0, 1, 1] = nans[1, 1, 4, 5] = np.nan
    for x, kernel in [(ties, 2), (ties, 3), (ties, (2, 3)), (nans, 2), (nans, 3)]:
        xd, xt = ag.tensor(x, requires_grad=True), torch.tensor(x, requires_grad=True)
        g = rng.standard_normal(torch.nn.functional.max_pool2d(xt, kernel).shape)
        yd, yt = F.max_pool2d(xd, kernel), torch.nn.functional.max_pool2d(xt, kernel)
        yd.backward(ag.tensor(g))
        yt.backward(torch.tensor(g))
        np.testing.assert_array_equal(yd.numpy(), yt.detach().numpy())
        np.testing.assert_array_equal(xd.grad.numpy(), xt.grad.numpy())


def test_convolution_relu_pooling_chain_in_samples_last_memory_matches_pytorch():
    """A convolution returns (N, C, H, W) over (C, H, W, N) memory; ReLU keeps that memory
    order and the pooling and the next convolution read it without a copy. Values and
    gradients match PyTorch's, and gradcheck passes."""
    torch = torch_or_skip()
    x, w1, w2 = random_inputs([(3, 2, 10, 10), (4, 2, 3, 3), (5, 4, 3, 3)])

    def net(F_, pool, x, w1, w2):
        h = pool(F_.conv2d(x, w1, padding=1).relu(), 2)
        return F_.conv2d(h, w2).tanh()

    torch_parity(lambda *a: net(F, F.max_pool2d, *a),
                 lambda *a: net(torch.nn.functional, torch.nn.functional.max_pool2d, *a),
                 [x, w1, w2], rtol=1e-10, atol=1e-10)
    y = net(F, F.max_pool2d, ag.tensor(x), ag.tensor(w1), ag.tensor(w2))
    assert y.numpy().transpose(1, 2, 3, 0).flags.c_contiguous      # the samples-last memory
    assert ag.gradcheck(lambda *a: net(F, F.max_pool2d, *a), leaves([x[:1, :, :6, :6], w1, w2]))


def test_relu_before_max_pooling_takes_the_pooling_gradient_at_the_maxima_only():
    """ReLU's backward applies its derivative to max pooling's gradient at each window's
    maximum (the gradient is zero elsewhere): the same gradients as PyTorch's when the ReLU's
    output also goes elsewhere, through two ReLUs (apart and one on the other), with rows left
    out of every window, with windows that are all zero after the ReLU, and with a hook on the
    ReLU's output."""
    torch = torch_or_skip()
    rng = np.random.default_rng(3)
    x = rng.standard_normal((2, 3, 7, 9))
    x[0, 0, :2, :2] = -1.0                     # a window that is all zeros after the ReLU
    seen = []

    def nets(F_, pool, hook):
        def one_use(x):
            return pool(F_.relu(x), 2) * 3.0

        def two_uses(x):
            h = F_.relu(x)
            return pool(h, 2).sum() + (h * h).sum()

        def twice(x):
            return pool(F_.relu(F_.relu(x) - 0.5), 2) ** 2

        def nested(x):
            return pool(F_.relu(F_.relu(x - 0.5)), 2) ** 2

        def hooked(x):
            h = F_.relu(x)
            h.register_hook(hook)
            return pool(h, 2) * 3.0
        return one_use, two_uses, twice, nested, hooked

    ours = nets(F, F.max_pool2d, lambda g: seen.append(g.shape))
    theirs = nets(torch.nn.functional, torch.nn.functional.max_pool2d, lambda g: None)
    for a, b in zip(ours, theirs):
        torch_parity(a, b, [x], rtol=1e-12, atol=1e-12)
    assert seen                                  # the hook saw an array of the input's shape
    assert all(tuple(shape) == x.shape for shape in seen)


def test_max_pooling_sends_relu_a_lazy_gradient_it_masks_at_the_pooled_size():
    """The fast path's pooling gradient stays compact through ReLU: the mask is applied to the
    pooled gradient, (C, H/2, W/2, N), and the array it stands for is the masked full one."""
    from dagrad.autograd.ops.pool import TiledMaxGrad
    rng = np.random.default_rng(4)
    x = ag.tensor(rng.standard_normal((2, 3, 6, 6)), requires_grad=True)
    h = F.relu(x)
    y = F.max_pool2d(h, 2)
    sent = y.grad_fn.backward(np.ones(y.shape))
    assert isinstance(sent, TiledMaxGrad) and sent.shape == x.shape
    masked = h.grad_fn.backward(sent)
    assert isinstance(masked, TiledMaxGrad) and masked.g.shape == (3, 3, 3, 2)
    expected = sent.dense() * (h.numpy() > 0)
    np.testing.assert_array_equal(masked.dense(), expected)
    np.testing.assert_array_equal(masked.where_positive(h.numpy()), expected)   # as an array


def _avg_grid():
    for k, s, p, ceil, inc, div, n in itertools.product((1, 2, 3), (None, 1, 2), (0, 1),
                                                        (False, True), (True, False), (None, 3),
                                                        (1, 3)):
        if p > k // 2:
            continue
        yield pytest.param(k, s, p, ceil, inc, div, n,
                           id=f"k{k}-s{s}-p{p}-ceil{ceil}-inc{inc}-div{div}-n{n}")


@pytest.mark.slow      # the grid; a quick run checks the operation in the op table
@pytest.mark.parametrize("k,s,p,ceil,inc,div,n", list(_avg_grid()))
def test_avg_pool2d_matches_pytorch(k, s, p, ceil, inc, div, n):
    torch = torch_or_skip()
    torch_parity(lambda x: F.avg_pool2d(x, k, s, p, ceil, inc, div),
                 lambda x: torch.nn.functional.avg_pool2d(x, k, s, p, ceil, inc, div),
                 random_inputs([(n,) + SHAPE[1:]]), rtol=1e-12, atol=1e-12)


@pytest.mark.slow      # the grid; a quick run checks the operation in the op table
@pytest.mark.parametrize("k,s,p,ceil,inc,div,n", list(_avg_grid()))
def test_avg_pool2d_gradcheck(k, s, p, ceil, inc, div, n):
    x = leaves(random_inputs([(n, 2, 5, 4)]))
    assert ag.gradcheck(lambda x: F.avg_pool2d(x, k, s, p, ceil, inc, div), x)


# Per-axis options: a non-square kernel, and stride, padding and dilation differing by axis.
TUPLE_OPTIONS = [
    ("max", dict(kernel_size=(3, 2), stride=(2, 1), padding=(1, 0), dilation=(1, 2))),
    ("max", dict(kernel_size=(2, 3), stride=(1, 2), padding=(1, 1), dilation=(2, 1),
                 ceil_mode=True)),
    ("max", dict(kernel_size=(1, 3), stride=(3, 2), padding=(0, 1), ceil_mode=True)),
    ("avg", dict(kernel_size=(3, 2), stride=(2, 1), padding=(1, 0))),
    ("avg", dict(kernel_size=(2, 3), stride=(1, 2), padding=(1, 1), ceil_mode=True,
                 count_include_pad=False)),
    ("avg", dict(kernel_size=(1, 3), stride=(3, 2), padding=(0, 1), ceil_mode=True,
                 divisor_override=2)),
]


@pytest.mark.parametrize("n", [1, 3])
@pytest.mark.parametrize("kind,kwargs", TUPLE_OPTIONS,
                         ids=[f"{kind}-{k}" for k, (kind, _) in enumerate(TUPLE_OPTIONS)])
def test_pool_per_axis_options_match_pytorch_and_gradcheck(kind, kwargs, n):
    torch = torch_or_skip()
    ours = {"max": F.max_pool2d, "avg": F.avg_pool2d}[kind]
    theirs = getattr(torch.nn.functional, f"{kind}_pool2d")
    torch_parity(lambda x: ours(x, **kwargs), lambda x: theirs(x, **kwargs),
                 random_inputs([(n,) + SHAPE[1:]]), rtol=1e-12, atol=1e-12)
    assert ag.gradcheck(lambda x: ours(x, **kwargs), leaves(random_inputs([(n, 2, 6, 5)])))
    if kind == "max":
        x, = random_inputs([(n,) + SHAPE[1:]], seed=2)
        _, idx = ours(ag.tensor(x), **kwargs, return_indices=True)
        _, tidx = theirs(torch.tensor(x), **kwargs, return_indices=True)
        np.testing.assert_array_equal(idx.numpy(), tidx.numpy())


@pytest.mark.parametrize("n", [1, 3])
@pytest.mark.parametrize("size", [1, (2, 3), (7, 6), (4, None), (9, 11), (5, 4)])
def test_adaptive_avg_pool2d_matches_pytorch(size, n):
    torch = torch_or_skip()
    shape = (n,) + SHAPE[1:]
    torch_parity(lambda x: F.adaptive_avg_pool2d(x, size),
                 lambda x: torch.nn.functional.adaptive_avg_pool2d(x, size),
                 random_inputs([shape]), rtol=1e-12, atol=1e-12)
    assert ag.gradcheck(lambda x: F.adaptive_avg_pool2d(x, size), leaves(random_inputs([shape])))


@pytest.mark.parametrize("shape,kwargs", [
    (SHAPE, dict(scale_factor=2)), (SHAPE, dict(scale_factor=(1.5, 3))),
    (SHAPE, dict(scale_factor=0.5)), (SHAPE, dict(size=(10, 4))), (SHAPE, dict(size=5)),
    ((1, 2, 5, 4), dict(scale_factor=3)), ((1, 2, 5, 4), dict(size=(3, 9), mode="bilinear")),
    ((2, 3, 5), dict(scale_factor=2)), ((2, 3, 5), dict(size=8)),
    (SHAPE, dict(scale_factor=2, mode="bilinear")),
    (SHAPE, dict(size=(4, 9), mode="bilinear")),
    (SHAPE, dict(size=(11, 4), mode="bilinear", align_corners=True)),
    (SHAPE, dict(scale_factor=1.7, mode="bilinear", align_corners=False)),
    ((2, 3, 5), dict(size=9, mode="linear", align_corners=True)),
    ((2, 3, 5), dict(scale_factor=0.6, mode="linear")),
])
def test_interpolate_matches_pytorch(shape, kwargs):
    torch = torch_or_skip()
    torch_parity(lambda x: F.interpolate(x, **kwargs),
                 lambda x: torch.nn.functional.interpolate(x, **kwargs),
                 random_inputs([shape]), rtol=1e-6, atol=1e-6)
    assert ag.gradcheck(lambda x: F.interpolate(x, **kwargs), leaves(random_inputs([shape])))


GRADCHECK = [
    lambda x: F.max_pool2d(x, 2),
    lambda x: F.max_pool2d(x, 3, 2, 1, 2, True),
    lambda x: F.avg_pool2d(x, 3, 1, 1, count_include_pad=False),
    lambda x: F.avg_pool2d(x, 2, ceil_mode=True, divisor_override=3),
    lambda x: F.adaptive_avg_pool2d(x, (2, 3)),
    lambda x: F.interpolate(x, scale_factor=2),
    lambda x: F.interpolate(x, size=(3, 7), mode="bilinear"),
]


@pytest.mark.parametrize("fn", GRADCHECK)
def test_gradcheck(fn):
    assert ag.gradcheck(fn, leaves(random_inputs([(2, 2, 5, 4)])))


@pytest.mark.parametrize("name", ["max", "avg"])
@pytest.mark.parametrize("window", [(3, 2, 1), (2, 2, 0)], ids=["windows", "tiles"])
def test_second_derivatives_match_pytorch(name, window):
    torch = torch_or_skip()
    ours = {"max": F.max_pool2d, "avg": F.avg_pool2d}[name]
    theirs = {"max": torch.nn.functional.max_pool2d, "avg": torch.nn.functional.avg_pool2d}[name]

    def double(grad, pool, x):
        y = pool(x * x, *window)
        gx, = grad((y * y).sum(), [x], create_graph=True)
        return (gx * gx * x).sum()

    torch_parity(lambda x: double(ag.grad, ours, x),
                 lambda x: double(torch.autograd.grad, theirs, x),
                 random_inputs([(2, 2, 5, 6)]), rtol=1e-9, atol=1e-9)


def test_unbatched_input_and_float32():
    x = ag.randn(2, 6, 5, requires_grad=True)
    y, idx = F.max_pool2d(x, 2, return_indices=True)
    assert y.shape == idx.shape == (2, 3, 2)
    z = F.avg_pool2d(x, 2) + F.adaptive_avg_pool2d(x, (3, 2)) + y
    assert z.dtype == np.float32
    z.sum().backward()
    assert x.grad.dtype == np.float32 and x.grad.shape == x.shape


def test_errors_name_sizes_and_options():
    x = ag.randn(1, 2, 3, 4)
    with pytest.raises(ValueError, match=re.escape(
            "max_pool2d: input of spatial size (3, 4) is too small for kernel_size (5, 5) with "
            "stride (5, 5), padding (0, 0) and dilation (1, 1)")):
        F.max_pool2d(x, 5)
    with pytest.raises(ValueError, match=re.escape(
            "max_pool2d: input of spatial size (3, 4) is too small for kernel_size (3, 2) with "
            "stride (1, 2), padding (1, 0) and dilation (3, 1)")):
        F.max_pool2d(x, (3, 2), (1, 2), (1, 0), (3, 1))
    with pytest.raises(ValueError, match=re.escape(
            "avg_pool2d: input of spatial size (3, 4) is too small for kernel_size (2, 6) with "
            "stride (2, 1), padding (1, 0) and dilation (1, 1)")):
        F.avg_pool2d(x, (2, 6), (2, 1), (1, 0))
    with pytest.raises(ValueError, match="at most half of kernel_size"):
        F.avg_pool2d(x, 2, padding=2)
    with pytest.raises(ValueError, match="mode 'bicubic' is not supported"):
        F.interpolate(x, scale_factor=2, mode="bicubic")
    with pytest.raises(ValueError, match="exactly one of size and scale_factor"):
        F.interpolate(x)
    with pytest.raises(ValueError, match="shape \\(N, C, H, W\\)"):
        F.max_pool2d(ag.randn(4, 4), 2)
