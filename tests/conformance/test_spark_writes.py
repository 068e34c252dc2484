"""Live: Spark writes a fresh subset of the fixture matrix, we read it, and
the rows equal what Spark itself collects from the same file.

The subset covers every codec, both page versions, dictionary on and off,
the legacy layout, every timestamp type, BYTE_STREAM_SPLIT, Spark's
metadata frame and an empty DataFrame; the committed fixtures cover the
whole matrix without Spark (test_spark_fixtures.py).
"""

from __future__ import annotations

import pytest

import parquet_codec as pc
from tests.conformance.support import assert_same_rows, collected, decode_rows, generator, ours

pytestmark = pytest.mark.spark

LIVE = [
    "none_v2_plain", "snappy_v1_dict", "gzip_v1_plain", "zstd_v2_dict", "lz4_v1_dict", "lz4_raw_v2_plain",
    "zstd_v2_plain_legacy", "gzip_v2_dict_legacy", "snappy_v1_dict_legacy_timestamp_millis",
    "zstd_v2_plain_timestamp_micros", "bss_zstd_v2_plain", "spark_meta_v2_legacy", "empty",
]


def test_live_subset_covers_every_axis():
    matrix = {f.name: f for f in generator().matrix()}
    chosen = [matrix[name] for name in LIVE]
    assert {f.codec for f in chosen} == set(generator().CODECS)
    assert {f.ts_type for f in chosen} == set(generator().TIMESTAMP_TYPES)
    assert {f.version for f in chosen} == {"v1", "v2"} and {f.dictionary for f in chosen} == {True, False}
    assert {f.legacy for f in chosen} == {True, False} and {f.frame for f in chosen} == {"types", "meta", "empty"}


@pytest.mark.parametrize("name", LIVE)
def test_we_read_what_spark_writes(spark, spark_frames, tmp_path, name):
    fixture = {f.name: f for f in generator().matrix()}[name]
    rows = generator().write_fixture(spark, spark_frames, fixture, str(tmp_path))
    path = tmp_path / f"{name}.parquet"
    assert_same_rows(ours(pc.read_table(path)), decode_rows(rows), name)
    pf = pc.ParquetFile(path)
    assert pf.spark_schema is not None and pf.spark_schema.names == [f.name for f in pf.schema.fields]


def test_legacy_lists_of_lists_read_as_spark_reads_them(spark, tmp_path):
    """In the legacy layout, an array of arrays whose elements are not null is
    ``repeated group array (LIST) { repeated group bag { optional int32 array } }``:
    the repeated group is the element (LogicalTypes.md's third backward-
    compatibility rule) and itself a list, read by the same rules."""
    from pyspark.sql import types as T

    i = T.IntegerType()
    schema = T.StructType([
        T.StructField("id", i), T.StructField("ll", T.ArrayType(T.ArrayType(i, True), False)),
        T.StructField("lll", T.ArrayType(T.ArrayType(T.ArrayType(i, True), True), False)),
        T.StructField("ls", T.ArrayType(T.ArrayType(T.StructType([T.StructField("x", i)]), True), False)),
    ])
    rows = [(0, [[1, None], []], [[[1, 2], None], [[3]]], [[{"x": 1}, None], []]), (1, [], [[]], []),
            (2, None, None, None)]
    out = tmp_path / "legacy"
    spark.conf.set("spark.sql.parquet.writeLegacyFormat", "true")
    try:
        spark.createDataFrame(rows, schema).coalesce(1).write.parquet(str(out))
    finally:
        spark.conf.unset("spark.sql.parquet.writeLegacyFormat")
    (part,) = out.glob("part-*.parquet")
    assert pc.ParquetFile(part).schema.field("ll").repeated_node.name == "array"  # the legacy shape
    expected = collected(spark.read.parquet(str(out)).orderBy("id").collect())
    assert_same_rows(ours(pc.read_table(part)), expected, "legacy lists of lists")
