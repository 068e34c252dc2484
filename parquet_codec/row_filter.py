"""Exact evaluation of a predicate on decoded rows (level (d) of :mod:`parquet_codec.predicate`).

Values are compared as physical keys by the column's sort order
(LogicalTypes.md "Sort Order"), vectorized with numpy: numbers as int64 /
uint64 / float64 (float32 and FLOAT16 widen exactly), byte arrays and
fixed-length values as unsigned bytes, lexicographically, decimals stored in
bytes as their unscaled integers. The filter value is converted once into the
same key (:func:`parquet_codec.predicate.literal_key`). Nulls come from the
definition levels: a slot is null below the leaf's max definition level (a
null struct makes its fields null too).
"""

from __future__ import annotations

import math

import numpy as np

from parquet_codec import decimals
from parquet_codec.arrays import Array, BinaryArray, take
from parquet_codec.column_index import EQ, GE, GT, IN, IS_NOT_NULL, IS_NULL, LE, LT, NE, NOT_IN
from parquet_codec.levels import LeafData
from parquet_codec.predicate import ColumnRef, Predicate, literal_key
from parquet_codec.types import LogicalInfo, from_pylist, to_logical

# Sets larger than this are matched through a Python set instead of one pass per member.
_SMALL_SET = 16


class _Bytes:
    """Byte strings as offsets into one uint8 buffer (BYTE_ARRAY or FIXED_LEN_BYTE_ARRAY values)."""

    def __init__(self, offsets: np.ndarray, data: np.ndarray) -> None:
        self.offsets = np.asarray(offsets, dtype=np.int64)
        self.data = np.asarray(data, dtype=np.uint8)

    def __len__(self) -> int:
        return len(self.offsets) - 1

    def compare(self, literal: bytes) -> np.ndarray:
        """-1 / 0 / +1 per value against ``literal``, unsigned lexicographic order.
        One numpy pass per byte of the literal, over the values still tied."""
        starts = self.offsets[:-1]
        lengths = self.offsets[1:] - starts
        m = len(literal)
        result = np.sign(lengths - m).astype(np.int8)  # the answer for values tied on the common prefix
        tied = np.arange(len(self), dtype=np.int64)
        lit = np.frombuffer(literal, dtype=np.uint8)
        for k in range(m):
            tied = tied[lengths[tied] > k]
            if not len(tied):
                break
            diff = self.data[starts[tied] + k].astype(np.int16) - np.int16(lit[k])
            decided = diff != 0
            result[tied[decided]] = np.sign(diff[decided])
            tied = tied[~decided]
        return result

    def to_list(self) -> list[bytes]:
        raw = self.data.tobytes()
        bounds = self.offsets.tolist()
        return [raw[a:b] for a, b in zip(bounds[:-1], bounds[1:], strict=True)]


def column_keys(values: Array, info: LogicalInfo) -> np.ndarray | _Bytes:
    """Comparable keys of non-null physical values (see the module docstring)."""
    kind = info.kind
    if kind == "decimal" and (isinstance(values, BinaryArray) or values.values.ndim == 2):
        if isinstance(values, BinaryArray):
            offsets, data = values.offsets, values.data
        else:
            n, width = values.values.shape
            offsets, data = np.arange(n + 1, dtype=np.int64) * width, np.ascontiguousarray(values.values).reshape(-1)
        return np.array(decimals.unscaled_ints(data, offsets, None) + [None], dtype=object)[:-1]
    if isinstance(values, BinaryArray):
        return _Bytes(values.offsets, values.data)
    if kind == "int96":
        return np.asarray(to_logical(values, info).values, dtype=np.int64)
    if kind in ("int", "float16"):
        values = to_logical(values, info)
    raw = values.values
    if raw.ndim == 2:  # FIXED_LEN_BYTE_ARRAY: fixed_binary, uuid, interval
        n, width = raw.shape
        return _Bytes(np.arange(n + 1, dtype=np.int64) * width, np.ascontiguousarray(raw).reshape(-1))
    if raw.dtype.kind == "f":
        return raw.astype(np.float64, copy=False)
    if raw.dtype.kind == "b":
        return raw.astype(np.int64)
    return raw


def _key(value: object, info: LogicalInfo) -> tuple[object, bool]:
    """The literal as a key of :func:`column_keys`' kind, and whether it is exact."""
    if info.kind == "int96":
        return int(to_logical(from_pylist([value], info), info).values[0]), True
    if info.kind in ("fixed_binary", "uuid", "interval"):
        physical = from_pylist([value], info)
        return np.ascontiguousarray(physical.values[0]).tobytes(), True
    key, exact = literal_key(value, info)
    if isinstance(key, np.generic):
        key = key.item()
    return key, exact


def _compare(keys: np.ndarray | _Bytes, op: str, key: object, exact: bool) -> np.ndarray:
    """``keys <op> key`` per value. An inexact key is the literal rounded down:
    nothing equals it, and "below the literal" is "at most the key"."""
    if not exact:
        if op in (EQ, NE):
            return np.full(len(keys), op == NE)
        op = {LT: LE, GE: GT}.get(op, op)
    if isinstance(keys, _Bytes):
        cmp = keys.compare(key)
        return {EQ: cmp == 0, NE: cmp != 0, LT: cmp < 0, LE: cmp <= 0, GT: cmp > 0, GE: cmp >= 0}[op]
    with np.errstate(invalid="ignore"):
        result = {EQ: keys == key, NE: keys != key, LT: keys < key, LE: keys <= key, GT: keys > key,
                  GE: keys >= key}[op]
    return np.asarray(result, dtype=bool)


def _is_nan(value: object) -> bool:
    return isinstance(value, (float, np.floating)) and math.isnan(value)


def _member(keys: np.ndarray | _Bytes, values: tuple, info: LogicalInfo) -> np.ndarray:
    """Whether each value is one of ``values`` (NaN is a member of a set holding NaN)."""
    out = np.zeros(len(keys), dtype=bool)
    members = []
    for value in values:
        if value is None:
            continue
        if _is_nan(value):
            if isinstance(keys, np.ndarray) and keys.dtype.kind == "f":
                out |= np.isnan(keys)
            continue
        key, exact = _key(value, info)
        if exact:
            members.append(key)
    if isinstance(keys, np.ndarray) and keys.dtype.kind == "f" and any(k == 0 for k in members):
        # Set membership is by value as stored, as in pyarrow's is_in: -0.0 is not in {0.0}.
        zeros = [k for k in members if k == 0]
        members = [k for k in members if k != 0]
        for key in zeros:
            out |= (keys == 0) & (np.signbit(keys) == (math.copysign(1.0, key) < 0))
    if len(members) <= _SMALL_SET:
        for key in members:
            out |= _compare(keys, EQ, key, True)
        return out
    if isinstance(keys, _Bytes):
        wanted = set(members)
        return out | np.fromiter((k in wanted for k in keys.to_list()), dtype=bool, count=len(keys))
    if keys.dtype == object:
        wanted = set(members)
        return out | np.fromiter((k in wanted for k in keys.tolist()), dtype=bool, count=len(keys))
    return out | np.isin(keys, np.array(members, dtype=keys.dtype if keys.dtype.kind == "f" else None))


def values_match(predicate: Predicate, info: LogicalInfo, values: Array) -> np.ndarray:
    """``predicate`` on non-null physical ``values`` (a bool per value)."""
    keys = column_keys(values, info)
    if predicate.op in (IN, NOT_IN):
        member = _member(keys, predicate.value, info)
        return member if predicate.op == IN else ~member
    key, exact = _key(predicate.value, info)
    return _compare(keys, predicate.op, key, exact)


def rows_match(predicate: Predicate, ref: ColumnRef, data: LeafData) -> np.ndarray:
    """Level (d): a bool per row of ``data`` (a leaf without repetition: one slot per row)."""
    n = data.num_values
    max_def = ref.leaf.max_definition_level
    present = np.ones(n, dtype=bool) if data.def_levels is None else np.asarray(data.def_levels) == max_def
    op = predicate.op
    if op == IS_NULL:
        return ~present
    if op == IS_NOT_NULL:
        return present
    out = np.zeros(n, dtype=bool)
    if len(data.values):
        out[present] = values_match(predicate, ref.info, data.values)
    if op in (IN, NOT_IN) and (None in predicate.value) == (op == IN):
        out |= ~present  # a null is in a set holding None, and not in one without it
    return out


def take_rows(data: LeafData, keep: np.ndarray, max_def: int) -> LeafData:
    """The rows of ``data`` where ``keep`` (a bool per row) is True. Rows start
    where the repetition level is 0 (levels.row_starts), so a row's slots stay together."""
    keep = np.asarray(keep, dtype=bool)
    if keep.all():
        return data
    slots = keep if data.rep_levels is None else keep[np.cumsum(np.asarray(data.rep_levels) == 0) - 1]
    defs = None if data.def_levels is None else np.asarray(data.def_levels)
    reps = None if data.rep_levels is None else np.asarray(data.rep_levels)[slots]
    kept_values = slots if defs is None else slots[defs == max_def]
    values = take(data.values, np.flatnonzero(kept_values))
    return LeafData(None if defs is None else defs[slots], reps, values, int(np.count_nonzero(slots)))


__all__ = ["column_keys", "rows_match", "take_rows", "values_match"]
