"""Every optimizer and option follows torch.optim step for step (50 steps, float64)."""
import numpy as np
import pytest

from dagrad import autograd as ag
from dagrad import optim
from tests.helpers import torch_or_skip
from tests.optim.optim_cases import A0, B0, CASES, X0, arrange, case_id, loss, make_params, train

STEPS = 50


@pytest.fixture
def torch():
    torch = torch_or_skip()
    # float64 scalar state in torch (e.g. NAdam's mu_product), like ours
    previous = torch.get_default_dtype()
    torch.set_default_dtype(torch.float64)
    yield torch
    torch.set_default_dtype(previous)


def torch_train(torch, name, kwargs, groups, steps):
    """The same run with torch.optim; returns [[A, b] after each step] as NumPy arrays."""
    params = [torch.tensor(v, dtype=torch.float64, requires_grad=True) for v in (A0, B0)]
    optimizer = getattr(torch.optim, name)(arrange(params, groups), foreach=False, **kwargs)
    return train(optimizer, params, steps, torch.tensor(X0),
                 snapshot=lambda p: p.detach().numpy().copy())


def assert_paths_close(ours, theirs, rtol=1e-9):
    for step, (mine, ref) in enumerate(zip(ours, theirs), start=1):
        for name, a, b in zip("Ab", mine, ref):
            scale = np.abs(b).max()
            err = np.abs(a - b).max() / scale
            assert err <= rtol, f"step {step}, parameter {name}: relative error {err:.3g}"


@pytest.mark.parametrize("case", CASES, ids=case_id)
def test_matches_torch(torch, case):
    name, kwargs, groups = case
    params = make_params()
    optimizer = getattr(optim, name)(arrange(params, groups), **kwargs)
    ours = train(optimizer, params, STEPS)
    theirs = torch_train(torch, name, kwargs, groups, STEPS)
    assert len(ours) == len(theirs) == STEPS
    assert not np.allclose(ours[-1][0], A0), "the parameters should have moved"
    assert_paths_close(ours, theirs)


@pytest.mark.parametrize("name", ["SGD", "Adam"])
def test_closure_matches_torch(torch, name):
    """step(closure) re-evaluates the loss and returns it, as torch's does."""
    params = make_params()
    optimizer = getattr(optim, name)(params, lr=0.05)
    tparams = [torch.tensor(v, requires_grad=True) for v in (A0, B0)]
    toptimizer = getattr(torch.optim, name)(tparams, lr=0.05, foreach=False)
    x, tx = ag.tensor(X0), torch.tensor(X0)

    def closure():
        optimizer.zero_grad()
        value = loss(*params, x)
        value.backward()
        return value

    def tclosure():
        toptimizer.zero_grad()
        value = loss(*tparams, tx)
        value.backward()
        return value

    for _ in range(10):
        ours, theirs = optimizer.step(closure), toptimizer.step(tclosure)
        assert abs(ours.item() - theirs.item()) <= 1e-9 * abs(theirs.item())
    assert_paths_close([[p.numpy() for p in params]], [[p.detach().numpy() for p in tparams]])
