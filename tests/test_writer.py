"""The file writer against pyarrow, DuckDB and our own reader.

The matrix: every physical and logical type (and nested shapes) with nulls,
x data page v1/v2 x dictionary on/off x every codec, each column rotating
through the encodings valid for its type, so every (type, encoding) pair is
written several times. Each file must read back identically in pyarrow,
DuckDB and parquet_codec, with the encodings and codec asked for in the
metadata pyarrow reports.
"""

from __future__ import annotations

import datetime as dt
import decimal
import io
import os
import uuid

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from parquet_codec import column_writer
from parquet_codec import errors as pc_errors
from parquet_codec.errors import ParquetError
from parquet_codec.format.ttypes import (
    DecimalType,
    Encoding,
    IntType,
    LogicalType,
    MicroSeconds,
    MilliSeconds,
    NanoSeconds,
    PageType,
    TimestampType,
    TimeType,
    TimeUnit,
    Type,
)
from parquet_codec.reader import ParquetFile, read_table
from parquet_codec.schema import Schema, group, list_, map_, primitive
from parquet_codec.table import Table
from parquet_codec.writer import CREATED_BY, ParquetWriter, SortingColumn, write_metadata, write_table

ROWS = 240
CODECS = ["none", "snappy", "gzip", "brotli", "zstd", "lz4", "lz4_hadoop"]
# pyarrow calls LZ4_RAW (7) "LZ4" and shows the Hadoop-framed id 5 as "UNKNOWN".
CODEC_NAMES = {"none": "UNCOMPRESSED", "lz4": "LZ4", "lz4_hadoop": "UNKNOWN"}
CODEC_IDS = {"none": 0, "snappy": 1, "gzip": 2, "brotli": 4, "lz4_hadoop": 5, "zstd": 6, "lz4": 7}
L = LogicalType


def _unit(name: str) -> TimeUnit:
    return {"ms": TimeUnit(MILLIS=MilliSeconds()), "us": TimeUnit(MICROS=MicroSeconds()),
            "ns": TimeUnit(NANOS=NanoSeconds())}[name]


def _cycle(values: list, rows: int = ROWS, null_every: int = 5) -> list:
    """``values`` repeated over ``rows`` slots, every ``null_every``-th slot null."""
    return [None if i % null_every == 3 else values[i % len(values)] for i in range(rows)]


def _columns() -> dict[str, tuple[list, list]]:
    """name -> (schema subtree, values): every type the format defines, with nulls."""
    d = decimal.Decimal
    ts = [dt.datetime(2020, 1, 1, 12, 30, 5, 123000), dt.datetime(1969, 12, 31, 23, 59, 59), dt.datetime(2038, 5, 5)]
    utc = [t.replace(tzinfo=dt.timezone.utc) for t in ts]
    return {
        "bool": (primitive("bool", "BOOLEAN"), _cycle([True, False, False])),
        "i32": (primitive("i32", "INT32"), _cycle([1, -7, 2**31 - 1, -(2**31)])),
        "i64": (primitive("i64", "INT64"), _cycle([5, -2**63, 2**63 - 1, 0])),
        "i8": (primitive("i8", "INT32", logical_type=L(INTEGER=IntType(8, True))), _cycle([-128, 127, 0])),
        "i16": (primitive("i16", "INT32", logical_type=L(INTEGER=IntType(16, True))), _cycle([-300, 300])),
        "u8": (primitive("u8", "INT32", logical_type=L(INTEGER=IntType(8, False))), _cycle([0, 255, 17])),
        "u16": (primitive("u16", "INT32", logical_type=L(INTEGER=IntType(16, False))), _cycle([0, 65535])),
        "u32": (primitive("u32", "INT32", logical_type=L(INTEGER=IntType(32, False))), _cycle([1, 2**32 - 1, 2**31])),
        "u64": (primitive("u64", "INT64", logical_type=L(INTEGER=IntType(64, False))), _cycle([3, 2**64 - 1, 2**63])),
        "f32": (primitive("f32", "FLOAT"), _cycle([1.5, -0.0, 3.25, float("inf")])),
        "f64": (primitive("f64", "DOUBLE"), _cycle([2.5, -1e300, 0.0, 7.0])),
        "f16": (primitive("f16", "FIXED_LEN_BYTE_ARRAY", type_length=2, logical_type=L(FLOAT16=__import__(
            "parquet_codec.format.ttypes", fromlist=["Float16Type"]).Float16Type())), _cycle([1.5, -2.0, 0.25])),
        "str": (primitive("str", "BYTE_ARRAY", logical_type="STRING"), _cycle(["alpha", "", "béta", "gamma" * 9])),
        "bin": (primitive("bin", "BYTE_ARRAY"), _cycle([b"\x00\xff", b"", b"abc"])),
        "enum": (primitive("enum", "BYTE_ARRAY", logical_type="ENUM"), _cycle([b"RED", b"GREEN"])),
        "json": (primitive("json", "BYTE_ARRAY", logical_type="JSON"), _cycle(['{"a": 1}', "[]"])),
        "uuid": (primitive("uuid", "FIXED_LEN_BYTE_ARRAY", type_length=16,
                           logical_type=L(UUID=__import__("parquet_codec.format.ttypes", fromlist=["UUIDType"]).UUIDType())),
                 _cycle([uuid.UUID(int=1), uuid.UUID(int=2**128 - 1), uuid.UUID(int=2**100)])),
        "fixed": (primitive("fixed", "FIXED_LEN_BYTE_ARRAY", type_length=3), _cycle([b"abc", b"\xff\x00\x01"])),
        "dec32": (primitive("dec32", "INT32", logical_type=L(DECIMAL=DecimalType(2, 9))), _cycle([d("1.25"), d("-9999999.99")])),
        "dec64": (primitive("dec64", "INT64", logical_type=L(DECIMAL=DecimalType(3, 18))), _cycle([d("1.250"), d("-5.5")])),
        "decflba": (primitive("decflba", "FIXED_LEN_BYTE_ARRAY", type_length=9, logical_type=L(DECIMAL=DecimalType(4, 20))),
                    _cycle([d("1234567890123456.7890"), d("-0.0001"), d("0")])),
        "decbin": (primitive("decbin", "BYTE_ARRAY", logical_type=L(DECIMAL=DecimalType(2, 30))),
                   _cycle([d("-12345678901234567890.12"), d("0.01"), d("7")])),
        "date": (primitive("date", "INT32", logical_type="DATE"), _cycle([dt.date(2020, 2, 29), dt.date(1900, 1, 1)])),
        "time_ms": (primitive("time_ms", "INT32", logical_type=L(TIME=TimeType(True, _unit("ms")))),
                    _cycle([dt.time(1, 2, 3, 4000), dt.time(23, 59)])),
        "time_us": (primitive("time_us", "INT64", logical_type=L(TIME=TimeType(False, _unit("us")))),
                    _cycle([dt.time(1, 2, 3, 4), dt.time(0, 0)])),
        "time_ns": (primitive("time_ns", "INT64", logical_type=L(TIME=TimeType(False, _unit("ns")))),
                    _cycle([dt.time(12, 0, 0, 1), dt.time(5, 5)])),
        "ts_ms": (primitive("ts_ms", "INT64", logical_type=L(TIMESTAMP=TimestampType(True, _unit("ms")))), _cycle(utc)),
        "ts_us": (primitive("ts_us", "INT64", logical_type=L(TIMESTAMP=TimestampType(False, _unit("us")))), _cycle(ts)),
        "ts_ns": (primitive("ts_ns", "INT64", logical_type=L(TIMESTAMP=TimestampType(False, _unit("ns")))), _cycle(ts)),
        "int96": (primitive("int96", "INT96"), _cycle(ts)),
        "interval": (primitive("interval", "FIXED_LEN_BYTE_ARRAY", type_length=12, converted_type=21),
                     _cycle([(1, 2, 3), (0, 0, 86400000)])),
        "list": (list_("list", primitive("element", "INT64")), _cycle([[1, None, 3], [], [4] * 5], null_every=7)),
        "list_req": (list_("list_req", primitive("element", "BYTE_ARRAY", "required", logical_type="STRING"), "required"),
                     [["a", "b"][: i % 3] for i in range(ROWS)]),
        "nested": (list_("nested", list_("element", primitive("element", "INT32"))),
                   _cycle([[[1, 2], None, []], [], [[None]]])),
        "struct": (group("struct", [primitive("a", "INT32"), list_("b", primitive("element", "DOUBLE"))]),
                   _cycle([{"a": 1, "b": [1.0]}, {"a": None, "b": None}, {"a": 3, "b": []}])),
        "map": (map_("map", primitive("key", "BYTE_ARRAY", "required", logical_type="STRING"),
                     primitive("value", "INT64")), _cycle([[("k", 1), ("j", None)], []])),
        "req": (primitive("req", "INT64", "required"), list(range(ROWS))),
    }


_ENCODINGS = {
    Type.BOOLEAN: ["PLAIN", "RLE"],
    Type.INT32: ["PLAIN", "DELTA_BINARY_PACKED", "BYTE_STREAM_SPLIT"],
    Type.INT64: ["PLAIN", "DELTA_BINARY_PACKED", "BYTE_STREAM_SPLIT"],
    Type.INT96: ["PLAIN"],
    Type.FLOAT: ["PLAIN", "BYTE_STREAM_SPLIT"],
    Type.DOUBLE: ["PLAIN", "BYTE_STREAM_SPLIT"],
    Type.BYTE_ARRAY: ["PLAIN", "DELTA_LENGTH_BYTE_ARRAY", "DELTA_BYTE_ARRAY"],
    Type.FIXED_LEN_BYTE_ARRAY: ["PLAIN", "DELTA_BYTE_ARRAY", "BYTE_STREAM_SPLIT"],
}


@pytest.fixture(scope="module")
def table() -> Table:
    cols = _columns()
    schema = Schema.from_fields([c[0] for c in cols.values()])
    return Table.from_pydict({k: v[1] for k, v in cols.items()}, schema)


def _encoding_plan(schema: Schema, k: int) -> dict[str, str]:
    return {leaf.dotted_path: _ENCODINGS[leaf.physical_type][k % len(_ENCODINGS[leaf.physical_type])]
            for leaf in schema.leaves}


def _normalize(value: object) -> object:
    """Make a value comparable across readers (NaN, exact float formatting)."""
    if isinstance(value, float) and value != value:
        return "NaN"
    if isinstance(value, list):
        return [_normalize(v) for v in value]
    if isinstance(value, dict):
        return {k: _normalize(v) for k, v in value.items()}
    if isinstance(value, tuple):
        return tuple(_normalize(v) for v in value)
    return value


def _pyarrow_rows(path: str) -> dict[str, list]:
    got = pq.read_table(path, page_checksum_verification=True)
    return {name: got.column(name).to_pylist() for name in got.column_names}


def _check_metadata(path: str, schema: Schema, plan: dict[str, str], codec: str, dictionary: bool) -> None:
    md = pq.ParquetFile(path).metadata
    assert md.created_by == CREATED_BY
    for i, leaf in enumerate(schema.leaves):
        col = md.row_group(0).column(i)
        assert col.compression == CODEC_NAMES.get(codec, codec.upper())
        values = set(col.encodings) - {"RLE"} if leaf.physical_type != Type.BOOLEAN else set(col.encodings)
        asked = plan[leaf.dotted_path]
        dict_ok = dictionary and column_writer.dictionary_allowed(leaf.physical_type, 2 if "V2" in path else 1)
        if dict_ok and col.has_dictionary_page:
            assert values & {"PLAIN_DICTIONARY", "RLE_DICTIONARY"}, (leaf.dotted_path, col.encodings)
        else:
            assert asked in col.encodings, (leaf.dotted_path, asked, col.encodings)


@pytest.mark.parametrize("version", ["1.0", "2.0"])
def test_matrix_pyarrow_and_own_reader(table: Table, tmp_path, version: str) -> None:
    expected = {c.name: _normalize(c.to_pylist()) for c in table.columns}
    k = 0
    for codec in CODECS:
        for dictionary in (True, False):
            plan = _encoding_plan(table.schema, k)
            k += 1
            path = str(tmp_path / f"m-V{version[0]}-{codec}-{dictionary}.parquet")
            write_table(table, path, compression=codec, data_page_version=version, use_dictionary=dictionary,
                        column_encoding=plan, write_page_checksum=True, data_page_size=512)
            rows = _pyarrow_rows(path)
            for name, values in expected.items():
                got = rows[name]
                if name == "int96":  # pyarrow reads INT96 as timestamp[ns]; values match as datetimes
                    got = [None if v is None else v.to_pydatetime() if hasattr(v, "to_pydatetime") else v for v in got]
                assert _normalize(got) == values, (name, codec, dictionary)
            ours = ParquetFile(path)
            assert ours.metadata.row_group(0).columns[0].meta_data.codec == CODEC_IDS[codec]
            ours = ours.read()
            assert {c.name: _normalize(c.to_pylist()) for c in ours.columns} == expected
            _check_metadata(path, table.schema, plan, codec, dictionary)


def test_matrix_duckdb(table: Table, tmp_path) -> None:
    duckdb = pytest.importorskip("duckdb")
    con = duckdb.connect()
    con.execute("SET TimeZone='UTC'")
    # DuckDB has its own Python types for these; pyarrow's agreement is checked above.
    skip = {"interval", "time_ns", "f16", "enum", "json", "int96", "map"}
    names = [c.name for c in table.columns if c.name not in skip]
    expected = [tuple(_normalize(_duck(r[n])) for n in names) for r in table.to_pylist()]
    for i, (version, codec, dictionary) in enumerate(
            [(v, c, d) for v in ("1.0", "2.0") for c in CODECS if c != "lz4_hadoop" for d in (True, False)]):
        path = str(tmp_path / f"d{i}.parquet")
        # DuckDB reads DELTA_LENGTH_BYTE_ARRAY only for strings and blobs, and
        # BYTE_STREAM_SPLIT not for FIXED_LEN_BYTE_ARRAY (pyarrow reads both, above).
        plan = _fixed_length_plan(table.schema, i, {"BYTE_STREAM_SPLIT"})
        if plan["decbin"] == "DELTA_LENGTH_BYTE_ARRAY":
            plan["decbin"] = "DELTA_BYTE_ARRAY"
        write_table(table, path, compression=codec, data_page_version=version, use_dictionary=dictionary,
                    column_encoding=plan, data_page_size=512)
        # TIMESTAMPTZ values need pytz to reach Python: read them as UTC wall time.
        cols = ", ".join(f'CAST("{n}" AS TIMESTAMP)' if n == "ts_ms" else f'"{n}"' for n in names)
        got = con.execute(f"SELECT {cols} FROM read_parquet('{path}')").fetchall()
        got = [tuple(_normalize(_duck(v)) for v in row) for row in got]
        assert got == expected, (version, codec, dictionary)


def _fixed_length_plan(schema: Schema, k: int, unread: set[str]) -> dict[str, str]:
    """:func:`_encoding_plan` with PLAIN for FIXED_LEN_BYTE_ARRAY columns where it picks an encoding in ``unread``."""
    plan = _encoding_plan(schema, k)
    for leaf in schema.leaves:
        if leaf.physical_type == Type.FIXED_LEN_BYTE_ARRAY and plan[leaf.dotted_path] in unread:
            plan[leaf.dotted_path] = "PLAIN"
    return plan


def _duck(value: object) -> object:
    if isinstance(value, dt.datetime) and value.tzinfo is not None:
        return value.astimezone(dt.timezone.utc).replace(tzinfo=None)
    if isinstance(value, dt.time) and value.tzinfo is not None:  # TIME(UTC) is DuckDB's TIMETZ
        return value.replace(tzinfo=None)
    if isinstance(value, list):
        return [_duck(v) for v in value]
    if isinstance(value, dict):
        return {k: _duck(v) for k, v in value.items()}
    return value


def test_statistics_match_pyarrow(table: Table, tmp_path) -> None:
    ours, theirs = str(tmp_path / "ours.parquet"), str(tmp_path / "theirs.parquet")
    write_table(table, ours)
    pq.write_table(table.to_arrow(), theirs, store_schema=False)
    a, b = pq.ParquetFile(ours).metadata.row_group(0), pq.ParquetFile(theirs).metadata.row_group(0)
    compared = 0
    for i in range(a.num_columns):
        sa, sb = a.column(i).statistics, b.column(i).statistics
        name = a.column(i).path_in_schema
        assert b.column(i).path_in_schema == name
        if name in ("int96", "interval"):  # no defined order: null_count only (pyarrow writes them as INT64)
            assert sa.null_count == sb.null_count and not sa.has_min_max
            continue
        if sb is None or not sb.has_min_max:
            continue
        assert sa is not None and sa.has_min_max, name
        assert (sa.min, sa.max, sa.null_count) == (sb.min, sb.max, sb.null_count), name
        compared += 1
    assert compared >= 25


def test_zero_rows_write_one_empty_row_group(tmp_path) -> None:
    """As pyarrow: an empty table is one row group of 0 rows, whose file reads back with its schema."""
    path = str(tmp_path / "empty.parquet")
    table = Table.from_pydict({"a": [], "b": []}, Schema.from_fields([primitive("a", "INT64"), primitive("b", "BYTE_ARRAY")]))
    write_table(table, path)
    md = pq.ParquetFile(path).metadata
    assert (md.num_row_groups, md.row_group(0).num_rows, md.num_rows) == (1, 0, 0)
    assert pq.read_table(path).num_rows == 0
    assert read_table(path).num_rows == 0
    arrow = pa.table({"a": pa.array([], pa.int64()), "l": pa.array([], pa.list_(pa.string())),
                      "m": pa.array([], pa.map_(pa.string(), pa.int8()))})
    write_table(arrow, path, row_group_size=1)
    assert pq.read_table(path).schema.equals(arrow.schema) and pq.ParquetFile(path).metadata.num_row_groups == 1


@pytest.mark.parametrize("order", [("empty", "full"), ("full", "empty"), ("empty", "empty"), ("empty",), ()])
def test_every_empty_table_written_is_one_row_group(tmp_path, order) -> None:
    full = pa.table({"a": [1, 2], "b": ["x", "y"]})
    tables = {"full": full, "empty": full.slice(0, 0)}
    groups = []
    for name, writer_class in (("ours", ParquetWriter), ("theirs", pq.ParquetWriter)):
        path = tmp_path / f"{name}.parquet"
        with writer_class(path, full.schema) as writer:
            for which in order:
                writer.write_table(tables[which])
        groups.append(_group_rows(path.read_bytes()))
        assert pq.read_table(path).equals(pa.concat_tables([tables[which] for which in order] or [tables["empty"]]))
    assert groups[0] == groups[1]


def test_row_groups_pages_and_streaming(tmp_path) -> None:
    path = str(tmp_path / "rg.parquet")
    schema = Schema.from_fields([primitive("x", "INT64", "required"), list_("l", primitive("element", "INT32"))])
    with ParquetWriter(path, schema, row_group_size=1000, data_page_size=1024,
                       sorting_columns=[SortingColumn(0)], key_value_metadata={"k": "v"}) as writer:
        for start in range(0, 5000, 2500):
            xs = list(range(start, start + 2500))
            writer.write_batch({"x": xs, "l": [[i] * (i % 4) for i in xs]})
    pf = pq.ParquetFile(path)
    assert pf.metadata.num_row_groups == 6  # 1000 + 1000 + 500 per batch
    assert pf.metadata.metadata[b"k"] == b"v"
    assert pf.metadata.row_group(0).sorting_columns[0].column_index == 0
    assert pf.read().column("x").to_pylist() == list(range(5000))
    with ParquetFile(path) as ours:
        assert ours.read().column("l").to_pylist() == [[i] * (i % 4) for i in range(5000)]
    # Small pages: many pages per chunk, each starting at a record boundary.
    chunks = writer.row_group_chunks[0]
    assert len(chunks[1].pages) > 1
    assert all(p.first_row_index >= 0 for p in chunks[1].pages)


@pytest.mark.parametrize("size", [3, 2.0, 2.5, 2.9, np.int64(4)])
def test_row_group_size_taken_as_pyarrow_takes_it(size) -> None:
    """A float is truncated to whole rows, as pyarrow does; in the writer's options and in write_table."""
    table = pa.table({"a": list(range(10))})
    theirs = io.BytesIO()
    pq.write_table(table, theirs, row_group_size=size)
    expected = _group_rows(theirs.getvalue())
    ours = io.BytesIO()
    write_table(table, ours, row_group_size=size)
    assert _group_rows(ours.getvalue()) == expected
    ours = io.BytesIO()
    with ParquetWriter(ours, table.schema) as writer:
        writer.write_table(table, row_group_size=size)
    assert _group_rows(ours.getvalue()) == expected


@pytest.mark.parametrize("size", [0, 0.5, -1, -3.0])
def test_row_group_size_below_one_row_raises(tmp_path, size) -> None:
    """pyarrow: "Row group size cannot be 0" (and 0.5 is no row either); a negative size raises too."""
    table = pa.table({"a": list(range(10))})
    target = tmp_path / "x.parquet"
    with pytest.raises(ParquetError, match="row_group_size"):
        write_table(table, target, row_group_size=size)
    assert not target.exists()
    with ParquetWriter(target, table.schema) as writer, pytest.raises(ParquetError, match="row_group_size"):
        writer.write_table(table, row_group_size=size)
    with pytest.raises(TypeError):
        write_table(table, io.BytesIO(), row_group_size="3")


def _group_rows(raw: bytes) -> list[int]:
    meta = pq.ParquetFile(io.BytesIO(raw)).metadata
    return [meta.row_group(i).num_rows for i in range(meta.num_row_groups)]


def test_byte_cap_splits_row_groups(tmp_path) -> None:
    path = str(tmp_path / "cap.parquet")
    write_table({"x": np.arange(100_000)}, path, max_row_group_bytes=100_000)
    assert pq.ParquetFile(path).metadata.num_row_groups == 8


def test_an_explicit_row_group_size_is_not_capped_by_bytes(tmp_path) -> None:
    """The in-memory byte cap splits row groups only when no row_group_size is
    given, or when max_row_group_bytes itself is: pyarrow writes 130 rows of
    1 MiB with row_group_size=130 as one row group."""
    rows, width = 130, 2**20
    offsets = pa.py_buffer(np.arange(rows + 1, dtype=np.int32) * width)
    big = pa.table({"b": pa.Array.from_buffers(pa.binary(), rows, [None, offsets, pa.allocate_buffer(rows * width)])})
    options = {"compression": None, "use_dictionary": False, "write_statistics": False, "write_page_index": False}
    theirs = tmp_path / "theirs.parquet"
    pq.write_table(big, theirs, row_group_size=rows, **options)
    for where, given in (("option", {"row_group_size": rows}), ("call", {})):
        path = tmp_path / f"ours-{where}.parquet"
        with ParquetWriter(path, big.schema, **given, **options) as writer:
            writer.write_table(big, row_group_size=None if given else rows)
        assert _group_rows(path.read_bytes()) == _group_rows(theirs.read_bytes()) == [rows]
    path = tmp_path / "capped.parquet"
    write_table(big, path, row_group_size=rows, max_row_group_bytes=64 * width, **options)
    assert _group_rows(path.read_bytes()) == [63, 63, 4]  # the explicit byte cap still applies
    write_table(big, path, **options)
    assert len(_group_rows(path.read_bytes())) == 2  # and, with neither given, the default one


def test_failure_after_first_row_group_keeps_old_file(tmp_path, monkeypatch) -> None:
    path = tmp_path / "keep.parquet"
    write_table({"x": [1, 2, 3]}, str(path))
    before = path.read_bytes()
    real = column_writer.write_column_chunk
    calls = []

    def failing(*args, **kwargs):
        calls.append(1)
        if len(calls) > 1:
            raise RuntimeError("killed mid-file")
        return real(*args, **kwargs)

    monkeypatch.setattr("parquet_codec.writer.write_column_chunk", failing)
    with pytest.raises(RuntimeError):
        write_table({"x": list(range(100))}, str(path), row_group_size=10)
    assert path.read_bytes() == before
    assert os.listdir(tmp_path) == ["keep.parquet"]
    with pytest.raises(RuntimeError), ParquetWriter(str(path), read_table(str(path)).schema) as writer:
        writer.write_table({"x": [9]})
        raise RuntimeError("caller failed")
    assert path.read_bytes() == before and os.listdir(tmp_path) == ["keep.parquet"]


def test_a_writer_never_closed_is_closed_when_collected(tmp_path, monkeypatch) -> None:
    """As pyarrow's ParquetWriter.__del__: the file is complete; a writer whose write
    failed was aborted and leaves no file; a close that fails when collected aborts,
    and nothing is raised from __del__."""
    import gc
    import sys

    unraisable = []
    monkeypatch.setattr(sys, "unraisablehook", unraisable.append)
    table = pa.table({"a": [1, 2, 3]})
    path = tmp_path / "left-open.parquet"
    writer = ParquetWriter(path, table.schema)
    writer.write_table(table)
    del writer
    gc.collect()
    assert pq.read_table(path).equals(table) and os.listdir(tmp_path) == ["left-open.parquet"]
    sink = io.BytesIO()
    writer = ParquetWriter(sink, table.schema)
    writer.write_table(table)
    del writer
    gc.collect()
    assert pq.read_table(io.BytesIO(sink.getvalue())).equals(table)

    failed = tmp_path / "failed.parquet"
    writer = ParquetWriter(failed, table.schema)
    monkeypatch.setattr("parquet_codec.writer.write_column_chunk", _raise)
    with pytest.raises(RuntimeError):
        writer.write_table(table)
    del writer
    gc.collect()
    assert os.listdir(tmp_path) == ["left-open.parquet"]

    monkeypatch.undo()
    monkeypatch.setattr(sys, "unraisablehook", unraisable.append)
    writer = ParquetWriter(failed, table.schema)
    writer.write_table(table)
    monkeypatch.setattr(ParquetWriter, "_footer", _raise)
    del writer
    gc.collect()
    assert os.listdir(tmp_path) == ["left-open.parquet"] and unraisable == []


def _raise(*args, **kwargs):
    raise RuntimeError("failed")


def test_file_object_written_sequentially() -> None:
    class NoSeek(io.RawIOBase):
        def __init__(self) -> None:
            self.data = bytearray()

        def writable(self) -> bool:
            return True

        def write(self, b) -> int:
            self.data += b
            return len(b)

        def seek(self, *args):
            raise AssertionError("the writer must not seek")

    sink = NoSeek()
    write_table({"a": ["x", None, "y"]}, sink)
    assert pq.read_table(pa.BufferReader(bytes(sink.data))).column("a").to_pylist() == ["x", None, "y"]


def test_dictionary_fallback_mid_chunk(tmp_path) -> None:
    path = str(tmp_path / "fb.parquet")
    values = [f"{i // 2:08d}" for i in range(20_000)]  # worth a dictionary, too many for 10 kB
    write_table({"s": values}, path, dictionary_pagesize_limit=10_000, data_page_size=4096, data_page_version="2.0")
    stats = ParquetFile(path).metadata.row_group(0).columns[0].meta_data.encoding_stats
    data_pages = {Encoding._VALUES_TO_NAMES[s.encoding] for s in stats if s.page_type == PageType.DATA_PAGE_V2}
    assert data_pages == {"RLE_DICTIONARY", "PLAIN"}  # the fallback is pyarrow's
    assert pq.read_table(path).column("s").to_pylist() == values


@pytest.mark.parametrize("typ", [pa.struct([]), pa.struct([("s", pa.struct([]))]), pa.list_(pa.struct([]))],
                         ids=["top", "nested", "list"])
def test_a_struct_without_fields_is_refused_before_writing(tmp_path, typ) -> None:
    """pyarrow: "Cannot write struct type 'a' with no child field to Parquet";
    such a group read back as None instead of {}."""
    from parquet_codec.errors import UnsupportedError

    table = pa.table({"x": [1, 2], "a": pa.array([None, None], typ)})
    with pytest.raises(pa.ArrowNotImplementedError, match="no child field"):
        pq.write_table(table, io.BytesIO())
    target = tmp_path / "x.parquet"
    with pytest.raises(UnsupportedError, match="Cannot write struct type '.*' with no child field"):
        write_table(table, target)
    with pytest.raises(UnsupportedError, match="no child field"):
        ParquetWriter(target, table.schema)
    with pytest.raises(UnsupportedError, match="no child field"):
        ParquetWriter(target, Schema.from_fields([group("e", [])]))
    assert os.listdir(tmp_path) == []


@pytest.mark.parametrize("where", ["top", "list"])
def test_a_struct_with_two_fields_of_one_name_is_refused_before_writing(tmp_path, where) -> None:
    """Their columns would share one path (this reader, keying a struct's
    fields by name, refuses such a struct); it failed inside the PLAIN encoder
    with numpy's ValueError."""
    from parquet_codec.errors import UnsupportedError

    struct = pa.StructArray.from_arrays([pa.array([1, 2]), pa.array(["a", "b"])], names=["x", "x"])
    column = struct if where == "top" else pa.ListArray.from_arrays(pa.array([0, 1, 2], pa.int32()), struct)
    target = tmp_path / "x.parquet"
    with pytest.raises(UnsupportedError, match="2 fields named 'x'"):
        write_table(pa.table({"s": column}), target)
    with pytest.raises(UnsupportedError, match="2 fields named 'x'"):
        ParquetWriter(target, pa.schema([("s", column.type)]))
    assert os.listdir(tmp_path) == []


def test_options_rejected() -> None:
    with pytest.raises(ParquetError):
        write_table({"b": [True]}, io.BytesIO(), column_encoding={"b": "DELTA_BINARY_PACKED"})
    with pytest.raises(ParquetError):
        write_table({"b": [1]}, io.BytesIO(), compression="lzma")
    with pytest.raises(ParquetError):
        write_table({"b": [1]}, io.BytesIO(), data_page_version="3.0")


def test_per_column_options(tmp_path) -> None:
    path = str(tmp_path / "per.parquet")
    data = {"a": [1, 2] * 50, "b": ["x", "y"] * 50}
    write_table(data, path, compression={"a": "zstd", "b": "gzip"}, use_dictionary=["b"],
                write_statistics=["a"], compression_level={"a": 3})
    rg = pq.ParquetFile(path).metadata.row_group(0)
    assert (rg.column(0).compression, rg.column(1).compression) == ("ZSTD", "GZIP")
    assert not rg.column(0).has_dictionary_page and rg.column(1).has_dictionary_page
    assert rg.column(0).is_stats_set and not rg.column(1).is_stats_set


def test_column_orders_and_version(tmp_path) -> None:
    path = str(tmp_path / "co.parquet")
    write_table({"a": [1]}, path)
    meta = ParquetFile(path).metadata
    assert len(meta.column_orders) == 1 and meta.column_orders[0].TYPE_ORDER is not None
    assert meta.created_by.startswith("parquet-codec version ")


def test_arrow_and_pandas_input(tmp_path) -> None:
    pd = pytest.importorskip("pandas")
    arrow = pa.table({"a": pa.array([1, None, 3], pa.int16()), "m": pa.array([[("k", 1)], None, []],
                                                                          pa.map_(pa.string(), pa.int32()))})
    path = str(tmp_path / "arrow.parquet")
    write_table(arrow, path)
    assert pq.read_table(path).to_pylist() == arrow.to_pylist()
    df = pd.DataFrame({"x": [1.5, None], "s": ["a", None]})
    write_table(df, path)
    assert pq.read_table(path).to_pandas().equals(df)


ARROW_SCHEMA = pa.schema([("a", pa.int64()), ("b", pa.string())])
MISMATCHES = {
    "int32": (pa.table({"a": pa.array([1], pa.int32()), "b": ["x"]}), r"'a'.*int32.*int64"),
    "extra": (pa.table({"a": [1], "b": ["x"], "c": [1]}), r"extra columns \['c'\]"),
    "missing": (pa.table({"a": [1]}), r"missing columns \['b'\]"),
    "order": (pa.table({"b": ["x"], "a": [1]}), r"order"),
    "not null": (pa.table({"a": [1], "b": ["x"]}, schema=pa.schema([pa.field("a", pa.int64(), nullable=False),
                                                                    ("b", pa.string())])), r"'a'.*not null"),
    "large_string": (pa.table({"a": [1], "b": pa.array(["x"], pa.large_string())}), r"'b'.*large_string"),
}


@pytest.mark.parametrize("case", list(MISMATCHES))
@pytest.mark.parametrize("written", ["table", "batch", "ours"])
def test_a_typed_table_of_another_schema_is_refused(tmp_path, case, written) -> None:
    """As pyarrow ("Table schema does not match schema used to create file"): a
    pyarrow Table or RecordBatch, or a Table, is not cast or cut to the writer's schema."""
    table, difference = MISMATCHES[case]
    with pq.ParquetWriter(tmp_path / "theirs.parquet", ARROW_SCHEMA) as writer, \
            pytest.raises(ValueError, match="does not match"):
        writer.write_table(table)
    given = {"table": table, "batch": table.to_batches()[0], "ours": Table.from_arrow(table)}[written]
    # Compared as Arrow types when both sides have them, else as Parquet types (the schema text).
    parquet_difference = {"int32": r"'a'.*int32 a;.*int64 a;", "not null": r"'a'.*required int64 a.*optional int64 a",
                          "large_string": None}.get(case, difference)
    path = tmp_path / "ours.parquet"
    for schema in (ARROW_SCHEMA, Table.from_arrow(ARROW_SCHEMA.empty_table()).schema):
        if written == "ours" or not isinstance(schema, pa.Schema):
            difference = parquet_difference
        if difference is None:
            continue  # the same Parquet type: no difference to see without Arrow types
        with ParquetWriter(path, schema) as writer:
            with pytest.raises(pc_errors.SchemaError, match=f"does not match.*{difference}"):
                writer.write_table(given)
            writer.write_table(pa.table({"a": [7], "b": ["y"]}))  # the writer is still usable
        assert pq.read_table(path).to_pylist() == [{"a": 7, "b": "y"}]


def test_a_typed_table_may_differ_in_metadata_and_field_ids(tmp_path) -> None:
    schema = pa.schema([pa.field("a", pa.int64(), metadata={"PARQUET:field_id": "4"}), ("b", pa.string())],
                       metadata={"k": "v"})
    table = pa.table({"a": [1], "b": ["x"]}).replace_schema_metadata({"other": "1"})
    path = tmp_path / "ours.parquet"
    with ParquetWriter(path, schema) as writer:
        writer.write_table(table)
        writer.write_table(Table.from_arrow(table))
    assert pq.read_table(path).to_pylist() == [{"a": 1, "b": "x"}] * 2
    assert ParquetFile(str(path)).schema.leaf("a").field_id == 4  # the writer's schema, as pyarrow


@pytest.mark.parametrize(("data", "difference"), [
    ({"a": [1], "b": ["x"], "c": [2]}, r"extra columns \['c'\]"),
    ({"a": [1]}, r"missing columns \['b'\]"),
    ([{"a": 1, "b": "x"}, {"a": 2, "c": 3}], r"extra columns \['c'\]"),
    ([{"a": 1}], r"missing columns \['b'\]"),
], ids=["dict-extra", "dict-missing", "rows-extra", "rows-missing"])
def test_untyped_input_must_name_the_schemas_columns(data, difference) -> None:
    """A dict of lists or list of rows is converted to the writer's types, but
    names neither more nor fewer columns."""
    with ParquetWriter(io.BytesIO(), ARROW_SCHEMA) as writer:
        with pytest.raises(pc_errors.SchemaError, match=difference):
            writer.write_table(data)
        writer.write_table({"b": ["x"], "a": [np.int32(1)]})  # converted: order and types are the schema's
        writer.write_table([{"a": 2}, {"b": "y"}])


def test_untyped_pandas_input_must_name_the_schemas_columns() -> None:
    pd = pytest.importorskip("pandas")
    sink = io.BytesIO()
    with ParquetWriter(sink, ARROW_SCHEMA) as writer:
        with pytest.raises(pc_errors.SchemaError, match=r"extra columns \['c'\]"):
            writer.write_table(pd.DataFrame({"a": [1], "b": ["x"], "c": [1.5]}))
        with pytest.raises(pc_errors.SchemaError, match=r"missing columns \['b'\]"):
            writer.write_table(pd.DataFrame({"a": [1]}))
        writer.write_table(pd.DataFrame({"b": ["x"], "a": np.array([3], np.int32)}))
    assert pq.read_table(io.BytesIO(sink.getvalue())).to_pylist() == [{"a": 3, "b": "x"}]


def test_written_file_has_the_mode_open_would_give(tmp_path):
    import os
    import stat

    import parquet_codec as pc

    path = tmp_path / "mode.parquet"
    pc.write_table({"a": [1]}, path)
    umask = os.umask(0)
    os.umask(umask)
    assert stat.S_IMODE(os.stat(path).st_mode) == 0o666 & ~umask
    os.chmod(path, 0o640)
    pc.write_table({"a": [2]}, path)  # replacing keeps the existing file's mode
    assert stat.S_IMODE(os.stat(path).st_mode) == 0o640


def test_write_metadata_writes_plaintext_footers_only():
    from parquet_codec import FileEncryptionProperties, UnsupportedError

    props = FileEncryptionProperties(footer_key=b"0123456789012345")
    with pytest.raises(UnsupportedError, match="plaintext"):
        write_metadata(Table.from_pydict({"a": [1]}).schema, io.BytesIO(), encryption=props)
    sink = io.BytesIO()
    write_metadata(Table.from_pydict({"a": [1]}).schema, sink)  # _common_metadata: the schema, no row groups
    assert pq.read_metadata(io.BytesIO(sink.getvalue())).num_row_groups == 0


def test_add_key_value_metadata_and_write_as_pyarrows(tmp_path) -> None:
    """ParquetWriter.write takes a table or a batch; added entries replace earlier ones, bytes kept."""
    pa = pytest.importorskip("pyarrow")
    pq = pytest.importorskip("pyarrow.parquet")
    table = pa.table({"a": [1, 2]})
    files = {}
    for name, writer_class in (("ours", ParquetWriter), ("theirs", pq.ParquetWriter)):
        path = tmp_path / f"{name}.parquet"
        schema = Table.from_arrow(table).schema if name == "ours" else table.schema
        with writer_class(path, schema, **({"key_value_metadata": {"k": "first"}} if name == "ours" else {})) as w:
            w.write(table)
            w.write(table.to_batches()[0])
            if name == "theirs":
                w.add_key_value_metadata({"k": "first"})
            w.add_key_value_metadata({"k": "second", b"raw\xff": b"\x00\xfe"})
        files[name] = pq.read_metadata(path)
    ours, theirs = files["ours"], files["theirs"]
    assert ours.num_rows == theirs.num_rows == 4
    assert ours.metadata[b"k"] == theirs.metadata[b"k"] == b"second"
    assert ours.metadata[b"raw\xff"] == theirs.metadata[b"raw\xff"] == b"\x00\xfe"


def test_add_key_value_metadata_of_something_else(tmp_path) -> None:
    """A TypeError naming the argument (pyarrow: TypeError); the writer stays usable."""
    with ParquetWriter(tmp_path / "x.parquet", Table.from_pydict({"a": [1]}).schema) as w:
        for bogus in (5, [("k", "v")], "k=v"):
            with pytest.raises(TypeError, match="key_value_metadata must be a mapping"):
                w.add_key_value_metadata(bogus)
        w.write_table(Table.from_pydict({"a": [1]}))
    assert pq.read_table(tmp_path / "x.parquet").num_rows == 1


@pytest.mark.parametrize("schema", [None, 5, {"a": "int64"}])
def test_a_schema_of_the_wrong_type(tmp_path, schema) -> None:
    """A TypeError, as pyarrow raises, before any file is created."""
    with pytest.raises(TypeError, match="schema must be a parquet_codec or pyarrow Schema"):
        ParquetWriter(tmp_path / "x.parquet", schema)
    with pytest.raises(TypeError, match="schema must be a parquet_codec or pyarrow Schema"):
        write_metadata(schema, tmp_path / "_common_metadata")
    assert list(tmp_path.iterdir()) == []


def test_store_schema_false_drops_the_tables_metadata(tmp_path) -> None:
    """As pyarrow: without the stored schema the table's own metadata (pandas' too)
    is not written; entries given to the writer (key_value_metadata,
    add_key_value_metadata, the Spark schema) still are."""
    pd = pytest.importorskip("pandas")
    for table in (pa.table({"a": [1, 2]}).replace_schema_metadata({"k": "v"}),
                  pa.Table.from_pandas(pd.DataFrame({"a": [1, 2]}))):
        assert table.schema.metadata
        theirs = tmp_path / "theirs.parquet"
        pq.write_table(table, theirs, store_schema=False)
        ours = tmp_path / "ours.parquet"
        write_table(table, ours, store_schema=False)
        assert pq.read_metadata(ours).metadata == pq.read_metadata(theirs).metadata is None
        with pq.ParquetWriter(theirs, table.schema, store_schema=False) as writer:
            writer.write_table(table)
            writer.add_key_value_metadata({"added": "1"})
        with ParquetWriter(ours, table.schema, store_schema=False, key_value_metadata={"given": "2"}) as writer:
            writer.write_table(table)
            writer.add_key_value_metadata({"added": "1"})
        assert pq.read_metadata(theirs).metadata == {b"added": b"1"}
        assert pq.read_metadata(ours).metadata == {b"given": b"2", b"added": b"1"}
    write_table(table, ours, store_schema=False, spark_schema=True)
    assert list(pq.read_metadata(ours).metadata) == [b"org.apache.spark.sql.parquet.row.metadata"]


def test_matrix_polars(table: Table, tmp_path) -> None:
    """polars' Rust reader reads every file of the matrix as pyarrow does."""
    pl = pytest.importorskip("polars")
    table = table.select([c.name for c in table.columns if c.name != "interval"])  # polars has no such type
    for i, (version, codec, dictionary) in enumerate(
            [(v, c, d) for v in ("1.0", "2.0") for c in CODECS for d in (True, False)]):
        path = str(tmp_path / f"p{i}.parquet")
        # polars reads neither of these for FIXED_LEN_BYTE_ARRAY (pyarrow does, above).
        plan = _fixed_length_plan(table.schema, i, {"BYTE_STREAM_SPLIT", "DELTA_BYTE_ARRAY"})
        write_table(table, path, compression=codec, data_page_version=version, use_dictionary=dictionary,
                    column_encoding=plan, data_page_size=512)
        expected = pl.from_arrow(pq.read_table(path))
        got = pl.read_parquet(path)
        for name in expected.columns:
            if name == "json":  # polars keeps JSON without an Arrow schema as bytes
                assert got[name].cast(pl.String).to_list() == pq.read_table(path).column(name).to_pylist()
            else:
                assert got[name].equals(expected[name]), (name, version, codec, dictionary)


def _v2_fallback_table() -> pa.Table:
    """Columns whose values a dictionary does not shrink (it is abandoned), with nulls."""
    n = 3000
    return pa.table({
        "i64": pa.array([None if i % 7 == 3 else i * 7919 for i in range(n)], pa.int64()),
        "req": pa.array(range(n), pa.int64()),
        "dec": pa.array([decimal.Decimal(i) / 100 for i in range(n)], pa.decimal128(20, 2)),
        "uuid": pa.array([None if i % 5 == 0 else i.to_bytes(16, "big") for i in range(n)], pa.binary(16)),
        "f16": pa.array([np.float16(i / 8) for i in range(n)], pa.float16()),
        "s": pa.array([f"value {i}" for i in range(n)]),
        "b": pa.array([i % 3 == 0 for i in range(n)]),
        "cat": pa.array([["x", "y", None][i % 3] for i in range(n)]).dictionary_encode(),
    })


@pytest.mark.parametrize("dictionary", [True, False])
def test_v2_pages_fall_back_to_pyarrows_encodings(tmp_path, dictionary) -> None:
    """With data_page_version='2.0' the values a dictionary does not hold (or all,
    without one) are PLAIN (booleans RLE), as pyarrow writes them, not the DELTA
    encodings of parquet-java's v2 writer: polars reads no FIXED_LEN_BYTE_ARRAY
    column so encoded (decimals, UUIDs, float16), fastparquet no DELTA_BYTE_ARRAY
    and misreads a required DELTA_BINARY_PACKED INT64 column in v2 pages, and
    pyarrow reads no DELTA_BYTE_ARRAY page into a dictionary column."""
    table = _v2_fallback_table()
    ours, theirs = tmp_path / "ours.parquet", tmp_path / "theirs.parquet"
    write_table(table, str(ours), data_page_version="2.0", use_dictionary=dictionary)
    pq.write_table(table, theirs, data_page_version="2.0", use_dictionary=dictionary)
    a, b = pq.ParquetFile(ours).metadata.row_group(0), pq.ParquetFile(theirs).metadata.row_group(0)
    for i in range(a.num_columns):
        name = a.column(i).path_in_schema
        if name == "cat" and dictionary:  # pyarrow's own dictionary; no fallback in either file
            continue
        ignored = {"PLAIN_DICTIONARY", "RLE_DICTIONARY"} | (set() if name == "b" else {"RLE"})  # RLE: levels
        assert set(a.column(i).encodings) - ignored == set(b.column(i).encodings) - ignored, (
            name, a.column(i).encodings, b.column(i).encodings)
    assert pq.read_table(ours).equals(table)
    pl = pytest.importorskip("polars")
    assert pl.read_parquet(ours).equals(pl.read_parquet(theirs))
    fastparquet = pytest.importorskip("fastparquet")
    pd = pytest.importorskip("pandas")
    # (fastparquet gives dictionary-encoded strings the object dtype, PLAIN ones str: pyarrow
    # keeps the dictionary of "s" up to its size limit, where this writer gives it up at once.)
    pd.testing.assert_frame_equal(fastparquet.ParquetFile(str(ours)).to_pandas(),
                                  fastparquet.ParquetFile(str(theirs)).to_pandas(), check_dtype=False)


def test_dictionary_arrays_keep_their_entries(tmp_path) -> None:
    """A dictionary array (a pandas categorical) is written as pyarrow writes
    it: its entries, in order and unused ones too, are each row group's
    dictionary page, whatever their size; so pandas reads back the same
    categories (and their order) from both files, and from a file we rewrite."""
    pd = pytest.importorskip("pandas")
    ordered = pd.Categorical(["m", "a", None, "z", "m"] * 30, categories=["z", "a", "m", "q"], ordered=True)
    many = [f"cat{i:07d}" for i in range(120_000)]  # entries of over a megabyte
    frames = [pd.DataFrame({"c": ordered, "x": range(150)}),
              pd.DataFrame({"c": pd.Categorical([many[i * 997 % len(many)] for i in range(500)], categories=many)})]
    for i, frame in enumerate(frames):
        ours, theirs = tmp_path / f"ours{i}.parquet", tmp_path / f"theirs{i}.parquet"
        write_table(frame, str(ours), row_group_size=64)
        pq.write_table(pa.Table.from_pandas(frame), theirs, row_group_size=64)
        pd.testing.assert_frame_equal(pd.read_parquet(ours), frame)
        pd.testing.assert_frame_equal(pd.read_parquet(ours), pd.read_parquet(theirs))
        for index in range(pq.ParquetFile(ours).num_row_groups):
            dictionary = pq.ParquetFile(ours).read_row_group(index, columns=["c"]).column("c").chunk(0).dictionary
            assert dictionary.to_pylist() == list(frame["c"].cat.categories)
    rewritten = tmp_path / "rewritten.parquet"
    write_table(ParquetFile(str(tmp_path / "theirs0.parquet")).read(), str(rewritten))
    pd.testing.assert_frame_equal(pd.read_parquet(rewritten), frames[0])
