"""BYTE_STREAM_SPLIT (spec, Encodings, "Byte Stream Split")."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from parquet_codec.encodings.byte_stream_split import ByteStreamSplit
from parquet_codec.errors import DecodingError
from parquet_codec.format.ttypes import Type

# Spec example: three 32-bit floats, given by their raw bytes.
ELEMENTS = bytes.fromhex("AABBCCDD" "00112233" "A3B4C5D6")
STREAMS = bytes.fromhex("AA00A3" "BB11B4" "CC22C5" "DD33D6")


def test_spec_example():
    floats = np.frombuffer(ELEMENTS, dtype="<f4")
    assert ByteStreamSplit.encode(floats, Type.FLOAT) == STREAMS
    decoded, consumed = ByteStreamSplit.decode(STREAMS, Type.FLOAT, 3)
    assert decoded.tobytes() == ELEMENTS and consumed == 12


@pytest.mark.parametrize(
    ("physical_type", "dtype"),
    [(Type.FLOAT, np.float32), (Type.DOUBLE, np.float64), (Type.INT32, np.int32), (Type.INT64, np.int64)],
)
@settings(max_examples=50)
@given(data=st.data())
def test_round_trip(physical_type, dtype, data):
    values = data.draw(hnp.arrays(dtype, st.integers(0, 40)))
    encoded = ByteStreamSplit.encode(values, physical_type)
    decoded, consumed = ByteStreamSplit.decode(b"?" + encoded + b"!", physical_type, len(values), offset=1)
    assert decoded.dtype == dtype and decoded.tobytes() == values.tobytes() and consumed == len(encoded)


def test_fixed_len_byte_array():
    rows = np.arange(15, dtype=np.uint8).reshape(5, 3)
    encoded = ByteStreamSplit.encode(rows, Type.FIXED_LEN_BYTE_ARRAY, type_length=3)
    assert encoded == bytes([0, 3, 6, 9, 12, 1, 4, 7, 10, 13, 2, 5, 8, 11, 14])
    decoded, _ = ByteStreamSplit.decode(encoded, Type.FIXED_LEN_BYTE_ARRAY, 5, type_length=3)
    assert np.array_equal(decoded, rows)


def test_truncated():
    with pytest.raises(DecodingError, match="BYTE_STREAM_SPLIT: 4 values need 16 bytes, only 12 left at byte 0"):
        ByteStreamSplit.decode(STREAMS, Type.FLOAT, 4)


@pytest.mark.parametrize("physical_type", [Type.BOOLEAN, Type.BYTE_ARRAY, Type.INT96])
def test_unsupported_types(physical_type):
    with pytest.raises(DecodingError, match="is not supported"):
        ByteStreamSplit.decode(STREAMS, physical_type, 1)
