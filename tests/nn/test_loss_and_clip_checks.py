"""BCELoss refuses targets outside [0, 1] and clip_grad_norm_ treats a non-finite total norm as
PyTorch does (no gradient is left silently unscaled), both compared with torch."""
import math

import numpy as np
import pytest

from dagrad import autograd as ag
from dagrad import nn
from tests.helpers import torch_or_skip


@pytest.mark.parametrize("probabilities,target,which", [
    ([0.5, 0.5], [1.5, 0.0], "target"),
    ([0.5, 0.5], [-0.1, 0.0], "target"),
    ([0.5, 0.5], [math.nan, 0.0], "target"),
    ([1.5, 0.5], [1.0, 0.0], "input"),
    ([math.nan, 0.5], [1.0, 0.0], "input"),
])
def test_bce_refuses_values_outside_the_unit_interval_as_torch(probabilities, target, which):
    torch = torch_or_skip()
    message = f"all elements of {which} should be between 0 and 1"
    with pytest.raises(RuntimeError, match=message):
        torch.nn.BCELoss()(torch.tensor(probabilities), torch.tensor(target))
    with pytest.raises(ValueError, match=message):
        nn.BCELoss()(ag.tensor(probabilities), ag.tensor(target))


def test_bce_accepts_soft_labels_and_matches_torch():
    torch = torch_or_skip()
    x, y = [0.2, 0.9, 1.0], [0.0, 0.3, 1.0]
    ours = nn.BCELoss()(ag.tensor(x), ag.tensor(y)).item()
    theirs = torch.nn.BCELoss()(torch.tensor(x), torch.tensor(y)).item()
    assert ours == pytest.approx(theirs, rel=1e-6)


def _clip(torch, grads, **kwargs):
    """Clip the gradients ``grads`` of fresh parameters with torch's clip_grad_norm_ (or
    dagrad's when ``torch`` is None); returns (total norm, gradients after) as floats."""
    lib, nn_lib = (ag, nn) if torch is None else (torch, torch.nn)
    params = [nn_lib.Parameter(lib.zeros(len(g))) for g in grads]
    for p, g in zip(params, grads):
        p.grad = lib.tensor(g)
    total = nn_lib.utils.clip_grad_norm_(params, 1.0, **kwargs).item()
    return total, [p.grad.tolist() for p in params]


@pytest.mark.parametrize("grads", [[[math.nan, 1.0], [3.0, 4.0]], [[math.inf, 1.0], [3.0, 4.0]],
                                   [[3.0, 4.0], [math.nan, 0.0]], [[0.1, 0.1], [0.1, 0.1]],
                                   [[3.0, 4.0], [0.0, 0.0]]])
@pytest.mark.parametrize("norm_type", [2.0, 1.0, math.inf])
def test_clip_grad_norm_matches_torch_for_non_finite_gradients(grads, norm_type):
    torch = torch_or_skip()
    ours = _clip(None, grads, norm_type=norm_type)
    theirs = _clip(torch, grads, norm_type=norm_type)
    np.testing.assert_allclose(ours[0], theirs[0], rtol=1e-6)
    np.testing.assert_allclose(np.array(ours[1]), np.array(theirs[1]), rtol=1e-6, atol=1e-7)


def test_clip_grad_norm_error_if_nonfinite_raises_and_leaves_the_gradients():
    torch = torch_or_skip()
    grads = [[math.nan, 1.0], [3.0, 4.0]]
    with pytest.raises(RuntimeError, match="non-finite"):
        _clip(torch, grads, error_if_nonfinite=True)
    params = [nn.Parameter(ag.zeros(2)) for _ in grads]
    for p, g in zip(params, grads):
        p.grad = ag.tensor(g)
    with pytest.raises(RuntimeError, match="total norm of order 2.0 for gradients from "
                                           "`parameters` is non-finite"):
        nn.utils.clip_grad_norm_(params, 1.0, error_if_nonfinite=True)
    assert params[1].grad.numpy().tolist() == [3.0, 4.0]
