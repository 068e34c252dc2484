"""PLAIN encoding for all physical types (spec, Encodings, "Plain")."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from parquet_codec.encodings.byte_arrays import ByteArrays
from parquet_codec.encodings.plain import decode_plain, encode_plain, plain_byte_array_ranges
from parquet_codec.errors import DecodingError
from parquet_codec.format.ttypes import Type


@pytest.mark.parametrize(
    ("physical_type", "values", "encoded"),
    [
        (Type.BOOLEAN, [True, False, True, True, False, False, False, False, True], "0d01"),
        (Type.INT32, [1, -2], "01000000feffffff"),
        (Type.INT64, [-(2**63)], "0000000000000080"),
        (Type.FLOAT, [1.0], "0000803f"),
        (Type.DOUBLE, [-2.0], "00000000000000c0"),
        (Type.BYTE_ARRAY, [b"hi", b""], "020000006869" + "00000000"),
    ],
)
def test_known_bytes(physical_type, values, encoded):
    assert encode_plain(values, physical_type).hex() == encoded
    decoded, consumed = decode_plain(bytes.fromhex(encoded), physical_type, len(values))
    assert consumed == len(encoded) // 2
    got = decoded.to_pylist() if isinstance(decoded, ByteArrays) else decoded.tolist()
    assert got == values


NUMERIC = [
    (Type.BOOLEAN, np.bool_),
    (Type.INT32, np.int32),
    (Type.INT64, np.int64),
    (Type.FLOAT, np.float32),
    (Type.DOUBLE, np.float64),
]


@pytest.mark.parametrize(("physical_type", "dtype"), NUMERIC)
@settings(max_examples=50)
@given(data=st.data())
def test_numeric_round_trip(physical_type, dtype, data):
    values = data.draw(hnp.arrays(dtype, st.integers(0, 50)))
    prefix = data.draw(st.binary(max_size=3))
    encoded = encode_plain(values, physical_type)
    decoded, consumed = decode_plain(prefix + encoded + b"tail", physical_type, len(values), offset=len(prefix))
    assert consumed == len(encoded)
    assert decoded.dtype == dtype and decoded.flags.writeable
    assert decoded.tobytes() == values.tobytes()  # bit-exact, NaNs included


@given(st.lists(st.binary(max_size=30), max_size=30))
def test_byte_array_round_trip(values):
    encoded = encode_plain(values, Type.BYTE_ARRAY)
    decoded, consumed = decode_plain(b"xx" + encoded, Type.BYTE_ARRAY, len(values), offset=2)
    assert decoded.to_pylist() == values and consumed == len(encoded)


@pytest.mark.parametrize(
    "values",
    [
        [b"abc"] * 5,  # equal lengths: vectorized fast path
        [b"abc"] * 4 + [b"abcd"],  # fast path rejected at the last value
        [b"", b"", b""],
        [b"x" * 100_000, b"", b"y" * 100_000],
    ],
)
def test_byte_array_shapes(values):
    decoded, consumed = decode_plain(encode_plain(values, Type.BYTE_ARRAY), Type.BYTE_ARRAY, len(values))
    assert decoded.to_pylist() == values


def test_int96_and_fixed_len_byte_array_rows():
    rows = np.arange(24, dtype=np.uint8).reshape(2, 12)
    decoded, consumed = decode_plain(encode_plain(rows, Type.INT96), Type.INT96, 2)
    assert decoded.shape == (2, 12) and np.array_equal(decoded, rows) and consumed == 24
    encoded = encode_plain([b"abc", b"def"], Type.FIXED_LEN_BYTE_ARRAY, type_length=3)
    decoded, consumed = decode_plain(encoded, Type.FIXED_LEN_BYTE_ARRAY, 2, type_length=3)
    assert encoded == b"abcdef" and decoded.shape == (2, 3) and consumed == 6
    assert encode_plain(ByteArrays.from_pylist([b"ab"]), Type.FIXED_LEN_BYTE_ARRAY, type_length=2) == b"ab"


def test_unsigned_input_is_stored_as_twos_complement():
    encoded = encode_plain(np.array([2**32 - 1], dtype=np.uint32), Type.INT32)
    assert decode_plain(encoded, Type.INT32, 1)[0].tolist() == [-1]


@pytest.mark.parametrize(
    ("physical_type", "values"),
    [(Type.INT32, [2**31]), (Type.INT32, np.array([2**31], dtype=np.int64)), (Type.INT64, [2**63])],
)
def test_encode_rejects_out_of_range(physical_type, values):
    with pytest.raises(ValueError):
        encode_plain(values, physical_type)


def test_encode_rejects_wrong_fixed_width():
    with pytest.raises(ValueError):
        encode_plain([b"ab", b"c"], Type.FIXED_LEN_BYTE_ARRAY, type_length=2)


@pytest.mark.parametrize(
    ("data", "physical_type", "count", "message"),
    [
        (b"\x00" * 7, Type.INT64, 1, "PLAIN: 1 INT64 values need 8 bytes, only 7 remain at byte 0"),
        (b"\x00", Type.BOOLEAN, 9, "9 BOOLEAN values need 2 bytes"),
        (b"\x05\x00\x00\x00abc", Type.BYTE_ARRAY, 1, "value 0 of length 5 runs past the end of data .* at byte 0"),
        (b"\x01\x00\x00\x00a\x05\x00\x00\x00abc", Type.BYTE_ARRAY, 2, "value 1 of length 5 .* at byte 5"),
        (b"\x01\x00\x00\x00a\x01\x00\x00\x00b\x01\x00", Type.BYTE_ARRAY, 3, "value 2 length prefix truncated at byte 10"),
        (b"\x00" * 8, Type.BYTE_ARRAY, 3, "3 BYTE_ARRAY values need 12 bytes"),
        (b"", Type.FIXED_LEN_BYTE_ARRAY, 1, "type_length"),
    ],
)
def test_malformed(data, physical_type, count, message):
    with pytest.raises(DecodingError, match=message):
        decode_plain(data, physical_type, count)


@given(st.lists(st.binary(max_size=30), max_size=50), st.integers(0, 5))
def test_byte_array_ranges_locate_what_decode_plain_copies(values, offset):
    data = b"?" * offset + encode_plain(values, Type.BYTE_ARRAY)
    arr, starts, lengths, consumed = plain_byte_array_ranges(data, len(values), offset=offset)
    assert [bytes(arr[s : s + n]) for s, n in zip(starts, lengths, strict=True)] == values
    assert consumed == decode_plain(data, Type.BYTE_ARRAY, len(values), offset=offset)[1]


def test_byte_array_ranges_report_malformed_data():
    with pytest.raises(DecodingError, match="value 1 of length 5"):
        plain_byte_array_ranges(b"\x01\x00\x00\x00a\x05\x00\x00\x00abc", 2)
    with pytest.raises(ValueError, match="negative count"):
        plain_byte_array_ranges(b"", -1)


def test_huge_count_is_rejected_before_allocation():
    with pytest.raises(DecodingError):
        decode_plain(b"\x00" * 16, Type.BYTE_ARRAY, 2**60)
    with pytest.raises(DecodingError):
        decode_plain(b"\x00" * 16, Type.DOUBLE, 2**60)
