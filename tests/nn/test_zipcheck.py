"""nn.formats.zipcheck and the regular-file guard: the checks every loader of untrusted files
shares. Overlapping members (the quadratic zip bomb), two entries with one name, members outside
the file, and files that are not regular files (a FIFO must raise at once, not block) are
refused with SerializationError."""
import os
import threading
import tracemalloc

import numpy as np
import pytest

from dagrad import autograd as ag
from dagrad import nn
from dagrad.nn.formats import SerializationError
from dagrad.nn.formats.guard import open_regular_file
from dagrad.nn.formats.zipcheck import checked_zip

from .zip_builder import archive, manifest, nested_bomb, npy, plain


def test_overlapping_members_are_refused_before_anything_is_read(tmp_path):
    path = tmp_path / "bomb.npz"
    path.write_bytes(nested_bomb(200, bytes(2000)))
    tracemalloc.start()
    try:
        with pytest.raises(SerializationError, match="overlapping members: 'm0.npy'"):
            nn.load(path)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    # reading every member would allocate ~200²/2 members of ~700 bytes: 14 MB; the check
    # refuses after the central directory, within a few times the 70 KB file
    assert peak < 8 * path.stat().st_size + 200_000, (peak, path.stat().st_size)


def test_the_bomb_is_a_valid_zip_that_only_the_overlap_check_refuses(tmp_path):
    """Without the overlap check every member reads correctly (valid CRCs), so the refusal
    above comes from the check, not from some other corruption."""
    import zipfile
    path = tmp_path / "bomb.npz"
    path.write_bytes(nested_bomb(5, b"abc"))
    with zipfile.ZipFile(path) as zf:
        sizes = [len(zf.read(name)) for name in zf.namelist()[1:]]
    assert sizes == sorted(sizes, reverse=True) and sizes[-1] > 3


def test_two_entries_with_one_name_are_refused(tmp_path):
    path = tmp_path / "twice.npz"
    head = manifest({"dict": [["w", {"tensor": "w"}]]})
    path.write_bytes(archive(plain([("__dagrad__.npy", head), ("w.npy", npy(np.ones(2))),
                                    ("w.npy", npy(np.zeros(2)))])))
    with pytest.raises(SerializationError, match="two entries named 'w.npy'"):
        nn.load(path)


def test_a_member_starting_outside_the_file_is_refused(tmp_path):
    path = tmp_path / "outside.npz"
    head = manifest({"dict": []})
    body, listed = plain([("__dagrad__.npy", head)])
    path.write_bytes(archive((body, [("__dagrad__.npy", head, 10_000)])))
    with pytest.raises(SerializationError, match="outside the"):
        nn.load(path)


def test_a_good_file_passes_and_lists_its_members(tmp_path):
    nn.save({"w": ag.ones(3), "b": ag.zeros(2)}, tmp_path / "m.npz")
    with open_regular_file(tmp_path / "m.npz", "test") as f:
        zf, members = checked_zip(f, tmp_path / "m.npz", "test")
        with zf:
            assert sorted(members) == ["__dagrad__.npy", "b.npy", "w.npy"]
            np.testing.assert_array_equal(np.load(zf.open(members["w.npy"])), np.ones(3))


def test_a_pytorch_checkpoint_passes_the_zip_checks(tmp_path):
    """torch.save's archives (data descriptors, aligned members) are valid for the checks, so
    a .pt reader can use them."""
    torch = pytest.importorskip("torch")
    torch.save({"w": torch.ones(3), "b": torch.zeros(70)}, tmp_path / "t.pt")
    with open_regular_file(tmp_path / "t.pt", "torch.load") as f:
        zf, members = checked_zip(f, tmp_path / "t.pt", "torch.load")
        zf.close()
    assert any(name.endswith("data.pkl") for name in members)


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="FIFOs are POSIX")
@pytest.mark.parametrize("load", [nn.load, nn.formats.safetensors_metadata],
                         ids=["load", "safetensors_metadata"])
def test_a_fifo_is_refused_at_once_instead_of_blocking(tmp_path, load):
    fifo = tmp_path / "pipe.npz"
    os.mkfifo(fifo)
    outcome = []
    worker = threading.Thread(target=lambda: outcome.append(_error_of(load, fifo)), daemon=True)
    worker.start()
    worker.join(60)       # generous: a blocked open never returns at all
    if worker.is_alive():  # unblock the reader so the test process can end
        os.close(os.open(fifo, os.O_WRONLY | os.O_NONBLOCK))
        pytest.fail("loading a FIFO blocked")
    assert isinstance(outcome[0], SerializationError), outcome
    assert "is a FIFO (named pipe), not a regular file" in str(outcome[0])


def _error_of(load, path):
    try:
        load(path)
    except Exception as e:      # what is raised is what the test checks
        return e
    return None


def test_a_directory_and_a_device_are_refused(tmp_path):
    with pytest.raises(IsADirectoryError, match="is a directory"):
        nn.load(tmp_path)
    if os.path.exists("/dev/zero"):
        with pytest.raises(SerializationError, match="character device"):
            nn.formats.safetensors_metadata("/dev/zero")
