"""Spark's schema metadata (parquet_codec/spark.py): parsing, serializing,
deriving from a Parquet schema, and the writer's ``spark_schema`` option."""

from __future__ import annotations

import io
import json

import pytest

import parquet_codec as pc
from parquet_codec.format.ttypes import IntType, LogicalType, TimestampType
from parquet_codec.schema import Schema, group, list_, map_, primitive
from parquet_codec.spark import (
    ROW_METADATA_KEY,
    ArrayType,
    AtomicType,
    CharType,
    DayTimeIntervalType,
    DecimalType,
    MapType,
    SparkField,
    SparkSchema,
    SparkSchemaError,
    UserDefinedType,
    VarcharType,
    YearMonthIntervalType,
    parse_type_name,
    read_spark_schema,
    row_metadata,
)
from parquet_codec.type_annotations import _time_unit

# The entry Spark 4.3 wrote for a metadata-store layout (docs/spark-interop.md, seeds 000).
SPARK_JSON = (
    '{"type":"struct","fields":[{"name":"obj_name","type":"string","nullable":false,"metadata":{"version":0}},'
    '{"name":"x","type":"integer","nullable":true,"metadata":{"a":{"b":[1,2]},"parquet.field.id":7}},'
    '{"name":"st","type":{"type":"struct","fields":[{"name":"y","type":"long","nullable":true,'
    '"metadata":{"parquet.field.id":9,"k":"v"}}]},"nullable":true,"metadata":{}},'
    '{"name":"c","type":"char(5)","nullable":true,"metadata":{}},'
    '{"name":"v","type":"varchar(8)","nullable":true,"metadata":{}}]}'
)


def test_parse_spark_json():
    schema = SparkSchema.from_json(SPARK_JSON)
    assert schema.names == ["obj_name", "x", "st", "c", "v"]
    assert schema["obj_name"] == SparkField("obj_name", AtomicType("string"), False, {"version": 0})
    assert schema["x"].field_id == 7 and schema["obj_name"].field_id is None
    assert schema["st"].type["y"].metadata == {"parquet.field.id": 9, "k": "v"}
    assert schema["c"].type == CharType(5) and schema["v"].type == VarcharType(8)


def test_serialization_is_spark_s_compact_form():
    assert SparkSchema.from_json(SPARK_JSON).json() == SPARK_JSON


@pytest.mark.parametrize(("text", "expected"), [
    ("byte", AtomicType("byte")), ("timestamp_ntz", AtomicType("timestamp_ntz")),
    ("decimal(5,2)", DecimalType(5, 2)), ("decimal(38,10)", DecimalType(38, 10)), ("decimal", DecimalType(10, 0)),
    ("char(3)", CharType(3)), ("varchar(10)", VarcharType(10)),
    ("interval day to second", DayTimeIntervalType("day", "second")),
    ("interval hour", DayTimeIntervalType("hour", "hour")),
    ("interval year to month", YearMonthIntervalType("year", "month")),
    ("interval month", YearMonthIntervalType("month", "month")),
    ("null", AtomicType("void")), ("variant", AtomicType("variant")),
])
def test_type_names(text, expected):
    parsed = parse_type_name(text)
    assert parsed == expected
    if text not in ("decimal", "null"):
        assert parsed.to_json() == text


def test_nested_types_round_trip():
    obj = {"type": "map", "keyType": "string",
           "valueType": {"type": "array", "elementType": {"type": "struct", "fields": [
               {"name": "a", "type": "date", "nullable": False, "metadata": {"m": [1.5, True, None]}}]},
               "containsNull": False},
           "valueContainsNull": True}
    schema = SparkSchema.from_json({"type": "struct", "fields": [{"name": "f", "type": obj, "nullable": True,
                                                                 "metadata": {}}]})
    parsed = schema["f"].type
    assert isinstance(parsed, MapType) and isinstance(parsed.value, ArrayType)
    assert parsed.value.contains_null is False and parsed.value_contains_null is True
    assert parsed.value.element["a"].metadata == {"m": [1.5, True, None]}
    assert json.loads(schema.json())["fields"][0]["type"] == obj


def test_udt_keeps_its_class_names():
    udt = {"type": "udt", "class": "org.example.PointUDT", "pyClass": "example.PointUDT",
           "sqlType": {"type": "array", "elementType": "double", "containsNull": False}}
    schema = SparkSchema.from_json({"type": "struct", "fields": [{"name": "p", "type": udt, "nullable": True,
                                                                 "metadata": {}}]})
    assert isinstance(schema["p"].type, UserDefinedType)
    assert json.loads(schema.json())["fields"][0]["type"] == udt


@pytest.mark.parametrize("bad", [
    "not json", '"integer"', '{"type":"struct"}', '{"type":"struct","fields":[{"type":"long"}]}',
    '{"type":"struct","fields":[{"name":"a","type":{"type":"array"}}]}', '{"type":"struct","fields":[{"name":"a",'
    '"type":"decimal(40,2)"}]}', '{"type":"struct","fields":[{"name":"a","type":"interval second to day"}]}',
    '{"type":"struct","fields":[{"name":"a","type":"long","metadata":[1]}]}',
])
def test_malformed_json_is_a_schema_error(bad):
    with pytest.raises(SparkSchemaError):
        SparkSchema.from_json(bad)
    assert issubclass(SparkSchemaError, pc.SchemaError)


def test_read_spark_schema_without_the_entry():
    assert read_spark_schema({"other": "x"}) is None


@pytest.mark.parametrize("stored", ["{not json", '{"type":"struct","fields":[{"name":1}]}'])
def test_spark_metadata_that_does_not_parse_names_the_footer_entry(stored):
    with pytest.raises(SparkSchemaError, match="^footer key-value metadata "
                       "'org.apache.spark.sql.parquet.row.metadata': "):
        read_spark_schema({"org.apache.spark.sql.parquet.row.metadata": stored})


# ---------------------------------------------------------------- Parquet schema -> Spark schema


def _int(bits, signed=True):
    return LogicalType(INTEGER=IntType(bits, signed))


def _ts(utc, unit="us"):
    return LogicalType(TIMESTAMP=TimestampType(utc, _time_unit(unit)))


def parquet_schema() -> Schema:
    return Schema.from_fields([
        primitive("b", "INT32", logical_type=_int(8)),
        primitive("sh", "INT32", logical_type=_int(16)),
        primitive("u8", "INT32", logical_type=_int(8, False)),
        primitive("u32", "INT32", logical_type=_int(32, False)),
        primitive("u64", "INT64", logical_type=_int(64, False)),
        primitive("i", "INT32", "required", field_id=3),
        primitive("l", "INT64"),
        primitive("s", "BYTE_ARRAY", logical_type="STRING"),
        primitive("bin", "BYTE_ARRAY"),
        primitive("fixed", "FIXED_LEN_BYTE_ARRAY", type_length=3),
        primitive("ts", "INT64", logical_type=_ts(True)),
        primitive("ts_ms", "INT64", logical_type=_ts(True, "ms")),
        primitive("ntz", "INT64", logical_type=_ts(False)),
        primitive("old", "INT96"),
        primitive("day", "INT32", logical_type="DATE"),
        list_("arr", primitive("element", "DOUBLE", "required")),
        map_("m", primitive("key", "BYTE_ARRAY", "required", logical_type="STRING"),
             primitive("value", "FLOAT")),
        group("st", [primitive("y", "BOOLEAN", field_id=9), list_("z", primitive("e", "INT32"))], field_id=8),
    ])


def test_derived_types_follow_spark_s_converter():
    spark = SparkSchema.from_parquet(parquet_schema())
    types = {f.name: f.type.to_json() for f in spark.fields}
    assert types["b"] == "byte" and types["sh"] == "short" and types["u8"] == "short" and types["u32"] == "long"
    assert types["u64"] == "decimal(20,0)" and types["i"] == "integer" and types["l"] == "long"
    assert types["s"] == "string" and types["bin"] == types["fixed"] == "binary"
    assert types["ts"] == types["ts_ms"] == types["old"] == "timestamp" and types["ntz"] == "timestamp_ntz"
    assert types["arr"] == {"type": "array", "elementType": "double", "containsNull": False}
    assert types["m"] == {"type": "map", "keyType": "string", "valueType": "float", "valueContainsNull": True}
    assert spark["i"].nullable is False and spark["i"].metadata == {"parquet.field.id": 3}
    assert spark["st"].metadata == {"parquet.field.id": 8}
    assert spark["st"].type["y"].metadata == {"parquet.field.id": 9}


def test_overrides_and_metadata():
    spark = SparkSchema.from_parquet(
        parquet_schema(), field_metadata={"s": {"version": 0}, "st.y": {"k": "v"}},
        types={"s": "varchar(4)", "i": "short", "l": DayTimeIntervalType(), "ntz": "timestamp"})
    assert spark["s"].type == VarcharType(4) and spark["s"].metadata == {"version": 0}
    assert spark["st"].type["y"].metadata == {"parquet.field.id": 9, "k": "v"}
    assert spark["l"].type.to_json() == "interval day to second" and spark["ntz"].type == AtomicType("timestamp")


@pytest.mark.parametrize(("path", "wanted"), [("ts", "timestamp_ntz"), ("s", "integer"), ("l", "byte"),
                                              ("nope", "string"), ("arr", "string")])
def test_overrides_spark_cannot_read_are_refused(path, wanted):
    with pytest.raises(SparkSchemaError):
        SparkSchema.from_parquet(parquet_schema(), types={path: wanted})


@pytest.mark.parametrize("logical", [LogicalType(UUID=__import__("parquet_codec.format.ttypes").format.ttypes
                                                 .UUIDType()), _ts(True, "ns")])
def test_types_spark_refuses_are_unsupported(logical):
    length = 16 if logical.UUID is not None else None
    physical = "FIXED_LEN_BYTE_ARRAY" if length else "INT64"
    schema = Schema.from_fields([primitive("c", physical, logical_type=logical, type_length=length)])
    with pytest.raises(pc.UnsupportedError):
        SparkSchema.from_parquet(schema)


# ---------------------------------------------------------------- the writer option


def _written(**options) -> pc.ParquetFile:
    table = pc.Table.from_pydict({"b": [1, None], "s": ["x", "yy"]}, Schema.from_fields([
        primitive("b", "INT32", logical_type=_int(8), field_id=1),
        primitive("s", "BYTE_ARRAY", "required", logical_type="STRING")]))
    out = io.BytesIO()
    pc.write_table(table, out, **options)
    return pc.ParquetFile(out.getvalue())


def test_writer_emits_the_entry_on_request_only():
    assert _written().spark_schema is None
    pf = _written(spark_schema=True)
    assert pf.spark_schema["b"] == SparkField("b", AtomicType("byte"), True, {"parquet.field.id": 1})
    assert pf.metadata.key_value_metadata[ROW_METADATA_KEY] == pf.spark_schema.json()
    assert "org.apache.spark.version" not in pf.metadata.key_value_metadata
    assert pf.read().to_pydict() == {"b": [1, None], "s": ["x", "yy"]}


def test_writer_takes_a_spark_schema_and_keeps_other_entries():
    spark = SparkSchema((SparkField("b", AtomicType("byte"), metadata={"parquet.field.id": 1, "v": 0}),
                         SparkField("s", CharType(2), False, {"version": 0})))
    pf = _written(spark_schema=spark, key_value_metadata={"mine": "1", ROW_METADATA_KEY: "stale"})
    assert pf.spark_schema == spark and pf.metadata.key_value_metadata["mine"] == "1"
    assert _written(spark_schema=spark.json()).spark_schema == spark


@pytest.mark.parametrize("spark", [
    SparkSchema((SparkField("b", AtomicType("byte")),)),  # a column missing
    SparkSchema((SparkField("b", AtomicType("string")), SparkField("s", AtomicType("string")))),  # wrong type
    SparkSchema((SparkField("b", AtomicType("byte"), metadata={"parquet.field.id": 2}),  # another field id
                 SparkField("s", AtomicType("string")))),
])
def test_writer_refuses_a_spark_schema_that_does_not_fit(spark, tmp_path):
    target = tmp_path / "x.parquet"
    with pytest.raises(SparkSchemaError):
        _written(spark_schema=spark)
    schema = Schema.from_fields([primitive("b", "INT32", logical_type=_int(8), field_id=1),
                                 primitive("s", "BYTE_ARRAY", "required", logical_type="STRING")])
    with pytest.raises(SparkSchemaError):
        pc.ParquetWriter(target, schema, spark_schema=spark)
    assert not list(tmp_path.iterdir())  # refused before any byte was written


def test_row_metadata_option_values():
    schema = Schema.from_fields([primitive("l", "INT64")])
    assert row_metadata(None, schema) is None and row_metadata(False, schema) is None
    assert json.loads(row_metadata(True, schema))["fields"][0]["type"] == "long"


@pytest.mark.parametrize("metadata", [{"n": [1, 2.5]}, {"n": [True, "x"]}, {"n": 2**70}, {"n": {"deep": [1, None]}},
                                      {"n": (1, 2)}])
def test_metadata_spark_cannot_load_is_refused(metadata):
    """Spark's Metadata.fromJson needs one kind per array; on failure Spark drops the whole entry."""
    with pytest.raises(SparkSchemaError):
        SparkSchema.from_parquet(Schema.from_fields([primitive("l", "INT64")]), field_metadata={"l": metadata})
    spark = SparkSchema((SparkField("l", AtomicType("long"), metadata=metadata),))
    with pytest.raises(SparkSchemaError):
        row_metadata(spark, Schema.from_fields([primitive("l", "INT64")]))


def test_metadata_spark_loads_is_accepted():
    metadata = {"a": [1, 2], "b": [0.5], "c": ["x"], "d": [{"e": None}], "f": None, "g": [], "h": {"i": True}}
    schema = SparkSchema.from_parquet(Schema.from_fields([primitive("l", "INT64")]), field_metadata={"l": metadata})
    assert schema["l"].metadata == metadata
