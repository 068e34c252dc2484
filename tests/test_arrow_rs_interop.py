"""Files written by arrow-rs (the Rust implementation, through DataFusion) read
here as pyarrow reads them, and files written here read by DataFusion, its
bloom filters and page index pruning included."""

from __future__ import annotations

import decimal
import math
import operator
import re

import pytest

import parquet_codec as pc
from parquet_codec.cli import main as cli_main

datafusion = pytest.importorskip("datafusion")
pa = pytest.importorskip("pyarrow")
pq = pytest.importorskip("pyarrow.parquet")

ROWS = 300


def _table() -> pa.Table:
    """Columns of most types arrow-rs writes, nulls in each."""
    n = ROWS

    def nulls(values: list) -> list:
        return [None if i % 7 == 3 else v for i, v in enumerate(values)]

    floats = [1.5, -0.0, 0.0, math.nan, -math.inf, 2.25, 1e300]
    words = ["", "a", "héllo", "zz", "x" * 40, "\U0001f600"]
    return pa.table({
        "i8": pa.array(nulls([(i * 37) % 256 - 128 for i in range(n)]), pa.int8()),
        "u16": pa.array(nulls([(i * 997) % 65536 for i in range(n)]), pa.uint16()),
        "i64": pa.array(nulls([(i - 150) * 10**15 for i in range(n)]), pa.int64()),
        "u64": pa.array(nulls([2**64 - 1 - i * 3 if i % 2 else i for i in range(n)]), pa.uint64()),
        "f32": pa.array(nulls([floats[i % 7] if i % 7 != 6 else 3.5 for i in range(n)]), pa.float32()),
        "f64": pa.array(nulls([floats[i % 7] for i in range(n)]), pa.float64()),
        "flag": pa.array(nulls([i % 3 == 0 for i in range(n)]), pa.bool_()),
        "dec": pa.array(nulls([decimal.Decimal(i * 12345 - 10**6).scaleb(-3) for i in range(n)]), pa.decimal128(20, 3)),
        "s": pa.array(nulls([words[i % 6] + str(i % 11) for i in range(n)]), pa.string()),
        "b": pa.array(nulls([bytes([i % 256]) * (i % 5) for i in range(n)]), pa.binary()),
        "fsb": pa.array(nulls([i.to_bytes(3, "little") for i in range(n)]), pa.binary(3)),
        "d": pa.array(nulls([i * 1000 - 100000 for i in range(n)]), pa.date32()),
        "t": pa.array(nulls([i * 10**8 for i in range(n)]), pa.time64("us")),
        "ts": pa.array(nulls([i * 10**9 - 10**11 for i in range(n)]), pa.timestamp("ms", "UTC")),
        "lst": pa.array(nulls([[j if j % 3 else None for j in range(i % 4)] for i in range(n)]), pa.list_(pa.int32())),
        "st": pa.array(nulls([{"x": i % 9 or None, "y": words[i % 6]} for i in range(n)]),
                       pa.struct([("x", pa.int16()), ("y", pa.string())])),
        "m": pa.array(nulls([[(f"k{j}", j if j % 2 else None) for j in range(i % 3)] for i in range(n)]),
                      pa.map_(pa.string(), pa.int64())),
    })


def _same(a: object, b: object) -> bool:
    """Equality of Python values with NaN equal to NaN and -0.0 apart from 0.0."""
    if isinstance(a, float) and isinstance(b, float):
        return (math.isnan(a) and math.isnan(b)) or (a == b and math.copysign(1, a) == math.copysign(1, b))
    if isinstance(a, (list, tuple)) and isinstance(b, (list, tuple)):
        return type(a) is type(b) and len(a) == len(b) and all(map(_same, a, b))
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(_same(a[k], b[k]) for k in a)
    return type(a) is type(b) and a == b


def _copy(tmp_path, table: pa.Table, name: str, options: dict[str, str]) -> str:
    """``table`` written by arrow-rs with DataFusion's COPY options."""
    ctx = datafusion.SessionContext()
    ctx.register_record_batches("t", [table.combine_chunks().to_batches()])
    path = str(tmp_path / f"{name}.parquet")
    opts = ", ".join(f"'{k}' '{v}'" for k, v in options.items())
    ctx.sql(f"COPY (SELECT * FROM t) TO '{path}' STORED AS PARQUET OPTIONS ({opts})").collect()
    return path


ARROW_RS_OPTIONS = {
    "v1_snappy_pages": {"format.compression": "snappy", "format.writer_version": "1.0",
                        "format.data_page_row_count_limit": "64", "format.write_batch_size": "64",
                        "format.max_row_group_size": "128"},
    "v2_zstd_no_dictionary": {"format.compression": "zstd(3)", "format.writer_version": "2.0",
                              "format.dictionary_enabled": "false", "format.statistics_enabled": "chunk"},
    "v2_delta_encodings": {"format.compression": "lz4_raw", "format.writer_version": "2.0",
                           "format.dictionary_enabled": "false",
                           "format.encoding::i64": "delta_binary_packed", "format.encoding::d": "delta_binary_packed",
                           "format.encoding::s": "delta_byte_array", "format.encoding::b": "delta_length_byte_array",
                           "format.encoding::f64": "byte_stream_split", "format.encoding::flag": "rle",
                           "format.encoding::fsb": "delta_byte_array"},
    "bloom_everywhere": {"format.compression": "gzip(6)", "format.bloom_filter_on_write": "true",
                         "format.bloom_filter_fpp": "0.01", "format.max_row_group_size": "100"},
}


@pytest.mark.parametrize("name", sorted(ARROW_RS_OPTIONS))
def test_arrow_rs_files_read_as_pyarrow_reads_them(tmp_path, name):
    path = _copy(tmp_path, _table(), name, ARROW_RS_OPTIONS[name])
    expected = pq.read_table(path)
    table = pc.read_table(path)
    assert _same(table.to_pylist(), expected.to_pylist())
    arrow = table.to_arrow()
    assert arrow.schema.remove_metadata() == expected.schema.remove_metadata()
    assert _same(arrow.to_pylist(), expected.to_pylist())
    ours, theirs = pc.read_metadata(path), pq.read_metadata(path)
    for rg in range(theirs.num_row_groups):
        for j in range(theirs.num_columns):
            a, b = ours.row_group(rg).column(j).statistics, theirs.row_group(rg).column(j).statistics
            assert (a is None) == (b is None)
            if b is not None:
                assert (a.has_min_max, a.null_count) == (b.has_min_max, b.null_count)
                if b.has_min_max:
                    assert _same(a.min, b.min) and _same(a.max, b.max)
    for flt in ([("i64", "=", 10**15)], [("s", "in", ["a1", "zz2"])], [("u64", ">", 2**63)],
                [("f64", "<", 2.0)], [("flag", "=", True)], [("d", ">=", expected.column("d")[50].as_py())]):
        rows = pc.read_table(path, filters=flt).column("i8").to_pylist()
        want = [r["i8"] for r in expected.to_pylist() if _keeps(r[flt[0][0]], flt[0][1], flt[0][2])]
        assert rows == want, flt


OPS = {"=": operator.eq, ">": operator.gt, "<": operator.lt, ">=": operator.ge, "in": lambda v, s: v in s}


def _keeps(value: object, op: str, operand: object) -> bool:
    return value is not None and OPS[op](value, operand)


def test_arrow_rs_bloom_filters_hold_every_value_boolean_columns_included(tmp_path, capsys):
    table = _table()
    path = _copy(tmp_path, table, "bloom", ARROW_RS_OPTIONS["bloom_everywhere"])
    with pc.ParquetFile(path) as f:
        start = 0
        for rg in range(f.num_row_groups):
            rows = table.slice(start, f.metadata.row_group(rg).num_rows)
            start += rows.num_rows
            for name in ("i8", "u16", "i64", "u64", "f32", "f64", "flag", "dec", "s", "b", "fsb", "d", "t", "ts"):
                bloom = f.bloom_filter(rg, name)
                assert bloom is not None, name
                present = [v for v in rows.column(name).to_pylist() if v is not None]
                assert all(bloom.might_contain(v) for v in present), (rg, name)
    # A file with bloom filters on a BOOLEAN column verifies clean. (Not the
    # nested columns: arrow-rs marks a page of a repeated column as all nulls
    # when its null count equals its row count, which verify rightly reports.)
    flat = _copy(tmp_path, table.drop_columns(["lst", "m"]), "flat", ARROW_RS_OPTIONS["bloom_everywhere"])
    assert cli_main(["verify", flat]) == 0, capsys.readouterr().out


def _datafusion(path: str):
    config = datafusion.SessionConfig({"datafusion.execution.parquet.pushdown_filters": "true"})
    ctx = datafusion.SessionContext(config)
    ctx.register_parquet("t", path)
    return ctx


PC_OPTIONS = {
    "v1_snappy_dictionary": {"compression": "snappy", "max_rows_per_page": 50, "row_group_size": 120,
                             "bloom_filter_options": {"i64": True, "s": {"ndv": 50, "fpp": 0.05}, "u64": True}},
    "v2_zstd_plain": {"compression": "zstd", "data_page_version": "2.0", "use_dictionary": False,
                      "max_rows_per_page": 64, "write_page_checksum": True,
                      "bloom_filter_options": {"i64": True, "s": True, "u64": True}},
    "v2_delta_bss": {"compression": "brotli", "data_page_version": "2.0", "use_dictionary": False,
                     "column_encoding": {"i64": "DELTA_BINARY_PACKED", "d": "DELTA_BINARY_PACKED",
                                         "dec": "DELTA_BYTE_ARRAY", "s": "DELTA_BYTE_ARRAY",
                                         "b": "DELTA_LENGTH_BYTE_ARRAY", "f64": "BYTE_STREAM_SPLIT",
                                         "f32": "BYTE_STREAM_SPLIT", "flag": "RLE", "fsb": "DELTA_BYTE_ARRAY"}},
}


@pytest.mark.parametrize("name", sorted(PC_OPTIONS))
def test_datafusion_reads_and_prunes_our_files(tmp_path, name):
    table = _table()
    path = str(tmp_path / f"{name}.parquet")
    pc.write_table(table, path, **PC_OPTIONS[name])
    ctx = _datafusion(path)
    read = ctx.sql("SELECT * FROM t").to_arrow_table()
    for column in table.column_names:
        got = read.column(column)
        if got.type != table.column(column).type:  # DataFusion reads strings and binaries as views
            got = got.cast(table.column(column).type)
        assert _same(got.to_pylist(), table.column(column).to_pylist()), column
    rows = table.to_pylist()
    for where, keep in (("i64 = 1000000000000000", lambda r: r["i64"] == 10**15),
                        ("i64 = 7", lambda r: False),
                        ("s = 'a1'", lambda r: r["s"] == "a1"),
                        ("s = 'absent'", lambda r: False),
                        ("u64 = arrow_cast(18446744073709551614, 'UInt64')", lambda r: r["u64"] == 2**64 - 2),
                        ("i8 >= 100", lambda r: r["i8"] is not None and r["i8"] >= 100)):
        got = ctx.sql(f"SELECT i8, i64 FROM t WHERE {where}").to_arrow_table().to_pylist()
        assert got == [{"i8": r["i8"], "i64": r["i64"]} for r in rows if keep(r)], where


def _pruning(ctx, query: str, metric: str) -> tuple[int, int] | None:
    """(total, matched) of one of DataFusion's pruning metrics for ``query``, or
    None when this DataFusion prints its metrics in another form."""
    text = str(ctx.sql(f"EXPLAIN ANALYZE {query}").to_arrow_table().column(1)[0])
    found = re.search(rf"{metric}=([0-9.]+)( K)? total → ([0-9.]+)( K)? matched", text)
    if found is None:
        return None
    total, total_k, matched, matched_k = found.groups()
    return round(float(total) * (1000 if total_k else 1)), round(float(matched) * (1000 if matched_k else 1))


def test_datafusion_prunes_by_our_bloom_filters_and_page_index(tmp_path):
    table = pa.table({"k": pa.array(range(2000), pa.int64()), "s": [f"s{i:05d}" for i in range(2000)]})
    path = str(tmp_path / "pruned.parquet")
    pc.write_table(table, path, max_rows_per_page=100, bloom_filter_options={"k": True, "s": True})
    ctx = _datafusion(path)
    # within the statistics' bounds, so only the bloom filter can rule the row group out
    absent = "SELECT k FROM t WHERE s = 's01234x'"
    assert ctx.sql(absent).to_arrow_table().num_rows == 0
    assert _pruning(ctx, absent, "row_groups_pruned_bloom_filter") in ((1, 0), None)
    one = "SELECT s FROM t WHERE k = 1234"
    assert ctx.sql(one).to_arrow_table().column(0).to_pylist() == ["s01234"]
    assert _pruning(ctx, one, "page_index_rows_pruned") in ((2000, 100), None)
    assert _pruning(ctx, one, "page_index_pages_pruned") in ((20, 1), None)
