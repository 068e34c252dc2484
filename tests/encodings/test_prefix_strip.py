"""Length prefixes cut out word by word (encodings.prefix_strip), against the
range-by-range copy (encodings.byte_arrays), at every buffer alignment."""

from __future__ import annotations

import numpy as np
import pytest

from parquet_codec.encodings.byte_arrays import ByteArraysBuilder
from parquet_codec.encodings.plain import plain_byte_array_ranges
from parquet_codec.encodings.prefix_strip import strip_marked, strip_prefixes
from parquet_codec.encodings.prefix_walk import length_bytes


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


def _cut_text(arr: np.ndarray, count: int):
    """Found by length_bytes and cut by strip_marked, as column.py reads a text page."""
    located = length_bytes(arr, count)
    return None if located is None else strip_marked(arr, *located)


def _text_page(rng: np.random.Generator, lengths: np.ndarray) -> bytes:
    return b"".join(int(k).to_bytes(4, "little") + rng.integers(1, 256, int(k), dtype=np.uint8).tobytes()
                    for k in lengths)


@pytest.mark.parametrize("shift", range(4))
@pytest.mark.parametrize("low, high", [(4, 8), (15, 20), (4, 256)])
def test_text_found_and_cut_as_copied(shift, low, high):
    """Values without zero bytes: found by their length bytes and cut with
    that same mask, as the range-by-range copy gives them."""
    rng = np.random.default_rng(shift * 1000 + low + 7)
    for count in (1, 2, 7, 500, 20_000):
        raw = _text_page(rng, rng.integers(low, high, count))
        buffer = np.zeros(len(raw) + shift, dtype=np.uint8)
        buffer[shift:] = np.frombuffer(raw, dtype=np.uint8)
        stripped = _cut_text(buffer[shift:], count)
        offsets, data = _ranges_copy(*plain_byte_array_ranges(buffer[shift:], count)[:3])
        assert np.array_equal(stripped.offsets, offsets)
        assert np.array_equal(stripped.data, data)


def test_text_declined_unless_proven():
    """Pages the mask cannot cut exactly are declined (None), never cut wrongly:
    short or empty values, three zero bytes inside a value (a false place),
    trailing bytes, a wrong count, random corruption."""
    rng = np.random.default_rng(11)
    values = [rng.integers(1, 256, int(k), dtype=np.uint8).tobytes() for k in rng.integers(4, 40, 300)]

    def page(vals: list[bytes]) -> np.ndarray:
        return np.frombuffer(b"".join(len(v).to_bytes(4, "little") + v for v in vals), dtype=np.uint8)

    assert _cut_text(page(values), len(values)) is not None
    for at in range(12):
        for odd in (b"", b"ab", b"abc", b"a\0\0\0bcd", b"\0\0\0abcd", b"abcd\0\0\0", b"x" * 300):
            case = values[:at] + [odd] + values[at:60]
            got = _cut_text(page(case), len(case))
            assert got is None or got.to_pylist() == case
    assert _cut_text(np.concatenate([page(values), [1, 2]]).astype(np.uint8), len(values)) is None
    assert _cut_text(page(values), len(values) - 1) is None
    assert _cut_text(page(values), 0) is None
    data = page(values)
    for _ in range(300):
        noisy = data.copy()
        noisy[int(rng.integers(len(noisy)))] ^= np.uint8(1 << int(rng.integers(8)))
        got = _cut_text(noisy, len(values))
        if got is not None:
            arr, starts, lengths, _ = plain_byte_array_ranges(noisy, len(values))
            assert got.to_pylist() == [bytes(arr[s:s + n]) for s, n in zip(starts, lengths, strict=True)]
