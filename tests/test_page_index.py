"""ColumnIndex / OffsetIndex against files written by parquet-java (Spark, the corpus) and pyarrow.

Every parsed index is checked against the pages themselves: the chunk is
walked page by page, each data page decoded on its own, and its location,
first row, null count and bounds compared with what the indexes say. Our
builders must then rebuild the very bytes the other writers stored.
"""

from __future__ import annotations

import dataclasses
import datetime
import decimal
import io

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from parquet_codec.arrays import BinaryArray
from parquet_codec.column import chunk_range, read_column_chunk
from parquet_codec.errors import CorruptFileError, MetadataError, ParquetError
from parquet_codec.format.ttypes import (
    BoundaryOrder,
    ColumnChunk,
    ColumnIndex,
    OffsetIndex,
    PageLocation,
    PageType,
    Type,
)
from parquet_codec.io import BufferSource
from parquet_codec.page import iter_pages
from parquet_codec.page_index import (
    PageBounds,
    PageEntry,
    RowRanges,
    bound_keys,
    build_column_index,
    build_offset_index,
    matching_rows,
    page_byte_ranges,
    pages_for_rows,
    read_column_index,
    read_offset_index,
    read_page_index,
    rows_of_pages,
)
from parquet_codec.reader import ParquetFile
from parquet_codec.thrift_io import serialize
from parquet_codec.types import LogicalInfo, logical_info
from tests.conftest import CORPUS_DATA, FIXTURES

pa = pytest.importorskip("pyarrow")
pq = pytest.importorskip("pyarrow.parquet")

SPARK_FILES = sorted((FIXTURES / "spark").glob("*.parquet"))
CORPUS_INDEXED = ["alltypes_tiny_pages.parquet", "alltypes_tiny_pages_plain.parquet", "int32_with_null_pages.parquet"]


# ---------------------------------------------------------------- walking and decoding pages


@dataclasses.dataclass
class WalkedPage:
    offset: int
    size: int
    first_row: int
    num_rows: int
    null_count: int
    values: object  # the page's non-null physical values (Array)


def walk_pages(pf: ParquetFile, rg: int, leaf) -> list[WalkedPage]:
    """Every data page of a chunk, each decoded alone (with the dictionary page when there is one)."""
    source = pf._source
    meta = pf.metadata.row_group(rg).columns[leaf.column_index].meta_data
    start, length = chunk_range(meta, source.size)
    raw_pages = list(iter_pages(source.read(start, length), start, meta.num_values))
    ends = [p.offset for p in raw_pages[1:]] + [start + length]
    dictionary, out, row = b"", [], 0
    for page, end in zip(raw_pages, ends, strict=True):
        raw = bytes(source.read(page.offset, end - page.offset))
        if page.type == PageType.DICTIONARY_PAGE:
            dictionary = raw
            continue
        sub = page.header.data_page_header or page.header.data_page_header_v2
        data = _decode_alone(meta, leaf, dictionary, raw, sub.num_values)
        rows = sub.num_values if data.rep_levels is None else int(np.count_nonzero(data.rep_levels == 0))
        nulls = 0 if data.def_levels is None else int(np.count_nonzero(data.def_levels < leaf.max_definition_level))
        out.append(WalkedPage(page.offset, end - page.offset, row, rows, nulls, data.values))
        row += rows
    return out


def _decode_alone(meta, leaf, dictionary: bytes, page: bytes, num_values: int):
    """Decode one data page through the column reader, as a chunk of its own."""
    buf = b"PAR1" + dictionary + page
    copy = type(meta)(**{name: getattr(meta, name) for name in type(meta).__slots__})
    copy.dictionary_page_offset = 4 if dictionary else None
    copy.data_page_offset = 4 + len(dictionary)
    copy.total_compressed_size = len(dictionary) + len(page)
    copy.num_values = num_values
    return read_column_chunk(BufferSource(buf), ColumnChunk(file_offset=0, meta_data=copy), leaf,
                             verify_checksums=True)


def true_bounds(values, info: LogicalInfo) -> tuple[object, object] | None:
    """Min and max of decoded physical values by sort order, computed without the code under test."""
    if len(values) == 0:
        return None
    if isinstance(values, BinaryArray):
        offsets, data = np.asarray(values.offsets), np.asarray(values.data).tobytes()
        items = [data[a:b] for a, b in zip(offsets[:-1].tolist(), offsets[1:].tolist(), strict=True)]
        if info.kind == "decimal":
            items = [int.from_bytes(v, "big", signed=True) for v in items]
        return min(items), max(items)
    raw = values.values
    if raw.ndim == 2:
        if info.kind == "float16":
            floats = np.ascontiguousarray(raw).view("<f2").reshape(-1).astype(np.float64)
            return (None if np.isnan(floats).all() else (np.nanmin(floats), np.nanmax(floats)))
        items = [r.tobytes() for r in raw]
        if info.kind == "decimal":
            items = [int.from_bytes(v, "big", signed=True) for v in items]
        return min(items), max(items)
    if info.kind == "float":
        return None if np.isnan(raw).all() else (float(np.nanmin(raw)), float(np.nanmax(raw)))
    if info.kind == "int" and not info.signed:
        raw = raw.view(raw.dtype.str.replace("i", "u"))
    return raw.min().item(), raw.max().item()


def check_chunk_indexes(pf: ParquetFile, rg: int, leaf) -> tuple[ColumnIndex | None, OffsetIndex]:
    """The parsed indexes of one chunk agree with its pages; returns them."""
    info = logical_info(leaf.element)
    column_index, offset_index = read_page_index(pf._source, pf.metadata.row_group(rg).columns[leaf.column_index],
                                                 pf.metadata.row_group(rg).num_rows)
    assert offset_index is not None, leaf.dotted_path
    pages = walk_pages(pf, rg, leaf)
    locations = offset_index.page_locations
    assert [(p.offset, p.size, p.first_row) for p in pages] == [
        (loc.offset, loc.compressed_page_size, loc.first_row_index) for loc in locations
    ], leaf.dotted_path
    if offset_index.unencoded_byte_array_data_bytes is not None:
        sizes = [int(np.diff(np.asarray(p.values.offsets)[[0, -1]])[0]) for p in pages]
        assert offset_index.unencoded_byte_array_data_bytes == sizes
    if column_index is None:
        return None, offset_index
    bounds = PageBounds.from_column_index(column_index, info)
    for i, page in enumerate(pages):
        expected = true_bounds(page.values, info)
        assert column_index.null_pages[i] == (len(page.values) == 0), (leaf.dotted_path, i)
        if column_index.null_counts is not None:
            assert column_index.null_counts[i] == page.null_count, (leaf.dotted_path, i)
        if expected is None:
            continue
        assert bounds.usable[i], (leaf.dotted_path, i)
        lo, hi = bounds.min[i], bounds.max[i]
        if info.kind in ("string", "binary") and isinstance(lo, bytes) and max(len(lo), len(hi)) >= 64:
            assert lo <= expected[0] and hi >= expected[1]  # truncated bounds still bound the values
        else:
            assert (lo, hi) == expected, (leaf.dotted_path, i)
    return column_index, offset_index


def entries_from(column_index: ColumnIndex | None, offset_index: OffsetIndex) -> list[PageEntry]:
    """The per-page facts a writer would hand to the builders, read back from stored indexes."""
    n = len(offset_index.page_locations)
    out = []
    for i, loc in enumerate(offset_index.page_locations):
        entry = PageEntry(loc.offset, loc.compressed_page_size, loc.first_row_index)
        if offset_index.unencoded_byte_array_data_bytes is not None:
            entry.unencoded_byte_array_bytes = offset_index.unencoded_byte_array_data_bytes[i]
        if column_index is not None:
            entry.null_page = column_index.null_pages[i]
            entry.null_count = column_index.null_counts[i] if column_index.null_counts else 0
            if not entry.null_page:
                entry.min_value, entry.max_value = column_index.min_values[i], column_index.max_values[i]
            for field, name in (("rep_histogram", "repetition_level_histograms"),
                                ("def_histogram", "definition_level_histograms")):
                hist = getattr(column_index, name)
                if hist is not None:
                    width = len(hist) // n
                    setattr(entry, field, hist[i * width : (i + 1) * width])
        out.append(entry)
    return out


def check_rebuilt_bytes(pf: ParquetFile, rg: int, leaf, column_index, offset_index) -> None:
    """Our builders, fed the same per-page facts, write the bytes the other writer stored."""
    chunk = pf.metadata.row_group(rg).columns[leaf.column_index]
    entries = entries_from(column_index, offset_index)
    rebuilt = build_offset_index(entries)
    assert serialize(rebuilt) == bytes(pf._source.read(chunk.offset_index_offset, chunk.offset_index_length))
    if column_index is not None:
        rebuilt_ci = build_column_index(entries, logical_info(leaf.element))
        stored = bytes(pf._source.read(chunk.column_index_offset, chunk.column_index_length))
        assert serialize(rebuilt_ci) == stored, leaf.dotted_path


# ---------------------------------------------------------------- parquet-java: corpus and Spark


@pytest.mark.skipif(not CORPUS_DATA.is_dir(), reason="corpus not present")
@pytest.mark.parametrize("name", CORPUS_INDEXED)
def test_corpus_page_indexes_match_pages(name):
    with ParquetFile(CORPUS_DATA / name) as pf:
        for leaf in pf.schema.leaves:
            column_index, offset_index = check_chunk_indexes(pf, 0, leaf)
            assert len(offset_index.page_locations) > 1
            assert (column_index is None) == (leaf.physical_type == Type.INT96)
            check_rebuilt_bytes(pf, 0, leaf, column_index, offset_index)


@pytest.mark.skipif(not CORPUS_DATA.is_dir(), reason="corpus not present")
def test_corpus_null_pages():
    with ParquetFile(CORPUS_DATA / "int32_with_null_pages.parquet") as pf:
        ci = pf.column_index(0, "int32_field")
        assert any(ci.null_pages) and not all(ci.null_pages)
        for null, lo, hi in zip(ci.null_pages, ci.min_values, ci.max_values, strict=True):
            if null:
                assert lo == b"" and hi == b""
        bounds = PageBounds.from_column_index(ci, logical_info(pf.schema.leaf("int32_field").element))
        assert not bounds.usable[np.array(ci.null_pages)].any()
        assert bounds.might_match("is null")[np.array(ci.null_pages)].all()
        assert not bounds.might_match(">", -(2**31))[np.array(ci.null_pages)].any()


@pytest.mark.parametrize("path", SPARK_FILES[::3], ids=lambda p: p.stem)
def test_spark_page_indexes_match_pages(path):
    with ParquetFile(path) as pf:
        for rg in range(pf.num_row_groups):
            for leaf in pf.schema.leaves:
                column_index, offset_index = check_chunk_indexes(pf, rg, leaf)
                if leaf.physical_type == Type.INT96:
                    assert column_index is None  # parquet-java writes none for INT96
                elif leaf.physical_type not in (Type.FLOAT, Type.DOUBLE):
                    assert column_index is not None, leaf.dotted_path
                check_rebuilt_bytes(pf, rg, leaf, column_index, offset_index)


def test_reader_methods_resolve_columns():
    with ParquetFile(SPARK_FILES[0]) as pf:
        by_path = pf.column_index(0, "m.key_value.key")
        by_index = pf.column_index(0, [n.dotted_path for n in pf.schema.leaves].index("m.key_value.key"))
        assert by_path == by_index is not None
        assert pf.column_index(0, "ts") is None
        assert pf.offset_index(0, "ts") is not None
        with pytest.raises(ParquetError, match="no leaf column"):
            pf.column_index(0, "nope")
        with pytest.raises(IndexError):
            pf.offset_index(0, 99)


# ---------------------------------------------------------------- pyarrow


def pyarrow_table(n: int = 3000) -> pa.Table:
    rng = np.random.default_rng(7)
    ints = rng.integers(-1000, 1000, n)
    null = rng.random(n) < 0.2
    null[600:900] = True  # whole pages of nulls
    strings = [None if null[i] else f"s{int(ints[i]):05d}" for i in range(n)]
    return pa.table({
        "sorted": pa.array(np.arange(n, dtype=np.int64)),
        "desc": pa.array(np.arange(n, 0, -1, dtype=np.int32)),
        "i32": pa.array(ints.astype(np.int32), mask=null),
        "u32": pa.array((ints * 3_000_000).astype(np.int64).astype(np.uint32)),
        "u8": pa.array((ints % 256).astype(np.uint8)),
        "f64": pa.array(rng.normal(size=n), mask=null),
        "f32": pa.array(rng.normal(size=n).astype(np.float32)),
        "s": pa.array(strings),
        "bin": pa.array([bytes([i % 256, 255 - i % 256]) * (i % 4) for i in range(n)]),
        "fixed": pa.array([bytes([i % 7, i % 256, 128]) for i in range(n)], pa.binary(3)),
        "dec": pa.array([decimal.Decimal(int(v)) / 100 for v in ints], pa.decimal128(12, 2)),
        "dec_big": pa.array([decimal.Decimal(int(v) * 10**20) for v in ints], pa.decimal128(30, 0)),
        "day": pa.array([datetime.date(2000, 1, 1) + datetime.timedelta(days=int(v)) for v in ints]),
        "ts": pa.array((ints * 10**6).astype("datetime64[us]")),
        "f16": pa.array(rng.normal(size=n).astype(np.float16)),
        "lst": pa.array([None if null[i] else [int(ints[i])] * (i % 3) for i in range(n)], pa.list_(pa.int32())),
    })


@pytest.fixture(scope="module")
def pyarrow_file() -> bytes:
    buf = io.BytesIO()
    pq.write_table(pyarrow_table(), buf, write_page_index=True, max_rows_per_page=100, row_group_size=2000,
                   use_dictionary=["s"], data_page_size=1 << 20)
    return buf.getvalue()


def test_pyarrow_page_indexes_match_pages(pyarrow_file):
    meta = pq.ParquetFile(io.BytesIO(pyarrow_file)).metadata
    with ParquetFile(pyarrow_file) as pf:
        assert pf.num_row_groups == 2
        for rg in range(pf.num_row_groups):
            for j, leaf in enumerate(pf.schema.leaves):
                theirs = meta.row_group(rg).column(j)
                column_index, offset_index = check_chunk_indexes(pf, rg, leaf)
                assert (column_index is not None) == theirs.has_column_index, leaf.dotted_path
                assert theirs.has_offset_index
                assert len(offset_index.page_locations) == -(-meta.row_group(rg).num_rows // 100)
                check_rebuilt_bytes(pf, rg, leaf, column_index, offset_index)


def test_pyarrow_boundary_orders(pyarrow_file):
    with ParquetFile(pyarrow_file) as pf:
        orders = {leaf.dotted_path: pf.column_index(0, leaf.dotted_path).boundary_order for leaf in pf.schema.leaves}
    assert orders["sorted"] == BoundaryOrder.ASCENDING
    assert orders["desc"] == BoundaryOrder.DESCENDING
    assert orders["i32"] == BoundaryOrder.UNORDERED


# ---------------------------------------------------------------- boundary order


def _order(mins, maxs, info, null=None) -> int:
    entries = [
        PageEntry(0, 1, i, null_page=bool(null and null[i]), min_value=lo, max_value=hi)
        for i, (lo, hi) in enumerate(zip(mins, maxs, strict=True))
    ]
    return build_column_index(entries, info).boundary_order


INT32 = LogicalInfo("int", Type.INT32, bit_width=32)
UINT32 = LogicalInfo("int", Type.INT32, bit_width=32, signed=False)
DOUBLE = LogicalInfo("float", Type.DOUBLE, bit_width=64)
STRING = LogicalInfo("string", Type.BYTE_ARRAY)
DEC_FIXED = LogicalInfo("decimal", Type.FIXED_LEN_BYTE_ARRAY, type_length=4, precision=9, scale=0)
DEC_BYTES = LogicalInfo("decimal", Type.BYTE_ARRAY, precision=9, scale=0)
FLOAT16 = LogicalInfo("float16", Type.FIXED_LEN_BYTE_ARRAY, type_length=2)


def i32(*values: int) -> list[bytes]:
    return [int(v).to_bytes(4, "little", signed=v < 0) if v < 2**31 else int(v).to_bytes(4, "little") for v in values]


def test_boundary_order_signed_and_unsigned():
    # 1, 2**31: ascending as unsigned, descending as signed (2**31 reads as -2**31).
    assert _order(i32(1, 2**31), i32(1, 2**31), UINT32) == BoundaryOrder.ASCENDING
    assert _order(i32(1, 2**31), i32(1, 2**31), INT32) == BoundaryOrder.DESCENDING
    assert _order(i32(-5, 3, 3), i32(0, 4, 9), INT32) == BoundaryOrder.ASCENDING
    assert _order(i32(1, 0, 2), i32(1, 1, 3), INT32) == BoundaryOrder.UNORDERED
    assert _order(i32(7, 7), i32(7, 7), INT32) == BoundaryOrder.ASCENDING  # ties: ascending
    assert _order(i32(7), i32(9), INT32) == BoundaryOrder.ASCENDING


def test_boundary_order_bytes_decimals_floats():
    assert _order([b"\x7f", b"\x80"], [b"\x7f", b"\x80"], STRING) == BoundaryOrder.ASCENDING  # unsigned bytes
    assert _order([b"b", b"ab"], [b"b", b"ab"], STRING) == BoundaryOrder.DESCENDING
    minus_one, one = b"\xff\xff\xff\xff", b"\x00\x00\x00\x01"
    assert _order([minus_one, one], [minus_one, one], DEC_FIXED) == BoundaryOrder.ASCENDING
    assert _order([b"\xff", b"\x01\x00"], [b"\xff", b"\x01\x00"], DEC_BYTES) == BoundaryOrder.ASCENDING
    half = [np.float16(v).tobytes() for v in (-2.0, -1.0, 0.5)]
    assert _order(half, half, FLOAT16) == BoundaryOrder.ASCENDING
    doubles = [np.float64(v).tobytes() for v in (-0.0, 0.0, 3.0)]
    assert _order(doubles, doubles, DOUBLE) == BoundaryOrder.ASCENDING
    nan = np.float64("nan").tobytes()
    assert _order([doubles[0], nan], [doubles[0], nan], DOUBLE) == BoundaryOrder.UNORDERED


def test_boundary_order_skips_null_pages():
    mins = i32(5, 0, 3)
    assert _order(mins, mins, INT32, null=[False, True, False]) == BoundaryOrder.DESCENDING
    index = build_column_index([PageEntry(0, 1, 0, null_count=4, null_page=True)], INT32)
    assert index.null_pages == [True] and index.min_values == [b""] and index.boundary_order == BoundaryOrder.ASCENDING


def test_no_column_index_without_order_or_bounds():
    int96 = LogicalInfo("int96", Type.INT96, unit="ns")
    assert build_column_index([PageEntry(0, 1, 0, min_value=b"x" * 12, max_value=b"x" * 12)], int96) is None
    assert build_column_index([PageEntry(0, 1, 0, null_count=0)], DOUBLE) is None  # values but no bounds (all NaN)
    assert build_column_index([], INT32) is None


def test_builders_fill_optional_lists():
    entries = [PageEntry(4, 10, 0, min_value=b"a", max_value=b"b", unencoded_byte_array_bytes=3,
                         rep_histogram=[1, 2], def_histogram=[0, 1, 2]),
               PageEntry(14, 12, 1, min_value=b"c", max_value=b"d", unencoded_byte_array_bytes=5,
                         rep_histogram=[1, 0], def_histogram=[1, 0, 0])]
    ci = build_column_index(entries, STRING)
    assert ci.repetition_level_histograms == [1, 2, 1, 0]
    assert ci.definition_level_histograms == [0, 1, 2, 1, 0, 0]
    assert ci.null_counts == [0, 0] and ci.nan_counts is None
    oi = build_offset_index(entries)
    assert oi.unencoded_byte_array_data_bytes == [3, 5]
    assert [loc.offset for loc in oi.page_locations] == [4, 14]
    entries[1].def_histogram = None
    assert build_column_index(entries, STRING).definition_level_histograms is None


# ---------------------------------------------------------------- predicates and page selection


def test_predicates_on_bounds():
    entries = [PageEntry(0, 1, 0, min_value=i32(0)[0], max_value=i32(9)[0], null_count=1),
               PageEntry(1, 1, 10, null_page=True, null_count=10),
               PageEntry(2, 1, 20, min_value=i32(5)[0], max_value=i32(5)[0]),
               PageEntry(3, 1, 30, min_value=i32(10)[0], max_value=i32(19)[0])]
    bounds = PageBounds.from_column_index(build_column_index(entries, INT32), INT32)
    assert bounds.pages("==", 5).tolist() == [0, 2]
    assert bounds.pages("!=", 5).tolist() == [0, 3]
    assert bounds.pages("<", 5).tolist() == [0]
    assert bounds.pages("<=", 5).tolist() == [0, 2]
    assert bounds.pages(">", 9).tolist() == [3]
    assert bounds.pages(">=", 19.5).tolist() == []
    assert bounds.pages("<", 0.5).tolist() == [0]
    assert bounds.pages("in", [5, 15]).tolist() == [0, 2, 3]
    assert bounds.pages("not in", [5]).tolist() == [0, 3]
    assert bounds.pages("==", None).tolist() == [0, 1]
    assert bounds.pages("is not null").tolist() == [0, 2, 3]
    assert bounds.pages("in", [None, 100]).tolist() == [0, 1]
    assert bounds.pages("==", "not a number").tolist() == [0, 2, 3]  # unconvertible: keep all non-null pages
    with pytest.raises(ValueError, match="operator"):
        bounds.pages("~", 1)


def test_nan_bounds_and_nan_values_never_prune():
    nan, one, two = (np.float64(v).tobytes() for v in ("nan", 1.0, 2.0))
    index = ColumnIndex(null_pages=[False, False], min_values=[one, one], max_values=[nan, two],
                        boundary_order=0, null_counts=[0, 0])
    bounds = PageBounds.from_column_index(index, DOUBLE)
    assert bounds.pages(">", 100.0).tolist() == [0]  # NaN max: cannot prune
    index.min_values[1] = index.max_values[1] = one
    assert PageBounds.from_column_index(index, DOUBLE).pages("!=", 1.0).tolist() == [0, 1]  # may hide a NaN
    index.nan_counts = [0, 0]
    assert PageBounds.from_column_index(index, DOUBLE).pages("!=", 1.0).tolist() == [0]
    zero = np.float64(0.0).tobytes()
    index = ColumnIndex(null_pages=[False], min_values=[zero], max_values=[zero], boundary_order=0)
    assert PageBounds.from_column_index(index, DOUBLE).pages("==", -0.0).tolist() == [0]


def test_inexact_values_compare_non_strictly():
    ts = LogicalInfo("timestamp", Type.INT64, bit_width=None, unit="ms", utc=False)
    ms = [(1000).to_bytes(8, "little")]
    index = ColumnIndex(null_pages=[False], min_values=ms, max_values=ms, boundary_order=1)
    bounds = PageBounds.from_column_index(index, ts)
    base = datetime.datetime(1970, 1, 1, 0, 0, 1)
    assert bounds.pages("==", base).tolist() == [0]
    assert bounds.pages(">", base).tolist() == []
    finer = base + datetime.timedelta(microseconds=500)  # rounds to 1000 ms in the column's unit
    assert bounds.pages("<", finer).tolist() == [0]  # 1.000 s < 1.0005 s matches
    assert bounds.pages("==", finer).tolist() == [0]


def test_bound_keys_decode_by_type():
    keys, ok = bound_keys(i32(1, 2**31) + [b"xx"], UINT32)
    assert keys[:2].tolist() == [1, 2**31] and ok.tolist() == [True, True, False]
    keys, _ = bound_keys([b"\xff\xff\xff\xff"], DEC_FIXED)
    assert keys.tolist() == [-1]


ranges = st.lists(st.tuples(st.integers(0, 60), st.integers(0, 20)), max_size=8).map(
    lambda pairs: RowRanges.of([a for a, _ in pairs], [a + n for a, n in pairs]))


def _rows(r: RowRanges) -> set[int]:
    return {i for a, b in r for i in range(a, b)}


@given(ranges, ranges)
@settings(max_examples=60, deadline=None)
def test_row_ranges_are_sets(a, b):
    for r in (a, b):
        assert all(x < y for x, y in r)
        pairs = list(r)
        assert all(p[1] < q[0] for p, q in zip(pairs, pairs[1:], strict=False))  # disjoint, not adjacent
    assert _rows(a | b) == _rows(a) | _rows(b)
    assert _rows(a & b) == _rows(a) & _rows(b)
    assert (a & b).num_rows == len(_rows(a) & _rows(b))
    assert set(np.flatnonzero(a.to_mask(100)).tolist()) == _rows(a)


@given(st.lists(st.integers(1, 9), min_size=1, max_size=12), ranges)
@settings(max_examples=60, deadline=None)
def test_pages_for_rows_matches_brute_force(page_rows, rows):
    first = np.concatenate([[0], np.cumsum(page_rows)[:-1]]).tolist()
    num_rows = int(sum(page_rows))
    index = OffsetIndex(page_locations=[PageLocation(offset=100 * i, compressed_page_size=10, first_row_index=f)
                                        for i, f in enumerate(first)])
    wanted = _rows(rows)
    expected = [i for i, f in enumerate(first) if wanted & set(range(f, f + page_rows[i]))]
    assert pages_for_rows(index, rows, num_rows).tolist() == expected
    assert _rows(rows_of_pages(index, expected, num_rows)) >= wanted & set(range(num_rows))


def test_page_byte_ranges_coalesce():
    index = OffsetIndex(page_locations=[PageLocation(offset=o, compressed_page_size=10, first_row_index=i)
                                        for i, o in enumerate([4, 14, 24, 40])])
    assert page_byte_ranges(index, [0, 1, 3]) == [(4, 20), (40, 10)]


OPS = ["==", "!=", "<", "<=", ">", ">=", "in", "not in"]


@pytest.fixture(scope="module")
def pruning_case(pyarrow_file):
    return pq.read_table(io.BytesIO(pyarrow_file)), ParquetFile(pyarrow_file)


def _matches(values: list, op: str, value) -> np.ndarray:
    def one(x):
        if x is None:
            return op == "==" and value is None
        if value is None:
            return op == "!="
        if op == "in":
            return x in value
        if op == "not in":
            return x not in value
        return {"==": x == value, "!=": x != value, "<": x < value, "<=": x <= value, ">": x > value,
                ">=": x >= value}[op]
    return np.array([one(x) for x in values], dtype=bool)


@pytest.mark.parametrize("column", ["sorted", "desc", "i32", "u32", "f64", "s", "dec", "day", "ts", "f16"])
@given(data=st.data())
@settings(max_examples=15, deadline=None)
def test_pruning_never_drops_a_matching_row(pruning_case, column, data):
    table, pf = pruning_case
    values_all = table.column(column).to_pylist()
    op = data.draw(st.sampled_from(OPS))
    pick = data.draw(st.integers(0, len(values_all) - 1))
    value = values_all[pick]
    if op in ("in", "not in"):
        value = [value, values_all[data.draw(st.integers(0, len(values_all) - 1))]]
    start = 0
    leaf = pf.schema.leaf(column)
    info = logical_info(leaf.element)
    for rg in range(pf.num_row_groups):
        n = pf.metadata.row_group(rg).num_rows
        rows = matching_rows(pf.column_index(rg, column), pf.offset_index(rg, column), info, op, value, n)
        matched = _matches(values_all[start : start + n], op, value)
        assert not (matched & ~rows.to_mask(n)).any(), (op, value)
        start += n


def test_point_lookup_on_sorted_column_reads_one_page(pruning_case):
    _, pf = pruning_case
    info = logical_info(pf.schema.leaf("sorted").element)
    rows = matching_rows(pf.column_index(0, "sorted"), pf.offset_index(0, "sorted"), info, "==", 1234, 2000)
    assert list(rows) == [(1200, 1300)]
    other = pages_for_rows(pf.offset_index(0, "s"), rows, 2000)
    assert other.tolist() == [12]


# ---------------------------------------------------------------- hostile input


def _chunk(**fields) -> ColumnChunk:
    return ColumnChunk(file_offset=0, **fields)


def test_hostile_index_ranges():
    source = BufferSource(b"PAR1" + bytes(100))
    cases = [
        (dict(column_index_offset=90, column_index_length=50), CorruptFileError, "ColumnIndex of 50 bytes at offset 90"),
        (dict(column_index_offset=-1, column_index_length=5), CorruptFileError, "outside the file"),
        (dict(column_index_offset=10, column_index_length=0), CorruptFileError, "outside the file"),
        (dict(column_index_offset=10), MetadataError, "no length"),
        (dict(column_index_offset=10, column_index_length=2**31 - 1), CorruptFileError, "outside the file"),
    ]
    for fields, error, message in cases:
        with pytest.raises(error, match=message) as info:
            read_column_index(source, _chunk(**fields))
        assert info.value.context["file_offset"] == fields["column_index_offset"]
    with pytest.raises(CorruptFileError, match="OffsetIndex of 50 bytes"):
        read_offset_index(source, _chunk(offset_index_offset=90, offset_index_length=50))
    assert read_column_index(source, _chunk()) is None and read_offset_index(source, _chunk()) is None


def _source_with(struct) -> tuple[BufferSource, int, int]:
    raw = serialize(struct)
    return BufferSource(b"PAR1" + bytes(60) + raw), 64, len(raw)


def test_hostile_index_contents():
    garbage = BufferSource(b"PAR1" + b"\xff" * 40)
    with pytest.raises(MetadataError, match="ColumnIndex") as info:
        read_column_index(garbage, _chunk(column_index_offset=8, column_index_length=30))
    assert info.value.context["file_offset"] == 8
    bad_ci = ColumnIndex(null_pages=[False, False], min_values=[b"a"], max_values=[b"a", b"b"], boundary_order=1)
    source, offset, length = _source_with(bad_ci)
    with pytest.raises(MetadataError, match="1 min_values") as info:
        read_column_index(source, _chunk(column_index_offset=offset, column_index_length=length))
    assert info.value.context["file_offset"] == offset
    locations = [PageLocation(offset=4, compressed_page_size=10, first_row_index=0),
                 PageLocation(offset=14, compressed_page_size=10_000, first_row_index=5)]
    source, offset, length = _source_with(OffsetIndex(page_locations=locations))
    with pytest.raises(MetadataError, match="page 1 at 14 of 10000 bytes lies outside"):
        read_offset_index(source, _chunk(offset_index_offset=offset, offset_index_length=length))
    locations[1].compressed_page_size, locations[0].first_row_index = 10, 3
    source, offset, length = _source_with(OffsetIndex(page_locations=locations))
    with pytest.raises(MetadataError, match="starts at row 3"):
        read_offset_index(source, _chunk(offset_index_offset=offset, offset_index_length=length))
    locations[0].first_row_index, locations[1].first_row_index = 0, 50
    source, offset, length = _source_with(OffsetIndex(page_locations=locations))
    with pytest.raises(MetadataError, match="starting at row 50"):
        read_offset_index(source, _chunk(offset_index_offset=offset, offset_index_length=length), num_rows=20)


def test_hostile_index_through_reader_names_the_place(pyarrow_file):
    with ParquetFile(pyarrow_file) as pf:
        chunk = pf.metadata.row_group(1).columns[2]
        chunk.column_index_offset = len(pyarrow_file) - 3
        with pytest.raises(CorruptFileError) as info:
            pf.column_index(1, "i32")
    context = info.value.context
    assert context["row_group"] == 1 and context["column"] == "i32" and context["file_offset"] == len(pyarrow_file) - 3
    assert "row group 1" in str(info.value) and "'i32'" in str(info.value)
