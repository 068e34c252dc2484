"""Many RLE / bit-packing hybrid streams decoded together (encodings.rle_batch).

decode_streams is compared with stream-by-stream decoding in
tests/test_read_fast_paths.py; here, decode_parsed_streams."""

from __future__ import annotations

import numpy as np
import pytest

from parquet_codec.encodings.rle import RleBitPackedHybrid
from parquet_codec.encodings.rle_batch import decode_parsed_streams
from parquet_codec.encodings.varint import encode_uleb128
from parquet_codec.errors import DecodingError


def _stream(rng: np.random.Generator, width: int) -> tuple[bytes, int]:
    """Runs of both kinds, and a last bit-packed run that covers more values
    than the stream holds (any count, not only multiples of 8)."""
    out, count = bytearray(), 0
    for _ in range(int(rng.integers(0, 6))):
        if rng.random() < 0.4:
            length = int(rng.integers(1, 300))
            out += encode_uleb128(length << 1) + int(rng.integers(1 << width)).to_bytes(8, "little")[: (width + 7) // 8]
            count += length
        else:
            groups = int(rng.integers(1, 80))
            out += encode_uleb128(groups << 1 | 1) + rng.integers(0, 256, groups * width, dtype=np.uint8).tobytes()
            count += 8 * groups
    groups = int(rng.integers(1, 4))
    out += encode_uleb128(groups << 1 | 1) + rng.integers(0, 256, groups * width, dtype=np.uint8).tobytes()
    return bytes(out), count + 8 * groups - int(rng.integers(0, 8))


@pytest.mark.parametrize("width", [1, 3, 8, 13, 17, 32])
def test_decode_parsed_streams_agrees_with_stream_by_stream(width):
    rng = np.random.default_rng(width)
    for _ in range(20):
        streams = [_stream(rng, width) for _ in range(int(rng.integers(1, 8)))]
        # Each stream after a prefix byte, as dictionary pages hold them (the width byte).
        parts = [(b"\x99" + data, 1, count) for data, count in streams]
        expected = np.concatenate([RleBitPackedHybrid.decode(data, width, count)[0] for data, count in streams])
        got = decode_parsed_streams(parts, width)
        assert got.dtype == expected.dtype
        np.testing.assert_array_equal(got, expected)


def test_decode_parsed_streams_all_rle_and_empty():
    runs = RleBitPackedHybrid.encode([5] * 40, 3)
    np.testing.assert_array_equal(decode_parsed_streams([(runs, 0, 40), (runs, 0, 17)], 3), [5] * 57)


def test_decode_parsed_streams_reports_a_malformed_stream():
    good = RleBitPackedHybrid.encode(np.arange(64) % 8, 3)
    with pytest.raises(DecodingError, match="missing|needs"):
        decode_parsed_streams([(good, 0, 64), (good[:5], 0, 64)], 3)
    with pytest.raises(DecodingError, match="does not fit"):
        decode_parsed_streams([(good, 0, 64), (bytes([16, 9]), 0, 8)], 3)  # RLE value 9 in 3 bits
