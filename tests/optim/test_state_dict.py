"""Optimizer state_dict / load_state_dict: resuming gives exactly the uninterrupted run."""
import weakref

import numpy as np
import pytest

from dagrad import autograd as ag
from dagrad import optim
from tests.complexity import assert_linear
from tests.optim.optim_cases import CASES, arrange, case_id, make_params, train


@pytest.mark.parametrize("case", CASES, ids=case_id)
def test_resume_at_step_20_equals_never_stopping(case):
    name, kwargs, groups = case

    def make(params):
        return getattr(optim, name)(arrange(params, groups), **kwargs)

    params = make_params()
    reference = train(make(params), params, 50)[-1]

    params = make_params()
    optimizer = make(params)
    train(optimizer, params, 20)
    saved = optimizer.state_dict()
    values = [p.numpy().copy() for p in params]
    train(optimizer, params, 5)          # later steps must not change the saved dict

    fresh = make_params(values)
    resumed = make(fresh)
    resumed.load_state_dict(saved)
    for state in saved["state"].values():  # nor may the loaded optimizer alias the dict
        for value in state.values():
            if isinstance(value, np.ndarray):
                value.fill(np.nan)
    final = train(resumed, fresh, 30)[-1]
    for ours, ref in zip(final, reference):
        np.testing.assert_array_equal(ours, ref)


def test_state_dict_layout():
    a, b, c = (ag.tensor(np.ones(n), requires_grad=True) for n in (2, 3, 4))
    optimizer = optim.Adam([{"params": [a, b]}, {"params": [c], "lr": 0.1}], amsgrad=True)
    for p in (a, c):                      # b gets no gradient: no state
        p.grad = ag.tensor(np.ones(p.shape))
    optimizer.step()
    saved = optimizer.state_dict()
    assert [g["params"] for g in saved["param_groups"]] == [[0, 1], [2]]
    assert [g["lr"] for g in saved["param_groups"]] == [1e-3, 0.1]
    assert sorted(saved["state"]) == [0, 2]
    assert saved["state"][0]["step"] == 1
    assert set(saved["state"][2]) == {"step", "exp_avg", "exp_avg_sq", "max_exp_avg_sq"}
    assert saved["state"][2]["exp_avg"].shape == (4,)


def test_state_dict_shares_arrays_until_the_next_step_copies_those_still_held():
    # copy on write: state_dict() hands out the state's own arrays; the next step copies the
    # ones a returned dict still holds, and only those
    a, b = (ag.tensor(np.ones(3), requires_grad=True) for _ in range(2))
    optimizer = optim.Adam([a, b], lr=0.1)

    def step():
        for p in (a, b):
            p.grad = ag.tensor(np.full(3, 0.5))
        optimizer.step()

    step()
    # weak references: they do not hold the arrays, so they do not count as a holder
    before = {(p, k): weakref.ref(v) for p in (a, b) for k, v in optimizer.state[p].items()
              if isinstance(v, np.ndarray)}
    kept = optimizer.state_dict()["state"][0]["exp_avg"]     # the rest of the dict is dropped
    assert kept is before[a, "exp_avg"]()
    saved_value = kept.copy()
    step()
    assert optimizer.state[a]["exp_avg"] is not kept          # copied: kept is still held
    np.testing.assert_array_equal(kept, saved_value)          # and the step did not change it
    for p, key in [(a, "exp_avg_sq"), (b, "exp_avg"), (b, "exp_avg_sq")]:
        assert optimizer.state[p][key] is before[p, key](), key   # nobody held these
    assert not np.array_equal(optimizer.state[b]["exp_avg"], saved_value)


def test_lbfgs_steps_do_not_change_a_saved_history():
    xy = ag.tensor(np.array([-1.0, 1.5]), requires_grad=True)
    optimizer = optim.LBFGS([xy], max_iter=3, history_size=5)

    def closure():
        optimizer.zero_grad()
        loss = optim.rosenbrock(xy[0], xy[1])
        loss.backward()
        return loss

    optimizer.step(closure)
    saved = optimizer.state_dict()
    history = [d.copy() for d in saved["state"][0]["old_dirs"]]
    direction = saved["state"][0]["d"].copy()
    optimizer.step(closure)
    assert len(optimizer.state[xy]["old_dirs"]) > len(history)
    assert len(saved["state"][0]["old_dirs"]) == len(history)
    for ours, then in zip(saved["state"][0]["old_dirs"], history):
        np.testing.assert_array_equal(ours, then)
    np.testing.assert_array_equal(saved["state"][0]["d"], direction)


def many_parameters(n):
    """An Adam optimizer over ``n`` small parameters, each with its state."""
    params = [ag.tensor(np.ones(4), requires_grad=True) for _ in range(n)]
    for p in params:
        p.grad = ag.tensor(np.ones(4))
    optimizer = optim.Adam(params)
    optimizer.step()
    return optimizer


def test_state_dict_is_linear_in_the_number_of_parameters():
    def prepare(n):
        optimizer = many_parameters(n)

        def work():
            # each state dict is dropped before the next: ten kept alive made the run at 10n
            # take fresh pages from the system where the run at n reused freed ones (growth
            # 1.31 measured under load, 1.0-1.05 with this)
            for _ in range(10):
                optimizer.state_dict()
        return work
    assert_linear(prepare, 300, "Optimizer.state_dict")


def test_load_casts_state_to_parameter_dtype_and_checks_shapes():
    p64 = ag.tensor(np.ones(3), requires_grad=True)
    p64.grad = ag.tensor(np.ones(3))
    source = optim.SGD([p64], lr=0.1, momentum=0.9)
    source.step()
    p32 = ag.tensor(np.ones(3, dtype=np.float32), requires_grad=True)
    target = optim.SGD([p32], lr=0.1, momentum=0.9)
    target.load_state_dict(source.state_dict())
    assert target.state[p32]["momentum_buffer"].dtype == np.float32

    wrong = optim.SGD([ag.tensor(np.ones(4), requires_grad=True)], momentum=0.9)
    with pytest.raises(ValueError, match=r"has shape \(3,\) but the parameter has shape"):
        wrong.load_state_dict(source.state_dict())


def test_load_rejects_different_groups():
    a, b = (ag.tensor(np.ones(2), requires_grad=True) for _ in range(2))
    saved = optim.SGD([a, b]).state_dict()
    with pytest.raises(ValueError, match="saved state has 1 parameter groups but this "
                                         "optimizer has 2"):
        optim.SGD([{"params": [a]}, {"params": [b]}]).load_state_dict(saved)
    with pytest.raises(ValueError, match="group 0 has 1 parameters but the saved group has 2"):
        optim.SGD([a]).load_state_dict(saved)


def test_load_restores_options_and_adamw_stays_decoupled():
    p = ag.tensor(np.ones(2), requires_grad=True)
    saved = optim.AdamW([p], lr=0.5, weight_decay=0.3).state_dict()
    saved["param_groups"][0]["decoupled_weight_decay"] = False
    restored = optim.AdamW([p])
    restored.load_state_dict(saved)
    group = restored.param_groups[0]
    assert (group["lr"], group["weight_decay"]) == (0.5, 0.3)
    assert group["decoupled_weight_decay"] is True
    assert len(group["params"]) == 1 and group["params"][0] is p


GROUP_CASES = [case for case in CASES if case[2] is not None]   # one per optimizer


@pytest.mark.parametrize("case", GROUP_CASES, ids=case_id)
def test_model_optimizer_and_scheduler_saved_to_a_file_at_step_20_resume_exactly(tmp_path,
                                                                                 case):
    """The checkpoint a training script writes: model (with batch-norm buffers), optimizer with
    two parameter groups and a warm-up-then-cosine scheduler, through nn.save / nn.load."""
    from dagrad import nn
    from dagrad.optim import lr_scheduler
    name, kwargs, groups = case
    rng = np.random.default_rng(0)
    batches = [(rng.standard_normal((8, 4)), rng.integers(0, 3, 8)) for _ in range(50)]

    def make(seed):
        ag.manual_seed(seed)
        model = nn.models.MLP([4, 6, 3], norm="batch").double()
        first, rest = list(model[0].parameters()), list(model[1:].parameters())
        optimizer = getattr(optim, name)([dict(groups[0], params=first),
                                          dict(groups[1], params=rest)], **kwargs)
        scheduler = lr_scheduler.SequentialLR(
            optimizer, [lr_scheduler.LinearLR(optimizer, start_factor=0.2, total_iters=5),
                        lr_scheduler.CosineAnnealingLR(optimizer, T_max=40)], milestones=[5])
        return model, optimizer, scheduler

    def run(model, optimizer, scheduler, steps):
        for x, y in steps:
            loss = nn.functional.cross_entropy(model(ag.tensor(x)), y)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            scheduler.step()

    reference = make(0)
    run(*reference, batches)

    model, optimizer, scheduler = make(0)
    run(model, optimizer, scheduler, batches[:20])
    path = tmp_path / "checkpoint.npz"
    nn.save({"model": model.state_dict(), "optimizer": optimizer.state_dict(),
             "scheduler": scheduler.state_dict(), "step": 20}, path)
    del model, optimizer, scheduler

    checkpoint = nn.load(path)
    model, optimizer, scheduler = make(1)          # a different initialisation, overwritten
    model.load_state_dict(checkpoint["model"])
    optimizer.load_state_dict(checkpoint["optimizer"])
    scheduler.load_state_dict(checkpoint["scheduler"])
    run(model, optimizer, scheduler, batches[checkpoint["step"]:])

    expected = reference[0].state_dict()
    assert list(model.state_dict()) == list(expected)
    for key, value in model.state_dict().items():
        np.testing.assert_array_equal(value.numpy(), expected[key].numpy(), err_msg=key)
    assert scheduler.get_last_lr() == reference[2].get_last_lr()
    for ours, ref in zip(optimizer.param_groups, reference[1].param_groups):
        for p, q in zip(ours["params"], ref["params"]):
            for key, value in optimizer.state[p].items():
                np.testing.assert_array_equal(value, reference[1].state[q][key], err_msg=key)
