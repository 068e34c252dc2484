"""1-bit RLE / bit-packing hybrid streams decoded a run at a time (encodings.rle_bits),
against stream-by-stream decoding (encodings.rle)."""

from __future__ import annotations

import numpy as np
import pytest

from parquet_codec.encodings.rle import RleBitPackedHybrid
from parquet_codec.encodings.rle_batch import decode_streams
from parquet_codec.encodings.rle_bits import decode_bit_streams
from parquet_codec.encodings.varint import encode_uleb128


def _levels(rng: np.random.Generator, n: int) -> np.ndarray:
    """Levels as a nullable column's: short runs, long runs (over 64, and over
    8191 for two-byte headers) or scattered nulls."""
    style = int(rng.integers(0, 4))
    if style == 0:
        return (rng.random(n) > 0.1).astype(np.uint64)
    if style == 1:
        return np.repeat(rng.integers(0, 2, n), rng.integers(1, 40, n))[:n].astype(np.uint64)
    if style == 2:
        return np.repeat(rng.integers(0, 2, 4), [n // 4 + 9000] * 4)[:n].astype(np.uint64)
    return rng.integers(0, 2, n).astype(np.uint64)


def _batch(rng: np.random.Generator, pages: int, size: int) -> tuple[list[bytes], np.ndarray]:
    counts = rng.integers(1, size, pages)
    return [RleBitPackedHybrid.encode(_levels(rng, int(c)), 1) for c in counts], counts


def _expected(streams: list[bytes], counts: np.ndarray) -> np.ndarray:
    return np.concatenate([RleBitPackedHybrid.decode(s, 1, int(c))[0] for s, c in zip(streams, counts, strict=True)])


def _joined(streams: list[bytes]) -> tuple[np.ndarray, np.ndarray]:
    return np.frombuffer(b"".join(streams), dtype=np.uint8), np.cumsum([0] + [len(s) for s in streams])


@pytest.mark.parametrize("seed", range(6))
def test_bit_streams_as_stream_by_stream(seed):
    rng = np.random.default_rng(seed)
    for size in (10, 300, 40_000):
        streams, counts = _batch(rng, int(rng.integers(1, 30)), size)
        data, bounds = _joined(streams)
        expected = _expected(streams, counts)
        got = decode_bit_streams(data, bounds, counts)
        if got is not None:  # two-byte headers are left to the general path
            np.testing.assert_array_equal(got, expected)
        np.testing.assert_array_equal(decode_streams(data, bounds, counts, 1), expected)


def test_long_headers_and_short_last_runs():
    """Runs of over 8191 values (two-byte headers), bit-packed runs a stream
    stops inside, and an RLE run covering more than its stream holds."""
    streams = [encode_uleb128(20_000 << 1) + b"\x01", encode_uleb128(3 << 1 | 1) + b"\xa5\x0f\xff",
               encode_uleb128(70 << 1) + b"\x01", encode_uleb128(9 << 1 | 1) + bytes(range(9))]
    counts = np.array([20_000, 21, 65, 70])
    data, bounds = _joined(streams)
    assert decode_bit_streams(data, bounds, counts) is None  # a long header: the general path
    np.testing.assert_array_equal(decode_streams(data, bounds, counts, 1), _expected(streams, counts))
    short = [streams[1], streams[2], streams[3]]
    data, bounds = _joined(short)
    np.testing.assert_array_equal(decode_bit_streams(data, bounds, counts[1:]), _expected(short, counts[1:]))


@pytest.mark.parametrize("value", [b"\x02", b"\xff"])
def test_a_repeated_value_over_one_is_not_decoded(value):
    streams = [encode_uleb128(1 << 1 | 1) + b"\x0f", encode_uleb128(40 << 1) + value]
    data, bounds = _joined(streams)
    assert decode_bit_streams(data, bounds, np.array([8, 40])) is None
    assert decode_streams(data, bounds, np.array([8, 40]), 1) is None
    long = [encode_uleb128(9000 << 1) + value]
    data, bounds = _joined(long)
    assert decode_streams(data, bounds, np.array([9000]), 1) is None
