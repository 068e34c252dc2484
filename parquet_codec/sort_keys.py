"""Values and bounds as keys that compare by a column's sort order
(parquet.thrift ``ColumnOrder``; statistics and PageIndex.md bounds).

:func:`bound_keys` decodes PLAIN-encoded bounds; :func:`value_key` turns a
filter's Python value into a key of the same kind, telling whether the
column's type holds it exactly.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from parquet_codec.errors import CorruptFileError
from parquet_codec.format.ttypes import Type
from parquet_codec.types import LogicalInfo, from_pylist, to_pylist

_BYTE_KINDS = ("string", "binary", "enum", "json", "bson", "uuid", "fixed_binary")
_NO_ORDER = ("interval", "int96", "null")
_FLOAT_KINDS = ("float", "float16")
_NUMERIC_DTYPES = {Type.INT32: "<i4", Type.INT64: "<i8", Type.FLOAT: "<f4", Type.DOUBLE: "<f8"}


def has_order(info: LogicalInfo) -> bool:
    """Whether the column has a sort order, hence a ColumnIndex (INT96 and INTERVAL do not)."""
    return info.kind not in _NO_ORDER


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
    inexact. Raises ``ParquetError`` / ``ValueError`` when the value cannot
    be stored in the column at all."""
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
    try:
        exact = bool(to_pylist(physical, info)[0] == value)
    except (TypeError, ValueError):
        exact = False
    return keys[0], exact and bool(usable[0])


__all__ = ["bound_keys", "has_order", "plain_number", "value_key"]
