"""ByteArrays, the Arrow-layout representation of BYTE_ARRAY values."""

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from parquet_codec.encodings import byte_arrays
from parquet_codec.encodings.byte_arrays import ByteArrays, gather_ranges

VALUES = st.lists(st.binary(max_size=20), max_size=30)


@given(VALUES)
def test_pylist_round_trip(values):
    ba = ByteArrays.from_pylist(values)
    assert len(ba) == len(values)
    assert ba.offsets.dtype == np.int64 and ba.offsets[0] == 0
    assert ba.data.dtype == np.uint8
    assert ba.to_pylist() == values
    assert ba.lengths().tolist() == [len(v) for v in values]


def test_empty():
    ba = ByteArrays.from_pylist([])
    assert len(ba) == 0 and ba.offsets.tolist() == [0] and ba.to_pylist() == []
    assert ba.take(np.array([], dtype=np.int64)).to_pylist() == []


def test_str_values_are_utf8():
    assert ByteArrays.from_pylist(["é", b"x"]).to_pylist() == ["é".encode(), b"x"]


@given(VALUES.filter(len), st.data())
def test_take(values, data):
    indices = data.draw(st.lists(st.integers(0, len(values) - 1), max_size=40))
    taken = ByteArrays.from_pylist(values).take(np.array(indices, dtype=np.int64))
    assert taken.to_pylist() == [values[i] for i in indices]


@pytest.mark.parametrize("width", [0, 1, 15])
def test_take_many_of_one_length_as_rows(width):
    rng = np.random.default_rng(width)
    values = [bytes(rng.integers(0, 256, width, dtype=np.uint8)) for _ in range(30)]
    base = ByteArrays.from_pylist([b"xyz"] + values)  # a slice not starting at 0
    sliced = ByteArrays(base.offsets[1:], base.data)
    indices = rng.integers(0, 30, 500)
    taken = sliced.take(indices)
    assert taken.offsets[0] == 0 and taken.to_pylist() == [values[i] for i in indices]


def test_take_long_values_in_chunks(monkeypatch):
    monkeypatch.setattr(byte_arrays, "_GATHER_CHUNK_BYTES", 7)
    values = [b"", b"a" * 30, b"bc", b"", b"defgh" * 3]
    indices = [4, 1, 0, 2, 3, 1, 4]
    assert ByteArrays.from_pylist(values).take(indices).to_pylist() == [values[i] for i in indices]


def test_gather_ranges_equal_lengths():
    data = np.arange(20, dtype=np.uint8)
    offsets, out = gather_ranges(data, np.array([5, 0, 16]), np.array([4, 4, 4]))
    assert offsets.tolist() == [0, 4, 8, 12]
    assert out.tolist() == [5, 6, 7, 8, 0, 1, 2, 3, 16, 17, 18, 19]


def test_equality():
    a = ByteArrays.from_pylist([b"ab", b""])
    assert a == ByteArrays.from_pylist([b"ab", b""])
    assert a != ByteArrays.from_pylist([b"a", b"b"])
    assert a != ByteArrays.from_pylist([b"ab"])
    with pytest.raises(TypeError):
        hash(a)


def test_from_fixed_and_from_lengths():
    rows = np.array([[1, 2], [3, 4]], dtype=np.uint8)
    assert ByteArrays.from_fixed(rows).to_pylist() == [b"\x01\x02", b"\x03\x04"]
    assert ByteArrays.from_lengths([1, 0, 2], b"abc").to_pylist() == [b"a", b"", b"bc"]
    with pytest.raises(ValueError):
        ByteArrays.from_lengths([1, 1], b"abc")
