"""The write path's array kernels against simple references on random data:
distinct byte strings and hash-table lookups, LSB-first bit packing, RLE run
detection, PLAIN byte arrays and lexicographic bounds."""

from __future__ import annotations

import itertools
import os
import struct

import numpy as np
import pytest

from parquet_codec import distinct as distinct_module
from parquet_codec.arrays import BinaryArray
from parquet_codec.distinct import _Table, distinct, distinct_bytes, distinct_values, word_matrix
from parquet_codec.encodings.bitpack import pack, unpack
from parquet_codec.encodings.byte_arrays import ByteArrays, unaligned_words, words_at
from parquet_codec.encodings.delta import _common_prefixes
from parquet_codec.encodings.plain import _encode_byte_arrays, plain_byte_arrays
from parquet_codec.encodings.rle import RleBitPackedHybrid, _encode, _long_runs, _single_run
from parquet_codec.levels import shred
from parquet_codec.schema import Schema, list_, primitive
from parquet_codec.statistics import _lex_argminmax
from parquet_codec.table import Table


def _strings(rng: np.random.Generator, n: int, lengths: np.ndarray, alphabet: int = 3) -> list[bytes]:
    """Byte strings over a tiny alphabet, so equal strings and shared prefixes are common."""
    return [bytes(rng.integers(0, alphabet, int(k), dtype=np.uint8)) for k in lengths[:n]]


def _arrays(items: list[bytes]) -> tuple[np.ndarray, np.ndarray]:
    offsets = np.zeros(len(items) + 1, dtype=np.int64)
    np.cumsum([len(i) for i in items], out=offsets[1:])
    return offsets, np.frombuffer(b"".join(items), dtype=np.uint8).copy()


def _reference_ids(items: list) -> tuple[list[int], list[int]]:
    table: dict = {}
    ids, first = [], []
    for i, item in enumerate(items):
        if item not in table:
            table[item] = len(first)
            first.append(i)
        ids.append(table[item])
    return ids, first


def _check_partition(found, items: list) -> None:
    """Same partition into entries as the reference, each entry first seen where it says."""
    ids, first = _reference_ids(items)
    ours = found.ids.tolist()
    for value_ids, group in itertools.groupby(sorted(range(len(items)), key=lambda i: ids[i]), key=lambda i: ids[i]):
        members = list(group)
        assert len({ours[i] for i in members}) == 1, value_ids
    assert len(set(ours)) == len(first) == found.size
    assert found.first.tolist() == first and ours == ids  # entries numbered by first appearance
    assert all(items[int(found.first[ours[i]])] == items[i] for i in range(len(items)))


LENGTH_SHAPES = {
    "equal-16": lambda rng, n: np.full(n, 16),
    "equal-5": lambda rng, n: np.full(n, 5),
    "varied": lambda rng, n: rng.integers(0, 20, n),
    "skewed": lambda rng, n: np.where(rng.random(n) < 0.01, 200, rng.integers(0, 3, n)),
    "empty": lambda rng, n: np.zeros(n, dtype=np.int64),
}


@pytest.mark.parametrize("shape", sorted(LENGTH_SHAPES))
@pytest.mark.parametrize("probe", [7, 100_000])
def test_distinct_bytes_matches_a_dict(shape: str, probe: int) -> None:
    rng = np.random.default_rng(len(shape) + probe)
    items = _strings(rng, 3000, LENGTH_SHAPES[shape](rng, 3000), alphabet=2)
    offsets, data = _arrays(items)
    _check_partition(distinct_bytes(offsets, data, probe), items)


def test_distinct_bytes_survives_hash_collisions(monkeypatch: pytest.MonkeyPatch) -> None:
    rng = np.random.default_rng(3)
    items = _strings(rng, 500, rng.integers(0, 12, 500))
    offsets, data = _arrays(items)
    monkeypatch.setattr(distinct_module, "_matrix_keys", lambda lengths, rows: np.zeros(len(lengths), np.uint64))
    monkeypatch.setattr(distinct_module, "byte_keys", lambda offsets, data: np.zeros(len(offsets) - 1, np.uint64))
    _check_partition(distinct_bytes(offsets, data, 50), items)


def test_word_matrix_rows_are_zero_padded_strings() -> None:
    rng = np.random.default_rng(4)
    items = _strings(rng, 200, rng.integers(0, 30, 200), alphabet=256)
    offsets, data = _arrays(items)
    rows = word_matrix(offsets, data[:])
    width = rows.shape[1]
    for item, row in zip(items, rows, strict=True):
        assert row.astype("<u8").tobytes() == item.ljust(8 * width, b"\0")
    assert word_matrix(*_arrays([b"x" * 100] + [b""] * 10)) is None  # too uneven to pad


def test_fixed_width_rows_distinct() -> None:
    rng = np.random.default_rng(5)
    rows = rng.integers(0, 2, (2000, 12), dtype=np.uint8)
    _check_partition(distinct_values(rows, 64), [r.tobytes() for r in rows])


def test_table_lookup_matches_search() -> None:
    rng = np.random.default_rng(6)
    known = np.unique(np.concatenate((np.zeros(1, np.uint64), rng.integers(0, 2**64, 5000, dtype=np.uint64))))
    queries = np.concatenate((rng.choice(known, 20000), rng.integers(0, 2**64, 20000, dtype=np.uint64)))
    at = np.minimum(np.searchsorted(known, queries), len(known) - 1)
    expected = np.where(known[at] == queries, at, -1)
    np.testing.assert_array_equal(_Table(known).lookup(queries), expected)


def test_distinct_numbers_with_probe() -> None:
    rng = np.random.default_rng(7)
    keys = rng.integers(0, 300, 10000).astype(np.uint64)
    _check_partition(distinct(keys, 100), keys.tolist())


def test_distinct_stops_soon_after_the_limit() -> None:
    """With a limit the count covers a prefix of the values, numbered as a full count numbers them."""
    rng = np.random.default_rng(11)
    keys = rng.integers(0, 5000, 40_000).astype(np.uint64)
    full = distinct(keys, 1000)
    part = distinct(keys, 1000, entry_bytes=lambda first: 8 * len(first), limit=8 * 1000)
    assert 1000 < part.size < full.size and len(part.ids) < len(keys)
    np.testing.assert_array_equal(part.ids, full.ids[: len(part.ids)])
    np.testing.assert_array_equal(part.first, full.first[: part.size])


def test_distinct_of_one_length_strings_survives_collisions(monkeypatch: pytest.MonkeyPatch) -> None:
    rng = np.random.default_rng(12)
    items = _strings(rng, 400, np.full(400, 16), alphabet=2)  # one length: rows laid out contiguously
    offsets, data = _arrays(items)
    monkeypatch.setattr(distinct_module, "_matrix_keys", lambda lengths, _: np.zeros(len(lengths), np.uint64))
    _check_partition(distinct_bytes(offsets, data, 50), items)


def test_words_at_matches_padded_words() -> None:
    rng = np.random.default_rng(13)
    for size in (0, 3, 8, 9, 40):
        data = rng.integers(0, 256, size + 5, dtype=np.uint8)[2 : 2 + size]  # a view into a larger buffer
        positions = rng.integers(0, size + 12, 200)
        expected = unaligned_words(data)[np.minimum(positions, size)]
        np.testing.assert_array_equal(words_at(data, positions), expected)


def _reference_pack(values: np.ndarray, width: int) -> bytes:
    bits = 0
    for i, v in enumerate(values.tolist()):
        bits |= v << (i * width)
    return bits.to_bytes((len(values) * width + 7) // 8, "little")


@pytest.mark.parametrize("width", [1, 2, 5, 7, 9, 10, 13, 17, 24, 31, 33, 47, 57, 63])
@pytest.mark.parametrize("count", [1, 8, 13, 64, 1001])
def test_pack_lsb_matches_bitwise_reference(width: int, count: int) -> None:
    rng = np.random.default_rng(width * 1000 + count)
    values = rng.integers(0, 1 << width, count, dtype=np.uint64)
    packed = pack(values, width)
    assert packed == _reference_pack(values, width)
    np.testing.assert_array_equal(unpack(packed, width, count), values)


def _reference_runs(values: list[int], shortest: int) -> list[tuple[int, int]]:
    runs, at = [], 0
    for _, group in itertools.groupby(values):
        size = len(list(group))
        if size >= shortest:
            runs.append((at, at + size))
        at += size
    return runs


@pytest.mark.parametrize("seed", range(6))
def test_long_runs_match_groupby(seed: int) -> None:
    rng = np.random.default_rng(seed)
    values = np.repeat(rng.integers(0, 3, 400), rng.integers(1, 40, 400))
    for shortest in (2, 16, 30):
        starts, stops = _long_runs(values, shortest)
        assert list(zip(starts.tolist(), stops.tolist(), strict=True)) == _reference_runs(values.tolist(), shortest)
    assert [tuple(a.tolist()) for a in _long_runs(np.full(50, 4), 16)] == [(0,), (50,)]


def test_rle_of_int16_levels_equals_unsigned() -> None:
    rng = np.random.default_rng(8)
    levels = np.repeat(rng.integers(0, 4, 300), rng.integers(1, 50, 300)).astype(np.int16)
    encoded = RleBitPackedHybrid.encode(levels, 2, length_prefixed=True)
    assert encoded == RleBitPackedHybrid.encode(levels.astype(np.uint64), 2, length_prefixed=True)
    decoded, _ = RleBitPackedHybrid.decode(encoded, 2, len(levels), length_prefixed=True)
    np.testing.assert_array_equal(decoded, levels)
    with pytest.raises(ValueError):
        RleBitPackedHybrid.encode(np.array([1, 4], dtype=np.int16), 2)


@pytest.mark.parametrize("width", [0, 1, 2, 8, 9, 17, 33, 64])
def test_single_rle_run_equals_the_general_encoder(width: int) -> None:
    for count in (1, 7, 15, 16, 17, 100, 5000):
        for value in {0, 1, (1 << width) - 1} if width else {0}:
            values = np.full(count, value, dtype=np.uint64)
            fast = _single_run(values, width)
            assert fast is None or fast == _encode(values, width)
            assert RleBitPackedHybrid.encode(values, width) == _encode(values, width)
    assert _single_run(np.array([1] * 20 + [0], dtype=np.uint64), 1) is None


def test_plain_byte_arrays_match_struct_reference() -> None:
    rng = np.random.default_rng(9)
    items = _strings(rng, 500, rng.integers(0, 9, 500), alphabet=256)
    offsets, data = _arrays(items)
    expected = b"".join(struct.pack("<I", len(i)) + i for i in items)
    assert _encode_byte_arrays(ByteArrays(offsets, data)) == expected
    sliced = ByteArrays(offsets[100:301], data)  # offsets not starting at 0
    assert _encode_byte_arrays(sliced) == b"".join(struct.pack("<I", len(i)) + i for i in items[100:300])
    assert _encode_byte_arrays(ByteArrays(np.zeros(1, dtype=np.int64), data[:0])) == b""


@pytest.mark.parametrize("seed", range(5))
def test_lexicographic_bounds_match_python(seed: int) -> None:
    rng = np.random.default_rng(seed)
    lengths = rng.integers(0, 25, 3000)
    items = [b"\xff" * int(rng.integers(0, 12)) + s for s in _strings(rng, 3000, lengths, alphabet=2)]
    offsets, data = _arrays(items)
    lo, hi = _lex_argminmax(offsets, data)
    assert items[lo] == min(items) and items[hi] == max(items)


def test_plain_byte_arrays_of_one_length() -> None:
    items = [bytes([i % 256]) * 5 for i in range(300)]
    offsets, data = _arrays(items)
    expected = b"".join(struct.pack("<I", 5) + i for i in items)
    assert plain_byte_arrays(ByteArrays(offsets, data)).tobytes() == expected
    assert _encode_byte_arrays(ByteArrays(offsets[10:21], data)) == expected[90:180]  # 10 values of 9 bytes
    assert _encode_byte_arrays([b"", b""]) == bytes(8)


def test_lexicographic_bounds_of_a_slice_and_short_tails() -> None:
    rng = np.random.default_rng(14)
    items = _strings(rng, 600, rng.integers(0, 11, 600), alphabet=3)
    offsets, data = _arrays(items)
    for a, b in ((0, 600), (100, 600), (590, 600), (599, 600), (3, 4)):
        lo, hi = _lex_argminmax(offsets[a : b + 1], data)
        assert items[a + lo] == min(items[a:b]) and items[a + hi] == max(items[a:b])


def _leaf_lists(leaves: dict) -> dict:
    """Levels and values of each leaf as plain lists (values through the PLAIN encoder)."""
    out = {}
    for path, leaf in leaves.items():
        values = leaf.values
        raw = (_encode_byte_arrays(ByteArrays(np.asarray(values.offsets, dtype=np.int64), values.data))
               if isinstance(values, BinaryArray) else values.values.tolist())
        out[path] = (None if leaf.def_levels is None else leaf.def_levels.tolist(),
                     None if leaf.rep_levels is None else leaf.rep_levels.tolist(), raw, leaf.num_values)
    return out


@pytest.mark.parametrize("nulls", [False, True])
def test_shredding_a_slice_equals_shredding_a_copy(nulls: bool) -> None:
    """Lists of a sliced table take their values as a slice; levels and values match a fresh array."""
    schema = Schema.from_fields([
        list_("l", primitive("element", "INT64")),
        list_("s", primitive("element", "BYTE_ARRAY", logical_type="STRING")),
        list_("ll", list_("element", primitive("element", "INT32"))),
    ])
    rng = np.random.default_rng(10)

    def row(i: int) -> dict:
        size = int(rng.integers(0, 4))
        item = (lambda: None) if nulls and rng.random() < 0.2 else (lambda: int(rng.integers(0, 50)))
        return {"l": None if nulls and i % 7 == 0 else [item() for _ in range(size)],
                "s": [f"v{rng.integers(0, 9)}" for _ in range(size)],
                "ll": [[int(x) for x in rng.integers(0, 9, int(rng.integers(0, 3)))] for _ in range(size)]}

    rows = [row(i) for i in range(300)]
    table = Table.from_pylist(rows, schema)
    part = table.slice(57, 150)
    fresh = Table.from_pylist(rows[57:207], schema)
    for index, field in enumerate(schema.fields):
        assert _leaf_lists(shred(field, part.column(index).array)) == \
            _leaf_lists(shred(field, fresh.column(index).array))


def test_common_prefixes_match_python() -> None:
    rng = np.random.default_rng(11)
    items = sorted(_strings(rng, 2000, rng.integers(0, 30, 2000), alphabet=2))  # sorted: long shared prefixes
    items = items[:1000] + [b"\xff" * 20, b"\xff" * 21, b"", b"\xff"] + items[1000:]
    expected = [0] + [len(os.path.commonprefix([a, b])) for a, b in itertools.pairwise(items)]
    offsets, data = _arrays(items)
    assert _common_prefixes(ByteArrays(offsets, data)).tolist() == expected
    assert _common_prefixes(ByteArrays(offsets[5:900], data)).tolist() == [0] + expected[6:899]
