"""Values and bounds as keys that compare by a column's sort order
(parquet.thrift ``ColumnOrder``; statistics and PageIndex.md bounds).

:func:`bound_keys` decodes PLAIN-encoded bounds; :func:`value_key` turns a
filter's Python value into a key of the same kind, telling whether the
column's type holds it exactly.
"""

from __future__ import annotations

import datetime as _dt
import math
from collections.abc import Sequence
from decimal import ROUND_FLOOR, Decimal

import numpy as np

from parquet_codec.errors import CorruptFileError
from parquet_codec.format.ttypes import Type
from parquet_codec.types import LogicalInfo, from_pylist, has_sort_order, to_pylist

_BYTE_KINDS = ("string", "binary", "enum", "json", "bson", "uuid", "fixed_binary")
_FLOAT_KINDS = ("float", "float16")
_NUMERIC_DTYPES = {Type.INT32: "<i4", Type.INT64: "<i8", Type.FLOAT: "<f4", Type.DOUBLE: "<f8"}


def has_order(info: LogicalInfo) -> bool:
    """Whether the column has a sort order, hence a ColumnIndex (:func:`~parquet_codec.types.has_sort_order`)."""
    return has_sort_order(info)


# ---------------------------------------------------------------- bounds as comparable keys


def bound_keys(values: Sequence[bytes], info: LogicalInfo, skip: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
    """Decode PLAIN bounds into keys that compare by the column's sort order.

    Returns ``(keys, usable)``: numbers become int64 / uint64 / float64
    arrays (float32 and FLOAT16 convert exactly), byte strings an object
    array of ``bytes`` (Python compares them as unsigned bytes), decimals in
    bytes an object array of ints (signed big-endian). ``usable`` is False
    where a bound is skipped (null pages), has the wrong width, or is NaN.
    """
    n = len(values)
    usable = np.ones(n, dtype=bool) if skip is None else ~np.asarray(skip, dtype=bool)
    if not has_order(info):
        return np.zeros(n, dtype=np.int64), np.zeros(n, dtype=bool)
    lengths = np.fromiter(map(len, values), dtype=np.int64, count=n)
    physical = info.physical_type
    if info.kind == "decimal" and physical in (Type.BYTE_ARRAY, Type.FIXED_LEN_BYTE_ARRAY):
        usable &= lengths > 0
        keys = np.array([int.from_bytes(v, "big", signed=True) for v in values] + [None], dtype=object)[:-1]
        return keys, usable
    if info.kind in _BYTE_KINDS or physical == Type.BYTE_ARRAY:
        return np.array([bytes(v) for v in values] + [None], dtype=object)[:-1], usable
    width, dtype = _fixed_layout(info)
    usable &= lengths == width
    raw = b"".join(bytes(v) if ok else bytes(width) for v, ok in zip(values, usable.tolist(), strict=True))
    keys = np.frombuffer(raw, dtype=dtype)
    if info.kind in _FLOAT_KINDS:
        keys = keys.astype(np.float64)
        usable &= ~np.isnan(keys)
    elif dtype == "<u8":
        keys = keys.astype(np.uint64)
    else:
        keys = keys.astype(np.int64)
    return keys, usable


def _fixed_layout(info: LogicalInfo) -> tuple[int, str]:
    """(byte width, little-endian dtype) of a fixed-width bound."""
    physical = info.physical_type
    if physical == Type.BOOLEAN:
        return 1, "u1"
    if info.kind == "float16":
        return 2, "<f2"
    if physical in _NUMERIC_DTYPES:
        dtype = _NUMERIC_DTYPES[physical]
        if info.kind == "int" and not info.signed:
            dtype = dtype.replace("i", "u")
        return int(dtype[-1]), dtype
    raise CorruptFileError(f"no fixed-width bounds for a {info.kind} column of type {physical}")


def plain_number(kind: type, info: LogicalInfo) -> str | None:
    """How :func:`value_key` keys values of Python type ``kind``: "self" (the
    number is its own key: a number compared with a number column), "float"
    (``float(value)``: a number on a FLOAT16 column), or None (converted
    through the column's type)."""
    if not issubclass(kind, (int, float, np.integer, np.floating)) or issubclass(kind, (bool, np.bool_)):
        return None
    if info.kind in ("int", "float", "float16") and info.physical_type != Type.FIXED_LEN_BYTE_ARRAY:
        return "self"
    return "float" if info.kind == "float16" else None


def value_key(value: object, info: LogicalInfo) -> tuple[object, bool]:
    """A predicate value as a key comparable with :func:`bound_keys`, and
    whether the key is exact. Plain numbers compare exactly with numeric
    keys; other values go through the column's type, and a value the type
    rounds (a timestamp finer than the unit, a too-precise decimal) is
    inexact. An inexact key is the value rounded down (a float or Decimal on
    an integer column too), so that ``x < value`` holds exactly when
    ``x <= key``. Raises ``ParquetError`` / ``ValueError`` when the value
    cannot be stored in the column at all."""
    floored = _floored_number(value, info)
    if floored is not None:
        return floored
    how = plain_number(type(value), info)
    if how == "self":
        return value, True
    if how == "float":
        return float(value), True
    physical = from_pylist([value], info)
    if hasattr(physical, "offsets"):
        raw = np.asarray(physical.data[int(physical.offsets[0]) : int(physical.offsets[1])]).tobytes()
    else:
        raw = np.ascontiguousarray(physical.values).tobytes()
    keys, usable = bound_keys([raw], info)
    return keys[0], same_value(to_pylist(physical, info)[0], value) and bool(usable[0])


def floors(kind: type, info: LogicalInfo) -> bool:
    """Whether values of Python type ``kind`` are keyed by their floor on the
    column (see :func:`value_key`): a float on an integer column, a Decimal
    on an integer or float one."""
    if info.physical_type == Type.FIXED_LEN_BYTE_ARRAY:
        return False
    if issubclass(kind, Decimal):
        return info.kind in ("int", "float")
    return info.kind == "int" and issubclass(kind, (float, np.floating))


def _floored_number(value: object, info: LogicalInfo) -> tuple[object, bool] | None:
    """The exact key of a finite float on an integer column (its floor, an
    int: no float64 rounding of the column's values above 2**53), or of a
    Decimal on an integer or float column; None for any other value."""
    if not floors(type(value), info):
        return None
    if isinstance(value, Decimal):
        if not value.is_finite():
            return None
        if info.kind == "int":
            floor = value.to_integral_value(ROUND_FLOOR)
            return int(floor), floor == value
        key = float(value)
        if Decimal(key) > value:
            key = float(np.nextafter(key, -math.inf))
        return key, Decimal(key) == value
    if not math.isfinite(value):
        return None
    return math.floor(value), float(value).is_integer()


def same_value(decoded: object, value: object) -> bool:
    """Whether ``value`` is what the column's type made of it (``decoded``:
    it read back): equal, or the same across Python types (the same instant
    as a numpy datetime64, a datetime or a date; a str and its UTF-8 bytes)."""
    try:
        if decoded == value:
            return True
    except (TypeError, ValueError):
        pass
    if isinstance(value, str) and isinstance(decoded, bytes):
        return decoded == value.encode("utf-8")
    a, b = _nanoseconds(decoded), _nanoseconds(value)
    return a is not None and a == b


#: Nanoseconds per numpy datetime64 unit.
_UNIT_NS = {"D": 86_400 * 10**9, "h": 3_600 * 10**9, "m": 60 * 10**9, "s": 10**9, "ms": 10**6, "us": 10**3,
            "ns": 1}


def _nanoseconds(value: object) -> int | None:
    """A date, datetime (UTC for an aware one) or numpy datetime64 as
    nanoseconds since the epoch, an exact int; None for anything else."""
    if hasattr(value, "to_datetime64"):  # a pandas Timestamp: nanoseconds
        if value.tzinfo is not None:
            value = value.tz_convert("UTC").tz_localize(None)
        value = value.to_datetime64()
    elif isinstance(value, _dt.datetime):
        if value.tzinfo is not None and value.utcoffset() is not None:
            value = value.astimezone(_dt.timezone.utc)
        value = np.datetime64(value.replace(tzinfo=None), "us")
    elif isinstance(value, _dt.date):
        value = np.datetime64(value, "D")
    if not isinstance(value, np.datetime64) or np.isnat(value):
        return None
    unit, count = np.datetime_data(value.dtype)
    factor = _UNIT_NS.get(unit)
    return None if factor is None else int(value.astype(np.int64)) * factor * count


__all__ = ["bound_keys", "floors", "has_order", "plain_number", "same_value", "value_key"]
