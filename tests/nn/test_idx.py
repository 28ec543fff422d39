"""nn.datasets.read_idx: the MNIST file format, read exactly and refused cleanly when bad."""
import gzip
import struct

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from dagrad.nn.datasets import read_idx
from dagrad.nn.datasets.idx import parse_idx


def _idx(array, code=0x08, dtype=">u1"):
    array = np.asarray(array)
    header = struct.pack(">BBBB", 0, 0, code, array.ndim) + struct.pack(
        f">{array.ndim}i", *array.shape)
    return header + array.astype(dtype).tobytes()


@pytest.mark.parametrize("compress", [False, True])
def test_reads_images_and_labels_plain_and_gzipped(tmp_path, compress):
    images = np.random.default_rng(0).integers(0, 256, (5, 28, 28))
    path = tmp_path / ("x-idx3-ubyte" + (".gz" if compress else ""))
    data = _idx(images)
    if compress:
        with gzip.open(path, "wb") as f:
            f.write(data)
    else:
        path.write_bytes(data)
    out = read_idx(path)
    assert out.dtype == np.uint8 and out.shape == (5, 28, 28)
    np.testing.assert_array_equal(out, images)


@pytest.mark.parametrize("code, dtype", [(0x09, ">i1"), (0x0B, ">i2"), (0x0C, ">i4"),
                                         (0x0D, ">f4"), (0x0E, ">f8")])
def test_every_idx_type_in_native_byte_order(code, dtype):
    values = np.array([[-3, 2], [1, 0]])
    out = parse_idx(_idx(values, code, dtype))
    assert out.dtype == np.dtype(dtype).newbyteorder("=")
    np.testing.assert_array_equal(out, values)


@pytest.mark.parametrize("raw, message", [
    (b"", "not an IDX file"),
    (b"\x00\x01\x08\x01", "not an IDX file"),
    (b"\x00\x00\x07\x01", "type code"),
    (b"\x00\x00\x08\x03\x00\x00", "ends inside its header"),
    (struct.pack(">BBBBi", 0, 0, 8, 1, 4) + b"\x01\x02", r"shape \(4,\).*holds 2 bytes"),
    (struct.pack(">BBBBii", 0, 0, 8, 2, 2 ** 31 - 1, 2 ** 31 - 1), "announces shape"),
])
def test_a_bad_file_is_refused_with_the_reason(raw, message):
    with pytest.raises(ValueError, match=message):
        parse_idx(raw, "f")


def test_inflating_stops_at_the_bound_set_by_the_file_size(tmp_path, monkeypatch):
    """Deflate shrinks at most 1032:1, so no real gzip file reaches the bound; with a bound
    of 10:1 a file of zeros (about 1000:1) shows that reading stops there."""
    from dagrad.nn.datasets import idx
    path = tmp_path / "zeros-idx1-ubyte.gz"
    with gzip.open(path, "wb") as f:
        f.write(struct.pack(">BBBBi", 0, 0, 8, 1, 5_000_000) + bytes(5_000_000))
    monkeypatch.setattr(idx, "MAX_DEFLATE_RATIO", 10)
    with pytest.raises(ValueError, match="inflates to more than"):
        read_idx(path)


def test_a_broken_gzip_file_is_a_value_error(tmp_path):
    path = tmp_path / "broken.gz"
    path.write_bytes(b"\x1f\x8b\x08\x00garbage")
    with pytest.raises(ValueError, match="not a readable gzip file"):
        read_idx(path)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.binary(max_size=64))
def test_fuzz_any_bytes_give_an_array_or_a_value_error(raw):
    try:
        out = parse_idx(raw)
    except ValueError:
        return
    assert out.nbytes <= len(raw)


@settings(max_examples=200, deadline=None)
@given(st.lists(st.integers(0, 4), min_size=0, max_size=3), st.integers(0, 255))
def test_fuzz_a_valid_header_with_wrong_data_length(shape, extra):
    raw = _idx(np.zeros(shape, np.uint8))
    body = raw + bytes(extra)
    if extra:
        with pytest.raises(ValueError, match="announces shape"):
            parse_idx(body)
    else:
        assert parse_idx(body).shape == tuple(shape)
