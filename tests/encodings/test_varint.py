"""ULEB128 / zigzag helpers (spec: "varint-encode() is ULEB-128 encoding", delta encoding)."""

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from parquet_codec.encodings.varint import (
    decoding_error,
    encode_uleb128,
    encode_uleb128_array,
    read_uleb128,
    read_zigzag,
    views,
    zigzag_decode,
    zigzag_decode_array,
    zigzag_encode,
    zigzag_encode_array,
)
from parquet_codec.errors import DecodingError

U64 = st.integers(0, 2**64 - 1)
I64 = st.integers(-(2**63), 2**63 - 1)


@pytest.mark.parametrize(
    ("value", "encoded"),
    [
        (0, "00"),
        (1, "01"),
        (127, "7f"),
        (128, "8001"),
        (300, "ac02"),
        (2**64 - 1, "ffffffffffffffffff01"),
    ],
)
def test_uleb128_known_bytes(value, encoded):
    assert encode_uleb128(value).hex() == encoded
    assert read_uleb128(bytes.fromhex(encoded), 0, "TEST") == (value, len(encoded) // 2)


@pytest.mark.parametrize(("value", "raw"), [(0, 0), (-1, 1), (1, 2), (-2, 3), (2**63 - 1, 2**64 - 2), (-(2**63), 2**64 - 1)])
def test_zigzag_known_values(value, raw):
    assert zigzag_encode(value) == raw
    assert zigzag_decode(raw) == value


@given(st.lists(U64, max_size=20), st.binary(max_size=3))
def test_uleb128_round_trip_in_a_stream(values, prefix):
    data = prefix + b"".join(encode_uleb128(v) for v in values)
    pos = len(prefix)
    for v in values:
        got, pos = read_uleb128(memoryview(data), pos, "TEST")
        assert got == v
    assert pos == len(data)


@given(st.lists(U64, max_size=50))
def test_uleb128_array_matches_scalar(values):
    data, lengths = encode_uleb128_array(np.array(values, dtype=np.uint64))
    assert data.tobytes() == b"".join(encode_uleb128(v) for v in values)
    assert lengths.tolist() == [len(encode_uleb128(v)) for v in values]


@given(st.lists(I64, max_size=50))
def test_zigzag_arrays_match_scalar(values):
    raw = zigzag_encode_array(np.array(values, dtype=np.int64))
    assert raw.tolist() == [zigzag_encode(v) for v in values]
    assert zigzag_decode_array(raw).view(np.int64).tolist() == values


@given(I64)
def test_read_zigzag(value):
    assert read_zigzag(encode_uleb128(zigzag_encode(value)), 0, "TEST") == (value, len(encode_uleb128(zigzag_encode(value))))


@pytest.mark.parametrize(
    ("data", "message"),
    [
        (b"", "missing"),
        (b"\x80", "truncated"),
        (b"\xff" * 9, "truncated"),
        (b"\xff" * 10 + b"\x01", "longer than 10 bytes"),
        (b"\xff" * 9 + b"\x02", "exceeds 64 bits"),
    ],
)
def test_malformed_uleb128(data, message):
    with pytest.raises(DecodingError, match=f"^TEST: .*{message}.* at byte 1$"):
        read_uleb128(b"\x00" + data, 1, "TEST")


@pytest.mark.parametrize("value", [-1, 2**64])
def test_encode_out_of_range(value):
    with pytest.raises(ValueError):
        encode_uleb128(value)
    with pytest.raises(ValueError):
        zigzag_encode(value if value > 0 else -(2**63) - 1)


@pytest.mark.parametrize(
    "data", [b"\x01\x02", bytearray(b"\x01\x02"), memoryview(b"\x01\x02"), np.array([1, 2], dtype=np.uint8)]
)
def test_views_accept_buffers(data):
    mv, arr = views(data)
    assert mv[1] == 2 and isinstance(mv[1], int)
    assert arr.dtype == np.uint8 and arr.tolist() == [1, 2]


def test_error_format():
    err = decoding_error("DELTA_BINARY_PACKED", "miniblock bit width 70 > 64", 12)
    assert isinstance(err, DecodingError)
    assert str(err) == "DELTA_BINARY_PACKED: miniblock bit width 70 > 64 at byte 12"
