"""nn.load on hostile files: nothing is allocated beyond what the file holds, every failure is a
SerializationError, and nn.save refuses what nn.load would refuse."""
import json
import zipfile

import numpy as np
import pytest

from dagrad import autograd as ag
from dagrad import nn
from dagrad.nn.serialization import MANIFEST, SerializationError


@pytest.fixture
def good(tmp_path):
    path = tmp_path / "good.npz"
    nn.save({"w": ag.ones(64), "b": ag.zeros(4)}, path)
    return path


def rewrite(src, dst, change=lambda name, data: data, **zip_args):
    """Copy the zip ``src`` to ``dst``, passing each member's bytes through ``change``."""
    with zipfile.ZipFile(src) as a, zipfile.ZipFile(dst, "w", **zip_args) as b:
        for info in a.infolist():
            b.writestr(info.filename, change(info.filename, a.read(info)))
    return dst


def test_a_declared_shape_larger_than_the_member_is_refused_before_allocating(good, tmp_path):
    for shape in (b"(1000000000000000,)", b"(1073741824,)"):
        bad = rewrite(good, tmp_path / "bomb.npz", lambda n, d: d.replace(b"(64,)", shape)
                      if n == "w.npy" else d)
        with pytest.raises(SerializationError, match="declares shape"):
            nn.load(bad)


def test_compressed_members_are_refused(good, tmp_path):
    bad = rewrite(good, tmp_path / "deflated.npz", compression=zipfile.ZIP_DEFLATED)
    with pytest.raises(SerializationError, match="compressed|declares"):
        nn.load(bad)


def test_an_encrypted_member_is_refused(good, tmp_path):
    data = bytearray(good.read_bytes())
    for offset in range(len(data) - 4):      # set the encryption bit in every header
        if data[offset:offset + 4] in (b"PK\x03\x04", b"PK\x01\x02"):
            flag = offset + (6 if data[offset + 2] == 3 else 8)
            data[flag] |= 1
    bad = tmp_path / "encrypted.npz"
    bad.write_bytes(bytes(data))
    with pytest.raises(SerializationError):
        nn.load(bad)


def test_a_member_named_twice_in_the_manifest_is_refused(good, tmp_path):
    def twice(name, data):
        if name != MANIFEST + ".npy":
            return data
        manifest = json.loads(str(np.lib.format.read_array(__import__("io").BytesIO(data))))
        manifest["tree"]["dict"] = [[f"k{i}", {"tensor": "w"}] for i in range(200)]
        out = __import__("io").BytesIO()
        np.lib.format.write_array(out, np.array(json.dumps(manifest)))
        return out.getvalue()
    with pytest.raises(SerializationError, match="twice"):
        nn.load(rewrite(good, tmp_path / "twice.npz", twice))


def test_garbage_in_every_byte_range_gives_serialization_errors(good, tmp_path):
    data = good.read_bytes()
    for start in range(0, len(data), 97):
        broken = bytearray(data)
        broken[start:start + 13] = b"\xff" * len(broken[start:start + 13])
        path = tmp_path / "broken.npz"
        path.write_bytes(bytes(broken))
        try:
            nn.load(path)
        except SerializationError:
            pass


def test_save_refuses_what_load_refuses_and_scalars_round_trip(tmp_path):
    with pytest.raises(TypeError, match="complex"):
        nn.save({"z": np.ones(2, dtype=np.complex64)}, tmp_path / "z.npz")
    nn.save({"lr": np.float64(0.25), "step": np.int64(3)}, tmp_path / "s.npz")
    back = nn.load(tmp_path / "s.npz")
    assert type(back["lr"]) is np.float64 and back["lr"] == 0.25
    assert type(back["step"]) is np.int64 and back["step"] == 3


def test_member_names_cannot_climb_out_of_a_folder(tmp_path):
    nn.save({"../../evil": ag.ones(2), "/abs": ag.zeros(1)}, tmp_path / "n.npz")
    names = zipfile.ZipFile(tmp_path / "n.npz").namelist()
    assert all(".." not in n and not n.startswith("/") for n in names)
    back = nn.load(tmp_path / "n.npz")
    assert list(back) == ["../../evil", "/abs"]           # keys are kept as they were
