"""One default dtype, read by creation functions, type promotion, every layer, the initialisers
and the losses: ``set_default_dtype`` / ``get_default_dtype`` as PyTorch's, compared with
PyTorch after setting float64 (and float32 back)."""
import contextlib

import numpy as np
import pytest

from dagrad import torch as dagrad_torch
from tests.helpers import torch_or_skip


@contextlib.contextmanager
def default_dtype(t, dtype):
    previous = t.get_default_dtype()
    t.set_default_dtype(dtype)
    try:
        yield
    finally:
        t.set_default_dtype(previous)


def _tensors(t):
    return {"tensor of floats": t.tensor([1.5, 2.0]), "0-d float": t.tensor(0.5),
            "tensor of ints": t.tensor([1, 2]), "zeros": t.zeros(2), "ones": t.ones(2, 2),
            "empty": t.empty(3), "full float": t.full((2,), 1.5), "full int": t.full((2,), 3),
            "eye": t.eye(2), "arange float": t.arange(0.0, 1.0, 0.25), "arange int": t.arange(3),
            "linspace": t.linspace(0, 1, 5), "rand": t.rand(2), "randn": t.randn(2),
            "normal": t.normal(0.0, 1.0, size=(2,)), "legacy Tensor": t.Tensor([1, 2]),
            "legacy FloatTensor": t.FloatTensor([1, 2]), "int times float": t.tensor([1, 2]) * 0.5,
            "int divided": t.tensor([1, 2]) / 2, "int sigmoid": t.tensor([1, 2]).sigmoid(),
            "float32 kept": t.tensor([1.0], dtype=t.float32) * 2.0,
            "float() is float32": t.tensor([1.0]).float()}


def _layers(t):
    nn = t.nn
    return {"Linear": nn.Linear(2, 3), "Conv2d": nn.Conv2d(1, 2, 3), "Conv1d": nn.Conv1d(1, 2, 3),
            "ConvTranspose2d": nn.ConvTranspose2d(1, 2, 3), "BatchNorm1d": nn.BatchNorm1d(3),
            "LayerNorm": nn.LayerNorm(3), "Embedding": nn.Embedding(4, 2), "PReLU": nn.PReLU(),
            "GRU": nn.GRU(2, 3), "LSTM": nn.LSTM(2, 3), "RNNCell": nn.RNNCell(2, 3),
            "MultiheadAttention": nn.MultiheadAttention(4, 2),
            "TransformerEncoderLayer": nn.TransformerEncoderLayer(4, 2, 8)}


def _dtypes_after(t, dtype):
    with default_dtype(t, dtype):
        found = {name: str(x.dtype) for name, x in _tensors(t).items()}
        for name, layer in _layers(t).items():
            found[name] = sorted({str(p.dtype) for p in layer.parameters()} |
                                 {str(b.dtype) for b in layer.buffers() if b.is_floating_point()})
        weight = t.empty(3, 4)
        t.nn.init.xavier_uniform_(weight)
        found["initialised"] = str(weight.dtype)
        found["kaiming"] = str(t.nn.init.kaiming_normal_(t.empty(2, 2)).dtype)
        x, target = t.randn(4, 3), t.tensor([0, 2, 1, 1])
        found["cross entropy"] = str(t.nn.CrossEntropyLoss()(x, target).dtype)
        found["mse"] = str(t.nn.MSELoss()(t.randn(3), t.randn(3)).dtype)
        found["bce"] = str(t.nn.BCEWithLogitsLoss()(t.randn(3), t.tensor([0.0, 1.0, 1.0])).dtype)
        found["model output"] = str(t.nn.Linear(3, 1)(x).dtype)
        found["causal mask"] = str(t.nn.Transformer.generate_square_subsequent_mask(3).dtype)
        found["default"] = str(t.get_default_dtype())
    return {k: [s.replace("torch.", "") for s in v] if isinstance(v, list) else
            v.replace("torch.", "") for k, v in found.items()}


@pytest.mark.parametrize("dtype", ["float64", "float32"])
def test_everything_reads_the_default_dtype_as_pytorch(dtype):
    torch = torch_or_skip()
    ours = _dtypes_after(dagrad_torch, getattr(dagrad_torch, dtype))
    theirs = _dtypes_after(torch, getattr(torch, dtype))
    assert ours == theirs
    if dtype == "float64":
        assert ours["Linear"] == ["float64"] and ours["tensor of floats"] == "float64"


def test_only_floating_dtypes_can_be_the_default():
    torch = torch_or_skip()
    for t in (torch, dagrad_torch):
        with pytest.raises(TypeError, match="only floating-point types"):
            t.set_default_dtype(t.int64)
        assert t.get_default_dtype() == t.float32


def test_gradcheck_style_programs_start_with_float64():
    from dagrad import autograd as ag
    with default_dtype(ag, np.float64):
        x = ag.randn(3, requires_grad=True)
        assert x.dtype == np.float64
        assert ag.gradcheck(lambda x: (x.tanh() * 2.5).sum(), [x])
    assert ag.randn(3).dtype == np.float32
