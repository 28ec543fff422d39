"""nn.load on hostile files (built here byte by byte with zipfile and struct): nothing is
allocated beyond what the file holds, every failure is a SerializationError with the file
closed, and nn.save refuses what nn.load would refuse; then the durability and permission
guarantees of the atomic write."""
import io
import json
import os
import stat
import struct
import subprocess
import sys
import zipfile

import numpy as np
import pytest

from dagrad import autograd as ag
from dagrad import nn
from dagrad.nn.formats import SerializationError, atomic
from dagrad.nn.formats.npz import MANIFEST


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
        manifest = json.loads(str(np.lib.format.read_array(io.BytesIO(data))))
        manifest["tree"]["dict"] = [[f"k{i}", {"tensor": "w"}] for i in range(200)]
        out = io.BytesIO()
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


def _npy(shape, descr="<f4", data=b""):
    """The bytes of an .npy member whose header declares ``shape`` but which holds ``data``."""
    buffer = io.BytesIO()
    np.lib.format.write_array_header_1_0(buffer, {"descr": descr, "fortran_order": False,
                                                  "shape": shape})
    return buffer.getvalue() + data


def _manifest(tree):
    buffer = io.BytesIO()
    np.lib.format.write_array(buffer, np.array(json.dumps(
        {"format": "dagrad.state", "version": 1, "tree": tree})))
    return buffer.getvalue()


def _checkpoint(path, tree, members, compression=zipfile.ZIP_STORED):
    with zipfile.ZipFile(path, "w", compression=compression) as zf:
        zf.writestr("__dagrad__.npy", _manifest(tree))
        for name, data in members.items():
            zf.writestr(name + ".npy", data)
    return path


def _open_descriptors_to(path):
    fd_dir = "/proc/self/fd"
    return sum(os.path.realpath(os.path.join(fd_dir, fd)) == os.path.realpath(path)
               for fd in os.listdir(fd_dir) if os.path.exists(os.path.join(fd_dir, fd)))


def _refused(path, message):
    with pytest.raises(nn.SerializationError, match=message):
        nn.load(path)
    if os.path.isdir("/proc/self/fd"):
        assert _open_descriptors_to(path) == 0


def test_a_member_whose_zip_size_exceeds_the_file_is_refused(tmp_path):
    path = _checkpoint(tmp_path / "lying.npz", {"array": "w"}, {"w": _npy((4,), data=bytes(16))})
    raw = bytearray(path.read_bytes())
    central = raw.rindex(b"PK\x01\x02")          # the last member's central directory record
    struct.pack_into("<I", raw, central + 24, 1 << 32 - 1)   # its uncompressed size
    path.write_bytes(bytes(raw))
    _refused(path, "more than the .*-byte file can hold")


@pytest.mark.parametrize("offsets,value,message", [
    ((6, 8), 0x1, "is encrypted"),               # general-purpose flag bit 0
    ((8, 10), 99, "compression method 99"),      # compression method
], ids=["encrypted", "unknown-compression"])
def test_zip_level_corruption_is_a_serialization_error_and_the_file_is_closed(
        tmp_path, offsets, value, message):
    path = tmp_path / "zip.npz"
    nn.save({"w": ag.ones(3)}, path)
    raw = bytearray(path.read_bytes())
    local, central = offsets
    for signature, offset in ((b"PK\x03\x04", local), (b"PK\x01\x02", central)):
        start = raw.find(signature)
        while start != -1:
            struct.pack_into("<H", raw, start + offset, value)
            start = raw.find(signature, start + 4)
    path.write_bytes(bytes(raw))
    _refused(path, message)


def test_every_failure_on_a_truncated_file_is_a_serialization_error(tmp_path):
    path = tmp_path / "model.npz"
    nn.save({"w": ag.arange(1000.0)}, path)
    raw = path.read_bytes()
    for cut in range(4, len(raw), 97):
        path.write_bytes(raw[:cut])
        _refused(path, "load: .*")


def test_save_refuses_complex_tensors_that_load_would_refuse(tmp_path):
    complex_tensor = ag.Tensor.__new__(ag.Tensor)
    complex_tensor.__init__(np.zeros(2, dtype=np.float32))
    complex_tensor._data = np.array([1 + 2j, 3j])       # what a cast could leave behind
    with pytest.raises(TypeError, match="complex128.*real numbers"):
        nn.save({"w": complex_tensor}, tmp_path / "c.npz")
    assert not (tmp_path / "c.npz").exists()


@pytest.mark.parametrize("value", [np.float64(0.1), np.float32(2.5), np.int64(7), np.bool_(True)])
def test_numpy_scalars_round_trip_as_what_they_were(tmp_path, value):
    nn.save({"lr": value}, tmp_path / "s.npz")
    loaded = nn.load(tmp_path / "s.npz")["lr"]
    assert type(loaded) is type(value) and loaded == value


def test_member_names_cannot_leave_the_archive(tmp_path):
    state = {"../../x": ag.ones(2), "/abs": ag.zeros(1), "a\\b:c": ag.ones(1), "..": ag.ones(3)}
    nn.save(state, tmp_path / "names.npz")
    with zipfile.ZipFile(tmp_path / "names.npz") as zf:
        for name in zf.namelist():
            parts = name.split("/")
            assert ".." not in parts and "" not in parts and "\\" not in name and ":" not in name
    loaded = nn.load(tmp_path / "names.npz")
    assert list(loaded) == list(state)
    for key in state:
        np.testing.assert_array_equal(loaded[key].numpy(), state[key].numpy())


def test_temporary_files_are_named_after_the_target_and_stale_ones_are_removed(tmp_path):
    dead = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"],
                          capture_output=True, text=True, check=True).stdout.strip()
    stale = tmp_path / f".model.npz.{dead}.k1ll3d.tmp"
    stale.write_bytes(b"half a checkpoint")
    other = tmp_path / f".other.npz.{dead}.k1ll3d.tmp"      # another target's: left alone
    other.write_bytes(b"x")
    seen = []
    atomic.atomic_write(tmp_path / "model.npz",
                        lambda f: seen.extend(sorted(os.listdir(tmp_path))))
    assert not stale.exists() and other.exists()
    temporaries = [n for n in seen if n.endswith(".tmp") and n != other.name]
    assert len(temporaries) == 1
    assert temporaries[0].startswith(f".model.npz.{os.getpid()}.")
    assert sorted(os.listdir(tmp_path)) == sorted(["model.npz", other.name])


def test_the_directory_is_flushed_after_the_rename(tmp_path, monkeypatch):
    if os.name != "posix":
        pytest.skip("directories cannot be opened for fsync outside POSIX")
    flushed = []
    real_fsync = os.fsync
    monkeypatch.setattr(os, "fsync", lambda fd: (flushed.append(
        (stat.S_ISDIR(os.fstat(fd).st_mode), os.path.exists(tmp_path / "m.npz"))),
        real_fsync(fd))[1])
    nn.save({"w": ag.ones(2)}, tmp_path / "m.npz")
    assert flushed == [(False, False), (True, True)]      # the file, then its directory


def test_new_files_honour_the_umask_and_existing_files_keep_their_mode(tmp_path):
    old = os.umask(0o077)
    try:
        nn.save({"w": ag.ones(2)}, tmp_path / "private.npz")
        with open(tmp_path / "reference", "wb"):
            pass
    finally:
        os.umask(old)
    assert stat.S_IMODE(os.stat(tmp_path / "private.npz").st_mode) == 0o600
    assert stat.S_IMODE(os.stat(tmp_path / "reference").st_mode) == 0o600
    os.chmod(tmp_path / "private.npz", 0o640)
    nn.save({"w": ag.ones(3)}, tmp_path / "private.npz")
    assert stat.S_IMODE(os.stat(tmp_path / "private.npz").st_mode) == 0o640


_READ_ONLY_SCRIPT = """
import os, tempfile
from dagrad import autograd as ag, nn
if os.geteuid() == 0:            # root writes anything: drop to an unprivileged user
    os.setgid(65534); os.setuid(65534)
os.chdir(tempfile.mkdtemp())
with open("model.npz", "wb") as f:
    f.write(b"previous")
os.chmod("model.npz", 0o444)
try:
    open("model.npz", "wb")
except PermissionError:
    print("open refuses")
try:
    nn.save({"w": ag.ones(2)}, "model.npz")
except PermissionError as e:
    print("save refuses", os.path.basename(e.filename))
print(open("model.npz", "rb").read().decode())
"""


def test_saving_over_a_read_only_file_raises_permission_error_like_open(tmp_path):
    if os.name != "posix":
        pytest.skip("POSIX permissions")
    out = subprocess.run([sys.executable, "-c", _READ_ONLY_SCRIPT], capture_output=True,
                         text=True, cwd=tmp_path, env={**os.environ, "TMPDIR": "/tmp"})
    assert out.returncode == 0, out.stderr
    assert out.stdout.split("\n")[:3] == ["open refuses", "save refuses model.npz", "previous"]


def test_a_symlinked_target_is_written_through(tmp_path):
    real = tmp_path / "store" / "model.npz"
    real.parent.mkdir()
    nn.save({"w": ag.ones(2)}, real)
    link = tmp_path / "latest.npz"
    link.symlink_to(real)
    nn.save({"w": ag.zeros(3)}, link)
    assert link.is_symlink()
    np.testing.assert_array_equal(nn.load(real)["w"].numpy(), np.zeros(3, np.float32))
    assert sorted(os.listdir(tmp_path)) == ["latest.npz", "store"]
