"""ConvertedType <-> LogicalType equivalences (LogicalTypes.md), checked against
the specification's table and against the annotations pyarrow writes."""

from __future__ import annotations

import io

import pytest

from parquet_codec.converted_types import (
    converted_from_logical,
    is_known_logical_type,
    logical_from_converted,
    resolved_logical_type,
)
from parquet_codec.format.ttypes import (
    ConvertedType,
    IntType,
    LogicalType,
    NanoSeconds,
    SchemaElement,
    StringType,
    TimestampType,
    TimeType,
    TimeUnit,
    UUIDType,
)

CT = ConvertedType
NO_EQUIVALENT = {CT.MAP_KEY_VALUE, CT.INTERVAL}


@pytest.mark.parametrize("ct", sorted(CT._VALUES_TO_NAMES))
def test_every_converted_type_round_trips_through_its_logical_type(ct):
    lt = logical_from_converted(ct, precision=9, scale=2)
    if ct in NO_EQUIVALENT:
        assert lt is None
    else:
        assert is_known_logical_type(lt) and converted_from_logical(lt) == ct


def test_the_specification_table():
    ts = logical_from_converted(CT.TIMESTAMP_MILLIS).TIMESTAMP
    assert ts.isAdjustedToUTC and ts.unit.MILLIS is not None
    time = logical_from_converted(CT.TIME_MICROS).TIME
    assert time.isAdjustedToUTC and time.unit.MICROS is not None
    integer = logical_from_converted(CT.UINT_16).INTEGER
    assert (integer.bitWidth, integer.isSigned) == (16, False)
    decimal = logical_from_converted(CT.DECIMAL, precision=18, scale=3).DECIMAL
    assert (decimal.precision, decimal.scale) == (18, 3)
    assert logical_from_converted(CT.DECIMAL) is None  # no precision: not a valid decimal
    assert logical_from_converted(None) is None


def test_logical_types_without_a_legacy_equivalent():
    nanos = TimeUnit(NANOS=NanoSeconds())
    assert converted_from_logical(LogicalType(TIMESTAMP=TimestampType(isAdjustedToUTC=True, unit=nanos))) is None
    assert converted_from_logical(LogicalType(UUID=UUIDType())) is None
    assert converted_from_logical(LogicalType(INTEGER=IntType(bitWidth=12, isSigned=True))) is None


def test_local_times_and_timestamps_get_the_legacy_annotation_too():
    # LogicalTypes.md, "Forward compatibility": writers must annotate them.
    millis = logical_from_converted(CT.TIMESTAMP_MILLIS).TIMESTAMP.unit
    micros = logical_from_converted(CT.TIME_MICROS).TIME.unit
    assert converted_from_logical(LogicalType(TIMESTAMP=TimestampType(isAdjustedToUTC=False, unit=millis))) \
        == CT.TIMESTAMP_MILLIS
    assert converted_from_logical(LogicalType(TIMESTAMP=TimestampType(isAdjustedToUTC=False, unit=micros))) \
        == CT.TIMESTAMP_MICROS
    assert converted_from_logical(LogicalType(TIME=TimeType(isAdjustedToUTC=False, unit=millis))) == CT.TIME_MILLIS
    nanos = TimeUnit(NANOS=NanoSeconds())
    assert converted_from_logical(LogicalType(TIME=TimeType(isAdjustedToUTC=False, unit=nanos))) is None


def test_a_logical_type_from_the_future_falls_back_to_the_converted_type():
    future = SchemaElement(name="x", logicalType=LogicalType(), converted_type=CT.UTF8)
    assert not is_known_logical_type(future.logicalType)
    assert resolved_logical_type(future) == LogicalType(STRING=StringType())
    known = SchemaElement(name="y", logicalType=LogicalType(STRING=StringType()), converted_type=CT.ENUM)
    assert resolved_logical_type(known) == LogicalType(STRING=StringType())


def test_pyarrow_writes_the_converted_type_we_derive():
    pa = pytest.importorskip("pyarrow")
    pq = pytest.importorskip("pyarrow.parquet")
    import decimal

    from parquet_codec.reader import ParquetFile

    columns = {
        "s": pa.array(["a"]), "i8": pa.array([1], pa.int8()), "u32": pa.array([1], pa.uint32()),
        "u64": pa.array([1], pa.uint64()), "d": pa.array([1], pa.date32()),
        "dec": pa.array([decimal.Decimal("1.5")], pa.decimal128(9, 2)),
        "ts_ms": pa.array([1], pa.timestamp("ms", tz="UTC")), "ts_us": pa.array([1], pa.timestamp("us", tz="UTC")),
        "local_ms": pa.array([1], pa.timestamp("ms")), "local_us": pa.array([1], pa.timestamp("us")),
        "l": pa.array([[1]]), "m": pa.array([[("k", 1)]], pa.map_(pa.string(), pa.int8())),
    }
    buf = io.BytesIO()
    pq.write_table(pa.table(columns), buf)
    elements = ParquetFile(buf.getvalue()).schema.to_elements()[1:]
    annotated = [e for e in elements if e.logicalType is not None]
    assert len(annotated) >= len(columns)
    for element in annotated:
        assert converted_from_logical(element.logicalType) == element.converted_type, element.name
