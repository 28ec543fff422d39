"""Recurrent cells and layers: float64 gradcheck of every cell (peephole LSTM and MGU included),
PyTorch parity of RNN/GRU/LSTM layers (outputs, final states, gradients of the input, the
initial states and every parameter), parameter layout, the graph of a layer (one operation per
layer and direction; under viz.record() one input product per sequence and one gate product per
step), shapes and errors."""
import collections
import contextlib
import itertools

import numpy as np
import pytest

from dagrad import autograd as ag
from dagrad import nn
from dagrad.autograd.function import Function
from tests.helpers import module_parity, torch_or_skip

T, N, IN, H = 4, 3, 5, 4


def _x(*shape, seed=0):
    return np.random.default_rng(seed).standard_normal(shape)


def _perturb(module, seed=3):
    """Move parameters away from their small initial values so every term matters."""
    rng = np.random.default_rng(seed)
    for p in module.parameters():
        p.numpy()[...] = p.numpy() + rng.uniform(-0.5, 0.5, p.shape)
    return module


# ------------------------------------------------------------------------------- gradcheck
CELLS = {
    "RNNCell-tanh": lambda: nn.RNNCell(3, 4),
    "RNNCell-relu": lambda: nn.RNNCell(3, 4, nonlinearity="relu"),
    "LSTMCell": lambda: nn.LSTMCell(3, 4),
    "LSTMCell-peephole": lambda: nn.LSTMCell(3, 4, peephole=True),
    "LSTMCell-nobias": lambda: nn.LSTMCell(3, 4, bias=False),
    "GRUCell": lambda: nn.GRUCell(3, 4),
    "GRUCell-nobias": lambda: nn.GRUCell(3, 4, bias=False),
    "MGUCell": lambda: nn.MGUCell(3, 4),
    "MGUCell-nobias": lambda: nn.MGUCell(3, 4, bias=False),
    "LSTMCell-peephole-nobias": lambda: nn.LSTMCell(3, 4, bias=False, peephole=True),
}


@pytest.mark.parametrize("name", CELLS)
def test_cell_gradcheck(name):
    cell = _perturb(CELLS[name]().double())
    x = ag.tensor(_x(2, 3), requires_grad=True)
    state = [ag.tensor(_x(2, 4, seed=k + 1), requires_grad=True)
             for k in range(2 if "LSTM" in name else 1)]

    def run(*_):
        out = cell(x, tuple(state) if len(state) == 2 else state[0])
        return list(out) if isinstance(out, tuple) else out
    assert ag.gradcheck(run, [x, *state, *cell.parameters()])


@pytest.mark.parametrize("cls,kw", [(nn.LSTM, {"peephole": True}), (nn.MGU, {}),
                                    (nn.GRU, {}), (nn.RNN, {"nonlinearity": "relu"})],
                         ids=["LSTM-peephole", "MGU", "GRU", "RNN-relu"])
def test_layer_gradcheck_two_layers_bidirectional(cls, kw):
    layer = _perturb(cls(3, 2, num_layers=2, bidirectional=True, **kw).double())
    x = ag.tensor(_x(3, 2, 3), requires_grad=True)

    def run(*_):
        out, h = layer(x)
        return [out, *h] if isinstance(h, tuple) else [out, h]
    assert ag.gradcheck(run, [x, *layer.parameters()])


# ----------------------------------------------------------------------------- PyTorch parity
def _flat(base, cat):
    """A module (in torch or in nn) running a recurrent layer or cell and returning all its
    outputs (output and final states, or the new state) flattened into one vector, so the
    shared parity helper compares all of them."""
    def leaves(out):
        return [leaf for o in out for leaf in leaves(o)] if isinstance(out, tuple) else [out]

    class Flat(base):
        def __init__(self, rnn):
            super().__init__()
            self.rnn = rnn

        def forward(self, x, *state):
            state = (state if len(state) == 2 else state[0]) if state else None
            return cat([p.reshape(-1) for p in leaves(self.rnn(x, state))])
    return Flat


def _pair(torch, name, **kw):
    """The same recurrent module (``name``) in nn and in torch, each wrapped by ``_flat``."""
    return (_flat(nn.Module, ag.cat)(getattr(nn, name)(IN, H, **kw)),
            _flat(torch.nn.Module, torch.cat)(getattr(torch.nn, name)(IN, H, **kw)))


GRID = list(itertools.product(["RNN", "LSTM", "GRU"], [1, 2], [False, True], [False, True]))


@pytest.mark.parametrize("mode,layers,bidirectional,batch_first", GRID,
                         ids=[f"{m}-l{n}-{'bi' if b else 'uni'}-{'bf' if f else 'tf'}"
                              for m, n, b, f in GRID])
def test_layer_matches_pytorch(mode, layers, bidirectional, batch_first):
    torch = torch_or_skip()
    torch.manual_seed(0)
    kw = dict(num_layers=layers, bidirectional=bidirectional, batch_first=batch_first)
    ours, theirs = _pair(torch, mode, **kw)
    x = _x(N, T, IN) if batch_first else _x(T, N, IN)
    arrays = [x]
    if batch_first:     # half the grid starts from given states (their gradients compared too)
        d = 2 if bidirectional else 1
        arrays += [_x(d * layers, N, H, seed=s) for s in range(1, 3 if mode == "LSTM" else 2)]
    module_parity(ours, theirs, arrays)


@pytest.mark.parametrize("mode,kw", [("RNN", {"nonlinearity": "relu", "num_layers": 2}),
                                     ("RNN", {"nonlinearity": "relu", "num_layers": 2,
                                              "bidirectional": True, "batch_first": True}),
                                     ("LSTM", {"bias": False, "bidirectional": True}),
                                     ("GRU", {"bias": False})],
                         ids=["RNN-relu", "RNN-relu-bi-bf", "LSTM-nobias", "GRU-nobias"])
def test_layer_options_match_pytorch(mode, kw):
    torch = torch_or_skip()
    torch.manual_seed(1)
    ours, theirs = _pair(torch, mode, **kw)
    module_parity(ours, theirs, [_x(T, N, IN)])


@pytest.mark.parametrize("mode", ["RNN", "LSTM", "GRU"])
def test_unbatched_input_matches_pytorch(mode):
    torch = torch_or_skip()
    torch.manual_seed(2)
    kw = dict(num_layers=2, bidirectional=True)
    ours, theirs = _pair(torch, mode, **kw)
    states = [_x(4, H, seed=s) for s in range(1, 3 if mode == "LSTM" else 2)]
    module_parity(ours, theirs, [_x(T, IN), *states])


@pytest.mark.parametrize("mode,kw", [("RNNCell", {}), ("RNNCell", {"nonlinearity": "relu"}),
                                     ("LSTMCell", {}), ("GRUCell", {}),
                                     ("GRUCell", {"bias": False})],
                         ids=["RNNCell", "RNNCell-relu", "LSTMCell", "GRUCell",
                              "GRUCell-nobias"])
@pytest.mark.parametrize("batched", [True, False], ids=["batched", "unbatched"])
def test_cell_matches_pytorch(mode, kw, batched):
    torch = torch_or_skip()
    torch.manual_seed(3)
    ours, theirs = _pair(torch, mode, **kw)
    lead = (N,) if batched else ()
    states = [_x(*lead, H, seed=s) for s in range(1, 3 if mode == "LSTMCell" else 2)]
    module_parity(ours, theirs, [_x(*lead, IN), *states])


def test_pytorch_state_dict_names_order_and_shapes():
    torch = torch_or_skip()
    for mode in ("RNN", "LSTM", "GRU"):
        theirs = getattr(torch.nn, mode)(IN, H, num_layers=2, bidirectional=True)
        ours = getattr(nn, mode)(IN, H, num_layers=2, bidirectional=True)
        assert [(k, tuple(v.shape)) for k, v in ours.state_dict().items()] == \
               [(k, tuple(v.shape)) for k, v in theirs.state_dict().items()]
        # code that initialises the weights by name (the book's init_seq2seq) reads these
        assert ours._flat_weights_names == theirs._flat_weights_names
        assert [p is ours._parameters[n] for n, p in
                zip(ours._flat_weights_names, ours._flat_weights)] == [True] * 16


# ------------------------------------------------------------------------- behaviour, shapes
def test_peephole_lstm_with_zero_peepholes_is_the_plain_lstm():
    ag.manual_seed(0)
    plain = nn.LSTM(3, 4, num_layers=2)
    peep = nn.LSTM(3, 4, num_layers=2, peephole=True)
    assert list(peep.state_dict())[4] == "weight_ch_l0"
    assert peep.weight_ch_l1.shape == (12,)
    state = plain.state_dict()
    state.update({k: np.zeros(12, np.float32) for k in ("weight_ch_l0", "weight_ch_l1")})
    peep.load_state_dict(state)
    x = ag.tensor(_x(5, 2, 3).astype(np.float32))
    np.testing.assert_allclose(peep(x)[0].numpy(), plain(x)[0].numpy(), rtol=1e-6)
    peep.weight_ch_l0.numpy()[:] = 0.5                  # the peepholes change the result
    assert not np.allclose(peep(x)[0].numpy(), plain(x)[0].numpy())


def test_peephole_lstm_cell_follows_the_formula():
    cell = _perturb(nn.LSTMCell(2, 3, peephole=True).double())
    x, h, c = _x(4, 2), _x(4, 3, seed=1), _x(4, 3, seed=2)
    p = {n: v.numpy() for n, v in cell.named_parameters()}
    a = x @ p["weight_ih"].T + p["bias_ih"] + h @ p["weight_hh"].T + p["bias_hh"]
    ai, af, ag_, ao = np.split(a, 4, axis=1)
    pi, pf, po = np.split(p["weight_ch"], 3)

    def sigmoid(v):
        return 1 / (1 + np.exp(-v))
    c_new = sigmoid(af + pf * c) * c + sigmoid(ai + pi * c) * np.tanh(ag_)
    h_new = sigmoid(ao + po * c_new) * np.tanh(c_new)
    h_out, c_out = cell(ag.tensor(x), (ag.tensor(h), ag.tensor(c)))
    np.testing.assert_allclose(c_out.numpy(), c_new, rtol=1e-12)
    np.testing.assert_allclose(h_out.numpy(), h_new, rtol=1e-12)


def test_mgu_cell_follows_the_formula():
    cell = _perturb(nn.MGUCell(2, 3).double())
    x, h = _x(4, 2), _x(4, 3, seed=1)
    p = {n: v.numpy() for n, v in cell.named_parameters()}
    wif, win = np.split(p["weight_ih"], 2)
    whf, whn = np.split(p["weight_hh"], 2)
    bif, bin_ = np.split(p["bias_ih"], 2)
    bhf, bhn = np.split(p["bias_hh"], 2)
    f = 1 / (1 + np.exp(-(x @ wif.T + bif + h @ whf.T + bhf)))
    n = np.tanh(x @ win.T + bin_ + (f * h) @ whn.T + bhn)
    np.testing.assert_allclose(cell(ag.tensor(x), ag.tensor(h)).numpy(), (1 - f) * h + f * n,
                               rtol=1e-12)


@pytest.mark.parametrize("cls", [nn.RNN, nn.LSTM, nn.GRU, nn.MGU])
def test_layer_shapes_float32_and_default_initialisation(cls):
    ag.manual_seed(0)
    layer = cls(IN, 8, num_layers=2, bidirectional=True, batch_first=True)
    bound = 1 / np.sqrt(8)
    values = np.concatenate([p.numpy().ravel() for p in layer.parameters()])
    assert values.dtype == np.float32
    assert bound * 0.95 < np.abs(values).max() <= bound      # U(-1/√H, 1/√H) everywhere
    x = ag.tensor(_x(N, T, IN).astype(np.float32), requires_grad=True)
    out, h = layer(x)
    assert out.shape == (N, T, 16) and out.dtype == np.float32
    for s in (h if isinstance(h, tuple) else (h,)):
        assert s.shape == (4, N, 8) and s.dtype == np.float32
    out.sum().backward()
    assert x.grad.dtype == np.float32
    assert all(p.grad is not None and p.grad.dtype == np.float32 for p in layer.parameters())


def test_final_state_is_the_last_output_of_each_direction():
    layer = nn.GRU(IN, H, bidirectional=True)
    out, h_n = layer(ag.tensor(_x(T, N, IN).astype(np.float32)))
    np.testing.assert_allclose(h_n.numpy()[0], out.numpy()[-1, :, :H])     # forward: t = L - 1
    np.testing.assert_allclose(h_n.numpy()[1], out.numpy()[0, :, H:])      # reverse: t = 0


def test_dropout_between_layers_only_in_training():
    ag.manual_seed(0)
    layer = nn.LSTM(IN, H, num_layers=2, dropout=0.5)
    x = ag.tensor(_x(T, N, IN).astype(np.float32))
    train_out = layer(x)[0].numpy()
    layer.eval()
    eval_out = layer(x)[0].numpy()
    assert not np.allclose(train_out, eval_out)
    no_dropout = nn.LSTM(IN, H, num_layers=2)
    no_dropout.load_state_dict(layer.state_dict())
    np.testing.assert_allclose(no_dropout(x)[0].numpy(), eval_out, rtol=1e-6)
    single = nn.GRU(IN, H, dropout=0.5)              # one layer: nothing to drop between
    np.testing.assert_array_equal(single(x)[0].numpy(), single.eval()(x)[0].numpy())


def test_pytorch_weights_load_and_give_the_same_outputs_in_float32():
    torch = torch_or_skip()
    torch.manual_seed(4)
    theirs = torch.nn.LSTM(IN, H, num_layers=2, bidirectional=True, batch_first=True)
    ours = nn.LSTM(IN, H, num_layers=2, bidirectional=True, batch_first=True)
    ours.load_state_dict({k: v.detach().numpy() for k, v in theirs.state_dict().items()})
    x = _x(N, T, IN).astype(np.float32)
    out, (h, c) = ours(ag.tensor(x))
    tout, (th, tc) = theirs(torch.from_numpy(x))
    for a, b in ((out, tout), (h, th), (c, tc)):
        np.testing.assert_allclose(a.numpy(), b.detach().numpy(), rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("make", [lambda: nn.GRUCell(3, 4),
                                  lambda: nn.RNNCell(3, 4, nonlinearity="relu"),
                                  lambda: nn.LSTMCell(3, 4, peephole=True)],
                         ids=["GRUCell", "RNNCell-relu", "LSTMCell-peephole"])
def test_cells_round_trip_as_whole_modules(tmp_path, make):
    from dagrad import torch as dtorch
    cell = make()
    dtorch.save(cell, tmp_path / "c.pt")
    back = dtorch.load(tmp_path / "c.pt")
    x = ag.randn(2, 3)
    assert repr(back) == repr(cell)
    mine, theirs = back(x), cell(x)
    for a, b in zip(*(o if isinstance(o, tuple) else (o,) for o in (mine, theirs))):
        np.testing.assert_array_equal(a.numpy(), b.numpy())


@pytest.mark.parametrize("name,kw", [("GRUCell", {}), ("RNNCell", {"nonlinearity": "relu"}),
                                     ("LSTMCell", {})], ids=["GRUCell", "RNNCell-relu",
                                                             "LSTMCell"])
def test_pytorch_whole_cells_load_and_agree(tmp_path, name, kw):
    torch = torch_or_skip()
    from dagrad import torch as dtorch
    torch.manual_seed(5)
    theirs = getattr(torch.nn, name)(3, 4, **kw)
    torch.save(theirs, tmp_path / "c.pt")
    ours = dtorch.load(tmp_path / "c.pt")
    x = _x(2, 3).astype(np.float32)
    mine, want = ours(ag.tensor(x)), theirs(torch.from_numpy(x))
    for a, b in zip(*(o if isinstance(o, tuple) else (o,) for o in (mine, want))):
        np.testing.assert_allclose(a.numpy(), b.detach().numpy(), rtol=1e-5, atol=1e-6)


def test_repr_and_all_weights():
    layer = nn.LSTM(3, 4, num_layers=2, batch_first=True, peephole=True)
    assert repr(layer) == "LSTM(3, 4, num_layers=2, batch_first=True, peephole=True)"
    assert repr(nn.RNN(3, 4, nonlinearity="relu")) == "RNN(3, 4, nonlinearity='relu')"
    assert repr(nn.GRUCell(3, 4, bias=False)) == "GRUCell(3, 4, bias=False)"
    assert [[tuple(p.shape) for p in ws] for ws in layer.all_weights] == [
        [(16, 3), (16, 4), (16,), (16,), (12,)], [(16, 4), (16, 4), (16,), (16,), (12,)]]


def test_errors_name_the_layer_and_the_shapes():
    layer = nn.GRU(IN, H, num_layers=2)
    with pytest.raises(ValueError, match=r"GRU: expected input of shape \(L, N, 5\)"):
        layer(ag.zeros(T, N, IN + 1))
    with pytest.raises(ValueError, match=r"GRU \(batch_first=False\): expected h_0 of shape "
                                         r"\(2, 3, 4\)"):
        layer(ag.zeros(T, N, IN), ag.zeros(1, N, H))
    with pytest.raises(ValueError, match="c_0"):
        nn.LSTM(IN, H)(ag.zeros(T, N, IN), (ag.zeros(1, N, H), ag.zeros(1, 2, H)))
    with pytest.raises(ValueError, match="nonlinearity must be 'tanh' or 'relu'"):
        nn.RNN(IN, H, nonlinearity="sigmoid")
    with pytest.raises(ValueError, match="proj_size is not supported"):
        nn.LSTM(IN, H, proj_size=2)
    with pytest.raises(ValueError, match="num_layers must be a positive integer"):
        nn.LSTM(IN, H, num_layers=0)
    with pytest.raises(ValueError, match=r"LSTMCell: expected h of shape \(3, 4\) .* got "
                                         r"\(3, 5\)"):
        nn.LSTMCell(IN, H)(ag.zeros(N, IN), (ag.zeros(N, 5), ag.zeros(N, H)))


def _graph_nodes(*outputs):
    """Every recorded operation that ``outputs`` depend on (each node once)."""
    stack = [o.grad_fn for o in outputs if o.grad_fn is not None]
    seen = {}
    while stack:
        node = stack.pop()
        if id(node) in seen:
            continue
        seen[id(node)] = node
        stack.extend(p for p in node.parents if isinstance(p, Function))
    return list(seen.values())


@pytest.mark.parametrize("mode,step_ops", [("RNN", {"Tanh": 1}),
                                           ("LSTM", {"Sigmoid": 2, "Tanh": 2}),
                                           ("GRU", {"Sigmoid": 1, "Tanh": 1})])
def test_one_input_product_per_sequence_and_one_gate_product_per_step(mode, step_ops):
    """Under viz.record(), whose pictures show every step: for each layer and direction,
    x Wᵢₕᵀ for all L steps is a single Linear node (its input holds the whole sequence); each
    step adds exactly one recurrent product h Wₕₕᵀ for all gates (RecurrentGates) and its gate
    arithmetic (σ once for the gates side by side, tanh for the candidate and the memory);
    there is no other matrix product."""
    from dagrad import viz
    layers, directions = 2, 2
    layer = getattr(nn, mode)(IN, H, num_layers=layers, bidirectional=True, batch_first=True)
    with viz.record():
        out, h_n = layer(ag.tensor(_x(N, T, IN).astype(np.float32), requires_grad=True))
    nodes = _graph_nodes(out, *(h_n if isinstance(h_n, tuple) else (h_n,)))
    counts = collections.Counter(node.name for node in nodes)
    runs = layers * directions
    assert counts["Linear"] == runs, counts
    assert sorted(node.saved[0].shape[:2] for node in nodes if node.name == "Linear") == \
        [(N, T)] * runs                              # each reads all T steps at once
    assert counts["RecurrentGates"] == runs * T, counts
    assert "MatMul" not in counts, counts
    for name, per_step in step_ops.items():
        assert counts[name] == runs * T * per_step, (name, counts)


SEQUENCE_LAYERS = [("LSTM", dict(bias=True, batch_first=True)),
                   ("LSTM", dict(bias=False, batch_first=False)),
                   ("LSTM", dict(bias=True, batch_first=False, peephole=True)),
                   ("GRU", dict(bias=True, batch_first=True)),
                   ("GRU", dict(bias=False, batch_first=False)),
                   ("RNN", dict(bias=True, batch_first=True)),
                   ("RNN", dict(bias=False, batch_first=False, nonlinearity="relu")),
                   ("MGU", dict(bias=True, batch_first=True)),
                   ("MGU", dict(bias=False, batch_first=False))]


@pytest.mark.parametrize("mode,kw", SEQUENCE_LAYERS,
                         ids=[f"{m}-{'-'.join(f'{k}={v}' for k, v in kw.items())}"
                              for m, kw in SEQUENCE_LAYERS])
def test_a_layer_is_one_operation_per_layer_and_direction_and_agrees_with_its_steps(mode, kw):
    """Outside viz.record(), each layer and direction of nn.LSTM, nn.GRU, nn.RNN and nn.MGU is
    one Linear (all input projections) and one LSTMSequence / GRUSequence / RNNSequence /
    MGUSequence (all steps); under viz.record() the steps are separate operations. Outputs and
    every gradient are the same both ways (float64)."""
    from dagrad import viz
    layer = _perturb(getattr(nn, mode)(IN, H, num_layers=2, bidirectional=True, **kw).double())
    x = ag.tensor(_x(N, T, IN) if kw["batch_first"] else _x(T, N, IN), requires_grad=True)
    per_step = {"RecurrentGates", "Tanh", "Where", "Sigmoid"}
    results = []
    for recorded in (False, True):
        with viz.record() if recorded else contextlib.nullcontext():
            out, h_n = layer(x)
        h_n, c_n = h_n if mode == "LSTM" else (h_n, h_n)
        counts = collections.Counter(node.name for node in _graph_nodes(out, h_n, c_n))
        assert counts["Linear"] == 4 and "MatMul" not in counts, counts
        if recorded:
            assert mode + "Sequence" not in counts and per_step & set(counts), counts
        else:
            assert counts[mode + "Sequence"] == 4 and not per_step & set(counts), counts
        loss = (out * out).sum() + (h_n * 2).sum() + (c_n * c_n).sum()
        grads = ag.grad(loss, [x] + list(layer.parameters()))
        results.append([out.numpy(), h_n.numpy(), c_n.numpy()] + [g.numpy() for g in grads])
    for fused, steps in zip(*results):
        np.testing.assert_allclose(fused, steps, rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("name", ["RNNCell-relu", "LSTMCell-peephole", "GRUCell-nobias",
                                  "MGUCell"])
@pytest.mark.parametrize("batched", [True, False], ids=["batched", "unbatched"])
def test_a_cell_is_its_sequence_operation_over_one_step_and_agrees_with_its_step(name, batched):
    """Outside viz.record() a cell's step is its layer's sequence operation over one step;
    under viz.record() the step's own operations. Results and gradients agree (float64)."""
    from dagrad import viz
    cell = _perturb(CELLS[name]().double())
    lead = (2,) if batched else ()
    x = ag.tensor(_x(*lead, 3), requires_grad=True)
    state = [ag.tensor(_x(*lead, 4, seed=k + 1), requires_grad=True)
             for k in range(2 if "LSTM" in name else 1)]
    results = []
    for recorded in (False, True):
        with viz.record() if recorded else contextlib.nullcontext():
            out = cell(x, tuple(state) if len(state) == 2 else state[0])
        out = list(out) if isinstance(out, tuple) else [out]
        names = {node.name for node in _graph_nodes(*out)}
        assert (cell.recurrence.operation.__name__ in names) != recorded, names
        loss = sum((o * o).sum() for o in out)
        grads = ag.grad(loss, [x, *state, *cell.parameters()])
        results.append([o.numpy() for o in out] + [g.numpy() for g in grads])
    assert results[0][0].shape == lead + (4,)
    for fused, steps in zip(*results):
        np.testing.assert_allclose(fused, steps, rtol=1e-12, atol=1e-12)


def test_the_rnn_sequence_operation_names_a_wrong_nonlinearity():
    from dagrad.autograd.ops.recurrent import rnn_sequence
    xs, h0, w = ag.tensor(_x(2, 1, 3)), ag.tensor(_x(1, 3)), ag.tensor(_x(3, 3))
    with pytest.raises(ValueError, match=r"^RNNSequence: nonlinearity must be 'tanh' or "
                                         r"'relu', got 'sigmoid' \(inputs: \(2, 1, 3\)"):
        rnn_sequence(xs, h0, w, nonlinearity="sigmoid")


# ----------------------------------------------------------------- one sigmoid, one rounding
def _gate_inputs(seed=0):
    rng = np.random.default_rng(seed)
    x = rng.normal(0.0, 3.0, (6, IN)).astype(np.float32)      # wide: many gates saturate
    h = rng.normal(0.0, 1.0, (6, H)).astype(np.float32)
    c = rng.normal(0.0, 1.0, (6, H)).astype(np.float32)
    return ag.tensor(x), ag.tensor(h), ag.tensor(c)


def test_lstm_gates_round_like_the_sigmoid_and_tanh_layers_in_float32():
    cell = _perturb(nn.LSTMCell(IN, H))
    x, h, c = _gate_inputs()
    h1, c1 = cell(x, (h, c))
    sigmoid, tanh = nn.Sigmoid(), nn.Tanh()
    gates = ag.linear(x, cell.weight_ih, cell.bias_ih + cell.bias_hh) + h @ cell.weight_hh.T
    i, f, g, o = gates.chunk(4, dim=1)
    c_layers = sigmoid(f) * c + sigmoid(i) * tanh(g)
    h_layers = sigmoid(o) * tanh(c_layers)
    assert c1.dtype == np.float32
    np.testing.assert_array_equal(c1.numpy(), c_layers.numpy())
    np.testing.assert_array_equal(h1.numpy(), h_layers.numpy())


def test_gru_gates_round_like_the_sigmoid_and_tanh_layers_in_float32():
    cell = _perturb(nn.GRUCell(IN, H))
    x, h, _ = _gate_inputs(1)
    h1 = cell(x, h)
    sigmoid, tanh = nn.Sigmoid(), nn.Tanh()
    xr, xz, xn = ag.linear(x, cell.weight_ih, cell.bias_ih).chunk(3, dim=1)
    hr, hz, hn = (h @ cell.weight_hh.T + cell.bias_hh).chunk(3, dim=1)
    r, z = sigmoid(xr + hr), sigmoid(xz + hz)
    n = tanh(xn + r * hn)
    np.testing.assert_array_equal(h1.numpy(), (n + z * (h - n)).numpy())


def test_sigmoid_keeps_float32_precision_for_large_negative_inputs():
    x = np.array([-20.0, -50.0, -87.0, 0.0, 20.0, 100.0], np.float32)
    y = ag.sigmoid(ag.tensor(x)).numpy()
    exact = (1 / (1 + np.exp(-x.astype(np.float64)))).astype(np.float32)
    assert y.dtype == np.float32
    np.testing.assert_allclose(y[:3], exact[:3], rtol=1e-6)     # 2.06e-9, 1.9e-22, 1.6e-38
    assert y[3] == 0.5 and y[4] == 1.0 and y[5] == 1.0
