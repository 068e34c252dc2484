"""Live: Spark reads the files our writer produces.

- every run of our option matrix (ours.RUNS: page v1/v2, each encoding per
  physical type, each codec Spark reads, statistics, checksums) over every
  type and nested shape, with Spark's vectorized reader and with
  parquet-java's record reader, gives back exactly our input rows;
- filters on columns with statistics, pushed down to parquet-java, return
  exactly the rows a scan without pushdown returns (our statistics never
  make Spark skip a row it must return);
- our Spark schema entry makes Spark restore exact Spark types and
  per-field metadata (docs/spark-interop.md "Footer key-value metadata").
"""

from __future__ import annotations

import datetime

import pytest

import parquet_codec as pc
from parquet_codec.schema import Schema, group, list_, map_, primitive
from parquet_codec.spark import ArrayType, CharType, MapType, SparkField, SparkSchema, VarcharType
from tests.conformance import ours
from tests.conformance.support import assert_same_rows, collected, naive_utc

pytestmark = pytest.mark.spark


@pytest.fixture(scope="module")
def our_table():
    return ours.table()


@pytest.fixture(scope="module")
def our_files(tmp_path_factory, our_table):
    folder = tmp_path_factory.mktemp("ours")
    return {run: ours.write(run, folder, our_table) for run in ours.RUNS}


def _spark_rows(spark, path, vectorized: bool):
    spark.conf.set("spark.sql.parquet.enableVectorizedReader", str(vectorized).lower())
    try:
        return collected(spark.read.parquet(str(path)).orderBy("id").collect())
    finally:
        spark.conf.unset("spark.sql.parquet.enableVectorizedReader")


@pytest.mark.parametrize("vectorized", [True, False], ids=["vectorized", "parquet-mr"])
@pytest.mark.parametrize("run", list(ours.RUNS))
def test_spark_reads_our_files(spark, our_files, our_table, run, vectorized):
    expected = naive_utc(our_table.to_pylist())
    assert_same_rows(_spark_rows(spark, our_files[run], vectorized), expected, run)


# ---------------------------------------------------------------- statistics and filter pushdown

FILTERS = [
    "i64 > 5", "i64 = 92233720368547", "i32 < -3 or i32 is null", "i8 between -10 and 10", "u8 >= 200",
    "u32 > 3000000000", "f32 > 1.0", "f64 < 0", "f64 > 5", "f32 = 0.0", "isnan(f64)",
    "dec9 > 1.5", "dec18 <= -10", "dec38 > 0", "decba < 0", "s > 'naïve'", "s = '日本語3'", "s like 'a%'",
    "bin > X'00'", "flag = true", "flag is null", "day >= date'1500-01-01'", "day < date'1582-10-15'",
    "ts_us < timestamp'1700-01-01 00:00:00'", "ts_ms = timestamp'1975-02-03 04:05:06.5'",
    "ntz > timestamp_ntz'2030-01-01 00:00:00'", "i64 in (0, 1, 184467440736)", "st.a > 100",
]


def _ids(spark, path, condition: str, pushdown: bool) -> list[int]:
    spark.conf.set("spark.sql.parquet.filterPushdown", str(pushdown).lower())
    try:
        frame = spark.read.parquet(str(path)).filter(condition)
        plan = frame._jdf.queryExecution().executedPlan().toString()
        if pushdown and "st." not in condition and "isnan" not in condition:
            assert "PushedFilters: [" in plan and "PushedFilters: []" not in plan, plan
        return sorted(row.id for row in frame.select("id").collect())
    finally:
        spark.conf.unset("spark.sql.parquet.filterPushdown")


@pytest.mark.parametrize("run", ["v1_snappy_dict", "v2_zstd_delta", "v1_lz4raw_bss"])
@pytest.mark.parametrize("condition", FILTERS)
def test_statistics_never_hide_rows_from_spark(spark, our_files, run, condition):
    path = our_files[run]
    scanned = _ids(spark, path, condition, pushdown=False)
    assert _ids(spark, path, condition, pushdown=True) == scanned


def test_filters_select_rows_and_skip_row_groups(spark, our_files, our_table):
    """The scan oracle itself is right (Spark's semantics: NaN is the largest
    double, nulls never match), and the filters are selective."""
    rows = our_table.to_pylist()
    got = _ids(spark, our_files["v1_snappy_dict"], "f64 > 5", pushdown=True)
    assert got == [r["id"] for r in rows if r["f64"] is not None and (r["f64"] != r["f64"] or r["f64"] > 5)]
    assert 0 < len(_ids(spark, our_files["v1_snappy_dict"], "i64 > 5", pushdown=True)) < len(rows)


# ---------------------------------------------------------------- Spark's schema entry


def _spark_schema_case() -> tuple[Schema, SparkSchema]:
    from tests.conformance.ours import _int, _str, _ts

    schema = Schema.from_fields([
        primitive("id", "INT32", "required", field_id=1),
        _str("obj_name", "required"),
        primitive("b", "INT32", logical_type=_int(8)), primitive("sh", "INT32", logical_type=_int(16)),
        primitive("x", "INT64", field_id=7),
        group("st", [primitive("y", "INT32", field_id=9), _str("z")], field_id=8),
        _str("c"), _str("v"), primitive("dt", "INT64"), primitive("ym", "INT32"),
        primitive("ts", "INT64", logical_type=_ts(True)), primitive("ntz", "INT64", logical_type=_ts(False)),
        primitive("ntz_as_ltz", "INT64", logical_type=_ts(False)),
        list_("arr", primitive("e", "INT32", "required")),
        map_("m", _str("key", "required"), primitive("value", "DOUBLE")),
    ])
    spark = SparkSchema.from_parquet(
        schema,
        field_metadata={"obj_name": {"version": 0}, "x": {"index": {"cols": ["a", "b"], "name": "minmax"}},
                        "st.y": {"k": "v", "n": [1, 2, 3], "w": [0.5], "e": None}, "arr": {"note": "ü"}},
        types={"c": "char(5)", "v": "varchar(8)", "dt": "interval day to second", "ym": "interval year to month",
               "ntz_as_ltz": "timestamp"},
    )
    return schema, spark


def _rows(n: int) -> list[dict]:
    utc = datetime.timezone.utc
    return [{
        "id": i, "obj_name": f"obj{i}", "b": i - 64, "sh": i * 300, "x": None if i % 4 == 1 else i * 10,
        "st": {"y": i, "z": "z" * (i % 3)}, "c": f"c{i:04d}", "v": "v" * (i % 9), "dt": i * 86_400_000_001,
        "ym": i * 13, "ts": datetime.datetime(2001, 1, 1, i, tzinfo=utc), "ntz": datetime.datetime(2002, 2, 2, i),
        "ntz_as_ltz": datetime.datetime(2003, 3, 3, i), "arr": [i, i + 1], "m": [("k", i / 2)],
    } for i in range(n)]


def as_spark_reads_it(schema: SparkSchema) -> SparkSchema:
    """Spark reads file sources as nullable all the way down (DataType.asNullable),
    and marks char/varchar fields with ``__CHAR_VARCHAR_TYPE_STRING`` metadata."""
    def nullable(t):
        if isinstance(t, SparkSchema):
            return as_spark_reads_it(t)
        if isinstance(t, ArrayType):
            return ArrayType(nullable(t.element), True)
        if isinstance(t, MapType):
            return MapType(nullable(t.key), nullable(t.value), True)
        return t

    def metadata(f):
        if isinstance(f.type, (CharType, VarcharType)):
            return {**f.metadata, "__CHAR_VARCHAR_TYPE_STRING": f.type.name}
        return f.metadata

    return SparkSchema(tuple(SparkField(f.name, nullable(f.type), True, metadata(f)) for f in schema.fields))


def test_spark_restores_exact_types_and_metadata(spark, tmp_path):
    schema, expected = _spark_schema_case()
    path = tmp_path / "meta.parquet"
    pc.write_table(pc.Table.from_pylist(_rows(24), schema), path, spark_schema=expected, row_group_size=10)
    frame = spark.read.parquet(str(path))
    restored = SparkSchema.from_json(frame.schema.json())
    assert restored.names == expected.names
    for got, want in zip(restored.fields, as_spark_reads_it(expected).fields, strict=True):
        assert got == want
    assert frame.schema["obj_name"].metadata == {"version": 0}
    # Without the entry Spark infers plain types: the entry is what restores them.
    bare = tmp_path / "bare.parquet"
    pc.write_table(pc.Table.from_pylist(_rows(3), schema), bare)
    plain = SparkSchema.from_json(spark.read.parquet(str(bare)).schema.json())
    assert [plain[n].type.name for n in ("c", "dt", "ym", "ntz_as_ltz")] == ["string", "long", "integer",
                                                                              "timestamp_ntz"]
    # Spark's own inference does not turn SchemaElement.field_id into metadata either.
    assert plain["obj_name"].metadata == {} and plain["x"].metadata == {}


def test_spark_reads_the_values_under_the_restored_types(spark, tmp_path):
    schema, spark_schema = _spark_schema_case()
    data = _rows(24)
    path = tmp_path / "meta.parquet"
    pc.write_table(pc.Table.from_pylist(data, schema), path, spark_schema=spark_schema)
    frame = spark.read.parquet(str(path)).orderBy("id")
    got = frame.selectExpr("id", "b", "sh", "c", "v", "dt", "cast(ym as string) as ym", "ts", "ntz",
                           "ntz_as_ltz").collect()
    for row, want in zip(got, data, strict=True):
        assert (row.b, row.sh, row.c, row.v) == (want["b"], want["sh"], want["c"], want["v"])
        assert row.dt == datetime.timedelta(microseconds=want["dt"])
        assert row.ym == f"INTERVAL '{want['ym'] // 12}-{want['ym'] % 12}' YEAR TO MONTH"
        assert row.ts == naive_utc(want["ts"]) and row.ntz == want["ntz"] and row.ntz_as_ltz == want["ntz_as_ltz"]
