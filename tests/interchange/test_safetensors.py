"""nn.save / nn.load of .safetensors files: files PyTorch reads into its own modules, files
PyTorch wrote read into dagrad's, and hostile files refused with SerializationError."""
import json
import os
import struct

import numpy as np
import pytest

from dagrad import autograd as ag
from dagrad import nn
from tests.helpers import torch_or_skip

from .torch_twins import TWINS, dagrad_output, example_input

safetensors = pytest.importorskip("safetensors", reason="the interchange extra: pip install "
                                  "-e '.[interchange]' in the checkout")


@pytest.mark.parametrize("name", sorted(TWINS))
def test_pytorch_loads_dagrad_weights_and_computes_the_same(tmp_path, name):
    torch = torch_or_skip()
    from safetensors.torch import load_file
    torch.set_num_threads(1)
    ag.manual_seed(0)
    model, twin = TWINS[name](torch)
    model.eval(), twin.eval()
    path = tmp_path / f"{name}.safetensors"
    nn.save(model.state_dict(), path, metadata={"format": "pt"})
    state = load_file(path)
    assert sorted(state) == sorted(model.state_dict())
    twin.load_state_dict(state, strict=True)             # same names, shapes and layouts
    x = example_input(name)
    with torch.no_grad():
        expected = twin(torch.from_numpy(x.numpy())).numpy()
    np.testing.assert_allclose(dagrad_output(model, name, x), expected, rtol=1e-4, atol=1e-5)


def test_dagrad_loads_weights_pytorch_saved(tmp_path):
    torch = torch_or_skip()
    from safetensors.torch import save_file
    torch.set_num_threads(1)
    torch.manual_seed(0)
    model, twin = TWINS["lstm_lm"](torch)
    path = tmp_path / "torch.safetensors"
    save_file(twin.state_dict(), path, metadata={"source": "torch"})
    model.load_state_dict(nn.load(path))
    assert nn.formats.safetensors_metadata(path) == {"source": "torch"}
    model.eval(), twin.eval()
    x = example_input("lstm_lm")
    with torch.no_grad():
        expected = twin(torch.from_numpy(x.numpy())).numpy()
    np.testing.assert_allclose(dagrad_output(model, "lstm_lm", x), expected, rtol=1e-4,
                               atol=1e-5)


def test_every_dtype_round_trips_and_matches_the_reference_reader(tmp_path):
    from safetensors.numpy import load_file, save_file
    rng = np.random.default_rng(0)
    state = {"f64": rng.standard_normal((2, 3)), "f32": ag.randn(4), "f16": np.ones(3, np.float16),
             "i64": np.arange(5), "i8": np.array([-1, 2], np.int8), "u8": np.arange(3, dtype=np.uint8),
             "flag": np.array([True, False]), "scalar": np.float32(2.5), "empty": np.zeros((0, 3))}
    path = tmp_path / "all.safetensors"
    nn.save(state, path)
    ours, reference = nn.load(path), load_file(path)
    assert sorted(ours) == sorted(state) == sorted(reference)
    for name, value in state.items():
        value = value.numpy() if isinstance(value, ag.Tensor) else np.asarray(value)
        assert isinstance(ours[name], ag.Tensor)
        assert ours[name].dtype == value.dtype == reference[name].dtype
        np.testing.assert_array_equal(ours[name].numpy(), value)
        np.testing.assert_array_equal(reference[name], value)
    other = tmp_path / "reference.safetensors"        # and the reference writer's file reads back
    save_file({k: np.asarray(v.numpy() if isinstance(v, ag.Tensor) else v)
               for k, v in state.items()}, other)
    np.testing.assert_array_equal(nn.load(other)["f64"].numpy(), state["f64"])


def test_bfloat16_reads_as_exact_float32(tmp_path):
    torch = torch_or_skip()
    from safetensors.torch import save_file
    values = torch.tensor([1.0, -2.5, 3.140625, 1e-3], dtype=torch.bfloat16)
    save_file({"w": values}, tmp_path / "bf16.safetensors")
    loaded = nn.load(tmp_path / "bf16.safetensors")["w"]
    assert loaded.dtype == np.float32
    np.testing.assert_array_equal(loaded.numpy(), values.float().numpy())


def test_metadata_and_names_are_checked_on_save(tmp_path):
    path = tmp_path / "w.safetensors"
    with pytest.raises(TypeError, match="str -> str"):
        nn.save({"w": np.ones(2)}, path, metadata={"epoch": 3})
    with pytest.raises(TypeError, match="__metadata__"):
        nn.save({"__metadata__": np.ones(2)}, path)
    with pytest.raises(TypeError, match="complex128"):
        nn.save({"w": np.ones(2, complex)}, path)
    assert not path.exists()


def test_a_failed_save_leaves_the_old_file_intact(tmp_path, monkeypatch):
    path = tmp_path / "model.safetensors"
    nn.save({"w": np.ones(3)}, path)
    before = path.read_bytes()

    def disk_full(*args):
        raise OSError("disk full")

    monkeypatch.setattr(os, "fsync", disk_full)
    with pytest.raises(OSError, match="disk full"):
        nn.save({"w": np.zeros(3)}, path)
    assert path.read_bytes() == before
    assert os.listdir(tmp_path) == ["model.safetensors"]    # no temporary file left behind


def _file(path, header, data=b"", length=None):
    text = json.dumps(header).encode() if isinstance(header, dict) else header
    path.write_bytes(struct.pack("<Q", len(text) if length is None else length) + text + data)
    return path


F32 = {"dtype": "F32", "shape": [2], "data_offsets": [0, 8]}


@pytest.mark.parametrize("header, data, length, message", [
    ({"w": F32}, b"\0" * 4, None, "outside the 4 bytes of data"),
    ({"w": F32}, b"\0" * 16, None, "cover 8 bytes of data but the file holds 16"),
    ({"w": F32}, b"\0" * 8, 2 ** 40, "more than the limit"),
    ({"w": F32}, b"", 1000, "truncated"),
    (b"\xff\xfe not json", b"", None, "not JSON"),
    (b"[1, 2]", b"", None, "JSON list"),
    ({"w": dict(F32, dtype="F8_E4M3")}, b"\0" * 8, None, "dtype 'F8_E4M3'"),
    ({"w": dict(F32, dtype="object")}, b"\0" * 8, None, "dtype 'object'"),
    ({"w": dict(F32, shape=[3])}, b"\0" * 8, None, "needs 12 bytes but spans 8"),
    ({"w": dict(F32, shape=[-2, -1])}, b"\0" * 8, None, "non-negative integers"),
    ({"w": dict(F32, shape=[2 ** 40, 2 ** 40])}, b"\0" * 8, None, "spans 8"),
    ({"w": dict(F32, data_offsets=[0, 2 ** 62])}, b"\0" * 8, None, "outside"),
    ({"w": dict(F32, data_offsets=[8, 0])}, b"\0" * 8, None, "outside"),
    ({"w": F32, "v": F32}, b"\0" * 8, None, "overlaps"),
    ({"w": F32, "v": dict(F32, data_offsets=[12, 20])}, b"\0" * 20, None, "gap at byte 8"),
    ({"w": {"dtype": "F32", "shape": [2]}}, b"\0" * 8, None, "exactly dtype, shape"),
    ({"w": F32, "__metadata__": {"epoch": 3}}, b"\0" * 8, None, "strings to strings"),
    ({"w": dict(F32, dtype="BOOL", shape=[8])}, b"\2" * 8, None, "bytes other than 0 and 1"),
])
def test_hostile_files_raise_serialization_errors(tmp_path, header, data, length, message):
    path = _file(tmp_path / "hostile.safetensors", header, data, length)
    with pytest.raises(nn.SerializationError, match=message):
        nn.load(path)


def test_short_foreign_and_missing_files(tmp_path):
    (tmp_path / "short.safetensors").write_bytes(b"\1\2")
    with pytest.raises(nn.SerializationError, match="fewer than the 8"):
        nn.load(tmp_path / "short.safetensors")
    nn.save({"w": np.ones(2)}, tmp_path / "model.npz")      # an .npz is read as what it is
    assert nn.formats.format_of(tmp_path / "model.npz") == "npz"
    with pytest.raises(nn.SerializationError, match="not a valid safetensors file"):
        nn.formats.safetensors_metadata(tmp_path / "model.npz")
    with pytest.raises(FileNotFoundError, match="no such file"):
        nn.load(tmp_path / "missing.safetensors")
