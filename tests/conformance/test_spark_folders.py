"""Folders Spark writes (part files, _SUCCESS, .crc, hive partitions) read as Spark reads them."""

from __future__ import annotations

import datetime

import pytest

import parquet_codec as pc
from tests.conformance.support import assert_same_rows, naive_utc

pytestmark = pytest.mark.spark


def spark_rows(df) -> list[dict]:
    return sorted((row.asDict() for row in df.collect()), key=lambda row: row["id"])


def test_partitioned_folder_matches_spark(spark, tmp_path):
    from pyspark.sql import types as T

    schema = T.StructType([
        T.StructField("id", T.IntegerType(), False),
        T.StructField("year", T.IntegerType()),
        T.StructField("day", T.DateType()),
        T.StructField("city", T.StringType()),
        T.StructField("amount", T.DoubleType()),
    ])
    rows = [(i, [2020, 2021, None][i % 3], datetime.date(2024, 1 + i % 2, 1), ["Paris", "São Paulo", "a/b c"][i % 3],
             i * 1.5) for i in range(30)]
    folder = str(tmp_path / "out")
    spark.createDataFrame(rows, schema).repartition(3).write.partitionBy("year", "day", "city").parquet(folder)
    expected = spark_rows(spark.read.parquet(folder))
    table = pc.read_table(folder)
    assert table.column_names == list(spark.read.parquet(folder).columns)
    assert_same_rows(sorted(naive_utc(table.to_pylist()), key=lambda row: row["id"]), expected, "folder")
    kinds = {f.name: f.node.physical_type for f in table.schema.fields}
    assert kinds["year"] == 1 and table.schema.field("day").node.logical_type.DATE is not None
    filtered = pc.read_table(folder, filters=[("year", "==", 2021), ("amount", ">", 10.0)])
    expected_filtered = [r for r in expected if r["year"] == 2021 and r["amount"] > 10.0]
    assert_same_rows(sorted(filtered.to_pylist(), key=lambda row: row["id"]), expected_filtered, "filtered")


def test_unpartitioned_folder_with_bookkeeping_files(spark, tmp_path):
    folder = str(tmp_path / "plain")
    spark.range(0, 50, 1, 4).selectExpr("cast(id as int) as id", "id * 2 as twice").write.parquet(folder)
    table = pc.read_table(folder)
    assert sorted(r["id"] for r in table.to_pylist()) == list(range(50))
    assert_same_rows(sorted(table.to_pylist(), key=lambda r: r["id"]), spark_rows(spark.read.parquet(folder)))
