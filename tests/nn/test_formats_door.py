"""The one door for files: ``nn.save(obj, path, format=None)`` chooses the format by its
argument or the suffix, ``nn.load(path)`` by the file's content and reads every format
``torch.load`` reads; whole modules are rebuilt under one policy in every format (the
allowlist), and nothing a file names is ever imported because the file names it."""
import io
import json
import warnings

import numpy as np
import pytest

from dagrad import autograd as ag
from dagrad import nn
from dagrad import torch as dtorch
from tests.helpers import run_bounded, torch_or_skip


class Net(nn.Module):
    """A model of a program's own class: files may name it only once it is allowed."""

    def __init__(self):
        super().__init__()
        self.body = nn.Sequential(nn.Linear(3, 4), nn.ReLU())
        self.scale = 2.0

    def forward(self, x):
        return self.body(x) * self.scale


def _state():
    ag.manual_seed(0)
    return nn.Sequential(nn.Linear(3, 4), nn.ReLU(), nn.Linear(4, 2)).state_dict()


def _same(a, b):
    assert sorted(a) == sorted(b)          # (safetensors keeps its own order)
    for key in a:
        np.testing.assert_array_equal(np.asarray(a[key].numpy()), np.asarray(b[key].numpy()))


@pytest.mark.parametrize("suffix, expected", [(".pt", "pt"), (".pth", "pt"), (".npz", "npz"),
                                              (".safetensors", "safetensors"), (".ckpt", "npz"),
                                              ("", "npz")])
def test_the_suffix_chooses_the_format_and_load_reads_it_back(tmp_path, suffix, expected):
    path = tmp_path / f"model{suffix}"
    nn.save(_state(), path)
    assert nn.formats.format_of(path) == expected
    _same(nn.load(path), _state())
    _same(dtorch.load(path), _state())          # torch.load goes through the same door


@pytest.mark.parametrize("format", ["pt", "npz", "safetensors"])
def test_the_content_decides_what_is_read_whatever_the_name(tmp_path, format):
    path = tmp_path / "weights.bin"
    nn.save(_state(), path, format=format)
    assert nn.formats.format_of(path) == format
    _same(nn.load(path), _state())
    buffer = io.BytesIO()                        # and through a binary file object
    nn.save(_state(), buffer, format=format)
    _same(nn.load(io.BytesIO(buffer.getvalue())), _state())


def test_nn_load_reads_what_pytorch_writes(tmp_path):
    torch = torch_or_skip()
    from safetensors.torch import save_file
    torch.manual_seed(0)
    twin = torch.nn.Sequential(torch.nn.Linear(3, 4), torch.nn.ReLU(), torch.nn.Linear(4, 2))
    expected = {k: v.numpy() for k, v in twin.state_dict().items()}
    torch.save({"model": twin.state_dict(), "epoch": 3}, tmp_path / "checkpoint.pt")
    save_file(twin.state_dict(), tmp_path / "model.safetensors")
    torch.save(twin, tmp_path / "whole.pt")
    checkpoint = nn.load(tmp_path / "checkpoint.pt")
    assert checkpoint["epoch"] == 3
    for loaded in (checkpoint["model"], nn.load(tmp_path / "model.safetensors"),
                   nn.load(tmp_path / "whole.pt").state_dict()):
        assert sorted(loaded) == sorted(expected)
        for key in expected:
            np.testing.assert_array_equal(loaded[key].numpy(), expected[key])


def test_saving_checks_its_arguments_before_touching_the_file(tmp_path):
    with pytest.raises(ValueError, match="format must be one of 'pt', 'npz', 'safetensors'"):
        nn.save(_state(), tmp_path / "m.pt", format="pickle")
    with pytest.raises(TypeError, match="metadata is stored only in a safetensors file"):
        nn.save(_state(), tmp_path / "m.pt", metadata={"a": "b"})
    with pytest.raises(TypeError, match="holds a state dict"):
        nn.save([ag.ones(2)], tmp_path / "m.safetensors")
    assert list(tmp_path.iterdir()) == []
    nn.save(_state(), tmp_path / "m.safetensors", metadata={"format": "pt"})
    assert nn.formats.safetensors_metadata(tmp_path / "m.safetensors") == {"format": "pt"}


def test_a_file_that_is_no_format_is_explained_by_the_reader_its_name_promises(tmp_path):
    (tmp_path / "notes.npz").write_bytes(b"hello, world")
    (tmp_path / "notes.pt").write_bytes(b"\x80\x02}q\x00.")
    (tmp_path / "notes.safetensors").write_bytes(b"\x01\x02")
    (tmp_path / "notes").write_bytes(b"\x93NUMPY")
    for name, message in (("notes.npz", "is not an .npz file"), ("notes.pt", "legacy format"),
                          ("notes.safetensors", "fewer than the 8"),
                          ("notes", "a single .npy array")):
        with pytest.raises(nn.SerializationError, match=message):
            nn.load(tmp_path / name)
    with pytest.raises(TypeError, match="open it with 'rb'"):
        with open(tmp_path / "notes", encoding="latin-1") as f:
            nn.load(f)


@pytest.mark.parametrize("suffix", [".pt", ".npz"])
def test_whole_modules_follow_one_allowlist_in_every_format(tmp_path, suffix):
    path = tmp_path / f"net{suffix}"
    ag.manual_seed(0)
    net = Net()
    nn.save(net, path)
    with pytest.raises(nn.SerializationError, match=r"add_safe_globals\(\[Net\]\)"):
        nn.load(path)
    with nn.formats.safe_globals([Net]):
        loaded = nn.load(path)
    assert type(loaded) is Net and loaded.scale == 2.0
    _same(loaded.state_dict(), net.state_dict())
    assert type(nn.load(path, weights_only=False)) is Net
    assert type(nn.load(tmp_path / "net.pt" if suffix == ".pt" else path,
                        weights_only=False).body[0]) is nn.Linear


_NEVER_IMPORTED = """
import json, os, sys, tempfile
from dagrad import torch
from tests.nn.zip_builder import archive, manifest, plain, pt_file

module = "dagrad.d2l.gan"
tree = {"module": {"dict": [["__dagrad_module__", {"value": module + ":Discriminator"}],
                            ["attrs", {"dict": []}]]}}
files = {"npz": archive(plain([("__dagrad__.npy", manifest(tree))])),
         "pt": pt_file(b"\\x80\\x02c" + module.encode() + b"\\nDiscriminator\\n)\\x81}b.")}
print(json.dumps(["before", "dagrad.d2l" in sys.modules]))
for kind, data in files.items():
    path = os.path.join(tempfile.mkdtemp(), "model." + kind)
    with open(path, "wb") as f:
        f.write(data)
    try:
        torch.load(path)
        outcome = "loaded"
    except Exception as e:
        outcome = f"{type(e).__name__}: {e}"
    print(json.dumps([kind, outcome, sorted(m for m in sys.modules if m.startswith("dagrad.d2l"))]))
"""


def test_a_module_named_in_a_file_is_never_imported_because_the_file_names_it():
    """Each file names a class of dagrad.d2l, which the program has not imported: loading
    refuses it without importing the module (a module's import runs its code)."""
    out = run_bounded(_NEVER_IMPORTED, seconds=120)
    assert out.returncode == 0, out.stderr[-1500:]
    lines = [json.loads(line) for line in out.stdout.splitlines()]
    assert lines[0] == ["before", False]
    for kind, outcome, imported in lines[1:]:
        assert imported == [], (kind, imported)
        assert outcome.startswith("RefusedGlobalError: torch.load: ") and outcome.endswith(
            "names dagrad.d2l.gan.Discriminator, which is not an allowed global: a file may "
            "use only tensors, containers, numbers and dagrad's own modules (PyTorch's "
            "weights_only set), and loading never imports or calls anything else. If you "
            "trust the file and Discriminator is a class of yours, allow it with "
            "torch.serialization.add_safe_globals([Discriminator]) or `with "
            "torch.serialization.safe_globals([Discriminator]):`"), (kind, outcome)


def test_nn_has_one_save_and_one_load_and_the_old_names_still_work(tmp_path):
    assert sorted(n for n in dir(nn) if ("save" in n or "load" in n) and n[0] != "_") == [
        "load", "save"]
    state = {"w": ag.ones(2)}
    with pytest.warns(DeprecationWarning, match=r"nn.save\(state_dict, path, "
                                                r"format='safetensors'"):
        nn.save_safetensors(state, tmp_path / "w.safetensors", metadata={"k": "v"})
    with pytest.warns(DeprecationWarning, match="nn.formats.safetensors_metadata"):
        assert nn.safetensors_metadata(tmp_path / "w.safetensors") == {"k": "v"}
    with pytest.warns(DeprecationWarning, match=r"nn.save\(obj, path, format='pt'\)"):
        nn.save_pt(state, tmp_path / "w.bin")
    assert nn.formats.format_of(tmp_path / "w.bin") == "pt"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        for old in (nn.load_pt, nn.load_safetensors):
            _same(old(tmp_path / "w.bin"), state)
    with pytest.raises(AttributeError, match="has no attribute 'save_npz'"):
        nn.save_npz
