"""The legacy ConvertedType and its LogicalType equivalents.

A footer may annotate a column with a LogicalType (the union), a
ConvertedType (its predecessor), or both. LogicalTypes.md lists the
equivalent LogicalType of each ConvertedType: readers fall back to it when
the union is absent or names a type from the future, and writers add the
ConvertedType beside a LogicalType for older readers.
"""

from __future__ import annotations

from parquet_codec.format.ttypes import (
    BsonType,
    ConvertedType,
    DateType,
    DecimalType,
    EnumType,
    IntType,
    JsonType,
    ListType,
    LogicalType,
    MapType,
    MicroSeconds,
    MilliSeconds,
    SchemaElement,
    StringType,
    TimestampType,
    TimeType,
    TimeUnit,
)

_MILLIS = TimeUnit(MILLIS=MilliSeconds())
_MICROS = TimeUnit(MICROS=MicroSeconds())

_INT_CONVERTED = {
    ConvertedType.INT_8: (8, True), ConvertedType.INT_16: (16, True), ConvertedType.INT_32: (32, True),
    ConvertedType.INT_64: (64, True), ConvertedType.UINT_8: (8, False), ConvertedType.UINT_16: (16, False),
    ConvertedType.UINT_32: (32, False), ConvertedType.UINT_64: (64, False),
}


def union_member(union: object) -> tuple[str, object] | None:
    """The (name, value) of the first member set in a Thrift union, if any."""
    if union is None:
        return None
    for spec in type(union).thrift_spec:
        if spec is not None and getattr(union, spec[2], None) is not None:
            return spec[2], getattr(union, spec[2])
    return None


def is_known_logical_type(lt: LogicalType | None) -> bool:
    """True when one union member is set (a type from the future sets none we know)."""
    return union_member(lt) is not None


def logical_from_converted(ct: int | None, precision: int | None = None, scale: int | None = None) -> LogicalType | None:
    """The LogicalType equivalent to a ConvertedType; None for MAP_KEY_VALUE and
    INTERVAL, which have none, and for a DECIMAL without precision."""
    if ct is None:
        return None
    simple = {
        ConvertedType.UTF8: LogicalType(STRING=StringType()), ConvertedType.MAP: LogicalType(MAP=MapType()),
        ConvertedType.LIST: LogicalType(LIST=ListType()), ConvertedType.ENUM: LogicalType(ENUM=EnumType()),
        ConvertedType.DATE: LogicalType(DATE=DateType()), ConvertedType.JSON: LogicalType(JSON=JsonType()),
        ConvertedType.BSON: LogicalType(BSON=BsonType()),
    }
    if ct in simple:
        return simple[ct]
    if ct in _INT_CONVERTED:
        width, signed = _INT_CONVERTED[ct]
        return LogicalType(INTEGER=IntType(bitWidth=width, isSigned=signed))
    if ct == ConvertedType.DECIMAL:
        if precision is None:
            return None
        return LogicalType(DECIMAL=DecimalType(scale=scale or 0, precision=precision))
    # The legacy time types are UTC-adjusted by definition (LogicalTypes.md "Deprecated ...").
    if ct in (ConvertedType.TIME_MILLIS, ConvertedType.TIME_MICROS):
        unit = _MILLIS if ct == ConvertedType.TIME_MILLIS else _MICROS
        return LogicalType(TIME=TimeType(isAdjustedToUTC=True, unit=unit))
    if ct in (ConvertedType.TIMESTAMP_MILLIS, ConvertedType.TIMESTAMP_MICROS):
        unit = _MILLIS if ct == ConvertedType.TIMESTAMP_MILLIS else _MICROS
        return LogicalType(TIMESTAMP=TimestampType(isAdjustedToUTC=True, unit=unit))
    return None


def resolved_logical_type(element: SchemaElement) -> LogicalType | None:
    """The element's LogicalType when it is one we know, else the converted type's equivalent."""
    if is_known_logical_type(element.logicalType):
        return element.logicalType
    return logical_from_converted(element.converted_type, element.precision, element.scale)


def converted_from_logical(lt: LogicalType | None) -> int | None:
    """The ConvertedType writers add beside a LogicalType for older readers, or
    None (LogicalTypes.md, the "Forward compatibility" tables)."""
    if lt is None:
        return None
    for member, ct in (("STRING", ConvertedType.UTF8), ("MAP", ConvertedType.MAP), ("LIST", ConvertedType.LIST),
                       ("ENUM", ConvertedType.ENUM), ("DECIMAL", ConvertedType.DECIMAL),
                       ("DATE", ConvertedType.DATE), ("JSON", ConvertedType.JSON), ("BSON", ConvertedType.BSON)):
        if getattr(lt, member) is not None:
            return ct
    if lt.INTEGER is not None:
        for ct, (width, signed) in _INT_CONVERTED.items():
            if (width, signed) == (lt.INTEGER.bitWidth, lt.INTEGER.isSigned):
                return ct
        return None
    for member, millis, micros in (("TIME", ConvertedType.TIME_MILLIS, ConvertedType.TIME_MICROS),
                                   ("TIMESTAMP", ConvertedType.TIMESTAMP_MILLIS, ConvertedType.TIMESTAMP_MICROS)):
        t = getattr(lt, member)
        # Millis and micros, local ones too: the forward-compatibility tables
        # say writers must annotate local times and timestamps the legacy way.
        if t is not None and t.unit is not None:
            if t.unit.MILLIS is not None:
                return millis
            if t.unit.MICROS is not None:
                return micros
    return None


__all__ = ["converted_from_logical", "is_known_logical_type", "logical_from_converted", "resolved_logical_type",
           "union_member"]
