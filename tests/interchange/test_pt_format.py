"""PyTorch's ``.pt`` format both ways: files dagrad writes load in PyTorch with
``weights_only=True`` and give the same outputs; files PyTorch writes load in dagrad in a process
where PyTorch is not imported (state dicts, optimizer state, views, dtypes, whole modules)."""
import io
import json
import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest

from dagrad import autograd as ag
from dagrad import nn, optim
from dagrad import torch as dtorch
from dagrad.nn import SerializationError
from tests.helpers import torch_or_skip

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def _dagrad_model():
    ag.manual_seed(0)
    return nn.Sequential(nn.Linear(4, 8), nn.Tanh(), nn.Linear(8, 2))


def _torch_model(torch):
    return torch.nn.Sequential(torch.nn.Linear(4, 8), torch.nn.Tanh(), torch.nn.Linear(8, 2))


def _train_step(model, opt, x):
    opt.zero_grad()
    (model(x) ** 2).mean().backward()
    opt.step()


def load_without_torch(path, program):
    """Run ``program`` (which reads ``path`` with dagrad and prints JSON) in a fresh process,
    asserting PyTorch was never imported there."""
    code = textwrap.dedent(program) + textwrap.dedent("""
        import sys
        assert "torch" not in sys.modules, "PyTorch was imported"
    """)
    done = subprocess.run([sys.executable, "-c", code, str(path)], capture_output=True,
                          text=True, cwd=ROOT, timeout=300)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout.strip().splitlines()[-1])


# ------------------------------------------------------------------ dagrad -> PyTorch
def test_a_state_dict_dagrad_writes_loads_in_pytorch_with_the_same_outputs(tmp_path):
    torch = torch_or_skip()
    model = _dagrad_model()
    dtorch.save(model.state_dict(), tmp_path / "model.pt")
    theirs = _torch_model(torch)
    theirs.load_state_dict(torch.load(tmp_path / "model.pt", weights_only=True))
    x = np.random.default_rng(1).standard_normal((5, 4)).astype(np.float32)
    np.testing.assert_allclose(theirs(torch.from_numpy(x)).detach().numpy(),
                               model(ag.tensor(x)).numpy(), rtol=1e-6, atol=1e-6)


def test_a_checkpoint_dagrad_writes_resumes_training_in_pytorch(tmp_path):
    """Nested containers and optimizer state: PyTorch's next Adam step from the file equals
    dagrad's next step."""
    torch = torch_or_skip()
    model = _dagrad_model()
    opt = optim.Adam(model.parameters(), lr=0.01)
    x = ag.tensor(np.random.default_rng(2).standard_normal((6, 4)).astype(np.float32))
    for _ in range(3):
        _train_step(model, opt, x)
    buffer = io.BytesIO()
    dtorch.save({"model": model.state_dict(), "optimizer": opt.state_dict(), "epoch": 3,
                 "history": [1.5, 0.25], "pair": (1, "a"), "note": None}, buffer)
    buffer.seek(0)
    checkpoint = torch.load(buffer, weights_only=True)
    assert checkpoint["epoch"] == 3 and checkpoint["history"] == [1.5, 0.25]
    assert checkpoint["pair"] == (1, "a") and checkpoint["note"] is None
    theirs = _torch_model(torch)
    theirs.load_state_dict(checkpoint["model"])
    their_opt = torch.optim.Adam(theirs.parameters(), lr=0.5)
    their_opt.load_state_dict(checkpoint["optimizer"])
    assert their_opt.param_groups[0]["lr"] == 0.01
    _train_step(model, opt, x)
    _train_step(theirs, their_opt, torch.from_numpy(x.numpy()))
    np.testing.assert_allclose(theirs[0].weight.detach().numpy(), model[0].weight.numpy(),
                               rtol=1e-5, atol=1e-6)


def test_values_pytorch_allowlists_keep_their_types_in_pytorch(tmp_path):
    torch = torch_or_skip()
    from collections import Counter, OrderedDict
    value = {"od": OrderedDict(b=1, a=2), "set": {3, 1}, "bytes": b"\x00\xff", "c": 1 - 2j,
             "ctr": Counter("aab"), "size": dtorch.Size([2, 3]), "dtype": dtorch.float64,
             "device": dtorch.device("cpu"), "big": 2 ** 70, "neg": -70000, "f": 0.1,
             "t": dtorch.arange(6).reshape(2, 3), "half": dtorch.ones(2, dtype=dtorch.float16),
             "b": dtorch.tensor([True, False]), "u8": dtorch.tensor([1, 255], dtype=dtorch.uint8)}
    dtorch.save(value, tmp_path / "v.pt")
    back = torch.load(tmp_path / "v.pt", weights_only=True)
    assert back["od"] == OrderedDict(b=1, a=2) and type(back["od"]) is OrderedDict
    assert back["set"] == {1, 3} and back["bytes"] == b"\x00\xff" and back["c"] == 1 - 2j
    assert back["ctr"] == Counter("aab") and back["size"] == torch.Size([2, 3])
    assert back["dtype"] is torch.float64 and back["device"] == torch.device("cpu")
    assert back["big"] == 2 ** 70 and back["neg"] == -70000 and back["f"] == 0.1
    assert back["t"].dtype == torch.int64 and back["t"].tolist() == [[0, 1, 2], [3, 4, 5]]
    assert back["half"].dtype == torch.float16 and back["b"].tolist() == [True, False]
    assert back["u8"].tolist() == [1, 255]
    again = dtorch.load(tmp_path / "v.pt")          # and dagrad reads its own file back
    assert again["ctr"] == Counter("aab") and again["size"] == (2, 3) and again["c"] == 1 - 2j
    assert repr(again["size"]) == "torch.Size([2, 3])" and again["dtype"] == np.float64


def test_tied_weights_share_one_storage_in_pytorch(tmp_path):
    torch = torch_or_skip()
    weight = nn.Parameter(ag.randn(3, 2))
    dtorch.save({"encoder": weight, "decoder": weight}, tmp_path / "tied.pt")
    back = torch.load(tmp_path / "tied.pt", weights_only=True)
    assert back["encoder"] is back["decoder"] and isinstance(back["encoder"], torch.nn.Parameter)


# ------------------------------------------------------------------ PyTorch -> dagrad
def test_a_pytorch_state_dict_and_optimizer_load_into_dagrad_without_pytorch(tmp_path):
    torch = torch_or_skip()
    torch.manual_seed(0)
    model = _torch_model(torch)
    opt = torch.optim.Adam(model.parameters(), lr=0.02)
    x = torch.randn(6, 4)
    for _ in range(2):
        _train_step(model, opt, x)
    torch.save({"model": model.state_dict(), "optimizer": opt.state_dict(), "epoch": 2},
               tmp_path / "ckpt.pt")
    np.save(tmp_path / "x.npy", x.numpy())
    _train_step(model, opt, x)          # what PyTorch's next step gives
    expected = model[0].weight.detach().numpy()
    ours = load_without_torch(tmp_path / "ckpt.pt", """
        import json, sys, os
        import numpy as np
        from dagrad import torch
        from dagrad.torch import nn
        checkpoint = torch.load(sys.argv[1], weights_only=True)
        model = nn.Sequential(nn.Linear(4, 8), nn.Tanh(), nn.Linear(8, 2))
        model.load_state_dict(checkpoint["model"])
        opt = torch.optim.Adam(model.parameters(), lr=0.5)
        opt.load_state_dict(checkpoint["optimizer"])
        x = torch.tensor(np.load(os.path.join(os.path.dirname(sys.argv[1]), "x.npy")))
        opt.zero_grad()
        (model(x) ** 2).mean().backward()
        opt.step()
        print(json.dumps({"epoch": checkpoint["epoch"], "lr": opt.param_groups[0]["lr"],
                          "step": opt.state_dict()["state"][0]["step"],
                          "weight": model[0].weight.tolist()}))
    """)
    assert ours["epoch"] == 2 and ours["lr"] == 0.02 and ours["step"] == 3
    np.testing.assert_allclose(np.array(ours["weight"]), expected, rtol=1e-5, atol=1e-6)


def test_pytorch_views_dtypes_and_sharing_load_as_pytorch_saved_them(tmp_path):
    torch = torch_or_skip()
    base = torch.arange(12.0).reshape(3, 4)
    torch.save({"base": base, "column": base[:, 1], "transposed": base.t(), "row": base[2],
                "expanded": torch.tensor([1.0, 2.0]).expand(3, 2),
                "f64": torch.ones(2, dtype=torch.float64), "f16": torch.full((2,), 0.5).half(),
                "bf16": torch.tensor([1.5, -2.0]).bfloat16(), "i8": torch.tensor([-3], dtype=torch.int8),
                "i32": torch.tensor([7], dtype=torch.int32), "u16": torch.zeros(2, dtype=torch.uint16),
                "bool": torch.tensor([True]), "scalar": torch.tensor(3.5),
                "empty": torch.zeros(0, 3), "leaf": torch.ones(2, requires_grad=True),
                "param": torch.nn.Parameter(torch.ones(1)), "size": torch.Size([4, 5]),
                "dtype": torch.int16, "device": torch.device("cpu")}, tmp_path / "v.pt")
    got = dtorch.load(tmp_path / "v.pt")
    assert got["column"].tolist() == [1.0, 5.0, 9.0]
    assert got["transposed"].tolist() == base.t().tolist() and got["row"].tolist() == [8, 9, 10, 11]
    assert got["expanded"].tolist() == [[1.0, 2.0]] * 3
    with pytest.raises(ValueError):                 # overlapping elements: read-only, as PyTorch
        got["expanded"].numpy()[0, 0] = 5.0
    got["base"].numpy()[0, 1] = 100.0               # views share memory, as saved
    assert got["column"].tolist()[0] == 100.0
    assert got["f64"].dtype == np.float64 and got["f16"].dtype == np.float16
    assert got["bf16"].dtype == np.float32 and got["bf16"].tolist() == [1.5, -2.0]
    assert got["i8"].tolist() == [-3] and got["i32"].dtype == np.int32
    assert got["u16"].dtype == np.uint16 and got["bool"].tolist() == [True]
    assert got["scalar"].shape == () and got["scalar"].item() == 3.5
    assert got["empty"].shape == (0, 3) and got["leaf"].requires_grad
    assert isinstance(got["param"], nn.Parameter) and got["param"].requires_grad
    assert got["size"] == (4, 5) and repr(got["size"]) == "torch.Size([4, 5])"
    assert got["dtype"] == np.int16 and got["device"] == dtorch.device("cpu")


def test_a_pytorch_whole_model_loads_into_dagrads_layers(tmp_path):
    torch = torch_or_skip()
    torch.manual_seed(0)
    model = torch.nn.Sequential(torch.nn.Linear(4, 8), torch.nn.ReLU(), torch.nn.Linear(8, 2))
    torch.save(model, tmp_path / "model.pt")
    ours = dtorch.load(tmp_path / "model.pt")       # dagrad's own layers: no allowlist needed
    assert type(ours) is nn.Sequential and type(ours[0]) is nn.Linear
    x = np.random.default_rng(3).standard_normal((3, 4)).astype(np.float32)
    np.testing.assert_allclose(ours(ag.tensor(x)).numpy(),
                               model(torch.from_numpy(x)).detach().numpy(), rtol=1e-6, atol=1e-6)
    ours(ag.tensor(x)).sum().backward()
    assert ours[0].weight.grad is not None


@pytest.mark.parametrize("kind", ["gru", "rnn_relu", "lstm", "conv", "attention", "encoder"])
def test_pytorch_whole_layers_of_every_family_load_and_agree(tmp_path, kind):
    torch = torch_or_skip()
    torch.manual_seed(0)
    layer, shape = {
        "gru": (lambda: torch.nn.GRU(3, 4, batch_first=True), (2, 5, 3)),
        "rnn_relu": (lambda: torch.nn.RNN(3, 4, nonlinearity="relu"), (5, 2, 3)),
        "lstm": (lambda: torch.nn.LSTM(3, 4, num_layers=2, bidirectional=True), (5, 2, 3)),
        "conv": (lambda: torch.nn.Sequential(
            torch.nn.Conv2d(1, 2, 3, padding=1), torch.nn.BatchNorm2d(2), torch.nn.ReLU(),
            torch.nn.MaxPool2d(2), torch.nn.Flatten(), torch.nn.Linear(8, 2)), (2, 1, 4, 4)),
        "attention": (lambda: torch.nn.MultiheadAttention(4, 2, batch_first=True), (2, 3, 4)),
        "encoder": (lambda: torch.nn.TransformerEncoderLayer(4, 2, 8, dropout=0.0,
                                                             batch_first=True), (2, 3, 4)),
    }[kind]
    model = layer().eval()
    torch.save(model, tmp_path / "m.pt")
    ours = dtorch.load(tmp_path / "m.pt").eval()
    x = np.random.default_rng(4).standard_normal(shape).astype(np.float32)
    args = (x, x, x) if kind == "attention" else (x,)
    theirs = model(*(torch.from_numpy(a) for a in args))
    mine = ours(*(ag.tensor(a) for a in args))
    first = (lambda out: out[0] if isinstance(out, tuple) else out)
    np.testing.assert_allclose(first(mine).numpy(), first(theirs).detach().numpy(), rtol=1e-5,
                               atol=1e-6)


def test_dagrads_recurrent_layers_round_trip_as_whole_modules(tmp_path):
    for layer in (nn.GRU(3, 4), nn.LSTM(3, 4, 2), nn.RNN(3, 4, nonlinearity="relu")):
        dtorch.save(layer, tmp_path / "r.pt")
        back = dtorch.load(tmp_path / "r.pt")
        x = ag.randn(5, 2, 3)
        assert repr(back) == repr(layer)
        np.testing.assert_array_equal(back(x)[0].numpy(), layer(x)[0].numpy())


def test_complex_and_gpu_tensors_get_clear_errors(tmp_path):
    torch = torch_or_skip()
    torch.save({"z": torch.ones(2, dtype=torch.complex64)}, tmp_path / "z.pt")
    with pytest.raises(SerializationError, match="complex"):
        dtorch.load(tmp_path / "z.pt")


# ------------------------------------------------------------------ dagrad -> dagrad
class Net(nn.Module):
    """A program's own model class (module level, so a file can name it)."""

    def __init__(self):
        super().__init__()
        self.body = nn.Sequential(nn.Linear(3, 4), nn.ReLU())
        self.head = nn.Linear(4, 1)
        self.scale = 2.0

    def forward(self, x):
        return self.head(self.body(x)) * self.scale


def test_a_model_of_ones_own_class_loads_once_its_class_is_allowed(tmp_path):
    net = Net()
    dtorch.save(net, tmp_path / "net.pt")
    with pytest.raises(SerializationError, match=r"add_safe_globals\(\[Net\]\)"):
        dtorch.load(tmp_path / "net.pt")
    x = ag.randn(2, 3)
    with dtorch.serialization.safe_globals([Net]):
        back = dtorch.load(tmp_path / "net.pt")
    assert type(back) is Net and back.scale == 2.0
    np.testing.assert_array_equal(back(x).numpy(), net(x).numpy())
    with pytest.raises(SerializationError):         # the context manager's trust has ended
        dtorch.load(tmp_path / "net.pt")
    assert type(dtorch.load(tmp_path / "net.pt", weights_only=False)) is Net
    dtorch.serialization.add_safe_globals([Net])
    try:
        assert Net in dtorch.serialization.get_safe_globals()
        assert type(dtorch.load(tmp_path / "net.pt")) is Net
    finally:
        dtorch.serialization.clear_safe_globals()


def test_the_globals_a_load_would_refuse_are_listed_without_running_anything(tmp_path):
    dtorch.save({"net": Net(), "model": nn.Linear(2, 1).state_dict()}, tmp_path / "net.pt")
    names = dtorch.serialization.get_unsafe_globals_in_checkpoint(tmp_path / "net.pt")
    assert names == [f"{Net.__module__}.Net"]
    with dtorch.serialization.safe_globals([Net]):
        assert dtorch.serialization.get_unsafe_globals_in_checkpoint(tmp_path / "net.pt") == []
    torch = torch_or_skip()
    torch.save({"o": torch.optim.SGD}, tmp_path / "o.pt")
    assert dtorch.serialization.get_unsafe_globals_in_checkpoint(tmp_path / "o.pt") == [
        "torch.optim.sgd.SGD"]


def test_saving_fails_before_touching_the_file(tmp_path):
    path = tmp_path / "keep.pt"
    dtorch.save({"a": 1}, path)
    with pytest.raises(TypeError, match="lambda"):
        dtorch.save({"f": lambda x: x}, path)
    assert dtorch.load(path) == {"a": 1}


def test_legacy_and_torchscript_files_are_refused_with_what_to_do(tmp_path):
    torch = torch_or_skip()
    torch.save({"a": torch.ones(1)}, tmp_path / "legacy.pt", _use_new_zipfile_serialization=False)
    with pytest.raises(SerializationError, match="legacy format"):
        dtorch.load(tmp_path / "legacy.pt")
    torch.jit.save(torch.jit.script(torch.nn.Linear(2, 1)), str(tmp_path / "scripted.pt"))
    with pytest.raises(SerializationError, match="TorchScript"):
        dtorch.load(tmp_path / "scripted.pt")
