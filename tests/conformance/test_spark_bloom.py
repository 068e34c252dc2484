"""Live: bloom filters between Spark (parquet-java 1.17) and our writer and reader.

- Spark, with ``parquet.filter.bloom.enabled=true`` and an equality filter
  pushed down on a bloom-filtered column of one of our files, returns exactly
  the matching rows for present and absent values of every type a bloom
  filter takes; a file whose bitsets were zeroed afterwards makes Spark drop
  the rows, which shows it consults our filters (at our offsets, in our layout).
- For the same column values, ndv and fpp, in a single row group, our
  filter (``bloom_filter_sizing="parquet-java"``) is byte-identical to the
  one Spark writes (``parquet.bloom.filter.enabled#col``), header and bitset;
  our reader finds every inserted value in Spark's filters.
"""

from __future__ import annotations

import datetime
import decimal
import glob
from pathlib import Path

import pytest

import parquet_codec as pc
from parquet_codec.schema import Schema, primitive
from tests.conformance.ours import _dec, _ts
from tests.conformance.support import assert_same_rows, collected, naive_utc

pytestmark = pytest.mark.spark

ROWS = 3000
UTC = datetime.timezone.utc
DAY0 = datetime.date(2000, 1, 1)
TS0 = datetime.datetime(2020, 1, 1, tzinfo=UTC)
D = decimal.Decimal
DDL = ("id int not null, i32 int, i64 long, f32 float, f64 double, s string, bin binary, dec decimal(18,3), "
       "dec38 decimal(38,10), day date, ts timestamp")

#: column -> (ndv, fpp) of its bloom filter.
BLOOM = {"i32": (3000, 0.01), "i64": (1500, 0.01), "f32": (3000, 0.05), "f64": (500, 0.01), "s": (3000, 0.001),
         "bin": (2000, 0.01), "dec": (3000, 0.01), "dec38": (100, 0.1), "day": (3000, 0.01), "ts": (3000, 0.01)}


def _value(column: str, k: int):
    """The k-th value of a column: rows hold even k; odd k are absent but within the column's range."""
    return {
        "i32": k, "i64": k * 1_000_000_007, "f32": k / 2, "f64": k / 4 - 100.0, "s": f"key-{k}",
        "bin": f"b{k}".encode(), "dec": D(k) / 1000, "dec38": D(k * 10**20 + 1) / 10**10,
        "day": DAY0 + datetime.timedelta(days=k), "ts": TS0 + datetime.timedelta(seconds=k),
    }[column]


def _row(i: int) -> dict:
    row = {"id": i}
    for column in BLOOM:
        row[column] = None if (i + len(column)) % 17 == 0 else _value(column, 2 * i)
    if i == 5:
        row["f32"], row["f64"] = -0.0, -0.0
    return row


INPUT = [_row(i) for i in range(ROWS)]


def _schema() -> Schema:
    return Schema.from_fields([
        primitive("id", "INT32", "required"), primitive("i32", "INT32"), primitive("i64", "INT64"),
        primitive("f32", "FLOAT"), primitive("f64", "DOUBLE"), primitive("s", "BYTE_ARRAY", logical_type="STRING"),
        primitive("bin", "BYTE_ARRAY"), primitive("dec", "INT64", logical_type=_dec(18, 3)),
        primitive("dec38", "FIXED_LEN_BYTE_ARRAY", type_length=16, logical_type=_dec(38, 10)),
        primitive("day", "INT32", logical_type="DATE"), primitive("ts", "INT64", logical_type=_ts(True)),
    ])


def _write_ours(path: Path, row_group_size: int) -> Path:
    pc.write_table(pc.Table.from_pylist(INPUT, _schema()), path, row_group_size=row_group_size, use_dictionary=False,
                   bloom_filter_options={c: {"ndv": n, "fpp": p} for c, (n, p) in BLOOM.items()},
                   bloom_filter_sizing="parquet-java")
    return path


def _stored_filters(path: Path) -> dict[tuple[int, str], bytes]:
    """(row group, column) -> the bloom filter as stored (header and bitset)."""
    pf = pc.ParquetFile(path)
    out = {}
    for rg in range(pf.num_row_groups):
        for column in BLOOM:
            meta = pf.metadata.row_group(rg).columns[pf.schema.leaf(column).column_index].meta_data
            if meta.bloom_filter_offset is not None:
                out[rg, column] = bytes(pf._source.read(meta.bloom_filter_offset, meta.bloom_filter_length))
    return out


# ---------------------------------------------------------------- Spark filters our files


def _literal(column: str, value) -> str:
    """A Spark SQL literal of the column's exact type (so the filter is pushed down uncast)."""
    typed = {"i64": "bigint", "f32": "float", "f64": "double", "dec": "decimal(18,3)", "dec38": "decimal(38,10)"}
    if column in typed:
        return f"cast('{value}' as {typed[column]})"
    if column == "s":
        return f"'{value}'"
    if column == "bin":
        return f"X'{value.hex()}'"
    if column == "day":
        return f"date'{value.isoformat()}'"
    if column == "ts":
        return f"timestamp'{value.strftime('%Y-%m-%d %H:%M:%S')}'"
    return str(value)


def _filtered_ids(spark, path: Path, condition: str, bloom: bool) -> list[int]:
    frame = (spark.read.option("parquet.filter.bloom.enabled", str(bloom).lower())
             .parquet(str(path)).filter(condition))
    plan = frame._jdf.queryExecution().executedPlan().toString()
    assert "PushedFilters: [" in plan and "PushedFilters: []" not in plan, plan
    return sorted(row.id for row in frame.select("id").collect())


@pytest.fixture(scope="module")
def our_file(tmp_path_factory) -> Path:
    return _write_ours(tmp_path_factory.mktemp("bloom") / "ours.parquet", row_group_size=600)


PROBES = [(column, k) for column in BLOOM for k in (2 * 1234, 2 * 1234 + 1)] + [("f32", 0), ("f64", 0)]


@pytest.mark.parametrize("column, k", PROBES, ids=[f"{c}-{'present' if k % 2 == 0 else 'absent'}-{k}"
                                                   for c, k in PROBES])
def test_spark_filters_our_bloom_filtered_columns(spark, our_file, column, k):
    value = _value(column, k) if k else 0.0
    condition = f"{column} = {_literal(column, value)}"
    expected = [r["id"] for r in INPUT if r[column] is not None and r[column] == value]
    assert (k % 2 == 0) == bool(expected) or k == 0
    assert _filtered_ids(spark, our_file, condition, bloom=True) == expected, condition


def test_spark_consults_our_bloom_filters(spark, tmp_path):
    """Zeroed bitsets say "absent" for everything: Spark then drops rows that
    exist (and returns them with bloom filtering off), so it reads our filters."""
    path = _write_ours(tmp_path / "zeroed.parquet", row_group_size=600)
    data = bytearray(path.read_bytes())
    pf = pc.ParquetFile(path)
    for (rg, column), stored in _stored_filters(path).items():
        meta = pf.metadata.row_group(rg).columns[pf.schema.leaf(column).column_index].meta_data
        bits = pf.bloom_filter(rg, column).num_bytes
        end = meta.bloom_filter_offset + len(stored)
        data[end - bits:end] = bytes(bits)
    path.write_bytes(bytes(data))
    condition = f"i64 = {_literal('i64', _value('i64', 2 * 1234))}"
    assert _filtered_ids(spark, path, condition, bloom=False) == [1234]
    assert _filtered_ids(spark, path, condition, bloom=True) == []


# ---------------------------------------------------------------- same bitsets as Spark's


def _spark_options() -> dict[str, str]:
    opts = {"parquet.enable.dictionary": "false", "compression": "snappy"}
    for column, (ndv, fpp) in BLOOM.items():
        opts[f"parquet.bloom.filter.enabled#{column}"] = "true"
        opts[f"parquet.bloom.filter.expected.ndv#{column}"] = str(ndv)
        opts[f"parquet.bloom.filter.fpp#{column}"] = str(fpp)
    return opts


@pytest.fixture(scope="module")
def spark_file(spark, tmp_path_factory) -> Path:
    folder = tmp_path_factory.mktemp("spark-bloom") / "out"
    frame = spark.createDataFrame(INPUT, DDL).coalesce(1)
    spark.conf.set("spark.sql.parquet.outputTimestampType", "TIMESTAMP_MICROS")
    try:
        frame.write.options(**_spark_options()).parquet(str(folder))
    finally:
        spark.conf.unset("spark.sql.parquet.outputTimestampType")
    (part,) = glob.glob(str(folder / "part-*.parquet"))
    assert_same_rows(collected(spark.read.parquet(part).orderBy("id").collect()), naive_utc(INPUT), "Spark's file")
    return Path(part)


def test_our_bloom_filters_are_byte_identical_to_sparks(spark_file, tmp_path):
    assert pc.ParquetFile(spark_file).num_row_groups == 1
    theirs = _stored_filters(spark_file)
    ours = _stored_filters(_write_ours(tmp_path / "ours.parquet", row_group_size=ROWS))
    assert sorted(theirs) == sorted(ours) == [(0, c) for c in sorted(BLOOM)]
    for key, stored in theirs.items():
        assert ours[key] == stored, key


def test_we_find_every_value_in_sparks_bloom_filters(spark_file):
    pf = pc.ParquetFile(spark_file)
    for column in BLOOM:
        bloom = pf.bloom_filter(0, column)
        values = [r[column] for r in INPUT if r[column] is not None]
        assert all(bloom.might_contain(v) for v in values), column
        if BLOOM[column][0] >= ROWS:  # sized for the values: absent ones mostly answer False
            absent = [_value(column, 2 * i + 1) for i in range(200)]
            assert sum(bloom.might_contain(v) for v in absent) < 40, column
