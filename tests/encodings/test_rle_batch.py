"""Many RLE / bit-packing hybrid streams decoded together (encodings.rle_batch).

decode_streams is compared with stream-by-stream decoding in
tests/test_read_fast_paths.py; here, its streams of one RLE run each, and
decode_parsed_streams."""

from __future__ import annotations

import numpy as np
import pytest

from parquet_codec.encodings.rle import RleBitPackedHybrid
from parquet_codec.encodings.rle_batch import _single_runs, decode_parsed_streams, decode_streams
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


def _joined(streams: list[bytes]) -> tuple[np.ndarray, np.ndarray]:
    return (np.frombuffer(b"".join(streams), dtype=np.uint8),
            np.cumsum([0] + [len(s) for s in streams], dtype=np.int64))


@pytest.mark.parametrize("width", [1, 2, 7, 9, 17, 32])
def test_streams_of_one_rle_run_each(width):
    """Pages without nulls: each level stream one RLE run (headers of 1 to 3
    bytes), decoded by repeating the values; runs longer than the count too."""
    lengths, top = [1, 63, 64, 8191, 20000, 300], (1 << width) - 1
    values = [top, 0, 1 % (top + 1), top, top // 2, 0]
    streams = [encode_uleb128(n << 1) + v.to_bytes(8, "little")[: (width + 7) // 8]
               for n, v in zip(lengths, values, strict=True)]
    counts = np.array(lengths[:-1] + [299])
    data, bounds = _joined(streams)
    assert _single_runs(data, bounds, counts, width, np.uint64) is not None
    expected = np.concatenate([RleBitPackedHybrid.decode(s, width, int(c))[0] for s, c in zip(streams, counts, strict=True)])
    got = decode_streams(data, bounds, counts, width)
    assert got.dtype == expected.dtype
    np.testing.assert_array_equal(got, expected)


def test_single_runs_decline_anything_else():
    one = encode_uleb128(20 << 1) + b"\x01"
    for other, count in [(encode_uleb128(1 << 1 | 1) + b"\x05", 8),  # bit-packed
                         (encode_uleb128(5 << 1) + b"\x01", 6),  # covers too few values
                         (encode_uleb128(5 << 1) + b"\x02", 5),  # value wider than one bit
                         (b"\x80\x01\x01\x01", 64)]:  # two-byte header, then a trailing byte
        data, bounds = _joined([one, other])
        assert _single_runs(data, bounds, np.array([20, count]), 1, np.uint8) is None
    data, bounds = _joined([one, encode_uleb128(1 << 1 | 1) + b"\x05"])
    np.testing.assert_array_equal(decode_streams(data, bounds, np.array([20, 8]), 1),
                                  [1] * 20 + [1, 0, 1, 0, 0, 0, 0, 0])


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


def test_decode_parsed_streams_of_many_cut_streams():
    """Past a few hundred streams, the unread tails of their last groups are
    dropped by one deletion instead of joining the stretches between them."""
    rng = np.random.default_rng(0)
    streams = [_stream(rng, 5) for _ in range(600)]
    expected = np.concatenate([RleBitPackedHybrid.decode(data, 5, count)[0] for data, count in streams])
    np.testing.assert_array_equal(decode_parsed_streams([(data, 0, count) for data, count in streams], 5), expected)


def test_decode_parsed_streams_all_rle_and_empty():
    runs = RleBitPackedHybrid.encode([5] * 40, 3)
    np.testing.assert_array_equal(decode_parsed_streams([(runs, 0, 40), (runs, 0, 17)], 3), [5] * 57)


def test_decode_parsed_streams_reports_a_malformed_stream():
    good = RleBitPackedHybrid.encode(np.arange(64) % 8, 3)
    with pytest.raises(DecodingError, match="missing|needs"):
        decode_parsed_streams([(good, 0, 64), (good[:5], 0, 64)], 3)
    with pytest.raises(DecodingError, match="does not fit"):
        decode_parsed_streams([(good, 0, 64), (bytes([16, 9]), 0, 8)], 3)  # RLE value 9 in 3 bits


@pytest.mark.parametrize("width", [1, 2, 3])
def test_streams_with_a_run_of_no_values_are_left_to_the_page_decoder(width):
    """decode_streams declines them (None), so each page is decoded on its
    own and the corrupt one is reported; decode_parsed_streams reports it."""
    good = RleBitPackedHybrid.encode(np.arange(40) % 2, width)
    bad = bytes([0]) + good
    data = np.frombuffer(good + bad + good, dtype=np.uint8)
    bounds = np.array([0, len(good), len(good) + len(bad), len(data)])
    assert decode_streams(data, bounds, np.array([40, 40, 40]), width) is None
    with pytest.raises(DecodingError, match="run of 0 values"):
        decode_parsed_streams([(good, 0, 40), (bad, 0, 40)], width)
