"""nn.save / nn.load: exact round trips, atomic writes, and clear errors for bad files."""
import os

import numpy as np
import pytest

from dagrad import autograd as ag
from dagrad import nn


def _model():
    ag.manual_seed(0)
    m = nn.models.MLP([3, 5, 2], norm="batch")
    m(ag.randn(4, 3))          # move the running statistics away from their defaults
    return m


def test_state_dict_round_trip_is_exact(tmp_path):
    model = _model()
    path = tmp_path / "model.npz"
    nn.save(model.state_dict(), path)
    loaded = nn.load(path)
    assert list(loaded) == list(model.state_dict())
    for name, value in model.state_dict().items():
        assert isinstance(loaded[name], ag.Tensor)
        assert loaded[name].dtype == value.dtype
        np.testing.assert_array_equal(loaded[name].numpy(), value.numpy())
    fresh = nn.models.MLP([3, 5, 2], norm="batch")
    fresh.load_state_dict(loaded)
    x = ag.randn(2, 3)
    model.eval(), fresh.eval()
    np.testing.assert_array_equal(model(x).numpy(), fresh(x).numpy())
    # plain NumPy can read it too: one array per name
    with np.load(path, allow_pickle=False) as npz:
        np.testing.assert_array_equal(npz["0.weight"], model[0].weight.numpy())


def test_nested_checkpoints_round_trip(tmp_path):
    checkpoint = {"model": _model().state_dict(), "epoch": 3, "lr": 0.1, "name": "run",
                  "flags": [True, None], "shape": (2, 3), "state": {0: {"buf": np.ones(2)}}}
    nn.save(checkpoint, tmp_path / "ckpt.npz")
    loaded = nn.load(tmp_path / "ckpt.npz")
    assert loaded["epoch"] == 3 and loaded["lr"] == 0.1 and loaded["name"] == "run"
    assert loaded["flags"] == [True, None] and loaded["shape"] == (2, 3)
    assert list(loaded["state"]) == [0]
    assert isinstance(loaded["state"][0]["buf"], np.ndarray)
    np.testing.assert_array_equal(loaded["model"]["0.bias"].numpy(),
                                  checkpoint["model"]["0.bias"].numpy())


def test_object_arrays_are_refused_on_save_and_on_load(tmp_path):
    with pytest.raises(TypeError, match="object"):
        nn.save({"w": np.array([1, "a"], dtype=object)}, tmp_path / "x.npz")
    assert not (tmp_path / "x.npz").exists()
    hostile = tmp_path / "hostile.npz"
    np.savez(hostile, __dagrad__=np.array('{"format": "dagrad.state", "version": 1, "tree": '
                                          '{"dict": [["w", {"array": "w"}]]}}'),
             w=np.array([{"a": 1}], dtype=object))
    with pytest.raises(nn.SerializationError, match="objects|object arrays"):
        nn.load(hostile)


def test_truncated_corrupted_and_foreign_files_raise_clear_errors(tmp_path):
    good = tmp_path / "good.npz"
    nn.save(_model().state_dict(), good)
    data = good.read_bytes()

    truncated = tmp_path / "truncated.npz"
    truncated.write_bytes(data[: len(data) // 2])
    with pytest.raises(nn.SerializationError, match="truncated or corrupted"):
        nn.load(truncated)

    corrupted = tmp_path / "corrupted.npz"
    mangled = bytearray(data)
    start = data.index(b"0.weight.npy") + 200     # inside the first array's bytes
    mangled[start:start + 16] = b"\xff" * 16
    corrupted.write_bytes(bytes(mangled))
    with pytest.raises(nn.SerializationError, match="corrupted"):
        nn.load(corrupted)

    text = tmp_path / "notes.npz"
    text.write_text("hello")
    with pytest.raises(nn.SerializationError, match="not an .npz file"):
        nn.load(text)

    foreign = tmp_path / "foreign.npz"
    np.savez(foreign, w=np.ones(3))
    with pytest.raises(nn.SerializationError, match="not written by nn.save"):
        nn.load(foreign)

    single = tmp_path / "single.npy"
    np.save(single, np.ones(3))
    with pytest.raises(nn.SerializationError, match="single .npy"):
        nn.load(single)

    future = tmp_path / "future.npz"
    np.savez(future, __dagrad__=np.array('{"format": "dagrad.state", "version": 99, '
                                         '"tree": {"value": 1}}'))
    with pytest.raises(nn.SerializationError, match="version 99"):
        nn.load(future)

    with pytest.raises(FileNotFoundError):
        nn.load(tmp_path / "missing.npz")


def test_a_failed_save_leaves_the_old_file_intact(tmp_path, monkeypatch):
    path = tmp_path / "model.npz"
    nn.save({"w": np.ones(3), "v": np.arange(4.0)}, path)
    before = path.read_bytes()
    write_array = np.lib.format.write_array
    written = []

    def fail_after_the_first_array(*args, **kwargs):
        if written:
            raise OSError("disk full")
        written.append(True)
        return write_array(*args, **kwargs)

    monkeypatch.setattr(np.lib.format, "write_array", fail_after_the_first_array)
    with pytest.raises(OSError, match="disk full"):
        nn.save({"w": np.zeros(3), "v": np.zeros(4)}, path)
    assert written                                        # it failed half way through
    assert path.read_bytes() == before
    assert os.listdir(tmp_path) == ["model.npz"]          # no temporary file left behind
    monkeypatch.undo()
    np.testing.assert_array_equal(nn.load(path)["w"], np.ones(3))
    with pytest.raises(TypeError, match="object"):  # refused before anything is written
        nn.save({"w": np.zeros(3), "o": np.array([None])}, path)
    assert path.read_bytes() == before


def test_any_key_round_trips_even_numpy_savez_keywords(tmp_path):
    state = {"file": np.ones(2), "allow_pickle": np.arange(3), "__dagrad__": np.zeros(1),
             "a/b": ag.tensor(np.full(2, 7.0, dtype=np.float32)), 0: np.array(True),
             "0": np.array([1.5])}
    nn.save(state, tmp_path / "keys.npz")
    loaded = nn.load(tmp_path / "keys.npz")
    assert list(loaded) == list(state)
    for key, value in state.items():
        expected = value.numpy() if isinstance(value, ag.Tensor) else value
        got = loaded[key].numpy() if isinstance(value, ag.Tensor) else loaded[key]
        assert got.dtype == expected.dtype
        np.testing.assert_array_equal(got, expected)


def _manifest_file(path, manifest, **arrays):
    np.savez(path, __dagrad__=manifest, **arrays)
    return path


@pytest.mark.parametrize("manifest,arrays,message", [
    (np.array("[1, 2]"), {}, "unknown format"),
    (np.array(3.0), {}, "not a manifest"),
    (np.array('{"format": "dagrad.state", "version": 1, "tree": '
              + '{"list": [' * 3000 + '{"value": 1}' + ']}' * 3000 + "}"), {}, "too deeply"),
    (np.array('{"format": "dagrad.state", "version": 1, "tree": {"tensor": "w"}}'),
     {"w": np.array(["import os"])}, "holds real numbers"),
    (np.array('{"format": "dagrad.state", "version": 1, "tree": {"array": "missing"}}'), {},
     "does not contain"),
    (np.array('{"format": "dagrad.state", "version": 1, "tree": {"dict": [["w"]]}}'), {},
     "truncated or corrupted"),
    (np.array('{"format": "dagrad.state", "version": 1, "tree": {"dict": [[["k"], '
              '{"value": 1}]]}}'), {}, "truncated or corrupted"),
    (np.array('{"format": "dagrad.state", "version": 1, "tree": {"code": "rm"}}'), {},
     "unknown entry"),
], ids=["list", "number", "deep", "string-tensor", "missing-array", "short-item",
        "unhashable-key", "unknown-node"])
def test_hostile_manifests_raise_serialization_errors(tmp_path, manifest, arrays, message):
    path = _manifest_file(tmp_path / "hostile.npz", manifest, **arrays)
    with pytest.raises(nn.SerializationError, match=message):
        nn.load(path)


def test_unsupported_values_are_named(tmp_path):
    with pytest.raises(TypeError, match="cannot save a set"):
        nn.save({"a": {1, 2}}, tmp_path / "x.npz")
    assert not (tmp_path / "x.npz").exists()
