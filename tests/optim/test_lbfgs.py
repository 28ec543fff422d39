"""optim.LBFGS against torch.optim.LBFGS: the same trajectory on Rosenbrock's function, with a
fixed step and with the strong-Wolfe line search."""
import numpy as np
import pytest

from dagrad import autograd as ag
from dagrad import optim
from tests.helpers import torch_or_skip


def _trajectory(module, optimizer_class, steps, dtype, **options):
    xy = module.tensor(np.array([-1.5, 2.0], dtype=dtype), requires_grad=True)
    opt = optimizer_class([xy], **options)

    def closure():
        opt.zero_grad()
        loss = (1 - xy[0]) ** 2 + 100 * (xy[1] - xy[0] ** 2) ** 2
        loss.backward()
        return loss

    points, losses = [], []
    for _ in range(steps):
        losses.append(float(opt.step(closure).detach()))
        points.append(xy.detach().numpy().copy())
    return np.array(points), np.array(losses), opt.state[xy]["func_evals"]


@pytest.mark.parametrize("options", [
    dict(lr=0.1, max_iter=5), dict(line_search_fn="strong_wolfe", max_iter=10),
    dict(line_search_fn="strong_wolfe", history_size=3, max_iter=8, lr=0.5)],
    ids=["fixed_step", "strong_wolfe", "short_history"])
def test_rosenbrock_trajectory_matches_pytorch(options):
    torch = torch_or_skip()
    ours, our_losses, our_evals = _trajectory(ag, optim.LBFGS, 6, np.float64, **options)
    theirs, their_losses, their_evals = _trajectory(torch, torch.optim.LBFGS, 6, np.float64,
                                                    **options)
    # the same operations in the same order; float64 rounding may differ in the last bits
    # (a fused multiply-add), which Rosenbrock's valley amplifies to ~1e-9 after 30 iterations
    np.testing.assert_allclose(ours, theirs, rtol=1e-7, atol=1e-12)
    np.testing.assert_allclose(our_losses, their_losses, rtol=1e-7, atol=1e-15)
    assert our_evals == their_evals


def test_strong_wolfe_reaches_the_minimum():
    points, losses, _ = _trajectory(ag, optim.LBFGS, 10, np.float64,
                                    line_search_fn="strong_wolfe")
    np.testing.assert_allclose(points[-1], [1.0, 1.0], atol=1e-5)
    assert losses[0] > 1 and losses[-1] < 1e-9


def test_float32_stays_float32_and_matches_pytorch():
    torch = torch_or_skip()
    options = dict(line_search_fn="strong_wolfe", max_iter=6)
    ours, _, our_evals = _trajectory(ag, optim.LBFGS, 1, np.float32, **options)
    theirs, _, their_evals = _trajectory(torch, torch.optim.LBFGS, 1, np.float32, **options)
    assert ours.dtype == np.float32 and our_evals == their_evals
    np.testing.assert_allclose(ours, theirs, rtol=1e-6)


def test_lbfgs_needs_a_closure_and_one_group():
    x = ag.zeros(2, requires_grad=True)
    with pytest.raises(TypeError, match="closure"):
        optim.LBFGS([x]).step()
    with pytest.raises(ValueError, match="line_search_fn"):
        optim.LBFGS([x], line_search_fn="armijo")
    with pytest.raises(ValueError, match="parameter groups"):
        optim.LBFGS([{"params": [x]}, {"params": [ag.zeros(1, requires_grad=True)]}])
