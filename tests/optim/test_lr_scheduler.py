"""Learning-rate schedulers: sequences equal torch.optim.lr_scheduler's, and state round-trips."""
import math

import numpy as np
import pytest

from dagrad import autograd as ag
from dagrad import optim
from dagrad.optim import lr_scheduler
from tests.helpers import torch_or_skip

EPOCHS = 100
LRS = (0.1, 0.05)   # two parameter groups with different starting rates


def two_group_optimizer(torch=None):
    """An SGD with two groups: ours, or torch.optim's when the torch module is given."""
    if torch is None:
        a, b = (ag.tensor(np.zeros(n), requires_grad=True) for n in (2, 3))
        make = optim.SGD
    else:
        a, b = (torch.zeros(n, requires_grad=True) for n in (2, 3))
        make = torch.optim.SGD
    return make([{"params": [a], "lr": LRS[0]}, {"params": [b], "lr": LRS[1]}])


# name -> factory(scheduler module, optimizer); the same code builds ours and torch's
SCHEDULERS = {
    "StepLR": lambda m, o: m.StepLR(o, step_size=7, gamma=0.5),
    "MultiStepLR": lambda m, o: m.MultiStepLR(o, milestones=[10, 30, 30, 80], gamma=0.3),
    "ExponentialLR": lambda m, o: m.ExponentialLR(o, gamma=0.95),
    "CosineAnnealingLR": lambda m, o: m.CosineAnnealingLR(o, T_max=100),
    "CosineAnnealingLR-restarts": lambda m, o: m.CosineAnnealingLR(o, T_max=30, eta_min=1e-3),
    "LambdaLR": lambda m, o: m.LambdaLR(o, lr_lambda=lambda e: 0.97 ** e),
    "LambdaLR-per-group": lambda m, o: m.LambdaLR(
        o, lr_lambda=[lambda e: 1 / (1 + e), lambda e: max(0.0, 1 - e / 60)]),
    "LinearLR-warmup": lambda m, o: m.LinearLR(o, start_factor=0.1, total_iters=10),
    "LinearLR-decay": lambda m, o: m.LinearLR(o, start_factor=1.0, end_factor=0.2,
                                              total_iters=40),
    "SequentialLR-warmup-cosine": lambda m, o: m.SequentialLR(
        o, [m.LinearLR(o, start_factor=0.1, total_iters=5), m.CosineAnnealingLR(o, T_max=95)],
        milestones=[5]),
    "SequentialLR-three": lambda m, o: m.SequentialLR(
        o, [m.LinearLR(o, start_factor=0.5, total_iters=4), m.ExponentialLR(o, gamma=0.9),
            m.StepLR(o, step_size=10, gamma=0.5)], milestones=[5, 50]),
}


@pytest.fixture
def torch():
    return torch_or_skip()


def lr_sequence(optimizer, scheduler, epochs=EPOCHS):
    """[group lrs] for epoch 0..epochs, checking get_last_lr() agrees with the groups."""
    sequence = []
    for _ in range(epochs + 1):
        lrs = [group["lr"] for group in optimizer.param_groups]
        assert list(scheduler.get_last_lr()) == lrs
        sequence.append(lrs)
        optimizer.step()         # no gradients: a no-op, but keeps torch's order check happy
        scheduler.step()
    return sequence


@pytest.mark.parametrize("name", SCHEDULERS)
def test_sequence_matches_torch(torch, name):
    make = SCHEDULERS[name]
    ours_opt = two_group_optimizer()
    ours = lr_sequence(ours_opt, make(lr_scheduler, ours_opt))
    torch_opt = two_group_optimizer(torch)
    theirs = lr_sequence(torch_opt, make(torch.optim.lr_scheduler, torch_opt))
    assert ours == theirs
    assert [g["initial_lr"] for g in ours_opt.param_groups] == list(LRS)


@pytest.mark.parametrize("name", SCHEDULERS)
def test_state_dict_resume(name):
    """Save at epoch 30, restore into a fresh optimizer and scheduler, continue: same rates."""
    make = SCHEDULERS[name]
    opt = two_group_optimizer()
    reference = lr_sequence(opt, make(lr_scheduler, opt))

    opt = two_group_optimizer()
    sched = make(lr_scheduler, opt)
    first = lr_sequence(opt, sched, epochs=29)
    saved_opt, saved_sched = opt.state_dict(), sched.state_dict()
    opt2 = two_group_optimizer()
    sched2 = make(lr_scheduler, opt2)
    opt2.load_state_dict(saved_opt)
    sched2.load_state_dict(saved_sched)
    rest = lr_sequence(opt2, sched2, epochs=EPOCHS - 30)
    assert first + rest == reference


METRICS = ([1.0, 0.9, 0.8, 0.8, 0.8, 0.79999, 0.85, 0.9, 0.7, 0.7] * 3
           + [0.5 + 0.01 * math.sin(k) for k in range(40)]
           + [0.4 - 0.001 * k for k in range(30)])

PLATEAU = {
    "defaults": {},
    "min-rel": {"patience": 2, "factor": 0.5},
    "min-abs-cooldown": {"patience": 1, "factor": 0.5, "threshold": 0.01,
                         "threshold_mode": "abs", "cooldown": 3},
    "max-rel": {"mode": "max", "patience": 2, "factor": 0.3},
    "max-abs": {"mode": "max", "patience": 0, "threshold": 0.05, "threshold_mode": "abs"},
    "min_lr-per-group": {"patience": 1, "factor": 0.2, "min_lr": [0.01, 1e-3]},
    "min_lr-eps": {"patience": 0, "factor": 0.5, "min_lr": 0.02, "eps": 1e-3},
}


def plateau_sequence(optimizer, scheduler, metrics):
    sequence = []
    for metric in metrics:
        optimizer.step()
        scheduler.step(metric)
        lrs = [group["lr"] for group in optimizer.param_groups]
        assert list(scheduler.get_last_lr()) == lrs
        sequence.append(lrs)
    return sequence


@pytest.mark.parametrize("name", PLATEAU)
def test_reduce_on_plateau_matches_torch(torch, name):
    kwargs = PLATEAU[name]
    ours_opt, torch_opt = two_group_optimizer(), two_group_optimizer(torch)
    ours = plateau_sequence(ours_opt, lr_scheduler.ReduceLROnPlateau(ours_opt, **kwargs),
                            METRICS)
    theirs = plateau_sequence(
        torch_opt, torch.optim.lr_scheduler.ReduceLROnPlateau(torch_opt, **kwargs), METRICS)
    assert ours == theirs
    assert ours[-1] != [LRS[0], LRS[1]] or name == "defaults"


def test_reduce_on_plateau_state_dict_resume():
    kwargs = PLATEAU["min-abs-cooldown"]
    opt = two_group_optimizer()
    reference = plateau_sequence(opt, lr_scheduler.ReduceLROnPlateau(opt, **kwargs), METRICS)
    opt = two_group_optimizer()
    sched = lr_scheduler.ReduceLROnPlateau(opt, **kwargs)
    first = plateau_sequence(opt, sched, METRICS[:33])
    opt2 = two_group_optimizer()
    sched2 = lr_scheduler.ReduceLROnPlateau(opt2)
    opt2.load_state_dict(opt.state_dict())
    sched2.load_state_dict(sched.state_dict())
    assert first + plateau_sequence(opt2, sched2, METRICS[33:]) == reference


def test_closed_forms_agree_with_recursion():
    """The closed forms used at SequentialLR milestones equal the recursive sequences."""
    for name in ("StepLR", "MultiStepLR", "ExponentialLR", "LinearLR-warmup",
                 "CosineAnnealingLR"):
        opt = two_group_optimizer()
        sched = SCHEDULERS[name](lr_scheduler, opt)
        for epoch in range(60):
            np.testing.assert_allclose(sched.get_last_lr(), sched._closed_form_lr(),
                                       rtol=1e-12, err_msg=f"{name}, epoch {epoch}")
            sched.step()


def test_lambda_state_dict_keeps_callable_objects():
    class Decay:
        def __init__(self, rate):
            self.rate = rate

        def __call__(self, epoch):
            return self.rate ** epoch

    opt = two_group_optimizer()
    sched = lr_scheduler.LambdaLR(opt, [Decay(0.5), lambda e: 1.0])
    saved = sched.state_dict()
    assert saved["lr_lambdas"] == [{"rate": 0.5}, None]
    other = lr_scheduler.LambdaLR(two_group_optimizer(), [Decay(0.9), lambda e: 1.0])
    other.load_state_dict(saved)
    assert other.lr_lambdas[0].rate == 0.5


def test_scheduler_errors():
    opt = two_group_optimizer()
    with pytest.raises(TypeError, match="expected an optim.Optimizer"):
        lr_scheduler.StepLR(object(), step_size=3)
    with pytest.raises(KeyError, match="initial_lr"):
        lr_scheduler.StepLR(opt, step_size=3, last_epoch=5)
    with pytest.raises(ValueError, match="expected 2 lr_lambdas"):
        lr_scheduler.LambdaLR(opt, [lambda e: 1.0])
    with pytest.raises(ValueError, match="start_factor"):
        lr_scheduler.LinearLR(opt, start_factor=0)
    with pytest.raises(ValueError, match="factor must be < 1.0"):
        lr_scheduler.ReduceLROnPlateau(opt, factor=1.5)
    with pytest.raises(ValueError, match="mode must be 'min' or 'max'"):
        lr_scheduler.ReduceLROnPlateau(opt, mode="lowest")
    with pytest.raises(ValueError, match="threshold_mode"):
        lr_scheduler.ReduceLROnPlateau(opt, threshold_mode="relative")
    with pytest.raises(ValueError, match="expected 2 min_lrs"):
        lr_scheduler.ReduceLROnPlateau(opt, min_lr=[0.1])
    warm = lr_scheduler.LinearLR(opt, total_iters=2)
    with pytest.raises(ValueError, match="expected 1 milestones"):
        lr_scheduler.SequentialLR(opt, [warm, lr_scheduler.ExponentialLR(opt, 0.9)], [2, 5])
    with pytest.raises(ValueError, match="different optimizer"):
        lr_scheduler.SequentialLR(opt, [warm, lr_scheduler.ExponentialLR(
            two_group_optimizer(), 0.9)], [2])
    with pytest.raises(ValueError, match="ReduceLROnPlateau"):
        lr_scheduler.SequentialLR(opt, [warm, lr_scheduler.ReduceLROnPlateau(opt)], [2])


ONE_CYCLE = {
    "sgd-cos": (lambda m, p: m.SGD(p, lr=0.1, momentum=0.9),
                dict(max_lr=[1.0, 0.5], total_steps=40)),
    "adam-linear-three-phase": (lambda m, p: m.Adam(p, lr=1e-3),
                                dict(max_lr=0.01, epochs=4, steps_per_epoch=10,
                                     anneal_strategy="linear", three_phase=True,
                                     pct_start=0.25)),
    "sgd-no-momentum-cycle": (lambda m, p: m.SGD(p, lr=0.1),
                              dict(max_lr=0.3, total_steps=17, cycle_momentum=False,
                                   div_factor=10.0, final_div_factor=100.0)),
}


def _one_cycle_run(m, params, name):
    make_optimizer, kwargs = ONE_CYCLE[name]
    groups = [{"params": [params[0]]}, {"params": [params[1]]}]
    opt = make_optimizer(m.optim if hasattr(m, "optim") else optim, groups)
    sched = (m.optim.lr_scheduler if hasattr(m, "optim") else lr_scheduler).OneCycleLR(
        opt, **kwargs)
    seen = []
    for _ in range(sched.total_steps):
        seen.append([(g["lr"], g.get("momentum"), tuple(g.get("betas", ()))) for g in
                     opt.param_groups])
        opt.step()
        sched.step()
    with pytest.raises(ValueError, match="[Tt]ried to step"):
        sched.step()
    return seen


@pytest.mark.parametrize("name", ONE_CYCLE)
def test_one_cycle_rates_and_momenta_match_torch(torch, name):
    ours = _one_cycle_run(None, [ag.zeros(2, requires_grad=True),
                                 ag.zeros(3, requires_grad=True)], name)
    theirs = _one_cycle_run(torch, [torch.zeros(2, requires_grad=True),
                                    torch.zeros(3, requires_grad=True)], name)
    assert len(ours) == len(theirs)
    for a, b in zip(ours, theirs):
        for (lr, m, betas), (tlr, tm, tbetas) in zip(a, b):
            assert lr == pytest.approx(tlr, rel=1e-12, abs=1e-15)
            assert m == pytest.approx(tm, rel=1e-12) if tm is not None else m is None
            assert betas == pytest.approx(tbetas, rel=1e-12)


def test_one_cycle_refuses_what_torch_refuses():
    opt = optim.SGD([ag.zeros(2, requires_grad=True)], lr=0.1)
    with pytest.raises(ValueError, match="total_steps, or epochs and steps_per_epoch"):
        lr_scheduler.OneCycleLR(opt, max_lr=1.0)
    with pytest.raises(ValueError, match="positive integer total_steps"):
        lr_scheduler.OneCycleLR(opt, max_lr=1.0, total_steps=0)
    with pytest.raises(ValueError, match="pct_start"):
        lr_scheduler.OneCycleLR(opt, max_lr=1.0, total_steps=10, pct_start=1.5)
