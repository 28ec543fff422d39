"""Convolution operations (autograd.ops.conv): PyTorch parity of outputs and of the gradients
for input, weight and bias over the whole option grid, float64 gradcheck over the same grid on
smaller inputs, and second derivatives (create_graph) through the convolution's backward."""
import itertools
import re

import numpy as np
import pytest

from dagrad import autograd as ag
from dagrad.autograd.ops import conv as conv_ops
import dagrad.nn.functional as F
from tests.helpers import (leaves, one_torch_thread, random_inputs, torch_or_skip,  # noqa: F401
                           torch_parity)

C_IN = 4
C_OUT = {1: 6, 2: 4, C_IN: 8}     # groups -> out channels (depthwise with multiplier 2)
SIZE = (7, 6)                     # non-square
# Finite differences cost two forward passes per input element: tiny shapes for gradcheck.
SMALL, SMALL_OUT = (5, 4), {1: 2, 2: 2, C_IN: 4}

pytestmark = [pytest.mark.usefixtures("one_torch_thread"),
              pytest.mark.filterwarnings("ignore:Using padding=.same. with even kernel")]
# 'same' with an odd total padding d·(k-1) puts the extra pixel on the high side (as PyTorch)
UNEVEN_SAME = [pytest.param(2, 1, "same", 1, 2, 3, id="k2-s1-psame-d1-g2-n3"),
               pytest.param(4, 1, "same", 1, 1, 1, id="k4-s1-psame-d1-g1-n1")]
# a vertical stride with horizontal stride 1 (the planes layout then skips rows), and uneven
# dilations
MIXED_STRIDES = [pytest.param(3, (2, 1), 1, (1, 2), 2, 2, id="k3-s21-p1-d12-g2-n2"),
                 pytest.param(3, (3, 1), 0, (2, 1), 1, 1, id="k3-s31-p0-d21-g1-n1")]


def _conv_out(n, k, s, p, d):
    lo_hi = d * (k - 1) if p == "same" else 2 * p
    return (n + lo_hi - d * (k - 1) - 1) // s + 1


def _fit(size, k, p, d):
    """``size`` grown, where needed, to the smallest non-square (H, H - 1) at which the dilated
    kernel fits the padded input, so that every combination of the grid is tested."""
    need = max(np.atleast_1d(d)) * (k - 1) + 1 - (0 if p == "same" else 2 * p)
    return (max(size[0], need + 1), max(size[1], need))


def _conv_grid():
    for k, s, p, d, g, n in itertools.product((1, 3, 5), (1, 2), (0, 1, "same"), (1, 2),
                                               (1, 2, C_IN), (1, 3)):
        if p == "same" and s != 1:
            continue     # PyTorch (and dagrad) refuse 'same' for strided convolutions
        yield pytest.param(k, s, p, d, g, n, id=f"k{k}-s{s}-p{p}-d{d}-g{g}-n{n}")


def test_conv_grid_is_complete():
    """Every kernel/stride/padding/dilation combination PyTorch accepts is in the grid (30:
    'same' needs stride 1) for each groups and batch size, each on a non-square input it
    fits, for parity (SIZE) and for gradcheck (SMALL)."""
    grid = [case.values for case in _conv_grid()]
    assert len(grid) == 3 * (3 * 2 + 2 * 2) * 3 * 2
    for k, s, p, d, g, n in grid:
        for size in (SIZE, SMALL):
            h, w = _fit(size, k, p, d)
            assert h != w and min(_conv_out(m, k, s, p, d) for m in (h, w)) >= 1


def _conv_arrays(k, g, n, bias=True, size=SIZE, transposed=False, c_out=C_OUT):
    w_shape = (C_IN, c_out[g] // g, k, k) if transposed else (c_out[g], C_IN // g, k, k)
    shapes = [(n, C_IN) + size, w_shape] + ([(c_out[g],)] if bias else [])
    return random_inputs(shapes)


@pytest.fixture(params=["one product", "a product per row"])
def layout(request, monkeypatch):
    """Both ways a convolution multiplies its columns (``conv._row_blocks`` picks by the
    weight's size; the small test weights alone would always get one product per row)."""
    per_row = request.param == "a product per row"
    monkeypatch.setattr(conv_ops, "_row_blocks",
                        lambda weight, groups, win: win.out[0] if per_row else 1)
    return request.param


@pytest.mark.slow      # the grid; a quick run checks the operation in the op table
@pytest.mark.parametrize("k,s,p,d,g,n", list(_conv_grid()) + UNEVEN_SAME + MIXED_STRIDES)
def test_conv2d_matches_pytorch(k, s, p, d, g, n, layout):
    torch = torch_or_skip()
    torch_parity(lambda x, w, b: F.conv2d(x, w, b, s, p, d, g),
                 lambda x, w, b: torch.nn.functional.conv2d(x, w, b, s, p, d, g),
                 _conv_arrays(k, g, n, size=_fit(SIZE, k, p, d)), rtol=1e-10, atol=1e-10)


def _transposed_grid():
    for k, s, p, op, d, g, n in itertools.product((1, 3, 5), (1, 2), (0, 1), (0, 1), (1, 2),
                                                  (1, 2, C_IN), (1, 3)):
        if op >= max(s, d):
            continue     # output_padding must be smaller than stride or dilation
        yield pytest.param(k, s, p, op, d, g, n, id=f"k{k}-s{s}-p{p}-op{op}-d{d}-g{g}-n{n}")


@pytest.mark.slow      # the grid; a quick run checks the operation in the op table
@pytest.mark.parametrize("k,s,p,op,d,g,n", list(_transposed_grid()))
def test_conv_transpose2d_matches_pytorch(k, s, p, op, d, g, n):
    torch = torch_or_skip()
    torch_parity(lambda x, w, b: F.conv_transpose2d(x, w, b, s, p, op, g, d),
                 lambda x, w, b: torch.nn.functional.conv_transpose2d(x, w, b, s, p, op, g, d),
                 _conv_arrays(k, g, n, size=(4, 3), transposed=True), rtol=1e-10, atol=1e-10)


@pytest.mark.slow      # the grid; a quick run checks the operation in the op table
@pytest.mark.parametrize("k,s,p,d,g,n", list(_conv_grid()) + UNEVEN_SAME + MIXED_STRIDES)
def test_conv2d_gradcheck(k, s, p, d, g, n, layout):
    xs = leaves(_conv_arrays(k, g, n, size=_fit(SMALL, k, p, d), c_out=SMALL_OUT))
    assert ag.gradcheck(lambda x, w, b: F.conv2d(x, w, b, s, p, d, g), xs)


@pytest.mark.slow      # the grid; a quick run checks the operation in the op table
@pytest.mark.parametrize("k,s,p,op,d,g,n", list(_transposed_grid()))
def test_conv_transpose2d_gradcheck(k, s, p, op, d, g, n):
    xs = leaves(_conv_arrays(k, g, n, size=(4, 3), transposed=True, c_out=SMALL_OUT))
    assert ag.gradcheck(lambda x, w, b: F.conv_transpose2d(x, w, b, s, p, op, g, d), xs)


@pytest.mark.slow      # the grid; a quick run checks the operation in the op table
@pytest.mark.parametrize("k,s,p,d,g,n", list(_conv_grid()) + UNEVEN_SAME + [
    pytest.param(2, 1, "same", 3, 4, 1, id="k2-s1-psame-d3-g4-n1")])
def test_conv1d_matches_pytorch_and_gradcheck(k, s, p, d, g, n):
    torch = torch_or_skip()
    length, small = (max(m, _fit((m + 1, m), k, p, d)[1]) for m in (9, 6))
    arrays = random_inputs([(n, C_IN, length), (C_OUT[g], C_IN // g, k), (C_OUT[g],)])
    torch_parity(lambda x, w, b: F.conv1d(x, w, b, s, p, d, g),
                 lambda x, w, b: torch.nn.functional.conv1d(x, w, b, s, p, d, g), arrays,
                 rtol=1e-10, atol=1e-10)
    xs = random_inputs([(n, C_IN, small), (SMALL_OUT[g], C_IN // g, k), (SMALL_OUT[g],)])
    assert ag.gradcheck(lambda x, w, b: F.conv1d(x, w, b, s, p, d, g), leaves(xs))


def test_conv_without_bias_and_unbatched_input():
    torch = torch_or_skip()
    torch_parity(lambda x, w: F.conv2d(x, w, padding=(1, 2), stride=(2, 1)),
                 lambda x, w: torch.nn.functional.conv2d(x, w, padding=(1, 2), stride=(2, 1)),
                 random_inputs([(C_IN, 5, 6), (3, C_IN, 3, 2)]), rtol=1e-10, atol=1e-10)
    torch_parity(lambda x, w: F.conv_transpose2d(x, w, stride=2),
                 lambda x, w: torch.nn.functional.conv_transpose2d(x, w, stride=2),
                 random_inputs([(C_IN, 3, 2), (C_IN, 2, 3, 3)]), rtol=1e-10, atol=1e-10)


@pytest.mark.parametrize("kernel,dilation,padding,stride", [
    ((2, 3), (1, 2), 1, (2, 1)), (3, 1, 0, 1), ((1, 2), 2, (0, 1), (1, 3))])
def test_unfold_fold_match_pytorch(kernel, dilation, padding, stride):
    torch = torch_or_skip()
    TF = torch.nn.functional
    torch_parity(lambda x: F.unfold(x, kernel, dilation, padding, stride),
                 lambda x: TF.unfold(x, kernel, dilation, padding, stride),
                 random_inputs([(2, 3, 6, 5)]), rtol=1e-12, atol=1e-12)
    cols = F.unfold(ag.zeros(2, 3, 6, 5), kernel, dilation, padding, stride)
    torch_parity(lambda c: F.fold(c, (6, 5), kernel, dilation, padding, stride),
                 lambda c: TF.fold(c, (6, 5), kernel, dilation, padding, stride),
                 random_inputs([cols.shape]), rtol=1e-12, atol=1e-12)
    small = leaves(random_inputs([(1, 2, 4, 5)]))
    assert ag.gradcheck(lambda x: F.unfold(x, kernel, dilation, padding, stride), small)


def test_fold_is_the_adjoint_of_unfold():
    """<unfold(x), c> = <x, fold(c)> for all x, c: the defining property of col2im."""
    x, c = random_inputs([(2, 3, 7, 5), (2, 3 * 6, 12)])
    lhs = np.sum(F.unfold(ag.tensor(x), (3, 2), 1, 1, 2).numpy() * c)
    rhs = np.sum(x * F.fold(ag.tensor(c), (7, 5), (3, 2), 1, 1, 2).numpy())
    assert lhs == pytest.approx(rhs, rel=1e-12)


@pytest.mark.parametrize("transposed", [False, True])
def test_second_derivatives_match_pytorch(transposed):
    """create_graph=True: the backward is itself built from recorded unfold/fold/matmul."""
    torch = torch_or_skip()
    ours = F.conv_transpose2d if transposed else F.conv2d
    theirs = (torch.nn.functional.conv_transpose2d if transposed
              else torch.nn.functional.conv2d)

    def double(m, grad, conv, x, w, b):
        y = conv(x, w, b, 2, 1, 1, 2)
        gx, gw = grad((y * y * y).sum(), [x, w], create_graph=True)
        return (gx * gx).sum() + (gw * gw * w).sum()

    arrays = random_inputs([(2, 4, 5, 4), (4, 2, 3, 3), (4,)])
    torch_parity(lambda x, w, b: double(ag, ag.grad, ours, x, w, b),
                 lambda x, w, b: double(torch, torch.autograd.grad, theirs, x, w, b), arrays,
                 rtol=1e-9, atol=1e-9)
    xs = leaves(random_inputs([(1, 4, 3, 3), (4, 2, 2, 2), (4,)]))
    assert ag.gradcheck(lambda x, w, b: double(ag, ag.grad, ours, x, w, b), xs)


def test_float32_stays_float32():
    x = ag.randn(2, 3, 8, 8, requires_grad=True)
    w = ag.randn(4, 3, 3, 3, requires_grad=True)
    b = ag.zeros(4, requires_grad=True)
    y = F.conv2d(x, w, b, padding=1)
    t = F.conv_transpose2d(y, w, stride=2)
    assert y.dtype == t.dtype == np.float32
    (y.sum() + t.sum()).backward()
    assert x.grad.dtype == w.grad.dtype == b.grad.dtype == np.float32


def test_errors_name_sizes_and_options():
    x = ag.randn(1, 2, 4, 3)
    with pytest.raises(ValueError, match=r"\(4, 3\).*kernel_size \(5, 5\).*stride \(2, 2\)"
                                         r".*padding.*dilation \(1, 1\)"):
        F.conv2d(x, ag.randn(1, 2, 5, 5), stride=2)
    with pytest.raises(ValueError, match=re.escape(
            "conv2d: input of spatial size (4, 3) is too small for kernel_size (3, 2) with "
            "stride (1, 3), padding (0, 1) and dilation (2, 4)")):
        F.conv2d(x, ag.randn(1, 2, 3, 2), stride=(1, 3), padding=(0, 1), dilation=(2, 4))
    with pytest.raises(ValueError, match=re.escape(
            "conv1d: input of spatial size (5,) is too small for kernel_size (3,) with stride "
            "(1,), padding (0,) and dilation (3,)")):
        F.conv1d(ag.randn(1, 2, 5), ag.randn(1, 2, 3), dilation=3)
    with pytest.raises(ValueError, match=re.escape(
            "conv_transpose2d: output size (1, -1) would be empty for input size (2, 1), "
            "kernel_size (1, 1), stride (2, 2), padding (1, 1), dilation (1, 1) and "
            "output_padding (0, 0)")):
        F.conv_transpose2d(ag.randn(1, 2, 2, 1), ag.randn(2, 1, 1, 1), stride=2, padding=1)
    with pytest.raises(ValueError, match=re.escape(
            "unfold: input of spatial size (4, 3) is too small for kernel_size (2, 5)")):
        F.unfold(x, (2, 5))
    with pytest.raises(ValueError, match="2 channels.*groups=2"):
        F.conv2d(x, ag.randn(4, 2, 3, 3), groups=2)
    with pytest.raises(ValueError, match="'same' needs stride 1"):
        F.conv2d(x, ag.randn(1, 2, 3, 3), stride=2, padding="same")
    with pytest.raises(ValueError, match="padding must be"):
        F.conv2d(x, ag.randn(1, 2, 3, 3), padding="full")
    with pytest.raises(TypeError, match="same dtype"):
        F.conv2d(x, ag.randn(1, 2, 3, 3).double())
    with pytest.raises(ValueError, match="shape \\(N, C, H, W\\)"):
        F.conv2d(ag.randn(2, 4), ag.randn(1, 2, 3, 3))
    with pytest.raises(ValueError, match="output_padding"):
        F.conv_transpose2d(x, ag.randn(2, 1, 3, 3), stride=2, output_padding=2)
    with pytest.raises(ValueError, match="bias must have shape \\(3,\\)"):
        F.conv2d(x, ag.randn(3, 2, 1, 1), ag.randn(2))
