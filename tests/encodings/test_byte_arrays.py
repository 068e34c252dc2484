"""ByteArrays, the Arrow-layout representation of BYTE_ARRAY values."""

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from parquet_codec.encodings import byte_arrays
from parquet_codec.encodings.byte_arrays import ByteArrays, ByteArraysBuilder, copy_ranges, gather_ranges

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


def _stream(rng: np.random.Generator, lengths: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Bytes holding each value after a 4-byte gap (as in a PLAIN stream), and the value starts."""
    starts = (np.cumsum(lengths + 4) - lengths).astype(np.int64)
    return rng.integers(0, 256, int(lengths.sum()) + 4 * len(lengths), dtype=np.uint8), starts


def _pieces(data: np.ndarray, starts: np.ndarray, lengths: np.ndarray) -> list[bytes]:
    return [bytes(data[s : s + n]) for s, n in zip(starts, lengths, strict=True)]


def _joined(data: np.ndarray, starts: np.ndarray, lengths: np.ndarray) -> bytes:
    return b"".join(_pieces(data, starts, lengths))


def _length_shapes(rng: np.random.Generator, n: int) -> dict[str, np.ndarray]:
    common = np.full(n, 19)
    short_run = common.copy()
    short_run[n // 3 : n // 3 + 40] = rng.integers(0, 9, 40)  # windows spilling over several values
    return {
        "mostly one length": np.where(rng.random(n) < 0.1, rng.integers(0, 25, n), common),
        "a run of short values": short_run,
        "some empty": np.where(rng.random(n) < 0.2, 0, common),
        "few lengths": rng.integers(30, 33, n),
        "many lengths": rng.integers(0, 60, n),
        "tiny": rng.integers(0, 4, n),
        "one length": common,
    }


@pytest.mark.parametrize("passes", [1, 8])
@pytest.mark.parametrize("shape", list(_length_shapes(np.random.default_rng(0), 100)))
def test_copy_ranges_agrees_with_slices(monkeypatch, shape, passes):
    monkeypatch.setattr(byte_arrays, "_WINDOW_PASSES", passes)
    rng = np.random.default_rng(passes)
    lengths = _length_shapes(rng, 3000)[shape].astype(np.int64)
    data, starts = _stream(rng, lengths)
    shuffled = rng.permutation(len(lengths))  # ranges in any order, as a dictionary take reads them
    for order in (np.arange(len(lengths)), shuffled):
        offsets = np.concatenate(([0], np.cumsum(lengths[order])))
        out = np.full(int(offsets[-1]) + 50, 7, dtype=np.uint8)  # bytes past the end may be overwritten
        copy_ranges(data, starts[order], lengths[order], offsets, out)
        expected = _joined(data, starts[order], lengths[order])
        assert out[: offsets[-1]].tobytes() == expected
        assert gather_ranges(data, starts[order], lengths[order])[1].tobytes() == expected


def test_copy_ranges_reads_short_values_at_the_end_of_the_data():
    data = np.frombuffer(b"0123456789abcdefghij" * 3, dtype=np.uint8)
    lengths = np.array([10] * 5 + [3, 2], dtype=np.int64)
    starts = np.array([0, 10, 20, 30, 50, 57, 58], dtype=np.int64)
    offsets = np.concatenate(([0], np.cumsum(lengths)))
    out = np.zeros(int(offsets[-1]), dtype=np.uint8)
    copy_ranges(data, starts, lengths, offsets, out)
    assert out.tobytes() == _joined(data, starts, lengths)


@pytest.mark.parametrize(("parts", "count"), [(1, 0), (64, 0), (64, 10), (64, 3207), (64, 100_000)])
def test_builder_joins_parts_of_every_kind(monkeypatch, parts, count):
    # parts 1: each part outgrows the blocks; count: the values announced
    # (none, too few, all 3,207 of them, far too many).
    monkeypatch.setattr(byte_arrays, "_GUESSED_PARTS", parts)
    rng = np.random.default_rng(parts)
    dictionary = ByteArrays.from_pylist([rng.bytes(int(k)) for k in rng.integers(0, 30, 40)])
    codes = ByteArrays.from_pylist([rng.bytes(5) for _ in range(6)])
    builder, expected = ByteArraysBuilder(expected=count), []
    for lengths in (np.full(500, 12), np.where(rng.random(300) < 0.2, 3, 12), np.zeros(0, dtype=np.int64)):
        data, starts = _stream(rng, lengths)
        builder.append_ranges(data, starts, lengths)
        expected += _pieces(data, starts, lengths)
        for values in (dictionary, codes):
            idx = rng.integers(0, len(values), 200)
            builder.append_take(values, idx)
            expected += [values.to_pylist()[i] for i in idx]
        sliced = ByteArrays(dictionary.offsets[3:], dictionary.data)
        builder.append(sliced)
        expected += sliced.to_pylist()
    got = builder.finish()
    assert got.offsets[0] == 0 and got.offsets.dtype == np.int64 and len(got.data) == got.offsets[-1]
    assert got.to_pylist() == expected


def test_builder_sized_from_the_values_announced():
    # A short first page, then pages of a few more bytes a value: the blocks
    # are sized once, from the count and the first page (64 first pages
    # would not hold them), and kept whole by the result.
    builder = ByteArraysBuilder(expected=40_000)
    builder.append(ByteArrays.from_pylist([b"y" * 20] * 100))
    for _ in range(3):
        builder.append(ByteArrays.from_pylist([b"z" * 21] * 13_300))
    assert len(builder._offsets.blocks) == len(builder._data.blocks) == 1
    blocks = builder._offsets.blocks[0], builder._data.blocks[0]
    got = builder.finish()
    assert len(got) == 40_000 and got.offsets[-1] == 839_900 and bytes(got.data[-2:]) == b"zz"
    assert np.shares_memory(got.offsets, blocks[0]) and np.shares_memory(got.data, blocks[1])


def test_builder_of_nothing():
    got = ByteArraysBuilder().finish()
    assert got.offsets.tolist() == [0] and got.to_pylist() == []


def test_taken_size():
    values = ByteArrays.from_pylist([b"ab", b"", b"cde"])
    assert values.taken_size(np.array([2, 2, 1, 0])) == 8
    codes = ByteArrays.from_pylist([b"xy", b"zw"])
    assert codes.taken_size(np.zeros(20, dtype=np.int64)) == 40


def test_values_longer_than_the_scratch_are_copied_one_by_one(monkeypatch):
    monkeypatch.setattr(byte_arrays, "_GATHER_CHUNK_BYTES", 16)
    rng = np.random.default_rng(3)
    lengths = np.where(rng.random(200) < 0.3, 40, 20).astype(np.int64)
    data, starts = _stream(rng, lengths)
    offsets = np.concatenate(([0], np.cumsum(lengths)))
    out = np.zeros(int(offsets[-1]), dtype=np.uint8)
    copy_ranges(data, starts, lengths, offsets, out)
    assert out.tobytes() == _joined(data, starts, lengths)


def test_a_mostly_unused_pooled_block_is_not_kept_alive_by_the_result():
    part = ByteArrays.from_pylist([b"x" * 100] * 1000)  # 100 KB: the first block is guessed far larger, and pooled
    builder = ByteArraysBuilder()
    builder.append(part)
    data = builder.finish().data
    assert data.nbytes == 100_000 and (data.base is None or data.base.nbytes < 2 * data.nbytes)
    assert bytes(data[:3]) == b"xxx"
