"""The reader against independent oracles: pyarrow, DuckDB, files other writers wrote, and known values."""

from __future__ import annotations

import io

import numpy as np
import pytest

import parquet_codec.reader as reader
from parquet_codec.errors import ChecksumError, ParquetError, SchemaError, UnsupportedError
from tests.conftest import CORPUS_BAD, CORPUS_DATA, corpus_files
from tests.support.compare import first_difference, same
from tests.support.footer import rewrite_footer

pq = pytest.importorskip("pyarrow.parquet")
pa = pytest.importorskip("pyarrow")

# Files of the corpus that pyarrow cannot serve as the oracle for, each with the reason.
OWN_ORACLE = {
    "int96_from_spark.parquet": "pyarrow wraps INT96 values beyond 64-bit nanoseconds",
    "incorrect_map_schema.parquet": "pyarrow rejects a map key that is not required",
    "nested_structs.rust.parquet": "timestamps beyond Python datetimes: compared through to_arrow",
    "large_string_map.brotli.parquet": "two 1 GiB strings: pyarrow cannot read them into one chunk",
    "datapage_v1-corrupt-checksum.parquet": "a corrupt page CRC must raise",
    "rle-dict-uncompressed-corrupt-checksum.parquet": "a corrupt page CRC must raise",
}


def plain_corpus() -> list:
    return [p for p in corpus_files() if p.read_bytes()[-4:] == b"PAR1"]


@pytest.mark.parametrize("path", plain_corpus(), ids=lambda p: str(p.relative_to(CORPUS_DATA)))
def test_corpus_reads_like_pyarrow(path):
    if path.name in OWN_ORACLE:
        pytest.skip(OWN_ORACLE[path.name])
    expected = pq.read_table(path).to_pylist()
    got = reader.read_table(path).to_pylist()
    assert first_difference(got, expected) is None


@pytest.mark.parametrize("path", plain_corpus(), ids=lambda p: str(p.relative_to(CORPUS_DATA)))
def test_corpus_to_arrow_matches_pyarrow(path):
    if path.name in OWN_ORACLE:
        pytest.skip(OWN_ORACLE[path.name])
    ours = reader.read_table(path).to_arrow()
    theirs = pq.read_table(path)
    assert ours.column_names == theirs.column_names
    for name in ours.column_names:
        expected = theirs.column(name).combine_chunks()
        got = ours.column(name).combine_chunks()
        if got.type != expected.type:
            # INT96 may come back in exact microseconds; values must still agree.
            assert pa.types.is_timestamp(got.type) and pa.types.is_timestamp(expected.type), name
            got = got.cast(expected.type)
        # Array.equals treats NaN as unequal to itself: fall back to values.
        assert got.equals(expected) or same(got.to_pylist(), expected.to_pylist()), name


@pytest.mark.skipif(not CORPUS_DATA.is_dir(), reason="corpus not present")
def test_int96_beyond_nanoseconds_is_exact():
    path = CORPUS_DATA / "int96_from_spark.parquet"
    table = reader.read_table(path)
    column = table.to_arrow().column(0).combine_chunks()
    micros = column.cast(pa.timestamp("us")).cast(pa.int64()).to_pylist()
    assert micros == [1704141296123456, 1704070800000000, 253402225200000000, 1735599600000000, None,
                      9089380393200000000]
    with pytest.raises(ParquetError, match=r"value 5 .*column 'a'"):
        table.to_pylist()


@pytest.mark.skipif(not CORPUS_DATA.is_dir(), reason="corpus not present")
def test_map_with_nullable_key_reads_like_duckdb():
    duckdb = pytest.importorskip("duckdb")
    path = CORPUS_DATA / "incorrect_map_schema.parquet"
    got = reader.read_table(path).to_pylist()
    rows = duckdb.sql(f"select * from read_parquet('{path}')").fetchall()
    names = duckdb.sql(f"select * from read_parquet('{path}')").columns
    expected = [dict(zip(names, row, strict=True)) for row in rows]
    for ours, theirs in zip(got, expected, strict=True):
        for name in names:
            value = theirs[name]
            if isinstance(value, dict) and set(value) == {"key", "value"}:  # DuckDB's map form
                value = list(zip(value["key"], value["value"], strict=True))
            assert ours[name] == value or (isinstance(value, dict) and ours[name] == list(value.items()))


@pytest.mark.skipif(not CORPUS_DATA.is_dir(), reason="corpus not present")
def test_nested_structs_beyond_datetime_through_arrow():
    path = CORPUS_DATA / "nested_structs.rust.parquet"
    ours = reader.read_table(path).to_arrow()
    theirs = pq.read_table(path)
    for name in theirs.column_names:
        assert ours.column(name).combine_chunks().equals(theirs.column(name).combine_chunks()), name


@pytest.mark.skipif(not CORPUS_DATA.is_dir(), reason="corpus not present")
@pytest.mark.parametrize("name", ["datapage_v1-corrupt-checksum.parquet",
                                  "rle-dict-uncompressed-corrupt-checksum.parquet"])
def test_corrupt_checksums_are_reported(name):
    with pytest.raises(ChecksumError) as info:
        reader.read_table(CORPUS_DATA / name)
    message = str(info.value)
    assert "column" in message and "page" in message
    # with verification off the values decode (the corruption is in the data bytes)
    reader.read_table(CORPUS_DATA / name, verify_checksums=False)


@pytest.mark.skipif(not CORPUS_DATA.is_dir(), reason="corpus not present")
def test_good_checksums_verify():
    for path in CORPUS_DATA.glob("*checksum*.parquet"):
        if "corrupt" not in path.name:
            reader.read_table(path)


# Every file in bad_data/ and what reading it must do.
BAD_DATA = {
    "ARROW-GH-41317.parquet": "column chunk ends after 0 of 3 values",
    "ARROW-GH-41321.parquet": "RLE",
    "ARROW-GH-43605.parquet": None,  # bit width 0 with every dictionary index 0 is legal
    "ARROW-GH-45185.parquet": "repetition levels .* start at 1",
    "ARROW-GH-47662.parquet": "FIXED_LEN_BYTE_ARRAY values need",
    "ARROW-RS-GH-6229-DICTHEADER.parquet": "page",
    "ARROW-RS-GH-6229-LEVELS.parquet": "values missing|21 values, more than the 1 it declares",
    "PARQUET-1481.parquet": "unknown physical type -7",
}


@pytest.mark.skipif(not CORPUS_BAD.is_dir(), reason="corpus not present")
def test_every_bad_file_has_an_expectation():
    assert sorted(p.name for p in CORPUS_BAD.iterdir()) == sorted(BAD_DATA)


@pytest.mark.parametrize("path", corpus_files(CORPUS_BAD, "*"), ids=lambda p: p.name)
def test_bad_data(path):
    expected = BAD_DATA[path.name]
    if expected is None:
        assert reader.read_table(path).to_pylist() == pq.read_table(path).to_pylist()
        return
    with pytest.raises(ParquetError, match=expected) as info:
        reader.read_table(path).to_pylist()
    assert str(path.name) in str(info.value)


def pyarrow_table():
    import datetime
    import decimal

    n = 300
    rng = np.random.default_rng(7)
    ints = rng.integers(-(2**40), 2**40, n)
    mask = rng.random(n) < 0.2
    return pa.table({
        "i32": pa.array(ints.astype(np.int32), mask=mask),
        "i64": pa.array(ints, mask=mask),
        "u8": pa.array((ints % 256).astype(np.uint8)),
        "f32": pa.array(rng.standard_normal(n).astype(np.float32), mask=mask),
        "f64": pa.array(rng.standard_normal(n), mask=mask),
        "b": pa.array(ints % 3 == 0, mask=mask),
        "s": pa.array([None if m else f"v{i % 17}" * (i % 5) for i, m in enumerate(mask)]),
        "bin": pa.array([bytes([i % 256]) * (i % 7) for i in range(n)]),
        "fixed": pa.array([bytes([i % 256]) * 4 for i in range(n)], pa.binary(4)),
        "dec": pa.array([decimal.Decimal(i - 150) / 100 for i in range(n)], pa.decimal128(9, 2)),
        "ts": pa.array([datetime.datetime(2000, 1, 1) + datetime.timedelta(seconds=i * 3600) for i in range(n)],
                       pa.timestamp("us")),
        "lst": pa.array([None if i % 11 == 0 else list(range(i % 4)) for i in range(n)], pa.list_(pa.int64())),
        "st": pa.array([{"x": i, "y": str(i)} if i % 13 else None for i in range(n)]),
        "m": pa.array([[(str(j), j) for j in range(i % 3)] for i in range(n)], pa.map_(pa.string(), pa.int64())),
    })


PYARROW_OPTIONS = {
    "v1": {},
    "v2": {"data_page_version": "2.0"},
    "plain": {"use_dictionary": False},
    "v2-plain": {"use_dictionary": False, "data_page_version": "2.0"},
    "tiny-pages": {"data_page_size": 64, "write_batch_size": 10},
    "max-rows-per-page": {"max_rows_per_page": 7} ,
    "not-compliant": {"use_compliant_nested_type": False},
    "int96": {"use_deprecated_int96_timestamps": True},
    "checksums": {"write_page_checksum": True, "data_page_version": "2.0"},
    "row-groups": {"row_group_size": 50},
    **{f"codec-{c}": {"compression": c} for c in ("none", "snappy", "gzip", "brotli", "zstd", "lz4")},
    "delta": {"use_dictionary": False, "column_encoding": {
        "i32": "DELTA_BINARY_PACKED", "i64": "DELTA_BINARY_PACKED", "s": "DELTA_LENGTH_BYTE_ARRAY",
        "bin": "DELTA_BYTE_ARRAY", "fixed": "DELTA_BYTE_ARRAY", "b": "RLE"}},
    "byte-stream-split": {"use_dictionary": False, "column_encoding": {
        "f32": "BYTE_STREAM_SPLIT", "f64": "BYTE_STREAM_SPLIT", "i32": "BYTE_STREAM_SPLIT",
        "i64": "BYTE_STREAM_SPLIT", "fixed": "BYTE_STREAM_SPLIT"}},
}


@pytest.mark.parametrize("options", list(PYARROW_OPTIONS.values()), ids=list(PYARROW_OPTIONS))
def test_pyarrow_written_files(options):
    table = pyarrow_table()
    buf = io.BytesIO()
    pq.write_table(table, buf, **options)
    data = buf.getvalue()
    expected = pq.read_table(io.BytesIO(data)).to_pylist()
    assert first_difference(reader.read_table(data).to_pylist(), expected) is None


def test_projection_and_row_groups():
    table = pyarrow_table()
    buf = io.BytesIO()
    pq.write_table(table, buf, row_group_size=70)
    pf = reader.ParquetFile(buf.getvalue())
    assert pf.num_row_groups == 5
    got = pf.read(columns=["st.y", "i64"])
    assert got.column_names == ["st", "i64"]  # in the order asked, as pyarrow's ParquetFile.read
    assert got.column_names == pq.ParquetFile(io.BytesIO(buf.getvalue())).read(columns=["st.y", "i64"]).column_names
    expected = pq.ParquetFile(io.BytesIO(buf.getvalue())).read(columns=["st.y", "i64"]).to_pylist()
    assert first_difference(got.to_pylist(), expected) is None
    for columns in (["st.y", "i64"], ["m", "st"], ["st.x"], ["lst", "b", "s"]):
        got = reader.read_table(buf.getvalue(), columns=columns)
        expected = pq.read_table(io.BytesIO(buf.getvalue()), columns=columns)
        assert got.column_names == expected.column_names
        assert first_difference(got.to_pylist(), expected.to_pylist()) is None
        assert got.to_arrow().schema == expected.schema
    assert pf.read_row_group(2).to_pylist() == pq.ParquetFile(io.BytesIO(buf.getvalue())).read_row_group(2).to_pylist()
    batches = list(pf.iter_batches(batch_size=32, columns=["lst"]))
    arrow_batches = pq.ParquetFile(io.BytesIO(buf.getvalue())).iter_batches(batch_size=32, columns=["lst"])
    assert [b.num_rows for b in batches] == [b.num_rows for b in arrow_batches] == [32] * 9 + [12]  # 300 rows
    assert sum((b.to_pylist() for b in batches), []) == table.select(["lst"]).to_pylist()
    with pytest.raises(SchemaError):
        pf.read(columns=["nope"])


def test_batches_across_row_groups_hold_copies():
    table = pa.table({"x": pa.array(range(250), pa.int64()), "s": [str(i) for i in range(250)]})
    buf = io.BytesIO()
    pq.write_table(table, buf, row_group_size=100)
    batches = list(reader.ParquetFile(buf.getvalue()).iter_batches(batch_size=30))
    assert [b.num_rows for b in batches] == [30] * 8 + [10]
    assert sum((b.to_pylist() for b in batches), []) == table.to_pylist()
    spanning = batches[3]  # rows 90..119: the end of the first row group and the start of the second
    assert spanning.column("x").array.values.base is None  # its own 30 values, not a view of a row group
    assert batches[0].column("x").array.values.base is not None  # within a row group: a view


def test_schema_arrow_and_positional_iter_batches_as_pyarrow():
    table = pa.table({"t": pa.array([1, None], pa.timestamp("ms", tz="UTC")), "d": pa.array([1, 2], pa.date32()),
                      "m": pa.array([[("k", 1)], None], pa.map_(pa.string(), pa.int32())),
                      "dec": pa.array([1, 2], pa.decimal128(9, 2)), "l": [[1.5], []]})
    buf = io.BytesIO()
    pq.write_table(table, buf, row_group_size=1)
    ours, theirs = reader.ParquetFile(buf.getvalue()), pq.ParquetFile(io.BytesIO(buf.getvalue()))
    assert ours.schema_arrow == theirs.schema_arrow
    assert [b.to_pylist() for b in ours.iter_batches(5, [1])] == [b.to_pylist() for b in theirs.iter_batches(5, [1])]


def test_sources_path_bytes_and_file_object(tmp_path):
    path = tmp_path / "t.parquet"
    pq.write_table(pyarrow_table(), path)
    expected = reader.read_table(str(path)).to_pylist()
    assert reader.read_table(path.read_bytes()).to_pylist() == expected
    with open(path, "rb") as handle:
        assert reader.read_table(handle).to_pylist() == expected


def test_empty_table_and_zero_row_groups():
    buf = io.BytesIO()
    pq.write_table(pyarrow_table().slice(0, 0), buf)
    table = reader.read_table(buf.getvalue())
    assert table.num_rows == 0 and table.to_pylist() == []
    assert table.column_names == pyarrow_table().column_names


LARGE_STRINGS_SCRIPT = """
import resource, sys
import numpy as np
import parquet_codec as pc
table = pc.read_table(sys.argv[1])
array = table.column("arr").array
keys = array.keys
assert array.offsets.tolist() == [0, 1, 2] and array.validity is None
assert keys.offsets.tolist() == [0, 2**30, 2**31]
assert bool((keys.data == ord("a")).all())
assert array.items.values.tolist() == [1, 1]
print(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024)
"""

# Two 1 GiB strings: the budget is 2.5 times their size.
LARGE_STRINGS_BUDGET = 5 * 2**30


@pytest.mark.skipif(not (CORPUS_DATA / "large_string_map.brotli.parquet").exists(), reason="corpus not present")
def test_large_string_map_within_memory_budget():
    import subprocess
    import sys

    done = subprocess.run([sys.executable, "-c", LARGE_STRINGS_SCRIPT,
                           str(CORPUS_DATA / "large_string_map.brotli.parquet")],
                          capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr
    assert int(done.stdout.strip()) < LARGE_STRINGS_BUDGET


def test_read_metadata_outlives_the_file(tmp_path):
    path = tmp_path / "t.parquet"
    pq.write_table(pyarrow_table(), path, row_group_size=70)
    meta = reader.read_metadata(str(path), memory_map=True)
    expected = pq.read_metadata(path)
    assert (meta.num_rows, meta.num_row_groups) == (expected.num_rows, expected.num_row_groups)
    assert [meta.row_group(i).num_rows for i in range(meta.num_row_groups)] == [
        expected.row_group(i).num_rows for i in range(expected.num_row_groups)]
    assert meta.created_by == expected.created_by


def test_read_schema_is_pyarrows(tmp_path):
    path = tmp_path / "t.parquet"
    table = pyarrow_table().replace_schema_metadata({"origin": "test"})
    pq.write_table(table, path)
    ours, theirs = reader.read_schema(str(path)), pq.read_schema(path)
    # (with check_metadata, pyarrow also compares the name of a map's entries field,
    # which it takes from the column's name: that one difference is known)
    assert ours.equals(theirs) and ours.metadata == theirs.metadata


def test_scan_contents_and_closed_as_pyarrow(tmp_path):
    path = tmp_path / "t.parquet"
    pq.write_table(pa.table({"x": list(range(10)), "y": [str(i) for i in range(10)]}), path, row_group_size=4)
    pf = reader.ParquetFile(path)
    theirs = pq.ParquetFile(path)
    assert not pf.closed
    assert pf.scan_contents() == theirs.scan_contents() == 10
    assert pf.scan_contents(["y"], batch_size=3) == theirs.scan_contents(["y"], batch_size=3)
    pf.close()
    assert pf.closed


DUCKDB_QUERIES = {
    "scalars": "select range::INT i, range * 1000003 b, range / 7.0 d, range % 3 = 0 flag, 'v' || range s, "
               "case when range % 5 = 0 then null else range end n, (range % 200)::UTINYINT ut, "
               "range::UBIGINT ub, (range / 3)::DECIMAL(9, 2) d9, (range / 3)::DECIMAL(38, 10) d38, "
               "DATE '2020-01-01' + range::INT dt, TIMESTAMP '2020-01-01' + to_microseconds(range) ts, "
               "TIMESTAMPTZ '2020-01-01 00:00:00+00' + to_microseconds(range) tz, "
               "TIMESTAMP_NS '2020-01-01 00:00:00.123456789' + to_microseconds(range) tns, "
               "TIME '01:02:03' + to_microseconds(range) tm, INTERVAL 1 DAY * (range % 5) iv, "
               "(range::VARCHAR)::JSON js, blob 'ab\\x00c' bl from range(5000)",
    "nested": "select [range, range + 1] l, {'a': range, 'b': 'x' || range} st, map([range], ['v' || range]) m, "
              "[[range], []] ll, case when range % 4 = 0 then null else [null, range] end ln, "
              "[{'k': range}] ls from range(3000)",
    # DuckDB's own types: 128-bit integers (written as doubles), UUID, time with a zone,
    # nanosecond times, second and millisecond timestamps, bit strings, big numbers,
    # unions, variants, enums, geometry, fixed-size arrays, empty maps, infinite floats
    "exotic": "select (range::HUGEINT * 17014118346046923173168730371588410) h, "
              "(range::UHUGEINT * 34028236692093846346337460743176821) uh, md5(range::VARCHAR)::UUID u, "
              "('01:02:03+0' || (range % 10) || ':00')::TIMETZ ttz, '01:02:03.123456789'::TIME_NS tns, "
              "(TIMESTAMP '1960-01-01' + to_seconds(range * 12345))::TIMESTAMP_S ts_s, "
              "(TIMESTAMP '1960-01-01' + to_milliseconds(range * 12345678))::TIMESTAMP_MS ts_ms, "
              "(range % 16)::BIT bits, range::BIGNUM * 100000000000000000000000000 big, "
              "union_value(num := range)::UNION(num INT, str VARCHAR) un, "
              "case when range % 3 = 0 then range::VARIANT when range % 3 = 1 then ('s' || range)::VARIANT "
              "else {'a': range}::VARIANT end var, (['a', 'bb', 'ccc'][range % 3 + 1])::ENUM('a', 'bb', 'ccc') en, "
              "'POINT(1 2)'::GEOMETRY geo, [range, range * 2]::INTEGER[2] arr, "
              "case when range % 2 = 0 then map([], []::VARCHAR[]) else map([1], ['a']) end me, "
              "['nan'::DOUBLE, '-inf'::DOUBLE, -0.0::DOUBLE, 0.0::DOUBLE][range % 4 + 1] fl "
              "from range(2000)",
}


@pytest.mark.parametrize("options", ["COMPRESSION zstd", "COMPRESSION snappy, PARQUET_VERSION v2, ROW_GROUP_SIZE 1000",
                                     "COMPRESSION uncompressed, DICTIONARY_SIZE_LIMIT 10"])
@pytest.mark.parametrize("query", DUCKDB_QUERIES)
def test_files_duckdb_writes_read_like_pyarrow(query, options, tmp_path):
    """Another writer's choices (its logical types, v2 pages, small
    dictionaries), with pyarrow as the oracle: nanosecond timestamps included."""
    duckdb = pytest.importorskip("duckdb")
    path = tmp_path / "duck.parquet"
    duckdb.connect().execute(f"COPY ({DUCKDB_QUERIES[query]}) TO '{path}' (FORMAT parquet, {options})")
    table, expected = reader.read_table(path), pq.read_table(path)
    assert first_difference(table.to_pylist(), expected.to_pylist()) is None
    assert table.to_arrow().schema.equals(expected.schema)


def test_int32_deltas_duckdb_writes_in_64_bits_read_as_duckdb_reads_them(tmp_path):
    """DuckDB's v2 pages hold DELTA_BINARY_PACKED INT32 columns whose deltas
    need 33 bits (pyarrow refuses them): DuckDB is the oracle."""
    duckdb = pytest.importorskip("duckdb")
    path = tmp_path / "duck.parquet"
    query = "select (case when range % 2 = 0 then 2147483647 - range else -2147483648 + range end)::INTEGER i from range(3000)"
    duckdb.connect().execute(f"COPY ({query}) TO '{path}' (FORMAT parquet, PARQUET_VERSION v2)")
    assert "DELTA_BINARY_PACKED" in pq.ParquetFile(path).metadata.row_group(0).column(0).encodings
    expected = [{"i": row[0]} for row in duckdb.sql(f"select i from read_parquet('{path}')").fetchall()]
    assert reader.read_table(path).to_pylist() == expected


def test_parquet_file_takes_pyarrows_other_arguments(tmp_path):
    """A footer read before spares reading it again; the thrift limits are accepted."""
    path = tmp_path / "t.parquet"
    pq.write_table(pa.table({"a": [1, 2, 3]}), path)
    meta = reader.read_metadata(path)
    pf = reader.ParquetFile(path, metadata=meta, thrift_string_size_limit=10, thrift_container_size_limit=10,
                            common_metadata=None, schema_depth_limit=5)
    assert pf.metadata.footer is meta.footer and pf.read().to_pylist() == [{"a": 1}, {"a": 2}, {"a": 3}]
    with pytest.raises(TypeError, match="FileMetaData"):
        reader.ParquetFile(path, metadata=pq.read_metadata(path))


FASTPARQUET_OPTIONS = [{}, {"compression": "SNAPPY", "row_group_offsets": 500}, {"times": "int96"},
                       {"compression": "GZIP", "has_nulls": True, "stats": False}, {"fixed_text": {"by": 5}},
                       {"compression": "ZSTD", "stats": True}, {"compression": "LZ4_RAW", "times": "int96"},
                       {"compression": "LZ4", "row_group_offsets": [0, 7, 1000]}, {"compression": "BROTLI"}]


@pytest.mark.filterwarnings("ignore")  # fastparquet's own use of deprecated pandas calls
@pytest.mark.parametrize("options", FASTPARQUET_OPTIONS, ids=lambda o: ",".join(o) or "defaults")
def test_files_fastparquet_writes_read_like_pyarrow(options, tmp_path):
    """fastparquet's own writer (converted types, its nullable and
    categorical encodings, INT96, fixed-length text), with pyarrow as the oracle."""
    fastparquet = pytest.importorskip("fastparquet")
    pd = pytest.importorskip("pandas")
    n = 1500
    frame = pd.DataFrame({
        "i": np.arange(n, dtype=np.int64), "u8": (np.arange(n) % 200).astype(np.uint8),
        "f": np.linspace(0, 1, n), "b": np.arange(n) % 3 == 0, "s": [f"s{i}" if i % 7 else None for i in range(n)],
        "by": [b"abcde"] * n, "t": pd.date_range("2020-01-01", periods=n, freq="1s"),
        "tz": pd.date_range("2020-01-01", periods=n, freq="1ms", tz="UTC"), "td": pd.to_timedelta(np.arange(n), "s"),
        "ni": pd.array([None if i % 5 == 0 else i for i in range(n)], dtype="Int64"),
        "cat": pd.Categorical(["a", "b", "c"] * (n // 3)), "js": [[i, i + 1] for i in range(n)],
        # pandas' nullable types, the other widths, a zone other than UTC, missing times
        "nb": pd.array([None if i % 5 == 0 else i % 2 == 0 for i in range(n)], dtype="boolean"),
        "nu16": pd.array([None if i % 6 == 0 else i for i in range(n)], dtype="UInt16"),
        "nf": pd.array([None if i % 4 == 0 else i / 8 for i in range(n)], dtype="Float64"),
        "i8": (np.arange(n) % 256 - 128).astype(np.int8), "u64": np.arange(n, dtype=np.uint64) * 2**53,
        "f16": (np.arange(n) / 8).astype(np.float16),
        "paris": pd.date_range("2020-01-01", periods=n, freq="1h", tz="Europe/Paris"),
        "nat": pd.Series(pd.date_range("2020-01-01", periods=n, freq="1D")).where(np.arange(n) % 4 != 0),
    })
    path = tmp_path / "fp.parquet"
    fastparquet.write(str(path), frame, object_encoding={"s": "utf8", "by": "bytes", "js": "json"}, **options)
    assert first_difference(reader.read_table(path).to_pylist(), pq.read_table(path).to_pylist()) is None


POLARS_OPTIONS = [{}, {"compression": "lz4", "row_group_size": 700}, {"compression": "brotli", "statistics": False},
                  {"compression": "uncompressed", "data_page_size": 1024}, {"compression": "gzip", "statistics": "full"}]


@pytest.mark.parametrize("options", POLARS_OPTIONS, ids=lambda o: ",".join(f"{k}={v}" for k, v in o.items()) or "defaults")
def test_files_polars_writes_read_like_pyarrow(options, tmp_path):
    """polars' own Rust writer (its unsigned, categorical, enum, decimal,
    time zone, duration, fixed-size list and nested types), with pyarrow as the oracle."""
    pl = pytest.importorskip("polars")
    import datetime as dt
    import decimal

    n = 1500
    ints = [(i * 7919) % 2001 - 1000 for i in range(n)]

    def nulls(values: list) -> list:
        return [None if i % 9 == 4 else v for i, v in enumerate(values)]

    frame = pl.DataFrame({
        "i8": pl.Series(nulls([x % 100 for x in ints]), dtype=pl.Int8),
        "u16": pl.Series(nulls([abs(x) for x in ints]), dtype=pl.UInt16),
        "u64": pl.Series(nulls([abs(x) * 10**15 for x in ints]), dtype=pl.UInt64),
        "f32": pl.Series(nulls([x / 7 for x in ints]), dtype=pl.Float32),
        "b": pl.Series(nulls([x % 3 == 0 for x in ints]), dtype=pl.Boolean),
        "s": pl.Series(nulls([f"v{x % 50}" for x in ints]), dtype=pl.String),
        "bin": pl.Series(nulls([bytes([abs(x) % 256]) * (abs(x) % 5) for x in ints]), dtype=pl.Binary),
        "cat": pl.Series(nulls([f"c{x % 7}" for x in ints]), dtype=pl.Categorical),
        "enum": pl.Series(nulls(["abc"[x % 3] for x in ints]), dtype=pl.Enum(["a", "b", "c"])),
        "date": pl.Series(nulls([dt.date(2000, 1, 1) + dt.timedelta(days=x) for x in ints]), dtype=pl.Date),
        "time": pl.Series(nulls([dt.time(abs(x) % 24, abs(x) % 60, 0, abs(x)) for x in ints]), dtype=pl.Time),
        "ms": pl.Series(nulls([dt.datetime(2020, 1, 1) + dt.timedelta(seconds=x) for x in ints]),
                        dtype=pl.Datetime("ms")),
        "ns_utc": pl.Series(nulls([dt.datetime(2020, 1, 1) + dt.timedelta(microseconds=x) for x in ints]),
                            dtype=pl.Datetime("ns", "UTC")),
        "paris": pl.Series(nulls([dt.datetime(2020, 1, 1) + dt.timedelta(hours=x) for x in ints]),
                           dtype=pl.Datetime("us", "Europe/Paris")),
        "dur": pl.Series(nulls([dt.timedelta(microseconds=x * 12345) for x in ints]), dtype=pl.Duration("us")),
        "dec": pl.Series(nulls([decimal.Decimal(x) / 100 for x in ints]), dtype=pl.Decimal(10, 2)),
        "dec38": pl.Series(nulls([decimal.Decimal(x) * 10**20 / 1000 for x in ints]), dtype=pl.Decimal(38, 3)),
        "lst": pl.Series(nulls([nulls(list(range(abs(x) % 4))) for x in ints]), dtype=pl.List(pl.Int64)),
        "lstlst": pl.Series(nulls([[list(range(j)) for j in range(abs(x) % 3)] for x in ints]),
                            dtype=pl.List(pl.List(pl.Int32))),
        "arr": pl.Series(nulls([[x, x + 1, x + 2] for x in ints]), dtype=pl.Array(pl.Int32, 3)),
        "st": pl.Series(nulls([{"x": x, "y": f"s{x}" if x % 4 else None} for x in ints]),
                        dtype=pl.Struct({"x": pl.Int32, "y": pl.String})),
        "lst_st": pl.Series(nulls([[{"p": j, "q": j / 2} for j in range(abs(x) % 3)] for x in ints]),
                            dtype=pl.List(pl.Struct({"p": pl.Int64, "q": pl.Float64}))),
        "null": pl.Series([None] * n, dtype=pl.Null),
        # the other widths and units, special floats, deeper nesting, columns of nulls
        "i16": pl.Series(nulls([x * 30 for x in ints]), dtype=pl.Int16),
        "i32": pl.Series(nulls([x * 2_000_000 for x in ints]), dtype=pl.Int32),
        "u8": pl.Series(nulls([abs(x) % 256 for x in ints]), dtype=pl.UInt8),
        "u32": pl.Series(nulls([abs(x) * 4_000_000 for x in ints]), dtype=pl.UInt32),
        "f16": pl.Series(nulls([x / 8 for x in ints]), dtype=pl.Float16),
        "f64": pl.Series(nulls([float("nan") if x % 50 == 0 else float("-inf") if x % 51 == 0 else x / 3
                                for x in ints]), dtype=pl.Float64),
        "us": pl.Series(nulls([dt.datetime(1960, 1, 1) + dt.timedelta(microseconds=x * 999_999_937) for x in ints]),
                        dtype=pl.Datetime("us")),
        "ns": pl.Series(nulls([dt.datetime(2020, 1, 1) + dt.timedelta(microseconds=x) for x in ints]),
                        dtype=pl.Datetime("ns")),
        "dur_ms": pl.Series(nulls([dt.timedelta(milliseconds=x * 7) for x in ints]), dtype=pl.Duration("ms")),
        "dur_ns": pl.Series(nulls([dt.timedelta(microseconds=x) for x in ints]), dtype=pl.Duration("ns")),
        "lst3": pl.Series(nulls([[[[j] * j] for j in range(abs(x) % 3)] for x in ints]),
                          dtype=pl.List(pl.List(pl.List(pl.Int16)))),
        "arr2d": pl.Series(nulls([[[x, None], [x + 1, x]] for x in ints]), dtype=pl.Array(pl.Int32, (2, 2))),
        "st_st": pl.Series(nulls([{"a": {"b": x if x % 3 else None, "c": [x]}, "d": [{"k": x}]} for x in ints]),
                           dtype=pl.Struct({"a": pl.Struct({"b": pl.Int64, "c": pl.List(pl.UInt8)}),
                                            "d": pl.List(pl.Struct({"k": pl.Int32}))})),
        "null_lst": pl.Series([None] * n, dtype=pl.List(pl.Int64)),
        "null_st": pl.Series([None] * n, dtype=pl.Struct({"x": pl.Int32})),
    })
    path = tmp_path / "polars.parquet"
    frame.write_parquet(path, **options)
    table, expected = reader.read_table(path), pq.read_table(path)
    assert first_difference(table.to_pylist(), expected.to_pylist()) is None
    assert table.to_arrow().schema.equals(expected.schema)


@pytest.mark.parametrize("cls, method", [("ParquetFile", m) for m in ("read", "read_row_group", "read_row_groups",
                                                                      "iter_batches", "close")]
                         + [("ParquetWriter", m) for m in ("write", "write_batch", "write_table", "close")])
def test_positional_parameters_are_pyarrows(cls, method):
    """A call written for pyarrow, with positional arguments, means the same here."""
    import inspect

    import parquet_codec

    def positional(function: object) -> list[str]:
        kinds = (inspect.Parameter.POSITIONAL_ONLY, inspect.Parameter.POSITIONAL_OR_KEYWORD)
        return [p.name for p in inspect.signature(function).parameters.values() if p.kind in kinds]

    assert positional(getattr(getattr(parquet_codec, cls), method)) == positional(getattr(getattr(pq, cls), method))


def test_read_with_pyarrows_positional_arguments(tmp_path):
    path = tmp_path / "t.parquet"
    pq.write_table(pa.table({"a": [1, 2, 3], "b": ["x", "y", "z"]}), path)
    pf = reader.ParquetFile(path)
    assert pf.read(["a"], False, False).to_pylist() == [{"a": 1}, {"a": 2}, {"a": 3}]
    assert pf.read_row_groups([0], ["b"], False, False).column_names == ["b"]
    assert [t.num_rows for t in pf.iter_batches(2, [0], ["a"], False, False)] == [2, 1]
    pf.close(True)
    assert pf.closed


def test_summary_file_names_the_file_holding_the_data(tmp_path):
    """A ``_metadata`` summary file lists row groups other files hold: its
    metadata reads, its data is refused naming the file (pyarrow fails parsing a page header)."""
    collected: list = []
    table = pa.table({"a": [1, 2, 3, 4], "p": ["x", "x", "y", "y"]})
    pq.write_to_dataset(table, tmp_path, partition_cols=["p"], metadata_collector=collected)
    pq.write_metadata(table.schema.remove(1), tmp_path / "_metadata", metadata_collector=collected)
    pf = reader.ParquetFile(tmp_path / "_metadata")
    # (pyarrow writes the partitions concurrently: their order in the summary varies)
    assert pf.metadata.num_rows == 4 and {pf.metadata.row_group(i).column(0).statistics.max for i in (0, 1)} == {2, 4}
    where = pf.metadata.row_group(0).column(0).file_path
    for read in (pf.read, lambda: pf.read(filters=[("a", ">", 1)]), lambda: pf.column_index(0, "a"),
                 lambda: pf.bloom_filter(0, "a")):
        with pytest.raises(UnsupportedError, match=f"in another file, '{where}'.*row group 0, column 'a'"):
            read()


def _with_schema(elements_of) -> bytes:
    """A pyarrow-written file of one optional int64 column "id", its footer's
    schema replaced by ``elements_of(schema)`` (the column chunks stay)."""
    pa = pytest.importorskip("pyarrow")
    pq = pytest.importorskip("pyarrow.parquet")
    buf = io.BytesIO()
    pq.write_table(pa.table({"id": pa.array([1, None, 3], pa.int64())}), buf, store_schema=False,
                   write_statistics=False, write_page_index=False)

    def edit(meta):
        meta.schema = elements_of(meta.schema)
        for group in meta.row_groups:
            for chunk in group.columns:
                chunk.meta_data.size_statistics = None  # its level histograms follow the old schema
    return rewrite_footer(buf.getvalue(), edit)


def _empty_group(name: str, repetition: int, **extra):
    from parquet_codec.format.ttypes import SchemaElement

    return SchemaElement(name=name, repetition_type=repetition, num_children=0, **extra)


def _leafless_schemas() -> dict:
    from parquet_codec.format.ttypes import ConvertedType, SchemaElement

    root = lambda n: SchemaElement(name="schema", num_children=n)  # noqa: E731
    return {
        "optional": lambda s: [root(2), s[1], _empty_group("g", 1)],
        "required": lambda s: [root(2), s[1], _empty_group("g", 0)],
        "repeated": lambda s: [root(2), s[1], _empty_group("g", 2)],
        "first": lambda s: [root(2), _empty_group("g", 1), s[1]],
        "empty inside empty": lambda s: [root(2), s[1], SchemaElement(name="g", repetition_type=0, num_children=1),
                                         _empty_group("h", 1)],
        "list of empty": lambda s: [root(2), s[1], SchemaElement(name="l", repetition_type=1, num_children=1,
                                                                  converted_type=ConvertedType.LIST),
                                    SchemaElement(name="list", repetition_type=2, num_children=1),
                                    _empty_group("element", 1)],
    }


@pytest.mark.parametrize("shape", list(_leafless_schemas()))
def test_fields_without_a_leaf_read_as_pyarrow(shape):
    """A top-level field of empty groups only (parquet-go writes them) has no
    column to say whether a value is there: pyarrow reads every slot as null,
    of the field's type (struct<>, list<struct<>>, ...), whatever its repetition."""
    pq = pytest.importorskip("pyarrow.parquet")
    data = _with_schema(_leafless_schemas()[shape])
    expected = pq.read_table(io.BytesIO(data))
    got = reader.read_table(data)
    assert got.to_pylist() == expected.to_pylist()
    assert got.to_arrow().equals(expected) and got.to_arrow().schema == expected.schema
    assert reader.ParquetFile(data).schema_arrow == pq.ParquetFile(io.BytesIO(data)).schema_arrow
    batches = list(reader.ParquetFile(data).iter_batches(2))
    assert [b.num_rows for b in batches] == [2, 1]
    assert reader.read_table(data, filters=[("id", ">", 1)]).to_pylist() == expected.filter(
        expected["id"].to_numpy(zero_copy_only=False) > 1).to_pylist()


def test_an_empty_group_beside_leaves_is_refused_as_pyarrow_does():
    from parquet_codec.format.ttypes import SchemaElement

    pq = pytest.importorskip("pyarrow.parquet")
    data = _with_schema(lambda s: [SchemaElement(name="schema", num_children=1),
                                   SchemaElement(name="s", repetition_type=1, num_children=2), s[1],
                                   _empty_group("g", 1)])
    with pytest.raises((OSError, ValueError), match="non-leaf node has no children"):
        pq.read_table(io.BytesIO(data))
    with pytest.raises(SchemaError, match="'s.g' has no leaf column"):
        reader.read_table(data)


def test_list_of_legacy_maps_reads_as_pyarrow():
    """Impala's legacy nested files hold `LIST > repeated group array (MAP) >
    repeated group map (MAP) > key, value`: a list of required maps."""
    pa = pytest.importorskip("pyarrow")
    pq = pytest.importorskip("pyarrow.parquet")
    import parquet_codec as pc
    from parquet_codec.format.ttypes import ConvertedType as CT
    from parquet_codec.format.ttypes import SchemaElement as E
    from parquet_codec.schema import Schema

    schema = Schema.from_elements([
        E(name="schema", num_children=2), E(name="id", type=1, repetition_type=0),
        E(name="t_array_map", repetition_type=0, num_children=1, converted_type=CT.LIST),
        E(name="array", repetition_type=2, num_children=1, converted_type=CT.MAP),
        E(name="map", repetition_type=2, num_children=2, converted_type=CT.MAP),
        E(name="key", type=6, repetition_type=0, converted_type=CT.UTF8), E(name="value", type=1, repetition_type=1),
    ])  # fmt: skip
    rows = [{"id": 1, "t_array_map": [[("a", 2), ("b", None)], []]}, {"id": 2, "t_array_map": []},
            {"id": 3, "t_array_map": [[("c", 5)]]}]
    buf = io.BytesIO()
    pc.write_table(pc.Table.from_pylist(rows, schema), buf)
    expected = pq.read_table(io.BytesIO(buf.getvalue()))
    assert expected.schema.field("t_array_map").type == pa.list_(
        pa.field("array", pa.map_(pa.string(), pa.int32()), nullable=False))
    got = reader.read_table(buf.getvalue())
    assert got.to_pylist() == expected.to_pylist() == rows
    assert got.to_arrow().equals(expected)


def test_fields_without_a_leaf_take_no_unbacked_row_count():
    """Nothing in the file backs the rows of a field of empty groups only: a
    count no Arrow array holds is refused before anything is allocated."""
    from parquet_codec.errors import CorruptFileError
    from parquet_codec.format.ttypes import SchemaElement

    data = _with_schema(lambda s: [SchemaElement(name="schema", num_children=1), _empty_group("g", 1)])

    def rows(n):
        def edit(meta):
            meta.row_groups[0].columns, meta.row_groups[0].num_rows, meta.num_rows = [], n, n
        return rewrite_footer(data, edit)

    assert reader.read_table(rows(5)).to_pylist() == [{"g": None}] * 5
    with pytest.raises(CorruptFileError, match="'g' has no column, and 1125899906842624 rows are declared"):
        reader.read_table(rows(2**50))


def test_a_row_group_that_does_not_fit_in_memory_is_a_resource_limit_error(monkeypatch):
    """Without a memory_limit, an allocation the machine refuses is this
    package's error, naming file and row group, not numpy's MemoryError."""
    from parquet_codec.errors import ResourceLimitError

    sink = io.BytesIO()
    pq.write_table(pa.table({"a": [1, 2, 3]}), sink)

    def refuse(*args, **kwargs):
        raise MemoryError("Unable to allocate 1.00 TiB")

    monkeypatch.setattr(reader, "read_column_chunk", refuse)
    with pytest.raises(ResourceLimitError, match="does not fit in memory") as caught:
        reader.read_table(sink.getvalue())
    assert caught.value.context.get("row_group") == 0


def test_columns_may_be_any_iterable_of_names():
    sink = io.BytesIO()
    pq.write_table(pa.table({"id": [1, 2], "name": ["a", "b"], "x": [1.0, 2.0]}), sink, row_group_size=1)
    data = sink.getvalue()
    assert reader.read_table(data, columns=(c for c in ["id", "name"])).column_names == ["id", "name"]
    pf = reader.ParquetFile(data)
    assert [t.column_names for t in pf.iter_batches(batch_size=1, columns=iter(["name"]))] == [["name"], ["name"]]
    assert pf.read_row_group(0, columns=iter(["x"])).column_names == ["x"]
    for wrong in ([0], [None], [b"id"], "id"):
        with pytest.raises(TypeError, match="names"):
            reader.read_table(data, columns=wrong)


@pytest.mark.parametrize("field, message", [("num_values", "lacks its num_values"),
                                            ("data_page_offset", "lacks its data_page_offset"),
                                            ("total_compressed_size", "lacks its total_compressed_size")])
def test_missing_chunk_metadata_is_named(field, message):
    sink = io.BytesIO()
    pq.write_table(pa.table({"a": [1, 2]}), sink, use_dictionary=False)

    def drop(meta):
        setattr(meta.row_groups[0].columns[0].meta_data, field, None)

    with pytest.raises(ParquetError, match=message) as caught:
        reader.read_table(rewrite_footer(sink.getvalue(), drop))
    assert "None" not in str(caught.value)


def test_a_column_of_other_than_the_declared_rows_is_corrupt():
    from parquet_codec.errors import CorruptFileError

    sink = io.BytesIO()
    pq.write_table(pa.table({"a": [1, 2]}), sink)

    def more_rows(meta):
        meta.row_groups[0].num_rows = 3

    with pytest.raises(CorruptFileError, match="row group declares 3"):
        reader.read_table(rewrite_footer(sink.getvalue(), more_rows))


def test_arguments_of_the_wrong_kind_are_named():
    sink = io.BytesIO()
    pq.write_table(pa.table({"a": [1, 2]}), sink, row_group_size=1)
    pf = reader.ParquetFile(sink.getvalue())
    for groups in ([1.0], ["0"], [True]):
        with pytest.raises(TypeError, match="row group index is an integer"):
            pf.read_row_groups(groups)
    assert pf.read_row_groups([np.int64(1)]).to_pydict() == {"a": [2]}
    for size, error in ((1.5, TypeError), (True, TypeError), (0, ValueError)):
        with pytest.raises(error, match="batch_size"):
            next(pf.iter_batches(batch_size=size))
    for limit, error in ((float("nan"), ValueError), ("1GB", TypeError), (-1, ValueError), (True, TypeError)):
        with pytest.raises(error, match="memory_limit"):
            reader.ParquetFile(sink.getvalue(), memory_limit=limit)
    assert reader.ParquetFile(sink.getvalue(), memory_limit=1e9).memory_limit == 10**9


def test_a_map_with_null_keys_is_refused_by_to_arrow():
    """A map whose (optional) key field holds nulls reads with to_pylist, as
    DuckDB reads it; to_arrow refuses it with a SchemaError naming the column
    (Arrow's map keys cannot be null: building the array aborted the process).
    The file is the read fuzz target's finding."""
    from pathlib import Path

    from parquet_codec.errors import SchemaError

    data = (Path(__file__).resolve().parents[1] / "fuzz" / "regressions" / "read" / "map-with-null-keys").read_bytes()
    table = reader.read_table(data)
    assert table.to_pylist()[0]["my_map"] == [(None, None)] * 3
    with pytest.raises(SchemaError, match=r"9 map keys are null.*column 'my_map'"):
        table.to_arrow()


def test_an_arrow_schema_that_does_not_fit_in_memory_is_a_resource_limit_error(monkeypatch):
    """A footer of a million columns: building its Arrow schema ran out of
    memory with pyarrow's MemoryError (std::bad_alloc)."""
    from parquet_codec.errors import ResourceLimitError
    from parquet_codec.table import Table

    sink = io.BytesIO()
    pq.write_table(pa.table({"a": [1, 2, 3], "b": ["x", "y", "z"]}), sink)

    def refuse(self):
        raise MemoryError("std::bad_alloc")

    monkeypatch.setattr(Table, "to_arrow", refuse)
    with pytest.raises(ResourceLimitError, match="the Arrow schema of 2 columns does not fit in memory"):
        reader.read_schema(sink.getvalue())
    with pytest.raises(ResourceLimitError, match="the Arrow schema of 2 columns does not fit in memory"):
        reader.read_metadata(sink.getvalue()).schema.to_arrow_schema()
