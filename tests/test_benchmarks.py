"""The benchmark workloads compute what they claim: every framework's first step must equal
the same step computed in NumPy, so the tables compare equal work (no timing here)."""
import importlib

import numpy as np
import pytest

from benchmarks import (lenet_step, lstm_cell_step, mlp_step, overhead, transformer_numpy,
                        transformer_step)
from benchmarks.common import training_step
from benchmarks.others import reference
from dagrad import autograd as ag, nn, optim


def test_the_unrolled_lstm_cell_step_matches_numpy():
    step = lstm_cell_step.setup_dagrad()      # raises if its first loss differs from NumPy's
    step()


def test_the_other_engines_reference_values_are_dagrad_s():
    x = ag.tensor([0.5])
    assert np.isclose(float(overhead._chain(x)), reference.chain_value(), rtol=1e-6)
    layers, data, labels = mlp_step._problem()
    model = nn.models.MLP(mlp_step.SIZES)
    model.load_state_dict(mlp_step._state_dict(layers))
    loss = nn.CrossEntropyLoss()(model(ag.tensor(data)), ag.tensor(labels))
    assert np.isclose(float(loss), reference.mlp_loss(), rtol=1e-5)
    reference.check("W2", loss, reference.mlp_loss())


def test_the_hand_written_numpy_lenet_step_takes_dagrad_s_step():
    state, x, y = lenet_step._problem()
    initial = {name: value.copy() for name, value in state.items()}
    model = nn.models.LeNet()
    model.load_state_dict(state)
    training_step(model, nn.CrossEntropyLoss(), optim.SGD(model.parameters(), lr=lenet_step.LR),
                  ag.tensor(x), ag.tensor(y))()
    lenet_step.numpy_step(state, x, y)()
    for name, value in model.state_dict().items():
        assert state[name].dtype == np.float32
        # the steps themselves, not just the weights (a step is ~1e-4 of a weight)
        step, expected = state[name] - initial[name], value.numpy() - initial[name]
        np.testing.assert_allclose(step, expected, rtol=0, atol=1e-3 * np.abs(expected).max(),
                                   err_msg=name)


def test_the_numpy_lenet_max_pool_sends_each_gradient_to_one_maximum():
    a = np.zeros((1, 4, 4, 1), np.float32)     # (C, H, W, N): ties in every window
    a[0, 2:, 2:, 0] = [[1, 3], [3, 3]]
    pooled, route = lenet_step._max_pool(a)
    grad = lenet_step._max_pool_grad(np.ones(pooled.shape, np.float32), route)
    assert pooled[0, :, :, 0].tolist() == [[0, 0], [0, 3]]
    assert grad[0, :, :, 0].tolist() == [[1, 0, 1, 0], [0, 0, 0, 0], [1, 0, 0, 1], [0, 0, 0, 0]]


def test_the_hand_written_numpy_transformer_gradients_are_dagrad_s():
    x, y, state = transformer_step._problem()
    layer = nn.TransformerEncoderLayer(transformer_step.D_MODEL, transformer_step.HEADS,
                                       transformer_step.FF, dropout=0.0, batch_first=True)
    model = nn.TransformerEncoder(layer, transformer_step.LAYERS)
    model.load_state_dict(state)
    loss = nn.MSELoss()(model(ag.tensor(x)), ag.tensor(y))
    loss.backward()
    expected_loss, grads = transformer_numpy.loss_and_grads(
        {k: v.copy() for k, v in state.items()}, x, y, transformer_step.LAYERS,
        transformer_step.HEADS)
    assert np.isclose(float(loss), expected_loss, rtol=1e-5)
    named = dict(model.named_parameters())
    assert set(grads) == set(named)
    for name, g in grads.items():
        assert g.dtype == np.float32, name
        expected = named[name].grad.numpy()
        np.testing.assert_allclose(g, expected, rtol=0, atol=2e-3 * np.abs(expected).max() + 1e-9,
                                   err_msg=name)


def test_the_hand_written_numpy_adam_is_pytorch_s():
    torch = pytest.importorskip("torch")
    rng = np.random.default_rng(1)
    state = {"w": rng.standard_normal(5).astype(np.float32)}
    w = torch.nn.Parameter(torch.from_numpy(state["w"].copy()))
    opt = torch.optim.Adam([w], lr=0.1)
    update = transformer_numpy.adam(state, 0.1)
    for _ in range(3):
        g = rng.standard_normal(5).astype(np.float32)
        w.grad = torch.from_numpy(g.copy())
        opt.step()
        update({"w": g.copy()})
    np.testing.assert_allclose(state["w"], w.detach().numpy(), rtol=1e-6, atol=1e-7)


@pytest.mark.parametrize("workload,layer", [("gru_step", "GRU"), ("rnn_step", "RNN")])
def test_the_hand_written_numpy_recurrent_step_takes_dagrad_s_step(workload, layer):
    module = importlib.import_module(f"benchmarks.{workload}")
    state, x, y = module._problem()
    initial = {name: value.copy() for name, value in state.items()}
    model = getattr(nn, layer)(module.INPUT, module.HIDDEN)
    model.load_state_dict(state)
    training_step(model, nn.MSELoss(), optim.SGD(model.parameters(), lr=module.LR),
                  ag.tensor(x), ag.tensor(y), forward=lambda m, x: m(x)[0])()
    module.numpy_step(state, x, y)()
    for name, value in model.state_dict().items():
        step, expected = state[name] - initial[name], value.numpy() - initial[name]
        np.testing.assert_allclose(step, expected, rtol=0, atol=1e-3 * np.abs(expected).max(),
                                   err_msg=name)


def test_an_earlier_commit_runs_its_own_dagrad_on_these_workloads():
    """``--before REV``: a worker started in the checkout imports that commit's dagrad (all of
    its subpackages) and this checkout's workloads, so both commits time the same step."""
    import pathlib
    import shutil
    import subprocess
    import sys

    from benchmarks import before, common
    tree = before.checkout("HEAD")
    try:
        out = subprocess.run(
            [sys.executable, "-c", "import dagrad.autograd, dagrad.nn, dagrad.optim, "
             "benchmarks.common as c; print(dagrad.autograd.__file__, dagrad.nn.__file__, "
             "dagrad.optim.__file__, c.__file__)"],
            cwd=tree, capture_output=True, text=True, check=True).stdout.split()
        assert all(path.startswith(str(tree)) for path in out[:3]), out
        assert pathlib.Path(out[3]).resolve() == pathlib.Path(common.__file__).resolve()
    finally:
        shutil.rmtree(tree)
    with pytest.raises(SystemExit, match="no-such-revision"):
        before.checkout("no-such-revision")


def test_the_paired_ratio_compares_blocks_of_the_same_number_of_steps(monkeypatch):
    """``paired_ratio`` on a clock that only the steps move: a step costing 3 units against a
    floor of 2 is 1.5x in every block, however many steps a block holds and however the
    machine's speed (the unit) changes between blocks."""
    from benchmarks import common
    now = [0.0]
    unit = [1e-3]

    def step():
        now[0] += 3 * unit[0]

    def floor():
        now[0] += 2 * unit[0]
        unit[0] *= 1.001              # the machine slows down, step after step

    monkeypatch.setattr(common.time, "perf_counter", lambda: now[0])
    result = common.paired_ratio(step, floor, seconds=0.5, block_seconds=0.01)
    assert result["ratio"] == pytest.approx(1.5, rel=5e-3)
    assert result["q1"] <= result["ratio"] <= result["q3"]
