"""Every committed Spark fixture reads exactly as Spark read it back.

The fixtures and Spark's rows come from fixtures/spark/generate.py; this
test needs neither Spark nor Java. Beyond the rows, it checks that the
files really exercise what the matrix promises (docs/spark-interop.md):
many pages and row groups, legacy layouts, timestamp types, bloom filters,
BYTE_STREAM_SPLIT, Spark's schema metadata and an empty file.
"""

from __future__ import annotations

import json

import pytest

import parquet_codec.reader as reader
from parquet_codec.format.ttypes import ConvertedType, Encoding, FieldRepetitionType, Type
from parquet_codec.spark import (
    ROW_METADATA_KEY,
    AtomicType,
    CharType,
    DayTimeIntervalType,
    SparkSchema,
    VarcharType,
    YearMonthIntervalType,
)
from tests.conformance.support import SPARK_FIXTURES, assert_same_rows, fixture_rows, generator, ours

FILES = sorted(SPARK_FIXTURES.glob("*.parquet"))
MATRIX = {fixture.name: fixture for fixture in generator().matrix()}


def fixture(name: str):
    return MATRIX[name]


def test_fixture_matrix_is_present():
    assert sorted(MATRIX) == [p.stem for p in FILES]
    names = list(MATRIX.values())
    assert {f.codec for f in names} == set(generator().CODECS)
    assert {f.ts_type for f in names} == set(generator().TIMESTAMP_TYPES)
    assert {(f.version, f.dictionary, f.legacy) for f in names} >= {
        (v, d, legacy) for v in ("v1", "v2") for d in (True, False) for legacy in (True, False)}


@pytest.mark.parametrize("path", FILES, ids=lambda p: p.stem)
def test_spark_fixture_reads_like_spark(path):
    assert_same_rows(ours(reader.read_table(path)), fixture_rows(path))


@pytest.mark.parametrize("path", FILES, ids=lambda p: p.stem)
def test_batches_and_row_groups_read_like_the_whole_file(path):
    with reader.ParquetFile(path) as pf:
        whole = pf.read().to_pylist()
        batched = [row for batch in pf.iter_batches(batch_size=7) for row in batch.to_pylist()]
    assert_same_rows(batched, whole)


@pytest.mark.parametrize("path", [p for p in FILES if fixture(p.stem).frame == "types"], ids=lambda p: p.stem)
def test_spark_fixtures_have_many_pages_and_row_groups(path):
    pf = reader.ParquetFile(path)
    assert pf.num_row_groups >= 3
    assert "parquet-mr" in pf.metadata.created_by
    assert pf.metadata.row_group(0).columns[0].meta_data.num_values <= 25


@pytest.mark.parametrize("path", [p for p in FILES if fixture(p.stem).frame != "meta"], ids=lambda p: p.stem)
def test_spark_schema_entry_is_what_we_derive_from_the_parquet_schema(path):
    """Our Parquet -> Spark type mapping reproduces Spark's own entry byte for byte."""
    pf = reader.ParquetFile(path)
    assert SparkSchema.from_parquet(pf.schema).json() == pf.metadata.key_value_metadata[ROW_METADATA_KEY]


@pytest.mark.parametrize("name", [n for n, f in MATRIX.items() if f.frame == "types"])
def test_layout_follows_the_settings(name):
    f = fixture(name)
    pf = reader.ParquetFile(SPARK_FIXTURES / f"{name}.parquet")
    ts = pf.schema.leaf("ts")
    if f.ts_type == "INT96":
        assert ts.physical_type == Type.INT96
    else:
        unit = ts.logical_type.TIMESTAMP.unit
        assert ts.physical_type == Type.INT64 and ts.logical_type.TIMESTAMP.isAdjustedToUTC
        assert (unit.MILLIS if f.ts_type == "TIMESTAMP_MILLIS" else unit.MICROS) is not None
    dec5 = pf.schema.leaf("dec5")
    assert dec5.physical_type == (Type.FIXED_LEN_BYTE_ARRAY if f.legacy else Type.INT32)
    m = pf.schema.root.children[[c.name for c in pf.schema.root.children].index("m")]
    if f.legacy:
        # 2-level list of non-null elements; MAP_KEY_VALUE on the key_value group.
        assert pf.schema.leaf(("arr_nn", "array")).repetition == FieldRepetitionType.REPEATED
        assert m.children[0].converted_type == ConvertedType.MAP_KEY_VALUE
    else:
        assert pf.schema.leaf(("arr_nn", "list", "element")).repetition == FieldRepetitionType.REQUIRED


def _encodings(pf, column: str) -> set[int]:
    leaf = pf.schema.leaf(column)
    return {e for i in range(pf.num_row_groups) for e in pf.metadata.row_group(i).columns[leaf.column_index]
            .meta_data.encodings}


@pytest.mark.parametrize("name", [n for n, f in MATRIX.items() if f.frame == "types"])
def test_dictionary_and_bloom_filters_follow_the_settings(name):
    f = fixture(name)
    pf = reader.ParquetFile(SPARK_FIXTURES / f"{name}.parquet")
    dictionary = {Encoding.PLAIN_DICTIONARY, Encoding.RLE_DICTIONARY}
    assert bool(_encodings(pf, "s") & dictionary) == f.dictionary
    if not f.dictionary:
        # A chunk that is all dictionary pages gets no bloom filter (docs/spark-interop.md).
        group = pf.metadata.row_group(0)
        for column in generator().BLOOM_COLUMNS:
            assert group.columns[pf.schema.leaf(column).column_index].meta_data.bloom_filter_offset is not None


@pytest.mark.parametrize("name", [n for n in MATRIX if n.startswith("bss_")])
def test_byte_stream_split_fixtures_use_it(name):
    pf = reader.ParquetFile(SPARK_FIXTURES / f"{name}.parquet")
    for column in ("f", "d"):
        assert Encoding.BYTE_STREAM_SPLIT in _encodings(pf, column)


@pytest.mark.parametrize("name", [n for n, f in MATRIX.items() if f.frame == "meta"])
def test_spark_metadata_fixture(name):
    pf = reader.ParquetFile(SPARK_FIXTURES / f"{name}.parquet")
    spark = pf.spark_schema
    assert spark["obj_name"].metadata == {"version": 0} and not spark["obj_name"].nullable
    assert spark["x"].metadata == {"parquet.field.id": 7, "index": {"cols": ["a", "b"], "n": 2.5}}
    assert spark["st"].type["y"].metadata == {"parquet.field.id": 9, "k": "v"}
    assert (spark["c"].type, spark["v"].type) == (CharType(5), VarcharType(8))
    assert (spark["dt"].type, spark["ym"].type) == (DayTimeIntervalType("day", "second"),
                                                    YearMonthIntervalType("year", "month"))
    assert spark["nul"].type == AtomicType("void")
    # parquet.field.id <-> SchemaElement.field_id, nested struct fields included.
    assert pf.schema.leaf("x").field_id == 7 and pf.schema.leaf(("st", "y")).field_id == 9
    assert pf.schema.root.children[3].field_id == 8 and pf.schema.leaf("obj_name").field_id is None
    # Our emission rebuilds Spark's entry exactly from the Parquet schema plus what only Spark knows.
    rebuilt = SparkSchema.from_parquet(
        pf.schema,
        field_metadata={"obj_name": {"version": 0}, "x": {"index": {"cols": ["a", "b"], "n": 2.5}},
                        "st.y": {"k": "v"}, "st.flag": {"ok": True}},
        types={"c": "char(5)", "v": "varchar(8)", "dt": "interval day to second", "ym": "interval year to month"},
    )
    assert rebuilt == spark  # metadata key order is the user's, in Spark as here: compare as JSON objects
    assert json.loads(rebuilt.json()) == json.loads(pf.metadata.key_value_metadata[ROW_METADATA_KEY])


def test_empty_dataframe_has_zero_row_groups():
    pf = reader.ParquetFile(SPARK_FIXTURES / "empty.parquet")
    assert pf.num_row_groups == 0 and pf.num_rows == 0
    table = pf.read()
    assert table.num_rows == 0 and [c.name for c in table.columns] == pf.spark_schema.names
