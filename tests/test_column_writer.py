"""Column chunks: encoding choice, dictionary fallback, page cutting, page records."""

from __future__ import annotations

import numpy as np
import pytest

from parquet_codec.arrays import BinaryArray, PrimitiveArray
from parquet_codec.column import read_column_chunk
from parquet_codec.column_writer import (
    ColumnOptions,
    default_encoding,
    dictionary_allowed,
    plan_dictionary,
    write_column_chunk,
)
from parquet_codec.encodings.rle import RleBitPackedHybrid
from parquet_codec.errors import UnsupportedError
from parquet_codec.format.ttypes import Encoding, PageType, Type
from parquet_codec.io import BufferSource
from parquet_codec.levels import shred
from parquet_codec.schema import Schema, list_, primitive
from parquet_codec.table import Table
from parquet_codec.types import logical_info


def _roundtrip(schema: Schema, data: dict, options: ColumnOptions):
    table = Table.from_pydict(data, schema)
    field = schema.fields[0]
    leaf = schema.leaves[0]
    leaves = shred(field, table.column(0).array)
    out = write_column_chunk(leaf, logical_info(leaf.element), leaves[leaf.path], options, 4)
    blob = b"PAR1" + b"".join(out.parts)
    back = read_column_chunk(BufferSource(blob), out.chunk, leaf)
    return out, leaves[leaf.path], back


def test_defaults() -> None:
    """The fallback encodings are pyarrow's (PLAIN, RLE booleans in v2); the dictionary rules parquet-java's."""
    for physical in (Type.INT32, Type.INT64, Type.INT96, Type.FLOAT, Type.DOUBLE, Type.BYTE_ARRAY,
                     Type.FIXED_LEN_BYTE_ARRAY):
        assert default_encoding(physical, 1) == default_encoding(physical, 2) == Encoding.PLAIN
    assert default_encoding(Type.BOOLEAN, 2) == Encoding.RLE and default_encoding(Type.BOOLEAN, 1) == Encoding.PLAIN
    assert not dictionary_allowed(Type.BOOLEAN, 2)
    assert not dictionary_allowed(Type.FIXED_LEN_BYTE_ARRAY, 1) and dictionary_allowed(Type.FIXED_LEN_BYTE_ARRAY, 2)


@pytest.mark.parametrize("version", [1, 2])
def test_nested_pages_cut_at_record_starts(version: int) -> None:
    schema = Schema.from_fields([list_("l", primitive("element", "INT64"))])
    rows = [None if i % 9 == 0 else [i] * (i % 5) for i in range(3000)]
    opts = ColumnOptions(page_version=version, data_page_size=300, write_page_checksum=True)
    out, leaf, back = _roundtrip(schema, {"l": rows}, opts)
    assert len(out.pages) > 5
    np.testing.assert_array_equal(back.def_levels, leaf.def_levels)
    np.testing.assert_array_equal(back.rep_levels, leaf.rep_levels)
    np.testing.assert_array_equal(back.values.values, leaf.values.values)
    starts = np.flatnonzero(leaf.rep_levels == 0)
    rows_seen = [p.first_row_index for p in out.pages]
    assert rows_seen == sorted(rows_seen) and rows_seen[0] == 0
    assert sum(p.num_values for p in out.pages) == leaf.num_values
    assert all(p.offset >= 4 for p in out.pages) and len(starts) == 3000
    meta = out.chunk.meta_data
    assert meta.size_statistics.repetition_level_histogram[0] == 3000
    assert meta.statistics.null_count == sum(p.null_count for p in out.pages)


@pytest.mark.parametrize(("encoding", "fallback"), [(None, Encoding.PLAIN),
                                                    (Encoding.DELTA_BINARY_PACKED, Encoding.DELTA_BINARY_PACKED)])
def test_dictionary_then_fallback_pages(encoding, fallback) -> None:
    schema = Schema.from_fields([primitive("x", "INT64", "required")])
    values = np.repeat(np.arange(5000), 3)
    out, leaf, back = _roundtrip(schema, {"x": values},
                                 ColumnOptions(page_version=2, dictionary_pagesize_limit=8000, data_page_size=2000,
                                               encoding=encoding))
    kinds = {(s.page_type, s.encoding) for s in out.chunk.meta_data.encoding_stats}
    assert (PageType.DICTIONARY_PAGE, Encoding.PLAIN) in kinds
    assert (PageType.DATA_PAGE_V2, Encoding.RLE_DICTIONARY) in kinds
    assert (PageType.DATA_PAGE_V2, fallback) in kinds
    np.testing.assert_array_equal(back.values.values, values)


@pytest.mark.parametrize("version", [1, 2])
def test_given_dictionary_kept_when_every_value_is_null(version: int) -> None:
    """An Arrow dictionary's entries (a pandas categorical's categories) reach the
    dictionary page even when no value uses them: the reader has no other place to find them."""
    schema = Schema.from_fields([primitive("c", "BYTE_ARRAY", logical_type="STRING")])
    table = Table.from_pydict({"c": [None, None, None]}, schema)
    leaf_node = schema.leaves[0]
    leaf = shred(schema.fields[0], table.column(0).array)[leaf_node.path]
    entries = BinaryArray.of(np.array([0, 1, 3]), np.frombuffer(b"xyy", dtype=np.uint8))
    out = write_column_chunk(leaf_node, logical_info(leaf_node.element), leaf._replace(dictionary=entries),
                             ColumnOptions(page_version=version), 4)
    assert out.chunk.meta_data.dictionary_page_offset is not None
    back = read_column_chunk(BufferSource(b"PAR1" + b"".join(out.parts)), out.chunk, leaf_node, keep_dictionary=True)
    assert _as_bytes(back.dictionary) == [b"x", b"yy"]
    assert len(back.values) == 0 and back.def_levels.tolist() == [0, 0, 0]


def test_plan_dictionary_rejects_unique_values() -> None:
    assert plan_dictionary(PrimitiveArray.of(np.arange(10_000)), 1000, 1 << 20) is None
    plan = plan_dictionary(PrimitiveArray.of(np.arange(10_000) % 7), 1000, 1 << 20)
    assert plan is not None and len(plan.values) == 7 and plan.count == 10_000


def _reference_plan(items: list[bytes], limit: int) -> tuple[list[bytes], int]:
    """Entries by first appearance until their PLAIN bytes pass ``limit``, and the
    count of leading values that use only the entries before that one."""
    entries: dict[bytes, int] = {}
    size = 0
    for i, item in enumerate(items):
        if item not in entries:
            size += len(item) + 4
            if size > limit:
                return list(entries), i
            entries[item] = i
    return list(entries), len(items)


@pytest.mark.parametrize("limit", [1 << 20, 3000])
def test_plan_dictionary_numbers_entries_by_first_appearance(limit: int) -> None:
    rng = np.random.default_rng(15)
    words = [f"w{k}".encode() * int(rng.integers(1, 4)) for k in range(400)]
    items = [words[k] for k in rng.integers(0, 400, 20_000)]
    offsets = np.concatenate(([0], np.cumsum([len(i) for i in items])))
    values = BinaryArray.of(offsets, np.frombuffer(b"".join(items), dtype=np.uint8))
    plan = plan_dictionary(values, 200, limit)
    entries, count = _reference_plan(items, limit)
    assert plan is not None and plan.count == count
    assert _as_bytes(plan.values) == entries
    assert [entries[i] for i in plan.ids.tolist()] == items[:count]


def _as_bytes(values: BinaryArray) -> list[bytes]:
    raw, offsets = np.asarray(values.data).tobytes(), np.asarray(values.offsets).tolist()
    return [raw[a:b] for a, b in zip(offsets[:-1], offsets[1:], strict=True)]


def test_bad_encoding_for_type() -> None:
    schema = Schema.from_fields([primitive("x", "DOUBLE")])
    with pytest.raises(UnsupportedError):
        _roundtrip(schema, {"x": [1.0]}, ColumnOptions(encoding=Encoding.DELTA_BINARY_PACKED))


def test_hybrid_writer_round_trips() -> None:
    rng = np.random.default_rng(3)
    for width in (0, 1, 2, 7, 13, 32):
        top = 1 << width
        values = np.repeat(rng.integers(0, top, 200), rng.integers(1, 40, 200)).astype(np.uint64)
        for prefixed in (False, True):
            raw = RleBitPackedHybrid.encode(values, width, length_prefixed=prefixed)
            decoded, _ = RleBitPackedHybrid.decode(raw, width, len(values), length_prefixed=prefixed)
            np.testing.assert_array_equal(decoded, values)
    assert RleBitPackedHybrid.encode(np.zeros(1000, np.uint8), 1) == b"\xd0\x0f\x00"  # one RLE run
