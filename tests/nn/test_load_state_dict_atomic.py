"""load_state_dict is all-or-nothing: every key, shape and dtype kind is checked before any
parameter is written, and the error names the key."""
import numpy as np
import pytest

from dagrad import autograd as ag
from dagrad import nn


def _model():
    ag.manual_seed(0)
    return nn.Sequential(nn.Linear(2, 2), nn.Linear(2, 1))


@pytest.mark.parametrize("bad,message", [
    (np.array(["x"]), r"'1.bias' is of dtype <U1; expected real numbers"),
    (np.ones(1, dtype=np.complex64), r"'1.bias' is of dtype complex64; expected real numbers"),
    (np.array([None]), r"'1.bias' is an object array"),
])
def test_a_right_shaped_value_that_is_not_real_numbers_writes_nothing(bad, message):
    model = _model()
    before = {k: v.numpy().copy() for k, v in model.state_dict().items()}
    state = {k: np.full(v.shape, 7.0, np.float32) for k, v in before.items()}
    state["1.bias"] = bad                    # the last key: three others would be written first
    with pytest.raises(TypeError, match=message):
        model.load_state_dict(state)
    for key, value in model.state_dict().items():
        np.testing.assert_array_equal(value.numpy(), before[key])


def test_a_mis_shaped_value_writes_nothing_and_is_named():
    model = _model()
    before = model[0].weight.numpy().copy()
    state = {k: np.full(v.shape, 7.0, np.float32) for k, v in model.state_dict().items()}
    state["1.weight"] = np.ones((2, 2), np.float32)
    with pytest.raises(RuntimeError, match="size mismatch for 1.weight"):
        model.load_state_dict(state)
    np.testing.assert_array_equal(model[0].weight.numpy(), before)


def test_integer_and_bool_values_still_load_as_in_torch():
    model = _model()
    state = {k: np.ones(v.shape, np.int64) for k, v in model.state_dict().items()}
    model.load_state_dict(state)
    assert model[1].bias.dtype == np.float32 and model[1].bias.numpy().tolist() == [1.0]
