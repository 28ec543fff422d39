"""Hostile and damaged ``.pt`` files: refused with ``SerializationError`` before anything they
name is imported or called, and never allocating beyond a bound set by their size."""
import io
import struct
import tracemalloc
import zipfile

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from dagrad import autograd as ag
from dagrad import nn, optim
from dagrad import torch as dtorch
from dagrad.nn import SerializationError
from tests.helpers import run_bounded
from tests.nn.zip_builder import pt_file

CALLED = []         # what a Trap records when any of its code runs


class Trap:
    """A class a hostile file names; any of its code running is a failure."""

    def __new__(cls, *args):
        CALLED.append("__new__")
        return super().__new__(cls)

    def __setstate__(self, state):
        CALLED.append("__setstate__")

    def __reduce__(self):
        CALLED.append("__reduce__")
        return (Trap, ())


def text(s):
    data = s.encode()
    return b"X" + struct.pack("<I", len(data)) + data


def global_(module, name):
    return b"c" + f"{module}\n{name}\n".encode()


def load(data):
    return dtorch.load(io.BytesIO(data))


P = b"\x80\x02"


@pytest.mark.parametrize("module, name", [
    ("os", "system"), ("posix", "system"), ("nt", "system"), ("builtins", "eval"),
    ("__builtin__", "eval"), ("builtins", "exec"), ("subprocess", "call"),
    ("builtins", "getattr"), ("builtins", "__import__"), ("importlib", "import_module"),
])
def test_a_reduce_of_a_dangerous_function_is_refused_and_runs_nothing(tmp_path, module, name):
    marker = tmp_path / "ran"
    payload = P + global_(module, name) + text(f"open({str(marker)!r}, 'w')") + b"\x85R."
    with pytest.raises(SerializationError, match=rf"\.{name}\b"):
        load(pt_file(payload))
    assert not marker.exists()


def test_os_system_by_stack_global_is_refused(tmp_path):
    marker = tmp_path / "ran"
    payload = (b"\x80\x04" + text("os") + text("system") + b"\x93" + text(f"touch {marker}")
               + b"\x85R.")
    with pytest.raises(SerializationError, match="os.system"):
        load(pt_file(payload))
    assert not marker.exists()


def test_a_class_that_is_not_allowed_is_never_created():
    CALLED.clear()
    name = f"{Trap.__module__}"
    for payload in (P + global_(name, "Trap") + b")\x81}b.",         # NEWOBJ + BUILD
                    P + global_(name, "Trap") + b")R.",              # REDUCE
                    P + global_("argparse", "Namespace") + b")\x81."):
        with pytest.raises(SerializationError, match="add_safe_globals"):
            load(pt_file(payload))
    assert CALLED == []


@pytest.mark.parametrize("payload, match", [
    # a name reached through the attributes of an allowed one
    (P + global_("collections", "OrderedDict.__init__.__globals__") + b".", "not an allowed"),
    (P + global_("torch._utils", "_rebuild_tensor_v2.__globals__") + b".", "not an allowed"),
    # an allowed class's state used to swap its class or methods
    (P + global_("collections", "OrderedDict") + b")R}" + text("__class__") + b"N" + b"sb.",
     "attributes"),
    # calling what is allowed only as a value
    (P + global_("torch", "Tensor") + text("x") + b"\x85R.", "not an allowed function"),
    (P + global_("dagrad.nn.functional.activation", "relu") + b"N\x85R.",
     "not an allowed function"),
    (P + global_("torch", "FloatStorage") + b")R.", "not an allowed function"),
    # dagrad's own code that is not a module class
    (P + global_("dagrad.nn.formats.atomic", "atomic_write") + b".", "not an allowed"),
    # allowed functions given arguments that would allocate without bound
    (P + global_("builtins", "bytearray") + b"J\xff\xff\xff\x7f\x85R.", "bytearray"),
    (P + global_("_codecs", "encode") + text("x") + text("rot13") + b"\x86R.", "encodes"),
    # a persistent id that is not a storage, and a tensor rebuilt from a non-storage
    (P + text("module") + text("os") + b"\x86Q.", "only storages"),
    (P + global_("torch._utils", "_rebuild_tensor_v2") + text("s") + b"K\x00)))\x89N" + b"t" +
     b"R.", "."),
    # APPEND / SETITEM on what is not a list / dict
    (P + global_("torch", "Size") + b")R" + b"N" + b"a.", "APPEND"),
    (P + b")" + b"NN" + b"s.", "SETITEM"),
])
def test_tricks_with_allowed_names_are_refused(payload, match):
    with pytest.raises(SerializationError, match=match):
        load(pt_file(payload))


def _tensor_payload(numel, size, stride, offset=0):
    pid = (b"(" + text("storage") + global_("torch", "FloatStorage") + text("0") + text("cpu")
           + b"J" + struct.pack("<i", numel) + b"tQ")
    dims = b"(" + b"".join(b"J" + struct.pack("<i", n) for n in size) + b"t"
    steps = b"(" + b"".join(b"J" + struct.pack("<i", n) for n in stride) + b"t"
    return (P + global_("torch._utils", "_rebuild_tensor_v2") + b"(" + pid + b"J"
            + struct.pack("<i", offset) + dims + steps + b"\x89" + global_("collections",
                                                                          "OrderedDict")
            + b")RtR.")


def test_copying_one_container_again_and_again_is_refused():
    """A list of 20 000 items, then set(that list) over and over (7 bytes a copy): without a
    budget a 160 KB file would ask for 20 000 × 20 000 elements."""
    items = b"]q\x00(" + b"K\x01" * 20000 + b"e"            # a list, memo 0
    copy = global_("builtins", "set") + b"h\x00\x85R"          # set(memo 0)
    payload = P + items + copy * 20000 + b"."
    tracemalloc.start()
    try:
        with pytest.raises(SerializationError, match="far more work"):
            load(pt_file(payload))
        assert tracemalloc.get_traced_memory()[1] < 64 << 20
    finally:
        tracemalloc.stop()


def test_a_tensor_must_lie_inside_its_storage():
    storage = [("0", np.arange(4, dtype=np.float32).tobytes())]
    assert load(pt_file(_tensor_payload(4, (2, 2), (2, 1)), storage)).tolist() == [[0, 1], [2, 3]]
    for numel, size, stride, offset in ((4, (3, 2), (2, 1), 0), (4, (2, 2), (2, 1), 1),
                                        (8, (2, 2), (2, 1), 0), (4, (2,), (-1,), 0),
                                        (4, (10 ** 9, 10 ** 9), (0, 0), 0)):
        with pytest.raises(SerializationError):
            load(pt_file(_tensor_payload(numel, size, stride, offset), storage))


def test_a_storage_larger_than_its_record_is_refused_before_allocating():
    payload = _tensor_payload(2 ** 31 - 1, (1,), (1,))
    tracemalloc.start()
    try:
        with pytest.raises(SerializationError, match="holds 16 bytes"):
            load(pt_file(payload, [("0", bytes(16))]))
        assert tracemalloc.get_traced_memory()[1] < 4 << 20
    finally:
        tracemalloc.stop()


def test_gpu_storages_need_a_map_location():
    payload = _tensor_payload(2, (2,), (1,)).replace(text("cpu"), text("cuda:0"))
    data = pt_file(payload, [("0", bytes(8))])
    with pytest.raises(RuntimeError, match="map_location='cpu'"):
        load(data)
    assert dtorch.load(io.BytesIO(data), map_location="cpu").tolist() == [0.0, 0.0]


def test_damaged_zip_containers_are_refused():
    good = pt_file(_tensor_payload(2, (2,), (1,)), [("0", bytes(8))])
    for data in (good[:len(good) // 2], b"PK\x03\x04" + bytes(40), good.replace(b"archive/", b"archiveX"),
                 b"\x80\x02}q\x00.", b"hello"):
        with pytest.raises(SerializationError):
            load(data)
    compressed = io.BytesIO()
    with zipfile.ZipFile(compressed, "w", zipfile.ZIP_DEFLATED) as zf:
        zf.writestr("archive/data.pkl", b"\x80\x02}." + bytes(10 ** 6))
    with pytest.raises(SerializationError, match="compressed"):
        load(compressed.getvalue())


def _module_holding(children):
    """A pickle of a Linear whose _modules table holds ``children`` (pickle bytes each)."""
    table = b"".join(text(name) + data for name, data in children.items())
    return (global_("torch.nn.modules.linear", "Linear") + b")\x81q\x00}" + text("_modules")
            + b"}(" + table + b"usb")


def test_a_module_that_contains_itself_is_refused_when_loaded():
    """A 421-byte file whose Linear is its own child: once loaded, every walk over it
    (state_dict, train, repr) would never end, so loading refuses it."""
    data = pt_file(P + _module_holding({"me": b"h\x00"}) + b".")
    assert len(data) < 500
    for read in (load, lambda raw: nn.load(io.BytesIO(raw))):
        with pytest.raises(SerializationError, match="a Linear module that contains itself: "
                                                     "'me' below it is that module again"):
            read(data)
    two = (global_("torch.nn.modules.container", "Sequential") + b")\x81q\x01}"
           + text("_modules") + b"}" + text("back") + b"h\x00ssb")    # whose child is the outer one
    with pytest.raises(SerializationError, match="'inner.back' below it"):
        load(pt_file(P + _module_holding({"inner": two}) + b"."))


def test_shared_children_load_as_one_module():
    shared = global_("torch.nn.modules.linear", "Linear") + b")\x81}b"     # an empty Linear
    data = P + global_("torch.nn.modules.container", "Sequential") + b")\x81}" + text(
        "_modules") + b"}(" + text("a") + shared + b"q\x07" + text("b") + b"h\x07usb."
    model = load(pt_file(data))
    assert model.a is model.b and list(dict(model.named_modules())) == ["", "a"]


def test_saving_a_module_that_contains_itself_is_refused_before_the_file_is_touched(tmp_path):
    m = nn.Linear(2, 2)
    m.add_module("me", m)
    for path in (tmp_path / "m.pt", tmp_path / "m.npz"):
        with pytest.raises(RuntimeError, match="the module tree has a cycle"):
            nn.save({"model": m}, path)
        assert not path.exists()


_DEEP = """
import io
from dagrad import nn, torch
from tests.nn.zip_builder import pt_file

n = 300_000
cases = {
    "tuple": b"\\x80\\x02K\\x01" + b"\\x85" * n + b".",
    "dict key": b"\\x80\\x02}K\\x01" + b"\\x85" * n + b"K\\x02s.",
    "list": b"\\x80\\x02" + b"]" * (n + 1) + b"a" * n + b".",
    "within the limit": b"\\x80\\x02}K\\x01" + b"\\x85" * 900 + b"K\\x02s.",
}
for name, data in cases.items():
    try:
        loaded = torch.load(io.BytesIO(pt_file(data)))
        print(name, "|", "loaded", type(loaded).__name__, len(pt_file(data)), flush=True)
    except nn.SerializationError as e:
        print(name, "|", type(e).__name__, e, len(pt_file(data)), flush=True)
"""


def test_a_deeply_nested_pickle_is_refused_instead_of_crashing_the_interpreter():
    """300,000 one-element tuples, each inside the next (a 300 KB file): hashing the outer one
    (a dict key) recursed in C until the interpreter crashed. Run in a subprocess, so a crash
    fails this test instead of ending the suite."""
    out = run_bounded(_DEEP, seconds=300)
    assert out.returncode == 0, f"the interpreter died ({out.returncode}): {out.stderr[-800:]}"
    lines = dict(line.split(" | ", 1) for line in out.stdout.splitlines())
    for case in ("tuple", "dict key", "list"):
        assert lines[case].startswith("SerializationError torch.load: the file's data.pkl "
                                      "nests containers more than 1000 deep"), lines[case]
    assert lines["tuple"].endswith(" 300359")               # a 300 KB file
    assert lines["within the limit"].startswith("loaded dict"), lines


# --------------------------------------------------------------------------------- fuzzing
def _valid_files():
    ag.manual_seed(0)
    model = nn.Sequential(nn.Linear(3, 4), nn.ReLU(), nn.Linear(4, 2))
    opt = optim.Adam(model.parameters())
    model(ag.randn(2, 3)).sum().backward()
    opt.step()
    files = []
    for obj in ({"model": model.state_dict(), "optimizer": opt.state_dict(), "epoch": 1,
                 "notes": ["a", (1.5, None)], "size": dtorch.Size([2])}, model):
        buffer = io.BytesIO()
        dtorch.save(obj, buffer)
        files.append(buffer.getvalue())
    try:                # and one PyTorch wrote (its state dicts carry _metadata, BUILD, ...)
        import torch
    except ImportError:
        return files + files[:1]
    real = torch.nn.Sequential(torch.nn.Linear(3, 4), torch.nn.BatchNorm1d(4))
    real_opt = torch.optim.Adam(real.parameters())
    real(torch.ones(2, 3)).sum().backward()
    real_opt.step()
    buffer = io.BytesIO()
    torch.save({"model": real.state_dict(), "optimizer": real_opt.state_dict(),
                "whole": real}, buffer)
    return files + [buffer.getvalue()]


VALID = _valid_files()


def _records(data):
    with zipfile.ZipFile(io.BytesIO(data)) as zf:
        return {info.filename: zf.read(info) for info in zf.infolist()}


def _rezip(records):
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_STORED) as zf:
        for name, data in records.items():
            zf.writestr(name, data)
    return buffer.getvalue()


def _mutate(data, edits):
    data = bytearray(data)
    for kind, where, value in edits:
        if not data:
            break
        i = where % len(data)
        if kind == "flip":
            data[i] ^= value or 1
        elif kind == "set":
            data[i] = value
        elif kind == "insert":
            data[i:i] = bytes([value]) * (1 + value % 5)
        elif kind == "delete":
            del data[i:i + 1 + value % 8]
        else:
            del data[i:]
    return bytes(data)


EDITS = st.lists(st.tuples(st.sampled_from(["flip", "set", "insert", "delete", "truncate"]),
                           st.integers(0, 1 << 16), st.integers(0, 255)), min_size=1, max_size=6)


def _load_bounded(data):
    """Load ``data``: it loads or raises SerializationError, allocating a bounded amount."""
    tracemalloc.start()
    try:
        try:
            load(data)
        except SerializationError:
            pass
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 64 * len(data) + (4 << 20), f"{peak} bytes for a {len(data)}-byte file"


@settings(max_examples=150, deadline=5000, suppress_health_check=[HealthCheck.too_slow])
@given(which=st.sampled_from([0, 1, 2]), edits=EDITS,
       member=st.sampled_from(["archive/data.pkl", "archive/data/0", "archive/byteorder"]))
def test_mutated_records_load_or_raise_serialization_error(which, edits, member):
    records = _records(VALID[which])
    records[member] = _mutate(records[member], edits)
    _load_bounded(_rezip(records))


@settings(max_examples=150, deadline=5000, suppress_health_check=[HealthCheck.too_slow])
@given(which=st.sampled_from([0, 1, 2]), edits=EDITS)
def test_mutated_files_load_or_raise_serialization_error(which, edits):
    _load_bounded(_mutate(VALID[which], edits))


# opcodes that reshape what a pickle builds: memo reads and writes (which can close a module
# into a cycle or reach one object from many places), tuples, containers filled again, BUILD
OPCODE_SNIPPETS = [b"h\x00", b"h\x01", b"h\x02", b"h\x05", b"q\x00", b"q\x01", b"q\x05",
                   b"\x85", b"\x86", b"\x87", b"(", b"t", b")", b"]", b"}", b"s", b"u", b"a",
                   b"e", b"b", b"\x81", b"R", b"N", b"K\x01", b"\x85" * 1100, b"(" * 50]


@settings(max_examples=200, deadline=5000, suppress_health_check=[HealthCheck.too_slow])
@given(which=st.sampled_from([0, 1, 2]), splices=st.lists(st.tuples(
    st.integers(0, 1 << 16), st.lists(st.sampled_from(OPCODE_SNIPPETS), min_size=1,
                                      max_size=4)), min_size=1, max_size=3))
def test_opcodes_spliced_into_the_pickle_load_or_raise_serialization_error(which, splices):
    """Opcodes inserted where the pickle has opcodes of its own: the restricted interpreter's
    checks (stack, memo, nesting depth, module cycles, allowed state) refuse what they build,
    or it loads; the same bound on memory holds."""
    records = _records(VALID[which])
    name = next(k for k in records if k.endswith("/data.pkl"))
    data = bytearray(records[name])
    for where, snippets in splices:
        i = 2 + where % max(len(data) - 3, 1)          # after PROTO, before STOP
        data[i:i] = b"".join(snippets)
    records[name] = bytes(data)
    _load_bounded(_rezip(records))
