"""Tensors print as PyTorch prints them: ``repr`` and ``str`` of the same data, built the same way
in both, agree character for character (dtypes, shapes, magnitudes, inf/nan, long tensors,
print options, the default dtype, gradient suffixes); 0-d tensors format as their number."""
import numpy as np
import pytest

from dagrad import torch as dagrad_torch
from dagrad.autograd.printing import get_printoptions, printoptions
from tests.helpers import torch_or_skip

RNG = np.random.default_rng(7)
NORMAL = RNG.standard_normal(200)
NAN, INF = float("nan"), float("inf")


def _data(t):
    """The tensors of the comparison, built with ``t`` (PyTorch or ``dagrad.torch``)."""
    f64 = t.float64
    cases = {
        "float32 decimals": t.tensor([0.3932, 0.21, 0.0904]),
        "whole floats": t.tensor([1.0, 2.0, -3.0]),
        "ints": t.tensor([1, -22, 333]),
        "bools": t.tensor([True, False, True]),
        "0-d float": t.tensor(3.14159),
        "0-d int": t.tensor(7),
        "0-d bool": t.tensor(False),
        "0-d whole float": t.tensor(-2.0),
        "float64": t.tensor([0.1, 0.25], dtype=f64),
        "float16": t.tensor([0.1, 0.5, 1.5], dtype=t.float16),
        "int32": t.tensor([[1, 2], [3, 40]], dtype=t.int32),
        "int8": t.tensor([-128, 0, 127], dtype=t.int8),
        "uint8": t.tensor([0, 255], dtype=t.uint8),
        "int16 0-d": t.tensor(5, dtype=t.int16),
        "small magnitudes": t.tensor([1e-5, 1.0]),
        "large magnitudes": t.tensor([1.5e9, -2.0]),
        "wide ratio": t.tensor([1.0, 2500.0, 0.5]),
        "whole with large": t.tensor([1.0, 1e10]),
        "inf and nan": t.tensor([INF, -INF, NAN, 1.25]),
        "nan with whole": t.tensor([NAN, 1.0, 2.0]),
        "only nan": t.tensor([NAN, NAN]),
        "zeros": t.zeros(2, 3),
        "negative zero": t.tensor([-0.0, 1.5]),
        "empty": t.tensor([]),
        "empty 2-d": t.zeros(2, 0),
        "empty ints": t.tensor([], dtype=t.int64),
        "matrix": t.tensor(NORMAL[:12].reshape(3, 4).astype(np.float32)),
        "3-d": t.tensor(NORMAL[:24].reshape(2, 3, 4).astype(np.float32)),
        "4-d float64": t.tensor(NORMAL[:16].reshape(2, 2, 2, 2)),
        "wrapped row": t.tensor(NORMAL[:30].astype(np.float32)),
        "wrapped scientific": t.tensor((NORMAL[:25] * 1e-6).astype(np.float32)),
        "long vector": t.arange(2000.0),
        "long ints": t.arange(5000),
        "long matrix": t.tensor(np.arange(10000, dtype=np.float32).reshape(100, 100) / 7),
        "long 3-d": t.tensor(np.arange(8000).reshape(20, 20, 20) % 13),
        "big ints": t.tensor([2 ** 40, -5]),
        "mixed magnitudes float64": t.tensor(NORMAL[:6] * 10.0 ** np.arange(6), dtype=f64),
    }
    leaf = t.tensor([[1.5, -2.0], [0.25, 4.0]], requires_grad=True)
    weight = t.tensor([[0.5, 1.0], [2.0, -1.0]], requires_grad=True)
    cases.update({
        "requires grad": leaf,
        "added": leaf + 1,
        "multiplied": leaf * weight,
        "summed": (leaf * 2).sum(),
        "mean": leaf.mean(),
        "matmul": leaf @ weight,
        "tanh": t.tanh(leaf),
        "relu": t.relu(leaf),
        "requires grad float64": t.tensor([1.0, 2.0], dtype=f64, requires_grad=True),
        "long with grad": t.ones(3000, requires_grad=True) * 2,
        "selected": leaf[0],
        "sliced": leaf[:, 1:],
        "indexed": leaf[[1, 0]],
        "linear layer": t.nn.functional.linear(leaf, weight, t.tensor([0.5, 0.0])),
    })
    return cases


CASES = list(_data(dagrad_torch))


def test_there_are_forty_tensors_and_more():
    assert len(CASES) >= 40


@pytest.mark.parametrize("name", CASES)
def test_repr_and_str_are_pytorchs(name):
    torch = torch_or_skip()
    theirs, ours = _data(torch)[name], _data(dagrad_torch)[name]
    assert repr(ours) == repr(theirs)
    assert str(ours) == str(theirs)


OPTIONS = [dict(precision=2), dict(sci_mode=True), dict(sci_mode=False), dict(threshold=5),
           dict(threshold=5, edgeitems=1), dict(linewidth=40), dict(profile="short"),
           dict(profile="full"), dict(precision=6, linewidth=120), dict(edgeitems=0)]


@pytest.mark.parametrize("options", OPTIONS, ids=str)
def test_print_options_change_what_pytorch_changes(options):
    torch = torch_or_skip()
    values = [np.arange(12, dtype=np.float32) * 1.37, NORMAL[:40].astype(np.float32) * 1e-3,
              np.arange(30).reshape(6, 5), np.linspace(0, 1, 1500, dtype=np.float32)]
    texts = {}
    for t in (torch, dagrad_torch):
        t.set_printoptions(**options)
        try:
            texts[t] = [repr(t.tensor(v)) for v in values]
        finally:
            t.set_printoptions(profile="default")
        options_now = get_printoptions()
    assert texts[dagrad_torch] == texts[torch]
    assert options_now == torch._tensor_str.get_printoptions()


def test_printoptions_is_a_context_for_a_block():
    with printoptions(precision=1):
        assert repr(dagrad_torch.tensor([0.25])) == "tensor([0.2])"
    assert repr(dagrad_torch.tensor([0.25])) == "tensor([0.2500])"


def test_the_default_dtype_decides_the_dtype_suffix():
    torch = torch_or_skip()
    texts = {}
    for t in (torch, dagrad_torch):
        t.set_default_dtype(t.float64)
        try:
            texts[t] = [repr(t.tensor([1.5, 2.0])), repr(t.tensor([1.5], dtype=t.float32)),
                        repr(t.tensor([], dtype=t.float32)), repr(t.zeros(0))]
        finally:
            t.set_default_dtype(t.float32)
    assert texts[dagrad_torch] == texts[torch]
    assert texts[torch][1] == "tensor([1.5000], dtype=torch.float32)"


def test_a_parameter_prints_as_pytorchs():
    torch = torch_or_skip()
    from dagrad.torch import nn
    weights = np.array([[0.5, -1.25]], dtype=np.float32)
    assert repr(nn.Parameter(dagrad_torch.tensor(weights))) == repr(
        torch.nn.Parameter(torch.tensor(weights)))


def test_a_0d_tensor_formats_as_its_number():
    torch = torch_or_skip()
    for t in (torch, dagrad_torch):
        loss, count = t.tensor(0.123456), t.tensor(3)
        assert f"{loss:.4f} {loss} {count:03d} {count}" == f"0.1235 {loss.item()} 003 3"
        assert f"{loss}" == "0.12345600128173828"       # the float32 value, as a Python float
        assert f"{t.tensor([1.0, 2.0])}" == str(t.tensor([1.0, 2.0]))
        with pytest.raises(TypeError):
            f"{t.tensor([0.5]):.2f}"
