"""Length prefixes cut out by a Snappy decoder (encodings.prefix_strip),
against the range-by-range copy (encodings.byte_arrays), at every buffer
alignment."""

from __future__ import annotations

import numpy as np
import pytest

from parquet_codec.encodings.byte_arrays import ByteArrays, ByteArraysBuilder
from parquet_codec.encodings.plain import plain_byte_array_ranges
from parquet_codec.encodings.prefix_strip import strip_prefixes, strippable
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


def _strip(arr: np.ndarray, prefixes: np.ndarray, lengths: np.ndarray) -> tuple[np.ndarray, np.ndarray] | None:
    """(offsets, data) as strip_prefixes gives them, from a copy of ``arr``
    (which it overwrites); None when the values are not strippable."""
    if not strippable(prefixes, lengths):
        return None
    builder = ByteArraysBuilder()
    strip_prefixes(arr.copy(), prefixes, lengths, builder.claim(lengths))
    values = builder.finish()
    return np.asarray(values.offsets), np.asarray(values.data)


@pytest.mark.parametrize("shift", range(4))
@pytest.mark.parametrize("low, high", [(1, 5), (4, 8), (15, 20), (4, 256), (200, 300), (60_000, 70_000)])
def test_cut_as_copied(shift, low, high):
    rng = np.random.default_rng(shift * 1000 + low)
    for count in (1, 2, 7, 500, 20_000 if high < 1000 else 50):
        lengths = rng.integers(low, high, count)
        lengths[0] = rng.integers(0, high)  # the first value may be empty
        raw = _page(rng, lengths)
        buffer = np.zeros(len(raw) + shift, dtype=np.uint8)
        buffer[shift:] = np.frombuffer(raw, dtype=np.uint8)
        arr, starts, found, _ = plain_byte_array_ranges(buffer[shift:], count)
        assert _strip(arr, starts - 4, found) is not None
        assert all(np.array_equal(a, b) for a, b in zip(_strip(arr, starts - 4, found),
                                                        _ranges_copy(arr, starts, found), strict=True))


def test_values_past_the_first_page_bytes():
    """Values after an offset into the buffer, the stream's varint of four bytes
    (a page of over 2**21 value bytes) written over a first value of none."""
    rng = np.random.default_rng(5)
    lengths = np.concatenate(([0], rng.integers(1000, 3000, 1500)))
    raw = np.frombuffer(b"junk" + _page(rng, lengths), dtype=np.uint8)
    arr, starts, found, _ = plain_byte_array_ranges(raw, len(lengths), offset=4)
    assert int(found.sum()) >= 1 << 21
    assert all(np.array_equal(a, b) for a, b in zip(_strip(arr, starts - 4, found),
                                                    _ranges_copy(arr, starts, found), strict=True))


@pytest.mark.parametrize("lengths", [[10, 0, 10], [5, 10, 0], [1, 1 << 24]])
def test_other_lengths_are_left_to_the_copy(lengths):
    """An empty value has no literal (but the first: it is copied out), and a
    literal's length has three bytes."""
    lengths = np.array(lengths)
    prefixes = np.concatenate(([0], np.cumsum(lengths + 4)[:-1]))
    assert not strippable(prefixes, lengths)
    assert strippable(prefixes[:1], lengths[:1])
    assert not strippable(prefixes[:0], lengths[:0])


def _cut_text(arr: np.ndarray, count: int):
    """Found by length_bytes and cut by strip_prefixes, as chunk_reader.py reads a text page."""
    located = length_bytes(arr, count)
    if located is None:
        return None
    prefixes, ends = located
    stripped = _strip(arr, prefixes, ends - prefixes - 4)
    return None if stripped is None else ByteArrays(*stripped)


def _text_page(rng: np.random.Generator, lengths: np.ndarray) -> bytes:
    return b"".join(int(k).to_bytes(4, "little") + rng.integers(1, 256, int(k), dtype=np.uint8).tobytes()
                    for k in lengths)


@pytest.mark.parametrize("shift", range(4))
@pytest.mark.parametrize("low, high", [(4, 8), (15, 20), (4, 256)])
def test_text_found_and_cut_as_copied(shift, low, high):
    """Values without zero bytes: found by their length bytes and cut, as
    the range-by-range copy gives them."""
    rng = np.random.default_rng(shift * 1000 + low + 7)
    for count in (1, 2, 7, 500, 20_000):
        raw = _text_page(rng, rng.integers(low, high, count))
        buffer = np.zeros(len(raw) + shift, dtype=np.uint8)
        buffer[shift:] = np.frombuffer(raw, dtype=np.uint8)
        stripped = _cut_text(buffer[shift:], count)
        offsets, data = _ranges_copy(*plain_byte_array_ranges(buffer[shift:], count)[:3])
        assert stripped is not None
        assert np.array_equal(stripped.offsets, offsets)
        assert np.array_equal(stripped.data, data)


def test_text_declined_unless_proven():
    """Pages whose prefixes the mask cannot prove are declined (None), never
    cut wrongly: short or empty values, three zero bytes inside a value (a
    false place), trailing bytes, a wrong count, random corruption."""
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
