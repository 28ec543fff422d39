"""A float32 model fed float64 data (NumPy's default) raises, as PyTorch does, with both dtypes
and the fix in the message, instead of silently training in float64."""
import numpy as np
import pytest

from dagrad import autograd as ag
from dagrad import nn

torch = pytest.importorskip("torch")

X64 = np.ones((2, 3))                   # NumPy's default dtype: float64

CASES = {
    "Linear": (lambda: nn.Linear(3, 2)(ag.tensor(X64)),
               lambda: torch.nn.Linear(3, 2)(torch.tensor(X64))),
    "Linear on a NumPy array": (lambda: nn.Linear(3, 2)(X64),
                                lambda: torch.nn.Linear(3, 2)(torch.from_numpy(X64))),
    "LayerNorm": (lambda: nn.LayerNorm(3)(ag.tensor(X64)),
                  lambda: torch.nn.LayerNorm(3)(torch.tensor(X64))),
    "BatchNorm1d": (lambda: nn.BatchNorm1d(3)(ag.tensor(X64)),
                    lambda: torch.nn.BatchNorm1d(3)(torch.tensor(X64))),
    "LSTM": (lambda: nn.LSTM(3, 4)(ag.tensor(X64[None])),
             lambda: torch.nn.LSTM(3, 4)(torch.tensor(X64[None]))),
    "MultiheadAttention": (
        lambda: nn.MultiheadAttention(3, 1)(*[ag.tensor(X64[None])] * 3),
        lambda: torch.nn.MultiheadAttention(3, 1)(*[torch.tensor(X64[None])] * 3)),
    "matmul": (lambda: ag.tensor(X64) @ ag.ones(3, 3),
               lambda: torch.tensor(X64) @ torch.ones(3, 3)),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_float64_data_into_a_float32_model_raises_naming_both_dtypes(name):
    ours, theirs = CASES[name]
    with pytest.raises((RuntimeError, ValueError)):
        theirs()
    with pytest.raises(TypeError, match=r"must have the same dtype, but got float64 and "
                                        r"float32.*x\.float\(\).*model\.to\(ag\.float64\)"):
        ours()


def test_the_error_names_the_module_that_received_the_data():
    model = nn.Sequential(nn.Linear(3, 3), nn.ReLU(), nn.Linear(3, 1))
    with pytest.raises(TypeError, match=r"Linear \(in module '0'\): x and weight"):
        model(ag.tensor(X64))


def test_integer_data_into_a_float_model_raises():
    with pytest.raises(RuntimeError):
        torch.nn.Linear(3, 2)(torch.ones(2, 3, dtype=torch.int64))
    with pytest.raises(TypeError, match="int64 and float32"):
        nn.Linear(3, 2)(ag.ones(2, 3, dtype=ag.int64))


def test_converted_data_or_model_works():
    model = nn.Linear(3, 2)
    assert model(ag.tensor(X64).float()).dtype == np.float32
    assert model.double()(ag.tensor(X64)).dtype == np.float64


def test_embedding_takes_int32_and_int64_indices_and_refuses_others():
    emb = nn.Embedding(4, 2)
    for dtype in (np.int32, np.int64):
        assert emb(ag.tensor(np.array([0, 3], dtype))).dtype == np.float32
    for bad in (ag.tensor([0.0, 1.0]), ag.tensor([True, False])):
        with pytest.raises(TypeError, match="indices must be integers"):
            emb(bad)
