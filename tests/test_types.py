"""Logical types against pyarrow as the oracle.

Each case writes the *physical* values with pyarrow (PLAIN, no dictionary, no
statistics), then rewrites the footer's SchemaElement to carry the
annotation under test. The physical values are therefore known by
construction, the SchemaElement comes from our own footer parse, and
pyarrow's read of the annotated file gives the expected Python values.
"""

from __future__ import annotations

import datetime as dt
import io
import math
import re
import struct
import uuid
from dataclasses import dataclass, field
from decimal import Decimal

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from parquet_codec import decimals, temporal
from parquet_codec.arrays import Array, BinaryArray, PrimitiveArray
from parquet_codec.errors import CorruptFileError, DecodingError, SchemaError, UnsupportedError
from parquet_codec.format import ttypes as T
from parquet_codec.type_annotations import element_fields
from parquet_codec.types import (
    LogicalInfo,
    from_logical,
    from_pylist,
    logical_info,
    to_logical,
    to_pylist,
)
from tests.conftest import CORPUS_DATA
from tests.support.footer import read_footer, rewrite_footer

CT = T.ConvertedType
LT = T.LogicalType


# ---------------------------------------------------------------- helpers shared with test_arrow_adapter


def unit(name: str) -> T.TimeUnit:
    return {
        "ms": T.TimeUnit(MILLIS=T.MilliSeconds()),
        "us": T.TimeUnit(MICROS=T.MicroSeconds()),
        "ns": T.TimeUnit(NANOS=T.NanoSeconds()),
    }[name]


def ts(utc: bool, u: str) -> T.LogicalType:
    return LT(TIMESTAMP=T.TimestampType(utc, unit(u)))


def tm(utc: bool, u: str) -> T.LogicalType:
    return LT(TIME=T.TimeType(utc, unit(u)))


def integer(bits: int, signed: bool) -> T.LogicalType:
    return LT(INTEGER=T.IntType(bits, signed))


def dec(scale: int, precision: int) -> T.LogicalType:
    return LT(DECIMAL=T.DecimalType(scale, precision))


def arrow_type(kind: str, width: int | None = None):
    pa = pytest.importorskip("pyarrow")
    return {
        "bool": pa.bool_(), "int32": pa.int32(), "int64": pa.int64(), "float": pa.float32(),
        "double": pa.float64(), "bytes": pa.binary(),
    }.get(kind) or pa.binary(width)  # fmt: skip


def craft(values: list, kind: str, width: int | None = None, *, physical: int | None = None, **annotation) -> bytes:
    """A one-column file of ``values`` whose leaf SchemaElement is given
    ``annotation`` (logicalType, converted_type, scale, precision) and
    optionally a different physical type of the same PLAIN layout."""
    pa = pytest.importorskip("pyarrow")
    pq = pytest.importorskip("pyarrow.parquet")
    sink = io.BytesIO()
    table = pa.table({"c": pa.array(values, arrow_type(kind, width))})
    pq.write_table(
        table, sink, store_schema=False, use_dictionary=False, write_statistics=False, compression="none"
    )

    def edit(meta: T.FileMetaData) -> None:
        element = meta.schema[1]
        element.logicalType = annotation.get("logicalType")
        element.converted_type = annotation.get("converted_type")
        element.scale = annotation.get("scale")
        element.precision = annotation.get("precision")
        if physical is not None:
            element.type, element.type_length = physical, None
            for group in meta.row_groups:
                group.columns[0].meta_data.type = physical
    return rewrite_footer(sink.getvalue(), edit)


def leaf_element(buf: bytes) -> T.SchemaElement:
    return read_footer(buf).schema[1]


def pyarrow_read(buf: bytes, **options):
    pq = pytest.importorskip("pyarrow.parquet")
    return pq.read_table(io.BytesIO(buf), **options).column(0).combine_chunks()


def physical_array(values: list, kind: str, width: int | None = None) -> Array:
    """The physical Array of ``values``, built without the code under test."""
    validity = np.array([v is not None for v in values]) if None in values else None
    if kind == "bytes":
        parts = [v or b"" for v in values]
        offsets = np.cumsum([0] + [len(p) for p in parts]).astype(np.int64)
        return BinaryArray.of(offsets, np.frombuffer(b"".join(parts), np.uint8).copy(), validity)
    if kind == "fixed":
        raw = b"".join(bytes(width) if v is None else v for v in values)
        return PrimitiveArray.of(np.frombuffer(raw, np.uint8).copy().reshape(len(values), width), validity)
    dtype = {"bool": bool, "int32": "<i4", "int64": "<i8", "float": "<f4", "double": "<f8"}[kind]
    return PrimitiveArray.of(np.array([0 if v is None else v for v in values], dtype=dtype), validity)


def same(ours: object, theirs: object) -> bool:
    """Equal as pyarrow's to_pylist values: NaN equals NaN, -0.0 differs from
    0.0, Decimals match digit for digit, datetimes agree on awareness."""
    if ours is None or theirs is None:
        return ours is theirs
    if isinstance(theirs, float):
        if math.isnan(theirs):
            return isinstance(ours, float) and math.isnan(ours)
        return type(ours) is float and ours == theirs and math.copysign(1, ours) == math.copysign(1, theirs)
    if isinstance(theirs, Decimal):
        return isinstance(ours, Decimal) and ours.as_tuple() == theirs.as_tuple()
    if isinstance(theirs, dt.datetime):  # pyarrow's pandas.Timestamp for nanoseconds is ours too
        kind_ok = type(ours) is type(theirs) or (type(theirs) is dt.datetime and isinstance(ours, dt.datetime))
        return kind_ok and ours == theirs and (ours.tzinfo is None) == (theirs.tzinfo is None)
    return type(ours) is type(theirs) and ours == theirs


def all_same(ours: list, theirs: list) -> bool:
    return len(ours) == len(theirs) and all(same(a, b) for a, b in zip(ours, theirs, strict=True))


@dataclass
class Case:
    id: str
    values: list
    kind: str
    expect: str
    width: int | None = None
    annotation: dict = field(default_factory=dict)


def be(value: int, length: int) -> bytes:
    return value.to_bytes(length, "big", signed=True)


def minimal_be(value: int) -> bytes:
    return value.to_bytes((value if value >= 0 else ~value).bit_length() // 8 + 1, "big", signed=True)


def half(bits: int) -> bytes:
    return bits.to_bytes(2, "little")


def _decimal_cases() -> list[Case]:
    cases = [
        Case("dec-int32", [12345, -1, 0, None, 999999999, -999999999], "int32", "decimal",
             annotation={"logicalType": dec(2, 9)}),
        Case("dec-int64", [10**18 - 1, -(10**18 - 1), 0, None, 5], "int64", "decimal",
             annotation={"logicalType": dec(4, 18)}),
        Case("dec-int32-converted", [-1, 100, None], "int32", "decimal",
             annotation={"converted_type": CT.DECIMAL, "scale": 2, "precision": 5}),
        Case("dec-int32-converted-no-scale", [-1, 100, None], "int32", "decimal",
             annotation={"converted_type": CT.DECIMAL, "precision": 5}),
        Case("dec-scale-equals-precision", [123456789, -1, None], "int64", "decimal",
             annotation={"logicalType": dec(10, 10)}),
    ]  # fmt: skip
    rng = np.random.default_rng(7)
    for length in range(1, 33):
        precision = decimals.max_precision(length)
        top = 10**precision - 1
        picks = [int(x) for x in rng.integers(-(2**62), 2**62, size=3)]
        values = [top, -top, 0, 1, -1, None] + [p % top * (-1) ** i for i, p in enumerate(picks)]
        cases.append(Case(f"dec-flba{length}-p{precision}", [None if v is None else be(v, length) for v in values],
                          "fixed", "decimal", width=length,
                          annotation={"logicalType": dec(precision // 2, precision)}))  # fmt: skip
    for precision in list(range(1, 39)) + [50, 76]:
        top = 10**precision - 1
        values = [top, -top, 0, -1, 1, None, -128, 127, 128, -129]
        raw = [None if v is None else minimal_be(v) for v in values if v is None or abs(v) <= top]
        cases.append(Case(f"dec-bytes-p{precision}", raw, "bytes", "decimal",
                          annotation={"logicalType": dec(min(3, precision), precision)}))  # fmt: skip
    # Longer than minimal, still sign extension (pyarrow accepts up to 16 / 32 bytes).
    cases.append(Case("dec-bytes-padded", [b"\xff" * 16, b"\x00" * 15 + b"\x01", b"\x80", None], "bytes",
                      "decimal", annotation={"logicalType": dec(2, 10)}))  # fmt: skip
    return cases


def _temporal_cases() -> list[Case]:
    day_ms = 86_400_000
    min_us, max_us = -62135596800000000, 253402300799999999
    cases = [
        Case("date", [0, -719162, 2932896, 19000, None, -141427, -1], "int32", "date",
             annotation={"logicalType": LT(DATE=T.DateType())}),
        Case("date-converted", [0, 1, None], "int32", "date", annotation={"converted_type": CT.DATE}),
        Case("time-ms", [0, day_ms - 1, 1500, None], "int32", "time", annotation={"logicalType": tm(False, "ms")}),
        Case("time-us-utc", [0, day_ms * 1000 - 1, None], "int64", "time", annotation={"logicalType": tm(True, "us")}),
        Case("time-ns", [0, 1001, 86_399_999_999_999, None], "int64", "time",
             annotation={"logicalType": tm(False, "ns")}),
        Case("time-millis-converted", [1000, None], "int32", "time", annotation={"converted_type": CT.TIME_MILLIS}),
        Case("time-micros-converted", [1000, None], "int64", "time", annotation={"converted_type": CT.TIME_MICROS}),
        Case("timestamp-micros-converted", [1000, None, -1], "int64", "timestamp",
             annotation={"converted_type": CT.TIMESTAMP_MICROS}),
        Case("timestamp-millis-converted", [1000, None, -1], "int64", "timestamp",
             annotation={"converted_type": CT.TIMESTAMP_MILLIS}),
        Case("logical-wins-over-converted", [1, None], "int64", "timestamp",
             annotation={"logicalType": ts(False, "ms"), "converted_type": CT.TIMESTAMP_MICROS}),
    ]  # fmt: skip
    for utc in (False, True):
        for u, scale in (("ms", 1000), ("us", 1)):
            lo, hi = -(-min_us // scale), max_us // scale
            cases.append(Case(f"timestamp-{u}-{'utc' if utc else 'local'}", [0, lo, hi, -1, None, 1704141296123],
                              "int64", "timestamp", annotation={"logicalType": ts(utc, u)}))  # fmt: skip
        cases.append(Case(f"timestamp-ns-{'utc' if utc else 'local'}",
                          [0, -1000, 9223372036854775000, -9223372036854775000, None, 1704141296123456000],
                          "int64", "timestamp", annotation={"logicalType": ts(utc, "ns")}))  # fmt: skip
    return cases


def _other_cases() -> list[Case]:
    halves = [0x0000, 0x8000, 0x3C00, 0xBC00, 0x7C00, 0xFC00, 0x7E00, 0x7E01, 0xFE00, 0x0001, 0x03FF, 0x7BFF, 0xFBFF]
    u1, u2 = uuid.UUID("00112233-4455-6677-8899-aabbccddeeff"), uuid.uuid4()
    text = [b"abc", "h\u00e9llo \u2603".encode(), b"", None]
    return [
        Case("int8", [1, -128, 127, None, 300, -129], "int32", "int", annotation={"logicalType": integer(8, True)}),
        Case("uint8", [0, 255, -1, None, 300], "int32", "int", annotation={"logicalType": integer(8, False)}),
        Case("int16", [-32768, 32767, None, 70000], "int32", "int", annotation={"logicalType": integer(16, True)}),
        Case("uint16", [0, 65535, -1, None], "int32", "int", annotation={"logicalType": integer(16, False)}),
        Case("int32-explicit", [0, -1, None], "int32", "int", annotation={"logicalType": integer(32, True)}),
        Case("uint32", [0, -1, 2**31 - 1, -(2**31), None], "int32", "int",
             annotation={"logicalType": integer(32, False)}),
        Case("uint64", [0, -1, 2**63 - 1, -(2**63), None], "int64", "int",
             annotation={"logicalType": integer(64, False)}),
        Case("uint8-converted", [255, -1, None], "int32", "int", annotation={"converted_type": CT.UINT_8}),
        Case("uint16-converted", [-1, None], "int32", "int", annotation={"converted_type": CT.UINT_16}),
        Case("uint32-converted", [-1, None], "int32", "int", annotation={"converted_type": CT.UINT_32}),
        Case("uint64-converted", [-1, None], "int64", "int", annotation={"converted_type": CT.UINT_64}),
        Case("int8-converted", [-1, 200, None], "int32", "int", annotation={"converted_type": CT.INT_8}),
        Case("int16-converted", [-1, None], "int32", "int", annotation={"converted_type": CT.INT_16}),
        Case("int64-converted", [-1, None], "int64", "int", annotation={"converted_type": CT.INT_64}),
        Case("float16", [half(h) for h in halves] + [None], "fixed", "float16", width=2,
             annotation={"logicalType": LT(FLOAT16=T.Float16Type())}),
        Case("uuid", [u1.bytes, None, u2.bytes], "fixed", "uuid", width=16,
             annotation={"logicalType": LT(UUID=T.UUIDType())}),
        Case("string", text, "bytes", "string", annotation={"logicalType": LT(STRING=T.StringType())}),
        Case("utf8-converted", text, "bytes", "string", annotation={"converted_type": CT.UTF8}),
        Case("json", [b'{"a": 1}', None, b"[]"], "bytes", "json", annotation={"logicalType": LT(JSON=T.JsonType())}),
        Case("json-converted", [b"1", None], "bytes", "json", annotation={"converted_type": CT.JSON}),
        Case("enum", [b"RED", None, b"\xff"], "bytes", "enum", annotation={"logicalType": LT(ENUM=T.EnumType())}),
        Case("enum-converted", [b"RED", None], "bytes", "enum", annotation={"converted_type": CT.ENUM}),
        Case("bson", [b"\x05\x00\x00\x00\x00", None], "bytes", "bson", annotation={"logicalType": LT(BSON=T.BsonType())}),
        Case("interval", [struct.pack("<3I", 1, 2, 3), None, struct.pack("<3I", 2**32 - 1, 0, 7)], "fixed",
             "interval", width=12, annotation={"converted_type": CT.INTERVAL}),
        Case("unknown", [None, None], "int32", "null", annotation={"logicalType": LT(UNKNOWN=T.NullType())}),
        Case("unknown-on-bytes", [None], "bytes", "null", annotation={"logicalType": LT(UNKNOWN=T.NullType())}),
        Case("plain-bool", [True, None, False], "bool", "boolean"),
        Case("plain-int32", [1, None, -(2**31)], "int32", "int"),
        Case("plain-int64", [2**63 - 1, None], "int64", "int"),
        Case("plain-float", [1.5, None, float("nan"), -0.0, float("inf")], "float", "float"),
        Case("plain-double", [1e300, None, float("-inf")], "double", "float"),
        Case("plain-bytes", [b"\x00\xff", None, b""], "bytes", "binary"),
        Case("plain-fixed", [b"abc", None], "fixed", "fixed_binary", width=3),
        # Annotations that do not fit their physical type are ignored (as pyarrow does).
        Case("decimal-on-boolean", [True, None], "bool", "boolean",
             annotation={"logicalType": dec(2, 5), "converted_type": CT.DECIMAL, "scale": 2, "precision": 5}),
        Case("string-on-int32", [1, None], "int32", "int", annotation={"logicalType": LT(STRING=T.StringType())}),
        Case("int64-on-int32", [1, None], "int32", "int", annotation={"logicalType": integer(64, True)}),
        Case("int8-on-int64", [1, None], "int64", "int", annotation={"logicalType": integer(8, True)}),
        Case("uuid-on-flba8", [b"a" * 8, None], "fixed", "fixed_binary", width=8,
             annotation={"logicalType": LT(UUID=T.UUIDType())}),
        Case("float16-on-flba4", [b"a" * 4, None], "fixed", "fixed_binary", width=4,
             annotation={"logicalType": LT(FLOAT16=T.Float16Type())}),
        Case("string-on-flba", [b"ab", None], "fixed", "fixed_binary", width=2,
             annotation={"logicalType": LT(STRING=T.StringType())}),
        Case("date-on-int64", [1, None], "int64", "int", annotation={"logicalType": LT(DATE=T.DateType())}),
        Case("timestamp-on-int32", [1, None], "int32", "int", annotation={"logicalType": ts(True, "ms")}),
        Case("time-ms-on-int64", [1, None], "int64", "int", annotation={"logicalType": tm(True, "ms")}),
        Case("time-us-on-int32", [1, None], "int32", "int", annotation={"logicalType": tm(True, "us")}),
        Case("decimal-p12-on-int32", [1, None], "int32", "int", annotation={"logicalType": dec(2, 12)}),
        Case("decimal-p9-on-flba2", [b"ab", None], "fixed", "fixed_binary", width=2,
             annotation={"logicalType": dec(2, 9)}),
        Case("geometry", [b"\x01", None], "bytes", "binary", annotation={"logicalType": LT(GEOMETRY=T.GeometryType())}),
        Case("geography", [b"\x01", None], "bytes", "binary",
             annotation={"logicalType": LT(GEOGRAPHY=T.GeographyType())}),
        Case("variant-on-leaf", [b"\x01", None], "bytes", "binary",
             annotation={"logicalType": LT(VARIANT=T.VariantType())}),
        Case("list-on-leaf", [1, None], "int32", "int", annotation={"logicalType": LT(LIST=T.ListType())}),
        Case("empty-union-no-converted", [1, None], "int64", "int", annotation={"logicalType": LT()}),
    ]  # fmt: skip


CASES = _decimal_cases() + _temporal_cases() + _other_cases()


def crafted(case: Case) -> tuple[bytes, Array, LogicalInfo]:
    buf = craft(case.values, "fixed" if case.kind == "fixed" else case.kind, case.width, **case.annotation)
    return buf, physical_array(case.values, case.kind, case.width), logical_info(leaf_element(buf))


# ---------------------------------------------------------------- to_pylist against pyarrow


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.id)
def test_to_pylist_matches_pyarrow(case: Case):
    buf, physical, info = crafted(case)
    assert info.kind == case.expect
    theirs = pyarrow_read(buf).to_pylist()
    ours = to_pylist(physical, info)
    assert all_same(ours, theirs), (ours, theirs)


@pytest.mark.parametrize(("unit", "value"), [("ms", -1), ("ms", 86_400_000), ("us", -1), ("ns", 86_400 * 10**9),
                                           ("us", -(2**63))])
def test_a_time_outside_a_day_is_not_read_as_one(unit: str, value: int):
    """pyarrow wraps some such values modulo a day and overflows on others
    (fastparquet writes timedeltas, NaT as -2**63, as TIME(MICROS))."""
    info = LogicalInfo("time", T.Type.INT32 if unit == "ms" else T.Type.INT64, unit=unit)
    values = np.array([1, value], dtype=np.int32 if unit == "ms" else np.int64)
    with pytest.raises(DecodingError, match=f"TIME value 1 \\({value} {unit}\\) is not a time of day"):
        to_pylist(PrimitiveArray.of(values), info)
    assert to_pylist(PrimitiveArray.of(values, np.array([True, False])), info) == [dt.time(0, 0, 0, 1000 if unit == "ms" else 1 if unit == "us" else 0), None]


def test_logical_info_fields():
    def info_of(values, kind, width=None, **annotation):
        return logical_info(leaf_element(craft(values, kind, width, **annotation)))

    assert info_of([1], "int64", converted_type=CT.TIMESTAMP_MILLIS) == LogicalInfo(
        "timestamp", T.Type.INT64, unit="ms", utc=True
    )
    assert info_of([1], "int32", converted_type=CT.TIME_MILLIS) == LogicalInfo("time", T.Type.INT32, unit="ms", utc=True)
    assert info_of([1], "int64", logicalType=tm(False, "ns")) == LogicalInfo("time", T.Type.INT64, unit="ns")
    assert info_of([1], "int32", converted_type=CT.UINT_16) == LogicalInfo(
        "int", T.Type.INT32, bit_width=16, signed=False
    )
    assert info_of([b"ab"], "fixed", 2, converted_type=CT.DECIMAL, scale=1, precision=4) == LogicalInfo(
        "decimal", T.Type.FIXED_LEN_BYTE_ARRAY, type_length=2, precision=4, scale=1
    )
    assert info_of([1], "int32") == LogicalInfo("int", T.Type.INT32, bit_width=32)
    assert info_of([1.0], "float") == LogicalInfo("float", T.Type.FLOAT, bit_width=32)
    assert info_of([b"abcd"], "fixed", 4).type_length == 4


def test_empty_union_falls_back_to_converted_type():
    """A LogicalType from the future (no member we know) defers to the
    converted type (pyarrow ignores both and reads the physical type)."""
    element = leaf_element(craft([1000, None], "int64", logicalType=LT(), converted_type=CT.TIMESTAMP_MILLIS))
    info = logical_info(element)
    assert info == LogicalInfo("timestamp", T.Type.INT64, unit="ms", utc=True)
    assert to_pylist(physical_array([1000, None], "int64"), info) == [
        dt.datetime(1970, 1, 1, 0, 0, 1, tzinfo=dt.timezone.utc),
        None,
    ]


@pytest.mark.skipif(not (CORPUS_DATA / "unknown-logical-type.parquet").is_file(), reason="corpus not present")
def test_corpus_unknown_logical_type_reads_as_physical():
    elements = read_footer((CORPUS_DATA / "unknown-logical-type.parquet").read_bytes()).schema
    assert [logical_info(e).kind for e in elements[1:]] == ["string", "binary"]


@pytest.mark.parametrize("physical, length, converted, message", [
    ("int32", None, CT.UTF8, "UTF8 cannot annotate physical type INT32 (only BYTE_ARRAY)"),
    ("int32", None, CT.TIMESTAMP_MICROS, "TIMESTAMP_MICROS cannot annotate physical type INT32 (only INT64)"),
    ("int64", None, CT.UINT_32, "UINT_32 cannot annotate physical type INT64 (only INT32)"),
    ("int64", None, CT.DATE, "DATE cannot annotate physical type INT64"),
    ("bool", None, CT.DECIMAL, "DECIMAL cannot annotate physical type BOOLEAN"),
    ("fixed", 8, CT.INTERVAL, "INTERVAL cannot annotate physical type FIXED_LEN_BYTE_ARRAY(8)"),
    ("bytes", None, CT.LIST, "LIST annotates groups"),
    ("int32", None, 99, "unknown converted type 99"),
])  # fmt: skip
def test_converted_type_that_cannot_apply_raises(physical, length, converted, message):
    """pyarrow, parquet-java and DuckDB refuse these files (DuckDB's
    broken_*.parquet, say: TIMESTAMP_MICROS on INT32); reading the physical
    values instead would hand out numbers as something they are not."""
    values = {"int32": [1], "int64": [1], "bool": [True], "fixed": [b"12345678"], "bytes": [b"a"]}[physical]
    extra = dict(precision=3, scale=1) if converted == CT.DECIMAL else {}
    element = leaf_element(craft(values, physical, *([length] if length else []), converted_type=converted, **extra))
    with pytest.raises(SchemaError, match=re.escape(message)) as info:
        logical_info(element)
    assert info.value.context.get("column") == element.name


def test_converted_decimal_precision_is_not_held_to_its_storage():
    """As pyarrow reads it: DECIMAL(12, 2) on INT32 is a decimal128(12, 2) of int32 values."""
    element = leaf_element(craft([1], "int32", converted_type=CT.DECIMAL, precision=12, scale=2))
    assert logical_info(element) == LogicalInfo("decimal", T.Type.INT32, precision=12, scale=2)
    element = leaf_element(craft([1], "int32", logicalType=dec(2, 12)))
    assert logical_info(element).kind == "int"  # a LogicalType that does not fit is ignored


def test_converted_na_is_null():
    """parquet-cpp's converted type for an all-null column (24), read as pyarrow's null type."""
    element = leaf_element(craft([None, None], "int32", converted_type=24))
    assert logical_info(element).kind == "null"


@pytest.mark.parametrize(
    "element, error",
    [
        (T.SchemaElement(name="c", type=T.Type.INT32, logicalType=dec(5, 3)), SchemaError),
        (T.SchemaElement(name="c", type=T.Type.INT32, logicalType=dec(-1, 3)), SchemaError),
        (T.SchemaElement(name="c", type=T.Type.INT32, converted_type=CT.DECIMAL), SchemaError),
        (T.SchemaElement(name="c", type=T.Type.INT32, logicalType=integer(7, True)), SchemaError),
        (T.SchemaElement(name="c", type=T.Type.INT64, logicalType=LT(TIMESTAMP=T.TimestampType(True, T.TimeUnit()))), UnsupportedError),
        (T.SchemaElement(name="c", type=T.Type.FIXED_LEN_BYTE_ARRAY), SchemaError),
        (T.SchemaElement(name="c", num_children=1), SchemaError),
        (T.SchemaElement(name="c", type=42), UnsupportedError),
    ],
)  # fmt: skip
def test_malformed_annotations_raise(element, error):
    with pytest.raises(error) as info:
        logical_info(element)
    assert info.value.context.get("column") == "c"


# ---------------------------------------------------------------- INT96


US_VALUES = [1704141296123456, 1704070800000000, 253402225200000000, 1735599600000000, None, 9089380393200000000]
INT96_INFO = LogicalInfo("int96", T.Type.INT96, unit="ns")


def int96_exact(us: int) -> bytes:
    days, rest = divmod(us, 86_400 * 10**6)
    return (rest * 1000).to_bytes(8, "little") + (days + 2440588).to_bytes(4, "little", signed=True)


def int96_spark(us: int) -> bytes:
    """Spark's encoding: wrapping 64-bit Julian microseconds, truncating division."""
    per_day = 86_400 * 10**6
    julian_us = (us + 2440588 * per_day + 2**63) % 2**64 - 2**63
    day = abs(julian_us) // per_day * (1 if julian_us >= 0 else -1)
    micro = julian_us - day * per_day
    return (micro * 1000).to_bytes(8, "little", signed=True) + day.to_bytes(4, "little", signed=True)


def int96_file(rows: list) -> bytes:
    """An INT96 column: PLAIN FIXED_LEN_BYTE_ARRAY(12) bytes retyped to INT96."""
    return craft(rows, "fixed", 12, physical=T.Type.INT96)


@pytest.mark.parametrize("encode", [int96_exact, int96_spark], ids=["exact", "spark"])
def test_int96_exact_microseconds(encode):
    rows = [None if u is None else encode(u) for u in US_VALUES]
    physical = physical_array(rows, "fixed", 12)
    assert logical_info(leaf_element(int96_file(rows))) == INT96_INFO
    ours = to_logical(physical, INT96_INFO, int96_unit="us")
    assert [None if not ok else v for v, ok in zip(ours.values.tolist(), ours.is_valid(), strict=True)] == US_VALUES
    assert to_logical(physical, INT96_INFO, int96_unit="ms").values[0] == 1704141296123
    with pytest.raises(UnsupportedError, match="value 2"):
        to_logical(physical, INT96_INFO)  # year 9999 overflows int64 nanoseconds
    with pytest.raises(UnsupportedError, match="value 5"):
        to_pylist(physical, INT96_INFO)  # year ~290,000 is beyond datetime


def test_int96_spark_corpus_bytes():
    """The dictionary page of int96_from_spark.parquet holds this value for
    the last row: Spark wrote it with an overflowing Julian day."""
    raw = bytes.fromhex("0060b9c76ee2ffffa8abb0f9")
    assert raw == int96_spark(9089380393200000000)
    physical = physical_array([raw], "fixed", 12)
    assert to_logical(physical, INT96_INFO, int96_unit="us").values.tolist() == [9089380393200000000]


def test_int96_matches_pyarrow_in_range():
    values = [0, -1, 1704141296123456, -62135596800000000, None, 253402300799999999]
    rows = [None if u is None else int96_exact(u) for u in values]
    buf = int96_file(rows)
    physical = physical_array(rows, "fixed", 12)
    assert all_same(to_pylist(physical, INT96_INFO), pyarrow_read(buf, coerce_int96_timestamp_unit="us").to_pylist())
    in_ns = rows[:3] + [None]  # pyarrow's default: pandas Timestamps; ours: the exact datetimes
    theirs = [None if v is None else v.to_pydatetime() for v in pyarrow_read(int96_file(in_ns)).to_pylist()]
    assert all_same(to_pylist(physical_array(in_ns, "fixed", 12), INT96_INFO), theirs)


def test_int96_sub_microsecond_values_are_nanosecond_timestamps():
    """As pyarrow's to_pylist of the timestamp[ns] column it reads: pandas
    Timestamps; beyond 64-bit nanoseconds no Python value holds one."""
    pd = pytest.importorskip("pandas")
    row = (1001).to_bytes(8, "little") + (2440588).to_bytes(4, "little")
    physical = physical_array([row, None], "fixed", 12)
    assert to_logical(physical, INT96_INFO).values.tolist()[:1] == [1001]
    values = to_pylist(physical, INT96_INFO)
    assert values == [pd.Timestamp(1001, unit="ns"), None] and isinstance(values[0], pd.Timestamp)
    beyond = physical_array([row, (0).to_bytes(8, "little") + (2440588 + 200_000).to_bytes(4, "little")], "fixed", 12)
    with pytest.raises(UnsupportedError, match="whole microsecond"):
        to_pylist(beyond, INT96_INFO)


def test_int96_writer_round_trip():
    moments = [dt.datetime(1, 1, 1), dt.datetime(9999, 12, 31, 23, 59, 59, 999999), None, dt.datetime(2024, 1, 2)]
    physical = from_pylist(moments, INT96_INFO)
    assert physical.values.shape == (4, 12)
    assert to_pylist(physical, INT96_INFO) == moments
    ns = np.array([0, -1, 1704141296123456789], dtype=np.int64)
    assert to_logical(from_logical(PrimitiveArray.of(ns), INT96_INFO), INT96_INFO).values.tolist() == ns.tolist()


# ---------------------------------------------------------------- conversions pyarrow cannot express


def test_out_of_range_temporal_values_raise_naming_the_index():
    pa = pytest.importorskip("pyarrow")
    date = LogicalInfo("date", T.Type.INT32)
    with pytest.raises(UnsupportedError, match="value 1"):
        to_pylist(physical_array([0, 2932897], "int32"), date)
    with pytest.raises(OverflowError):  # pyarrow fails too, less helpfully
        pa.array([2932897], pa.date32()).to_pylist()
    with pytest.raises(UnsupportedError, match="value 0"):
        to_pylist(physical_array([-719163], "int32"), date)
    stamp = LogicalInfo("timestamp", T.Type.INT64, unit="ms")
    with pytest.raises(UnsupportedError, match="value 1"):
        to_pylist(physical_array([0, 2**62], "int64"), stamp)
    # A null slot is never converted, whatever its bytes.
    garbage = PrimitiveArray.of(np.array([2**62, 0], np.int64), np.array([False, True]))
    assert to_pylist(garbage, stamp) == [None, dt.datetime(1970, 1, 1)]


def test_nanosecond_timestamps_are_pandas_timestamps_as_in_pyarrow():
    pa = pytest.importorskip("pyarrow")
    pytest.importorskip("pandas")
    for utc in (False, True):
        info = LogicalInfo("timestamp", T.Type.INT64, unit="ns", utc=utc)
        values = [1000, None, 1001, -(2**63), 2**63 - 1]
        expected = pa.array(values, pa.timestamp("ns", tz="UTC" if utc else None)).to_pylist()
        ours = to_pylist(physical_array(values, "int64"), info)
        assert [type(v) for v in ours] == [type(v) for v in expected]
        assert [None if v is None else repr(v) for v in ours] == [None if v is None else repr(v) for v in expected]


def test_nanosecond_timestamps_without_pandas(monkeypatch):
    """Without pandas: the equal datetime when the value is a whole
    microsecond, else an error naming it (pyarrow raises too)."""
    monkeypatch.setattr(temporal, "_pandas", lambda: None)
    info = LogicalInfo("timestamp", T.Type.INT64, unit="ns", utc=True)
    assert to_pylist(physical_array([1000, None], "int64"), info) == [
        dt.datetime(1970, 1, 1, 0, 0, 0, 1, tzinfo=dt.timezone.utc),
        None,
    ]
    with pytest.raises(UnsupportedError, match="value 1"):
        to_pylist(physical_array([1000, 1001], "int64"), info)


def test_invalid_utf8_raises_decoding_error():
    buf = craft([b"ok", b"\xff\xfe", None], "bytes", logicalType=LT(STRING=T.StringType()))
    with pytest.raises(UnicodeDecodeError):
        pyarrow_read(buf).to_pylist()
    with pytest.raises(DecodingError, match="value 1"):
        to_pylist(physical_array([b"ok", b"\xff\xfe", None], "bytes"), logical_info(leaf_element(buf)))


def test_lenient_wide_decimals():
    """Values longer than Arrow's width are read when the extra bytes are
    sign extension (pyarrow refuses the file); a real overflow is reported."""
    info = LogicalInfo("decimal", T.Type.FIXED_LEN_BYTE_ARRAY, type_length=20, precision=38, scale=0)
    values = [be(-5, 20), be(10**38 - 1, 20)]
    array = physical_array(values, "fixed", 20)
    assert to_pylist(array, info) == [Decimal(-5), Decimal(10**38 - 1)]
    assert to_logical(array, info).values.shape == (2, 16)
    with pytest.raises(CorruptFileError, match="value 0"):
        to_logical(physical_array([be(2**127, 20)], "fixed", 20), info)
    with pytest.raises(CorruptFileError, match="value 1 is empty"):
        to_pylist(physical_array([b"\x01", b""], "bytes"), LogicalInfo("decimal", T.Type.BYTE_ARRAY, precision=40, scale=0))
    big = LogicalInfo("decimal", T.Type.BYTE_ARRAY, precision=100, scale=50)
    huge = 10**100 - 1
    assert to_pylist(physical_array([minimal_be(-huge)], "bytes"), big) == [Decimal(-huge).scaleb(-50, _wide())]


def _wide():
    import decimal

    return decimal.Context(prec=200)


def test_decimal_min_bytes_matches_pyarrow():
    pa = pytest.importorskip("pyarrow")
    pq = pytest.importorskip("pyarrow.parquet")
    for precision in range(1, 77):
        typ = pa.decimal128(precision, 0) if precision <= 38 else pa.decimal256(precision, 0)
        sink = io.BytesIO()
        pq.write_table(pa.table({"c": pa.array([Decimal(1)], typ)}), sink, store_schema=False)
        assert leaf_element(sink.getvalue()).type_length == decimals.min_bytes(precision), precision
        assert decimals.max_precision(decimals.min_bytes(precision)) >= precision


@given(st.lists(st.integers(-(2**255), 2**255 - 1), max_size=20))
@settings(max_examples=60, deadline=None)
def test_minimal_byte_array_decimals(ints):
    le = np.frombuffer(b"".join(i.to_bytes(32, "little", signed=True) for i in ints), np.uint8).reshape(-1, 32)
    offsets, data = decimals.le_to_minimal(le)
    raw = data.tobytes()
    assert [raw[s:e] for s, e in zip(offsets[:-1], offsets[1:], strict=True)] == [minimal_be(i) for i in ints]


# ---------------------------------------------------------------- writer side


def _ms(t: dt.time) -> dt.time:
    return t.replace(microsecond=t.microsecond // 1000 * 1000)


def _nullable(strategy):
    return st.lists(st.one_of(st.none(), strategy), max_size=30)


def _decimal_strategy(precision: int, scale: int):
    def build(u: int) -> Decimal:
        return Decimal((int(u < 0), tuple(int(d) for d in str(abs(u))), -scale))

    return st.integers(-(10**precision) + 1, 10**precision - 1).map(build)


UTC = dt.timezone.utc
NS_RANGE = {"min_value": dt.datetime(1677, 9, 22), "max_value": dt.datetime(2262, 4, 10)}
ROUND_TRIPS = [
    (LogicalInfo("boolean", T.Type.BOOLEAN), st.booleans()),
    (LogicalInfo("int", T.Type.INT32, bit_width=8), st.integers(-128, 127)),
    (LogicalInfo("int", T.Type.INT32, bit_width=8, signed=False), st.integers(0, 255)),
    (LogicalInfo("int", T.Type.INT32, bit_width=16), st.integers(-(2**15), 2**15 - 1)),
    (LogicalInfo("int", T.Type.INT32, bit_width=16, signed=False), st.integers(0, 2**16 - 1)),
    (LogicalInfo("int", T.Type.INT32, bit_width=32), st.integers(-(2**31), 2**31 - 1)),
    (LogicalInfo("int", T.Type.INT32, bit_width=32, signed=False), st.integers(0, 2**32 - 1)),
    (LogicalInfo("int", T.Type.INT64, bit_width=64), st.integers(-(2**63), 2**63 - 1)),
    (LogicalInfo("int", T.Type.INT64, bit_width=64, signed=False), st.integers(0, 2**64 - 1)),
    (LogicalInfo("float", T.Type.FLOAT, bit_width=32), st.floats(width=32)),
    (LogicalInfo("float", T.Type.DOUBLE, bit_width=64), st.floats()),
    (LogicalInfo("float16", T.Type.FIXED_LEN_BYTE_ARRAY, type_length=2, bit_width=16), st.floats(width=16)),
    (LogicalInfo("string", T.Type.BYTE_ARRAY), st.text()),
    (LogicalInfo("json", T.Type.BYTE_ARRAY), st.text()),
    (LogicalInfo("enum", T.Type.BYTE_ARRAY), st.binary()),
    (LogicalInfo("binary", T.Type.BYTE_ARRAY), st.binary()),
    (LogicalInfo("fixed_binary", T.Type.FIXED_LEN_BYTE_ARRAY, type_length=5), st.binary(min_size=5, max_size=5)),
    (LogicalInfo("uuid", T.Type.FIXED_LEN_BYTE_ARRAY, type_length=16), st.uuids()),
    (LogicalInfo("interval", T.Type.FIXED_LEN_BYTE_ARRAY, type_length=12), st.binary(min_size=12, max_size=12)),
    (LogicalInfo("decimal", T.Type.INT32, precision=9, scale=3), _decimal_strategy(9, 3)),
    (LogicalInfo("decimal", T.Type.INT64, precision=18, scale=0), _decimal_strategy(18, 0)),
    (LogicalInfo("decimal", T.Type.FIXED_LEN_BYTE_ARRAY, type_length=16, precision=38, scale=10),
     _decimal_strategy(38, 10)),
    (LogicalInfo("decimal", T.Type.FIXED_LEN_BYTE_ARRAY, type_length=32, precision=76, scale=76),
     _decimal_strategy(76, 76)),
    (LogicalInfo("decimal", T.Type.BYTE_ARRAY, precision=60, scale=5), _decimal_strategy(60, 5)),
    (LogicalInfo("date", T.Type.INT32), st.dates()),
    (LogicalInfo("time", T.Type.INT32, unit="ms"), st.times().map(_ms)),
    (LogicalInfo("time", T.Type.INT64, unit="us", utc=True), st.times()),
    (LogicalInfo("time", T.Type.INT64, unit="ns"), st.times()),
    (LogicalInfo("timestamp", T.Type.INT64, unit="ms"), st.datetimes().map(lambda d: d.replace(microsecond=d.microsecond // 1000 * 1000))),
    (LogicalInfo("timestamp", T.Type.INT64, unit="us", utc=True), st.datetimes(timezones=st.just(UTC))),
    (LogicalInfo("timestamp", T.Type.INT64, unit="us"), st.datetimes()),
    (LogicalInfo("timestamp", T.Type.INT64, unit="ns"), st.datetimes(**NS_RANGE)),
    (INT96_INFO, st.datetimes()),
]  # fmt: skip


@pytest.mark.parametrize("info, strategy", ROUND_TRIPS, ids=lambda x: getattr(x, "kind", ""))
def test_from_pylist_round_trips(info, strategy):
    @given(_nullable(strategy))
    @settings(max_examples=25, deadline=None)
    def check(values):
        physical = from_pylist(values, info)
        assert len(physical) == len(values)
        back = to_pylist(physical, info)
        assert all_same(back, values), (back, values)
        assert logical_info(T.SchemaElement(name="c", **element_fields(info))) == info
        # The numpy path agrees with the Python one.
        again = from_logical(to_logical(physical, info, int96_unit="us"), info, int96_unit="us")
        assert all_same(to_pylist(again, info), values)

    check()


def test_from_pylist_rejects_values_that_do_not_fit():
    cases = [
        ([1, 300], LogicalInfo("int", T.Type.INT32, bit_width=8), "value 1"),
        ([-1], LogicalInfo("int", T.Type.INT32, bit_width=32, signed=False), "value 0"),
        ([2**64], LogicalInfo("int", T.Type.INT64, bit_width=64, signed=False), "value 0"),
        ([None, "x"], LogicalInfo("int", T.Type.INT32, bit_width=32), "value 1"),
        ([1.0, 1e6], LogicalInfo("float16", T.Type.FIXED_LEN_BYTE_ARRAY, type_length=2, bit_width=16), "value 1"),
        ([Decimal("1.234")], LogicalInfo("decimal", T.Type.INT32, precision=5, scale=2), "fractional"),
        ([Decimal("1234.5")], LogicalInfo("decimal", T.Type.INT32, precision=5, scale=2), "does not fit"),
        ([Decimal("NaN")], LogicalInfo("decimal", T.Type.INT32, precision=5, scale=2), "finite"),
        ([1.5], LogicalInfo("decimal", T.Type.INT32, precision=5, scale=2), "not a Decimal"),
        ([b"abc"], LogicalInfo("fixed_binary", T.Type.FIXED_LEN_BYTE_ARRAY, type_length=2), "3 bytes"),
        ([3], LogicalInfo("string", T.Type.BYTE_ARRAY), "not str or bytes"),
        (["x"], LogicalInfo("date", T.Type.INT32), "not a date"),
        ([dt.datetime(2300, 1, 1)], LogicalInfo("timestamp", T.Type.INT64, unit="ns"), "64 bits"),
        ([(1, 2)], LogicalInfo("interval", T.Type.FIXED_LEN_BYTE_ARRAY, type_length=12), "interval value 0"),
        ([1], LogicalInfo("null", T.Type.INT32), "UNKNOWN"),
    ]
    for values, info, message in cases:
        with pytest.raises(SchemaError, match=message):
            from_pylist(values, info)


def test_from_pylist_conventions():
    paris = dt.timezone(dt.timedelta(hours=1))
    stamp = LogicalInfo("timestamp", T.Type.INT64, unit="ms")
    physical = from_pylist([dt.datetime(2020, 1, 1, 12, tzinfo=paris), dt.datetime(1969, 12, 31, 23, 59, 59, 999500)], stamp)
    assert physical.values.tolist() == [1577876400000, -1]  # aware -> UTC; floor to the unit (as pyarrow)
    interval = LogicalInfo("interval", T.Type.FIXED_LEN_BYTE_ARRAY, type_length=12)
    assert to_pylist(from_pylist([(1, 2, 3)], interval), interval) == [struct.pack("<3I", 1, 2, 3)]
    assert temporal.interval_parts(from_pylist([(1, 2, 3)], interval).values)[2].tolist() == [3]
    date = LogicalInfo("date", T.Type.INT32)
    assert from_pylist([dt.datetime(2020, 1, 1, 23), np.datetime64("1970-01-02")], date).values.tolist() == [18262, 1]
    assert from_pylist(np.array(["2020-01-01"], dtype="datetime64[D]"), date).values.tolist() == [18262]
    ts_ns = LogicalInfo("timestamp", T.Type.INT64, unit="ns")
    assert from_pylist(np.array([1, 2], dtype="datetime64[us]"), ts_ns).values.tolist() == [1000, 2000]
    uint8 = LogicalInfo("int", T.Type.INT32, bit_width=8, signed=False)
    assert from_pylist(np.array([255], np.uint8), uint8).values.dtype == np.int32
    with pytest.raises(SchemaError):
        from_pylist(np.array([256]), uint8)
    decimal = LogicalInfo("decimal", T.Type.BYTE_ARRAY, precision=10, scale=2)
    assert to_pylist(from_pylist([5, None], decimal), decimal) == [Decimal("5.00"), None]


@given(st.lists(st.one_of(st.none(), st.integers(-(2**127), 2**127 - 1)), max_size=20), st.integers(0, 3))
@settings(max_examples=60, deadline=None)
def test_byte_array_decimals_to_arrow_layout(values, pad):
    """Sign extension and byte reversal of variable-length big-endian values."""
    parts = [b"" if v is None else (b"\xff" if v < 0 else b"\x00") * pad + minimal_be(v) for v in values]
    array = physical_array([None if v is None else p for v, p in zip(values, parts, strict=True)], "bytes")
    le = decimals.big_endian_to_le(array.data, array.offsets, 16, array.validity)
    assert [int.from_bytes(row.tobytes(), "little", signed=True) for row in le] == [v or 0 for v in values]
    fixed = decimals.flba_to_le(np.frombuffer(b"".join(be(v or 0, 17) for v in values), np.uint8).reshape(-1, 17), 32)
    assert [int.from_bytes(row.tobytes(), "little", signed=True) for row in fixed] == [v or 0 for v in values]


def test_byte_values_of_a_slice_copy_only_the_bytes_it_spans():
    """A batch cut from a row group shares the group's whole data buffer: its
    values are the bytes its offsets span, and only those are copied (every
    batch of a big string column copied all of it)."""
    import tracemalloc

    from parquet_codec.types import byte_values

    data = np.frombuffer(b"aa" + b"x" * 20_000_000 + b"bbcc", dtype=np.uint8)
    sliced = BinaryArray.of(np.array([20_000_002, 20_000_004, 20_000_006], dtype=np.int64), data)
    tracemalloc.start()
    values = byte_values(sliced)
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    assert values == [b"bb", b"cc"]
    assert peak < 2**20
