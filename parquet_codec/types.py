"""Physical values <-> logical values (LogicalTypes.md).

:func:`logical_info` resolves what one leaf column holds from its
``SchemaElement``: the LogicalType annotation wins over the legacy
ConvertedType ("Compatibility" sections); a converted type alone maps as the
backward-compatibility tables say (TIMESTAMP_MILLIS/MICROS and TIME_MILLIS/
MICROS are UTC-adjusted); a LogicalType union with no member set (a type from
a newer format version) falls back to the converted type, then to the
physical type.

A LogicalType that cannot apply to its physical type (DECIMAL on BOOLEAN,
STRING on INT32, a DECIMAL precision too large for INT32, UUID on a 12-byte
FIXED_LEN_BYTE_ARRAY, group-only annotations on a leaf, the unhandled
members) is ignored and the column reads as its
physical type, as pyarrow does. A *converted* type alone that cannot apply
(TIMESTAMP_MICROS on INT32, UTF8 on INT64, LIST on a leaf, a value the
format does not define) is a :class:`SchemaError`, as pyarrow, parquet-java
and DuckDB refuse it; a DECIMAL's precision is not held to the size of its
storage there, as pyarrow reads it. Malformed parameters of a fitting
annotation (DECIMAL scale > precision or < 0, precision < 1, INT bit width
other than 8/16/32/64) raise :class:`SchemaError` as pyarrow does, and a
TIME/TIMESTAMP unit this package does not know raises
:class:`UnsupportedError` ("unknown unit-s must be handled as unsupported").

Three representations of a leaf's values meet here:
- physical: what the decoders produce (an :class:`~parquet_codec.arrays.Array`);
- logical numpy: the Arrow layout of the type pyarrow reads the column as
  (:func:`to_logical` / :func:`from_logical`), e.g. ``uint8`` for
  INT(8, false), ``float16`` for FLOAT16, 16/32-byte little-endian decimals,
  int64 timestamps for INT96;
- Python objects as pyarrow's ``to_pylist`` gives them (:func:`to_pylist` /
  :func:`from_pylist`).
"""

from __future__ import annotations

import dataclasses
import uuid
from dataclasses import dataclass

import numpy as np

from parquet_codec import decimals, temporal
from parquet_codec.arrays import Array, BinaryArray, PrimitiveArray
from parquet_codec.converted_types import logical_from_converted, union_member
from parquet_codec.errors import DecodingError, SchemaError, UnsupportedError
from parquet_codec.format import ttypes

_T = ttypes.Type
_CT = ttypes.ConvertedType

KINDS = frozenset(
    {
        "boolean", "int", "float", "float16", "string", "binary", "enum", "json", "bson", "uuid",
        "decimal", "date", "time", "timestamp", "int96", "interval", "fixed_binary", "null",
    }
)  # fmt: skip


@dataclass(frozen=True)
class Geospatial:
    """A GEOMETRY or GEOGRAPHY annotation (LogicalTypes.md "Geospatial
    Types"): ``crs`` as the file spells it, None or "" for the default
    (OGC:CRS84); ``algorithm`` the EdgeInterpolationAlgorithm of GEOGRAPHY
    (None: SPHERICAL), unused for GEOMETRY."""

    geography: bool = False
    crs: str | None = None
    algorithm: int | None = None

    def logical_type(self) -> ttypes.LogicalType:
        if self.geography:
            return ttypes.LogicalType(GEOGRAPHY=ttypes.GeographyType(self.crs or None, self.algorithm))
        return ttypes.LogicalType(GEOMETRY=ttypes.GeometryType(self.crs or None))


@dataclass(frozen=True)
class LogicalInfo:
    """What one leaf column's values mean.

    ``kind`` is one of :data:`KINDS`; ``physical_type`` a ``format.Type``
    value; ``type_length`` the FIXED_LEN_BYTE_ARRAY width; ``bit_width`` and
    ``signed`` describe ints (and 16/32/64 for floats); ``unit`` is "ms", "us"
    or "ns" for times, timestamps and INT96 (pyarrow's default "ns"); ``utc``
    is isAdjustedToUTC; ``precision`` and ``scale`` describe decimals;
    ``geo`` annotates a binary leaf of WKB geometries.
    """

    kind: str
    physical_type: int
    type_length: int | None = None
    bit_width: int | None = None
    signed: bool = True
    unit: str | None = None
    utc: bool = False
    precision: int | None = None
    scale: int | None = None
    geo: Geospatial | None = None


# ---------------------------------------------------------------- SchemaElement -> LogicalInfo


def _physical_info(element: ttypes.SchemaElement) -> LogicalInfo:
    physical = element.type
    if physical == _T.FIXED_LEN_BYTE_ARRAY:
        if not element.type_length or element.type_length < 1:
            raise SchemaError("FIXED_LEN_BYTE_ARRAY without a positive type_length", column=element.name)
        return LogicalInfo("fixed_binary", physical, type_length=element.type_length)
    simple = {
        _T.BOOLEAN: LogicalInfo("boolean", physical),
        _T.INT32: LogicalInfo("int", physical, bit_width=32),
        _T.INT64: LogicalInfo("int", physical, bit_width=64),
        _T.INT96: LogicalInfo("int96", physical, unit="ns"),
        _T.FLOAT: LogicalInfo("float", physical, bit_width=32),
        _T.DOUBLE: LogicalInfo("float", physical, bit_width=64),
        _T.BYTE_ARRAY: LogicalInfo("binary", physical),
    }
    if physical not in simple:
        raise UnsupportedError(f"unknown physical type {physical}", column=element.name)
    return simple[physical]


def _unit(time_unit: object, column: str) -> str:
    member = union_member(time_unit)
    if member is None:
        raise UnsupportedError("TIME/TIMESTAMP annotation with an unknown unit", column=column)
    return {"MILLIS": "ms", "MICROS": "us", "NANOS": "ns"}[member[0]]


def _bytes_kind(kind: str, base: LogicalInfo) -> LogicalInfo | None:
    return dataclasses.replace(base, kind=kind) if base.physical_type == _T.BYTE_ARRAY else None


def _decimal(base: LogicalInfo, scale: int | None, precision: int | None, column: str, *,
             limited: bool = True) -> LogicalInfo | None:
    """DECIMAL (LogicalTypes.md "DECIMAL"): validate, then check it fits the
    physical type (its storage holds ``precision`` digits too, when ``limited``)."""
    scale = 0 if scale is None else scale
    if precision is None or precision < 1:
        raise SchemaError(f"DECIMAL precision {precision} is not a positive integer", column=column)
    if scale < 0 or scale > precision:
        raise SchemaError(f"DECIMAL scale {scale} is outside 0..precision ({precision})", column=column)
    limits = {_T.INT32: 9, _T.INT64: 18, _T.BYTE_ARRAY: precision}
    if base.physical_type == _T.FIXED_LEN_BYTE_ARRAY:
        limit = decimals.max_precision(base.type_length)
    else:
        limit = limits.get(base.physical_type, 0)
    if limit == 0 or (limited and precision > limit):
        return None
    return dataclasses.replace(base, kind="decimal", precision=precision, scale=scale, bit_width=None)


def _integer(base: LogicalInfo, bit_width: int, signed: bool, column: str) -> LogicalInfo | None:
    if bit_width not in (8, 16, 32, 64):
        raise SchemaError(f"INT bit width {bit_width} is not 8, 16, 32 or 64", column=column)
    physical = _T.INT64 if bit_width == 64 else _T.INT32
    if base.physical_type != physical:
        return None
    return dataclasses.replace(base, kind="int", bit_width=bit_width, signed=bool(signed))


def _temporal(base: LogicalInfo, kind: str, unit: str, utc: bool) -> LogicalInfo | None:
    physical = _T.INT32 if kind == "time" and unit == "ms" else _T.INT64
    if base.physical_type != physical:
        return None
    return dataclasses.replace(base, kind=kind, unit=unit, utc=bool(utc), bit_width=None)


def _flba(base: LogicalInfo, kind: str, length: int, **extra: object) -> LogicalInfo | None:
    if base.physical_type != _T.FIXED_LEN_BYTE_ARRAY or base.type_length != length:
        return None
    return dataclasses.replace(base, kind=kind, **extra)


def _from_logical_type(name: str, value: object, base: LogicalInfo, column: str) -> LogicalInfo | None:
    if name in ("STRING", "ENUM", "JSON", "BSON"):
        return _bytes_kind(name.lower(), base)
    if name == "UUID":
        return _flba(base, "uuid", 16)
    if name == "FLOAT16":
        return _flba(base, "float16", 2, bit_width=16)
    if name == "DECIMAL":
        return _decimal(base, value.scale, value.precision, column)
    if name == "DATE":
        return dataclasses.replace(base, kind="date", bit_width=None) if base.physical_type == _T.INT32 else None
    if name in ("TIME", "TIMESTAMP"):
        return _temporal(base, name.lower(), _unit(value.unit, column), value.isAdjustedToUTC)
    if name == "INTEGER":
        return _integer(base, value.bitWidth, value.isSigned, column)
    if name == "UNKNOWN":
        return dataclasses.replace(base, kind="null", bit_width=None)
    if name in ("GEOMETRY", "GEOGRAPHY") and base.physical_type == _T.BYTE_ARRAY:  # WKB: binary values
        geography = name == "GEOGRAPHY"
        geo = Geospatial(geography, value.crs, value.algorithm if geography else None)
        return dataclasses.replace(base, geo=geo)
    return None  # group-only (MAP, LIST, VARIANT) or unhandled


#: What each ConvertedType may annotate, as pyarrow and parquet-java check it.
_CONVERTED_TARGETS = {
    **dict.fromkeys((_CT.UTF8, _CT.ENUM, _CT.JSON, _CT.BSON), "BYTE_ARRAY"),
    **dict.fromkeys((_CT.DATE, _CT.TIME_MILLIS, _CT.INT_8, _CT.INT_16, _CT.INT_32, _CT.UINT_8, _CT.UINT_16,
                     _CT.UINT_32), "INT32"),
    **dict.fromkeys((_CT.TIME_MICROS, _CT.TIMESTAMP_MILLIS, _CT.TIMESTAMP_MICROS, _CT.INT_64, _CT.UINT_64), "INT64"),
    _CT.DECIMAL: "INT32, INT64, BYTE_ARRAY or FIXED_LEN_BYTE_ARRAY",
    _CT.INTERVAL: "FIXED_LEN_BYTE_ARRAY(12)",
}

#: The converted type parquet-cpp writes for an all-null (Arrow null) column; pyarrow reads it back as null.
CONVERTED_NA = 24


def _from_converted_type(element: ttypes.SchemaElement, base: LogicalInfo) -> LogicalInfo:
    """ConvertedType alone: read as its LogicalType equivalent (the
    backward-compatibility tables). INTERVAL has none. One that cannot
    annotate the physical type is an error (pyarrow, parquet-java and DuckDB
    refuse such files), but a DECIMAL's precision is not held to what the
    physical type can store, as pyarrow reads it."""
    converted, column = element.converted_type, element.name
    if converted == CONVERTED_NA:
        return dataclasses.replace(base, kind="null", bit_width=None)
    if converted == _CT.INTERVAL:
        resolved = _flba(base, "interval", 12)
    elif converted == _CT.DECIMAL:
        resolved = _decimal(base, element.scale, element.precision, column, limited=False)
    else:
        member = union_member(logical_from_converted(converted))
        resolved = None if member is None else _from_logical_type(*member, base, column)
    if resolved is not None:
        return resolved
    name = _CT._VALUES_TO_NAMES.get(converted)
    if name is None:
        raise SchemaError(f"unknown converted type {converted}", column=column)
    if converted not in _CONVERTED_TARGETS:
        raise SchemaError(f"converted type {name} annotates groups, not physical type {_physical_name(base)}",
                          column=column)
    raise SchemaError(f"converted type {name} cannot annotate physical type {_physical_name(base)} "
                      f"(only {_CONVERTED_TARGETS[converted]})", column=column)


def _physical_name(info: LogicalInfo) -> str:
    name = _T._VALUES_TO_NAMES[info.physical_type]
    return f"{name}({info.type_length})" if info.physical_type == _T.FIXED_LEN_BYTE_ARRAY else name


def logical_info(element: ttypes.SchemaElement) -> LogicalInfo:
    """Resolve a leaf ``SchemaElement`` (LogicalTypes.md "Compatibility")."""
    if element.type is None:
        raise SchemaError("a group has no logical value type", column=element.name)
    base = _physical_info(element)
    member = union_member(element.logicalType)
    if member is not None:
        resolved = _from_logical_type(*member, base, element.name)
    elif element.converted_type is not None:
        resolved = _from_converted_type(element, base)
    else:
        resolved = None
    return resolved or base


def has_sort_order(info: LogicalInfo) -> bool:
    """Whether the column's values have a sort order, hence bounds in
    statistics and a ColumnIndex (LogicalTypes.md "Sort Order": INT96,
    INTERVAL and the geospatial types have none; UNKNOWN holds no values)."""
    return info.kind not in ("interval", "int96", "null") and info.geo is None


# ---------------------------------------------------------------- physical <-> logical numpy


def logical_dtype(info: LogicalInfo) -> np.dtype | None:
    """The numpy dtype of the Arrow values for a 1-D numeric ``info``, else None."""
    if info.kind == "int":
        return np.dtype(f"{'i' if info.signed else 'u'}{info.bit_width // 8}")
    return {
        "float": np.dtype(f"f{(info.bit_width or 64) // 8}"),
        "float16": np.dtype("<f2"),
        "boolean": np.dtype(bool),
        "date": np.dtype(np.int32),
        "time": np.dtype(np.int32 if info.unit == "ms" else np.int64),
        "timestamp": np.dtype(np.int64),
        "int96": np.dtype(np.int64),
    }.get(info.kind)


def _with_values(array: Array, values: np.ndarray) -> PrimitiveArray:
    return PrimitiveArray(len(values), values, validity=array.validity)


def to_logical(array: Array, info: LogicalInfo, *, int96_unit: str = "ns") -> Array:
    """A leaf's physical values in the Arrow layout of its logical type.

    Zero-copy where the bytes already match (unsigned ints of the stored
    width, FLOAT16, dates, times, timestamps, binaries); narrow ints are cast
    with C wrap-around (as pyarrow); INT96 becomes int64 ``int96_unit`` counts;
    FIXED_LEN_BYTE_ARRAY/BYTE_ARRAY decimals become ``(n, 16)`` or ``(n, 32)``
    little-endian bytes (INT32/INT64 decimals stay unscaled integers).
    """
    kind = info.kind
    if kind == "int":
        dtype = logical_dtype(info)
        values = array.values
        if values.dtype.itemsize == dtype.itemsize:
            return _with_values(array, values.view(dtype))
        return _with_values(array, values.astype(dtype))
    if kind == "float16":
        return _with_values(array, np.ascontiguousarray(array.values).view("<f2").reshape(len(array)))
    if kind == "int96":
        return _with_values(array, temporal.int96_to_int64(array.values, int96_unit, array.validity))
    if kind == "decimal" and info.physical_type in (_T.FIXED_LEN_BYTE_ARRAY, _T.BYTE_ARRAY):
        if info.precision > decimals.MAX_DECIMAL256_PRECISION:
            raise UnsupportedError(f"DECIMAL precision {info.precision} exceeds Arrow's decimal256 (76)")
        width = decimals.arrow_width(info.precision)
        if isinstance(array, BinaryArray):
            le = decimals.big_endian_to_le(array.data, array.offsets, width, array.validity)
        else:
            le = decimals.flba_to_le(array.values, width)
        return _with_values(array, le)
    return array


def _checked_cast(values: np.ndarray, dtype: np.dtype, what: str) -> np.ndarray:
    """Cast to ``dtype``, raising :class:`SchemaError` for an out-of-range value."""
    values = np.asarray(values)
    if values.dtype == dtype:
        return values
    if dtype.kind in "iu" and values.dtype.kind in "iub":
        info = np.iinfo(dtype)
        bad = (values < info.min) | (values > info.max)
        if bad.any():
            i = int(np.flatnonzero(bad)[0])
            raise SchemaError(f"{what} value {i} ({values[i]}) is outside {dtype.name}")
    return values.astype(dtype)


def _decimal_from_logical(array: PrimitiveArray, info: LogicalInfo) -> Array:
    values = np.asarray(array.values)
    physical = info.physical_type
    if physical in (_T.INT32, _T.INT64):
        dtype = np.dtype(np.int32 if physical == _T.INT32 else np.int64)
        if values.ndim == 2:
            be = decimals.le_to_big_endian(values, dtype.itemsize)
            values = np.ascontiguousarray(be[:, ::-1]).view(dtype.newbyteorder("<")).reshape(len(array))
        return _with_values(array, _checked_cast(values, dtype, "decimal"))
    le = values if values.ndim == 2 else decimals.ints_to_le(_checked_cast(values, np.dtype(np.int64), "decimal"), 8)
    if physical == _T.FIXED_LEN_BYTE_ARRAY:
        return _with_values(array, decimals.le_to_big_endian(le, info.type_length))
    offsets, data = decimals.le_to_minimal(le, array.validity)
    return BinaryArray(len(array), offsets, data, validity=array.validity)


def from_logical(array: Array, info: LogicalInfo, *, int96_unit: str = "ns") -> Array:
    """The inverse of :func:`to_logical`: Arrow-layout values (or numpy
    ``datetime64`` for dates, times and timestamps) back to physical values.
    A value that does not fit raises :class:`SchemaError` naming it."""
    if isinstance(array, BinaryArray):
        return array
    kind, values = info.kind, np.asarray(array.values)
    if kind == "null":
        n = len(array)
        return PrimitiveArray(n, np.zeros(n, np.int32), validity=np.zeros(n, bool))
    if kind == "decimal":
        return _decimal_from_logical(array, info)
    if kind in ("timestamp", "int96", "date", "time") and values.dtype.kind in "mM":
        unit = "D" if kind == "date" else (int96_unit if kind == "int96" else info.unit)
        values = values.astype(f"{values.dtype.kind}8[{unit}]").view(np.int64)
    if kind == "int96":
        return _with_values(array, temporal.int64_to_int96(values, int96_unit, array.validity))
    if kind == "float16":
        halves = values.astype("<f2") if values.ndim == 1 else values
        return _with_values(array, np.ascontiguousarray(halves).view(np.uint8).reshape(len(array), 2))
    dtype = logical_dtype(info)
    if dtype is None:
        return array
    values = _checked_cast(values, dtype, kind)
    if kind == "int":
        physical = np.dtype(np.int64 if info.physical_type == _T.INT64 else np.int32)
        values = values.view(physical) if dtype.itemsize == physical.itemsize else values.astype(physical)
    return _with_values(array, values)


# ---------------------------------------------------------------- Python objects


def _rows(values: np.ndarray) -> list[bytes]:
    """The rows of an ``(n, width)`` byte array as ``bytes``."""
    n = len(values)
    width = values.shape[1] if values.ndim == 2 else 0
    raw = np.ascontiguousarray(values).tobytes()
    return [raw[i : i + width] for i in range(0, n * width, width)] if width else [b""] * n


def byte_values(array: PrimitiveArray | BinaryArray) -> list[bytes]:
    """The values of a byte-array or fixed-length leaf as ``bytes``, null slots
    included (as whatever they hold)."""
    if isinstance(array, BinaryArray):
        bounds = array.offsets.tolist()
        first = bounds[0] if bounds else 0
        # Only the bytes the offsets span: a slice of a row group shares its whole buffer.
        raw = np.asarray(array.data)[first : bounds[-1] if bounds else 0].tobytes()
        return [raw[s - first : e - first] for s, e in zip(bounds[:-1], bounds[1:], strict=True)]
    return _rows(array.values)


def _binary_to_py(array: BinaryArray, info: LogicalInfo) -> list:
    if info.kind == "decimal":
        unscaled = decimals.unscaled_ints(array.data, array.offsets, array.validity)
        return temporal.apply_nulls(decimals.to_decimals(unscaled, info.scale), array.validity)
    out = byte_values(array)
    if info.kind in ("string", "json"):  # pyarrow 26 reads ENUM and BSON as binary
        try:
            out = [b.decode("utf-8") for b in out]
        except UnicodeDecodeError as exc:
            bad = next(i for i, b in enumerate(out) if not _is_utf8(b))
            raise DecodingError(f"string value {bad} is not valid UTF-8: {exc.reason}") from None
    return temporal.apply_nulls(out, array.validity)


def _is_utf8(value: bytes) -> bool:
    try:
        value.decode("utf-8")
    except UnicodeDecodeError:
        return False
    return True


def to_pylist(array: Array, info: LogicalInfo) -> list:
    """A leaf's values as the Python objects pyarrow's ``to_pylist`` gives for
    the Arrow type pyarrow reads the column as; nulls are ``None``.

    str for STRING and JSON; bytes for BYTE_ARRAY, ENUM, BSON, fixed-length
    values and INTERVAL (pyarrow reads FIXED_LEN_BYTE_ARRAY(12) INTERVAL as
    fixed_size_binary); ``uuid.UUID``; ``Decimal`` with exponent ``-scale``;
    float for FLOAT16; ``date``/``time``/``datetime`` (see
    :mod:`parquet_codec.temporal`); None for UNKNOWN.
    """
    kind, validity = info.kind, array.validity
    if kind == "null":
        return [None] * len(array)
    if isinstance(array, BinaryArray):
        return _binary_to_py(array, info)
    values = array.values
    if kind == "timestamp":
        return temporal.timestamps_to_py(values, info.unit, info.utc, validity)
    if kind == "int96":
        return temporal.int96_to_py(values, validity)
    if kind == "date":
        return temporal.dates_to_py(values, validity)
    if kind == "time":
        return temporal.times_to_py(values, info.unit, validity)
    if kind == "decimal":
        if values.ndim == 2:
            n, w = values.shape
            offsets = np.arange(n + 1, dtype=np.int64) * w
            unscaled = decimals.unscaled_ints(np.ascontiguousarray(values).reshape(-1), offsets, validity)
        else:
            unscaled = values.tolist()
        out = decimals.to_decimals(unscaled, info.scale)
    elif kind == "uuid":
        out = [uuid.UUID(bytes=b) for b in _rows(values)]
    elif kind in ("fixed_binary", "interval"):
        out = _rows(values)
    else:
        out = to_logical(array, info).values.tolist()
    return temporal.apply_nulls(out, validity)


def _validity_of(values: list) -> np.ndarray | None:
    validity = np.fromiter((v is not None for v in values), dtype=bool, count=len(values))
    return None if validity.all() else validity


def _numbers_from_py(values: list, info: LogicalInfo, validity: np.ndarray | None) -> np.ndarray:
    """Python numbers as the logical dtype, checking type and range per value."""
    dtype = logical_dtype(info)
    accepted = (bool, np.bool_) if dtype.kind == "b" else (int, np.integer)
    if dtype.kind == "f":
        accepted += (float, np.floating)
    filler = False if dtype.kind == "b" else 0
    filled = [filler if v is None else v for v in values] if validity is not None else values
    types = set(map(type, filled))
    if not all(issubclass(t, accepted) for t in types):
        i = next(i for i, v in enumerate(filled) if not isinstance(v, accepted))
        raise SchemaError(f"{info.kind} value {i} ({filled[i]!r}) is not a {dtype.name}")
    if dtype.kind in "iu" and any(issubclass(t, np.integer) for t in types):
        return _checked_cast(np.array([int(v) for v in filled]), dtype, info.kind)
    try:
        with np.errstate(over="ignore"):
            out = np.array(filled, dtype=dtype)
    except OverflowError:
        bounds = np.iinfo(dtype)
        i = next(i for i, v in enumerate(filled) if not bounds.min <= v <= bounds.max)
        raise SchemaError(f"{info.kind} value {i} ({filled[i]!r}) is outside {dtype.name}") from None
    if dtype.kind == "f":
        bad = np.isinf(out) & np.isfinite(np.array(filled, dtype=np.float64))
        if bad.any():
            i = int(np.flatnonzero(bad)[0])
            raise SchemaError(f"{info.kind} value {i} ({filled[i]!r}) overflows {dtype.name}")
    return out


def _bytes_from_py(values: list, validity: np.ndarray | None, width: int | None) -> tuple[np.ndarray, np.ndarray]:
    parts = []
    for i, v in enumerate(values):
        if isinstance(v, str):
            v = v.encode("utf-8")
        elif isinstance(v, uuid.UUID):
            v = v.bytes
        elif v is None:
            v = b"" if width is None else bytes(width)
        elif not isinstance(v, (bytes, bytearray, memoryview)):
            raise SchemaError(f"value {i} ({v!r}) is not str or bytes")
        if width is not None and len(v) != width:
            raise SchemaError(f"value {i} has {len(v)} bytes, not {width}")
        parts.append(bytes(v))
    lengths = np.fromiter(map(len, parts), dtype=np.int64, count=len(parts))
    offsets = np.zeros(len(parts) + 1, dtype=np.int64)
    np.cumsum(lengths, out=offsets[1:])
    return offsets, np.frombuffer(bytearray(b"".join(parts)), dtype=np.uint8)


def _decimals_from_py(values: list, info: LogicalInfo, validity: np.ndarray | None) -> Array:
    unscaled = [0 if v is None else decimals.to_unscaled(v, info.precision, info.scale, i) for i, v in enumerate(values)]
    if info.physical_type == _T.BYTE_ARRAY:
        offsets, data = decimals.ints_to_minimal(unscaled, validity)
        return BinaryArray(len(values), offsets, data, validity=validity)
    if info.physical_type == _T.FIXED_LEN_BYTE_ARRAY:
        return PrimitiveArray.of(decimals.ints_to_big_endian(unscaled, info.type_length), validity)
    dtype = np.int32 if info.physical_type == _T.INT32 else np.int64
    return PrimitiveArray.of(np.array(unscaled, dtype=dtype), validity)


def from_pylist(values: list | np.ndarray, info: LogicalInfo) -> Array:
    """Python objects (or a numeric / ``datetime64`` numpy array) as the
    physical values of a leaf; ``None`` is null. Inverse of :func:`to_pylist`;
    it also takes ``(months, days, millis)`` tuples for INTERVAL, aware
    datetimes (converted to UTC, as pyarrow does) and ints for temporal kinds.
    A value that does not fit raises :class:`SchemaError` naming its index."""
    if isinstance(values, np.ndarray) and values.dtype.kind in "biufmM":
        return from_logical(PrimitiveArray.of(values), info)
    values = list(values)
    kind, validity = info.kind, _validity_of(values)
    if kind == "null":
        if validity is not None and validity.any() or validity is None and values:
            raise SchemaError("an UNKNOWN (always null) column holds a value")
        return from_logical(PrimitiveArray.of(np.zeros(len(values), np.int32)), info)
    if kind == "decimal":
        return _decimals_from_py(values, info, validity)
    if kind in ("string", "binary", "enum", "json", "bson"):
        return BinaryArray.of(*_bytes_from_py(values, validity, None), validity)
    if kind in ("fixed_binary", "uuid"):
        offsets, data = _bytes_from_py(values, validity, info.type_length)
        return PrimitiveArray.of(data.reshape(len(values), info.type_length), validity)
    if kind == "interval":
        return PrimitiveArray.of(*temporal.intervals_from_py(values))
    if kind == "timestamp":
        logical, validity = temporal.datetimes_to_int64(values, info.unit)
    elif kind == "int96":
        return PrimitiveArray.of(*temporal.datetimes_to_int96(values))
    elif kind == "date":
        logical, validity = temporal.dates_to_int32(values)
    elif kind == "time":
        logical, validity = temporal.times_to_int64(values, info.unit)
    else:
        logical = _numbers_from_py(values, info, validity)
    return from_logical(PrimitiveArray.of(logical, validity), info)


__all__ = [
    "KINDS",
    "LogicalInfo",
    "logical_info",
    "byte_values",
    "logical_dtype",
    "to_logical",
    "from_logical",
    "to_pylist",
    "from_pylist",
]
