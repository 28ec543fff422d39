"""Fuzzing the loaders: mutants of valid ``.npz`` (nn.save, state and whole modules) and
``.safetensors`` files, and mutants of every format under any name (the door chooses the reader
by content), either load or raise SerializationError; never another exception, a hang, or an
allocation beyond a bound proportional to the file's size (measured with tracemalloc).

The mutations are those that reach the parsers' checks: bytes overwritten with random or
boundary integers (sizes, offsets, counts near 0, 2³¹, 2³², 2⁶³ and the file's length),
insertions, deletions and truncations, and, because a zip member's CRC stops most byte
mutations at the first read, structural mutations that rebuild a valid archive (or a valid
safetensors length prefix) around a mutated manifest, ``.npy`` header or JSON header."""
import contextlib
import io
import json
import signal
import struct
import tracemalloc
import zipfile

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from dagrad import autograd as ag
from dagrad import nn
from dagrad import torch as dtorch
from dagrad.nn.formats import SerializationError

# A loader may hold a few copies of what it reads (the file's bytes, the parsed JSON, the
# arrays) plus fixed costs (zipfile's and NumPy's objects): at most this many bytes per byte of
# file, plus a constant.
BYTES_PER_FILE_BYTE = 24
FIXED_BYTES = 512 * 1024
HANG_SECONDS = 60        # only an endless loop or a blocked read comes near this
FUZZ = settings(max_examples=200, deadline=None, derandomize=True,
                suppress_health_check=[HealthCheck.function_scoped_fixture,
                                       HealthCheck.too_slow])

BOUNDARIES = [0, 1, 7, 8, 0x7F, 0xFF, 0xFFFF, 0x7FFFFFFF, 0xFFFFFFFF, 1 << 32, (1 << 63) - 1,
              (1 << 64) - 1]


def _npz_bytes():
    buffer = io.BytesIO()
    state = {"model": {"w": ag.arange(12.0).reshape(3, 4), "b": ag.zeros(3, dtype=ag.int64),
                       "mask": ag.tensor([True, False])},
             "step": np.int64(3), "lr": 0.5, "names": ["a", "b"], "shape": (2, 3),
             "table": np.arange(6, dtype=np.uint8).reshape(2, 3).T}
    nn.save(state, buffer, format="npz")
    return buffer.getvalue()


def _module_bytes(format):
    """A whole model (its classes, attributes, parameters and an LSTM's _after_load) saved in
    ``format``."""
    ag.manual_seed(0)
    model = nn.Sequential(nn.Linear(3, 4), nn.ReLU(), nn.LSTM(4, 3, batch_first=True))
    buffer = io.BytesIO()
    nn.save({"model": model, "epoch": 2}, buffer, format=format)
    return buffer.getvalue()


def _safetensors_bytes(tmp_path):
    path = tmp_path / "seed.safetensors"
    nn.save({"w": ag.arange(12.0).reshape(3, 4), "b": ag.zeros(3, dtype=ag.int64),
             "m": ag.tensor([True, False]), "h": np.ones(3, np.float16)}, path,
            metadata={"format": "pt"})
    return path.read_bytes()


@st.composite
def byte_mutation(draw, size):
    kind = draw(st.sampled_from(["overwrite", "integer", "insert", "delete", "truncate"]))
    position = draw(st.integers(0, max(size - 1, 0)))
    if kind == "overwrite":
        return kind, position, draw(st.binary(min_size=1, max_size=8))
    if kind == "integer":
        width = draw(st.sampled_from([2, 4, 8]))
        value = draw(st.sampled_from(BOUNDARIES + [size, size - 1, size + 1]) | st.integers(
            0, (1 << 8 * width) - 1))
        return kind, position, (value % (1 << 8 * width)).to_bytes(width, "little")
    if kind == "insert":
        return kind, position, draw(st.binary(min_size=1, max_size=64))
    if kind == "delete":
        return kind, position, draw(st.integers(1, 64))
    return kind, position, None


def apply_bytes(raw, mutation):
    kind, position, arg = mutation
    if kind in ("overwrite", "integer"):
        return raw[:position] + arg + raw[position + len(arg):]
    if kind == "insert":
        return raw[:position] + arg + raw[position:]
    if kind == "delete":
        return raw[:position] + raw[position + arg:]
    return raw[:position]


JSON_VALUES = st.recursive(
    st.none() | st.booleans() | st.sampled_from(BOUNDARIES + [-1, 10 ** 30, 2.5, "F32", "x",
                                                              "U8", "BF16"]),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(
        st.sampled_from(["dtype", "shape", "data_offsets", "tensor", "array", "scalar", "dict",
                         "list", "value", "module", "w", "b", "__dagrad_module__", "attrs",
                         "frozen", "_parameters", "_modules", "training"]), inner, max_size=3),
    max_leaves=8)


def mutate_json(draw, value):
    """``value`` with one node (chosen by walking down at random) replaced by a drawn value."""
    if isinstance(value, (dict, list)) and value and draw(st.booleans()):
        keys = list(value) if isinstance(value, dict) else list(range(len(value)))
        key = draw(st.sampled_from(keys))
        copy = dict(value) if isinstance(value, dict) else list(value)
        copy[key] = mutate_json(draw, copy[key])
        return copy
    return draw(JSON_VALUES)


@st.composite
def npz_mutant(draw, seed):
    if draw(st.booleans()):
        raw = seed
        for mutation in draw(st.lists(byte_mutation(len(seed)), min_size=1, max_size=4)):
            raw = apply_bytes(raw, mutation)
        return raw
    with zipfile.ZipFile(io.BytesIO(seed)) as zf:
        members = {name: zf.read(name) for name in zf.namelist()}
    name = draw(st.sampled_from(sorted(members)))
    data = members[name]
    if name == "__dagrad__.npy":
        manifest = json.loads(str(np.lib.format.read_array(io.BytesIO(data))))
        members[name] = _npy_of(json.dumps(mutate_json(draw, manifest)))
    else:                       # a mutated .npy header in front of the same data bytes
        header_end = data.index(b"\n") + 1
        header = data[:header_end]
        mutation = draw(byte_mutation(len(header)))
        members[name] = apply_bytes(header, mutation) + data[header_end:]
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w") as zf:
        for member, data in members.items():
            zf.writestr(member, data)
    return out.getvalue()


def _npy_of(text):
    out = io.BytesIO()
    np.lib.format.write_array(out, np.array(text))
    return out.getvalue()


@st.composite
def safetensors_mutant(draw, seed):
    if draw(st.booleans()):
        raw = seed
        for mutation in draw(st.lists(byte_mutation(len(seed)), min_size=1, max_size=4)):
            raw = apply_bytes(raw, mutation)
        return raw
    (length,) = struct.unpack("<Q", seed[:8])
    header = json.loads(seed[8:8 + length])
    text = json.dumps(mutate_json(draw, header)).encode()
    data = seed[8 + length:]
    if draw(st.booleans()):
        data = apply_bytes(data, draw(byte_mutation(len(data))))
    return struct.pack("<Q", len(text)) + text + data


@contextlib.contextmanager
def watchdog(seconds):
    def hung(signum, frame):
        raise AssertionError(f"loading did not finish within {seconds} s (a hang)")
    previous = signal.signal(signal.SIGALRM, hung)
    signal.alarm(seconds)
    try:
        yield
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)


def load_and_measure(load, path, raw):
    """Load ``raw`` (written to ``path``) with ``load``; returns (result or the
    SerializationError, peak bytes allocated). Any other exception propagates."""
    path.write_bytes(raw)
    with watchdog(HANG_SECONDS):
        tracemalloc.start()
        try:
            result = load(path)
        except SerializationError as e:
            result = e
        finally:
            peak = tracemalloc.get_traced_memory()[1]
            tracemalloc.stop()
    return result, peak


def array_bytes(value, seen=None):
    """The bytes of array memory ``value`` holds, each buffer counted once (tensors loaded from
    a ``.pt`` file are views of their storages)."""
    seen = set() if seen is None else seen
    if isinstance(value, nn.Module):
        value = dict(value.state_dict())
    if isinstance(value, ag.Tensor):
        value = value.numpy()
    if isinstance(value, np.generic):
        return value.nbytes
    if isinstance(value, np.ndarray):
        while isinstance(value.base, np.ndarray):
            value = value.base
        if id(value) in seen:
            return 0
        seen.add(id(value))
        return value.nbytes
    if isinstance(value, dict):
        return sum(array_bytes(v, seen) for v in value.values())
    if isinstance(value, (list, tuple)):
        return sum(array_bytes(v, seen) for v in value)
    return 0


def check_mutant(load, path, raw):
    result, peak = load_and_measure(load, path, raw)
    bound = BYTES_PER_FILE_BYTE * len(raw) + FIXED_BYTES
    assert peak <= bound, f"loading a {len(raw)}-byte mutant allocated {peak} bytes"
    if not isinstance(result, SerializationError):
        assert array_bytes(result) <= len(raw)


NPZ_SEED = _npz_bytes()
NPZ_MODULE_SEED = _module_bytes("npz")
PT_SEEDS = [_module_bytes("pt")]
SUFFIXES = ["", ".npz", ".pt", ".safetensors", ".bin"]


@pytest.fixture(scope="module")
def safetensors_seed(tmp_path_factory):
    return _safetensors_bytes(tmp_path_factory.mktemp("seed"))


def _pt_checkpoint_bytes():
    buffer = io.BytesIO()
    dtorch.save({"w": ag.arange(6.0).reshape(2, 3), "n": [1, (2.5, None)], "s": {"a": True}},
                buffer)
    return buffer.getvalue()


PT_SEEDS.append(_pt_checkpoint_bytes())


@st.composite
def any_mutant(draw, seeds):
    """A seed of any format with 0 to 4 byte mutations."""
    raw = draw(st.sampled_from(seeds))
    for mutation in draw(st.lists(byte_mutation(len(raw)), max_size=4)):
        raw = apply_bytes(raw, mutation)
    return raw


def test_the_seeds_load(tmp_path, safetensors_seed):
    (tmp_path / "s.npz").write_bytes(NPZ_SEED)
    assert nn.load(tmp_path / "s.npz")["step"] == 3
    for seed in (NPZ_MODULE_SEED, PT_SEEDS[0]):
        (tmp_path / "m").write_bytes(seed)
        assert type(nn.load(tmp_path / "m")["model"][2]) is nn.LSTM
    (tmp_path / "s.safetensors").write_bytes(safetensors_seed)
    assert sorted(nn.load(tmp_path / "s.safetensors")) == ["b", "h", "m", "w"]


@FUZZ
@given(data=st.data())
def test_npz_mutants_load_or_raise_serialization_error(tmp_path, data):
    raw = data.draw(npz_mutant(NPZ_SEED))
    check_mutant(nn.load, tmp_path / "mutant.npz", raw)


@FUZZ
@given(data=st.data())
def test_npz_whole_module_mutants_load_or_raise_serialization_error(tmp_path, data):
    raw = data.draw(npz_mutant(NPZ_MODULE_SEED))
    check_mutant(nn.load, tmp_path / "mutant.npz", raw)


@FUZZ
@given(data=st.data())
def test_any_mutant_under_any_name_loads_or_raises_serialization_error(tmp_path,
                                                                     safetensors_seed, data):
    """The door reads the first bytes (and a zip's member names) to choose a reader; a mutant
    of any format, named with any suffix, reaches some reader's checks."""
    raw = data.draw(any_mutant([NPZ_SEED, NPZ_MODULE_SEED, safetensors_seed] + PT_SEEDS))
    check_mutant(nn.load, tmp_path / f"mutant{data.draw(st.sampled_from(SUFFIXES))}", raw)


@FUZZ
@given(data=st.data())
def test_safetensors_mutants_load_or_raise_serialization_error(tmp_path, safetensors_seed, data):
    raw = data.draw(safetensors_mutant(safetensors_seed))
    check_mutant(nn.load, tmp_path / "mutant.safetensors", raw)


def test_the_memory_bound_can_fail(tmp_path):
    """The measurement sees an allocation the size of what a loader would over-allocate."""
    def greedy(path):
        return np.ones(BYTES_PER_FILE_BYTE * path.stat().st_size + FIXED_BYTES, np.uint8)
    with pytest.raises(AssertionError, match="allocated"):
        check_mutant(greedy, tmp_path / "x.npz", NPZ_SEED)
