"""The type annotations a writer records for a leaf (LogicalTypes.md): the
LogicalType of a :class:`~parquet_codec.types.LogicalInfo` and, beside it for
older readers, its legacy ConvertedType (the "Compatibility" sections), as
the fields of the leaf's ``SchemaElement``. INTERVAL has a ConvertedType
only; plain INT32/INT64, floats, binaries and INT96 have no annotation.
"""

from __future__ import annotations

from parquet_codec.converted_types import converted_from_logical
from parquet_codec.format import ttypes
from parquet_codec.types import LogicalInfo

_T = ttypes.Type
_CT = ttypes.ConvertedType


def _time_unit(unit: str) -> ttypes.TimeUnit:
    if unit == "ms":
        return ttypes.TimeUnit(MILLIS=ttypes.MilliSeconds())
    if unit == "us":
        return ttypes.TimeUnit(MICROS=ttypes.MicroSeconds())
    return ttypes.TimeUnit(NANOS=ttypes.NanoSeconds())


# LogicalType members without parameters, by LogicalInfo kind.
_PLAIN_ANNOTATIONS = {
    "string": ("STRING", ttypes.StringType), "enum": ("ENUM", ttypes.EnumType), "json": ("JSON", ttypes.JsonType),
    "bson": ("BSON", ttypes.BsonType), "date": ("DATE", ttypes.DateType), "uuid": ("UUID", ttypes.UUIDType),
    "float16": ("FLOAT16", ttypes.Float16Type), "null": ("UNKNOWN", ttypes.NullType),
}


def _annotation(info: LogicalInfo) -> tuple[ttypes.LogicalType | None, int | None]:
    """The LogicalType and ConvertedType a writer records for ``info``: the
    ConvertedType is the LogicalType's legacy equivalent, if it has one."""
    if info.kind == "interval":  # a ConvertedType without a LogicalType
        return None, _CT.INTERVAL
    logical = _logical_type(info)
    return logical, converted_from_logical(logical)


def _logical_type(info: LogicalInfo) -> ttypes.LogicalType | None:
    kind, L = info.kind, ttypes.LogicalType
    if info.geo is not None:
        return info.geo.logical_type()
    if kind in _PLAIN_ANNOTATIONS:
        member, cls = _PLAIN_ANNOTATIONS[kind]
        return L(**{member: cls()})
    if kind == "int" and (info.bit_width not in (32, 64) or not info.signed):
        return L(INTEGER=ttypes.IntType(info.bit_width, info.signed))
    if kind == "decimal":
        return L(DECIMAL=ttypes.DecimalType(info.scale, info.precision))
    if kind == "time":
        return L(TIME=ttypes.TimeType(info.utc, _time_unit(info.unit)))
    if kind == "timestamp":
        return L(TIMESTAMP=ttypes.TimestampType(info.utc, _time_unit(info.unit)))
    return None


def element_fields(info: LogicalInfo) -> dict[str, object]:
    """The ``SchemaElement`` keyword arguments that describe ``info``:
    type, type_length, converted_type, logicalType, scale, precision."""
    logical, converted = _annotation(info)
    decimal = info.kind == "decimal"
    return {
        "type": info.physical_type,
        "type_length": info.type_length if info.physical_type == _T.FIXED_LEN_BYTE_ARRAY else None,
        "converted_type": converted,
        "logicalType": logical,
        "scale": info.scale if decimal else None,
        "precision": info.precision if decimal else None,
    }


__all__ = ["element_fields"]
