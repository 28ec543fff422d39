"""nn.functional odds and ends not covered by the layer and loss tables."""
import numpy as np
import pytest

from dagrad import autograd as ag
import dagrad.nn.functional as F
from tests.helpers import torch_or_skip, torch_parity


def test_one_hot():
    out = F.one_hot(ag.tensor(np.array([0, 2, 1])), 4)
    assert out.dtype == np.int64
    np.testing.assert_array_equal(out.numpy(), np.eye(4, dtype=np.int64)[[0, 2, 1]])
    assert F.one_hot(ag.tensor(np.array([[1], [3]]))).shape == (2, 1, 4)
    with pytest.raises(IndexError):
        F.one_hot(ag.tensor(np.array([3])), 2)


def test_functional_forms_match_pytorch():
    torch = torch_or_skip()
    x = np.random.default_rng(0).standard_normal((3, 4))
    w = np.random.default_rng(1).standard_normal((2, 4))
    torch_parity(F.linear, torch.nn.functional.linear, [x, w])
    torch_parity(lambda a: F.layer_norm(a, (4,)),
                 lambda a: torch.nn.functional.layer_norm(a, (4,)), [x])
    torch_parity(lambda a: F.softmax(a, 0), lambda a: torch.softmax(a, 0), [x])


def test_batch_norm_functional_updates_given_running_statistics():
    x = ag.tensor(np.array([[0.0, 2.0], [2.0, 6.0]]))
    mean, var = np.zeros(2), np.ones(2)
    F.batch_norm(x, mean, var, training=True, momentum=0.5)
    np.testing.assert_allclose(mean, [0.5, 2.0])
    np.testing.assert_allclose(var, [0.5 + 0.5 * 2.0, 0.5 + 0.5 * 8.0])
    with pytest.raises(ValueError, match="running_mean"):
        F.batch_norm(x, None, None, training=False)


def test_dropout_functional():
    x = ag.ones(1000)
    assert F.dropout(x, 0.3, training=False) is x
    assert np.all(F.dropout(x, 1.0).numpy() == 0)
    assert F.dropout(x, 0.0) is x
    with pytest.raises(ValueError):
        F.dropout(x, -0.1)


def test_prelu_checks_channels():
    with pytest.raises(ValueError, match="channels"):
        F.prelu(ag.randn(2, 5), ag.ones(3))
