"""Length prefixes cut out word by word (encodings.prefix_strip), against the
range-by-range copy (encodings.byte_arrays), at every buffer alignment."""

from __future__ import annotations

import numpy as np
import pytest

from parquet_codec.encodings.byte_arrays import ByteArraysBuilder
from parquet_codec.encodings.plain import plain_byte_array_ranges
from parquet_codec.encodings.prefix_strip import strip_prefixes


def _page(rng: np.random.Generator, lengths: np.ndarray) -> bytes:
    # Any bytes, zeros included: the cut does not look inside values.
    return b"".join(int(k).to_bytes(4, "little") + rng.integers(0, 256, int(k), dtype=np.uint8).tobytes()
                    for k in lengths)


def _ranges_copy(arr: np.ndarray, starts: np.ndarray, lengths: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    builder = ByteArraysBuilder()
    builder.append_ranges(arr, starts, lengths)
    values = builder.finish()
    return np.asarray(values.offsets), np.asarray(values.data)


@pytest.mark.parametrize("shift", range(4))
@pytest.mark.parametrize("low, high", [(4, 8), (15, 20), (4, 256), (200, 256)])
def test_cut_as_copied(shift, low, high):
    rng = np.random.default_rng(shift * 1000 + low)
    for count in (1, 2, 7, 500, 20_000):
        lengths = rng.integers(low, high, count)
        raw = _page(rng, lengths)
        buffer = np.zeros(len(raw) + shift, dtype=np.uint8)
        buffer[shift:] = np.frombuffer(raw, dtype=np.uint8)
        arr, starts, found, _ = plain_byte_array_ranges(buffer[shift:], count)
        stripped = strip_prefixes(arr, starts, found)
        offsets, data = _ranges_copy(arr, starts, found)
        assert np.array_equal(stripped.offsets, offsets)
        assert np.array_equal(stripped.data, data)


@pytest.mark.parametrize("lengths", [[3, 10, 10], [10, 256, 10], [0], [10, 10, 2]])
def test_other_lengths_are_left_to_the_copy(lengths):
    rng = np.random.default_rng(1)
    raw = np.frombuffer(_page(rng, np.array(lengths)), dtype=np.uint8)
    arr, starts, found, _ = plain_byte_array_ranges(raw, len(lengths))
    assert strip_prefixes(arr, starts, found) is None
    assert strip_prefixes(arr, starts[:0], found[:0]) is None
