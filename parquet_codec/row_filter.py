"""Exact evaluation of a predicate on decoded rows (level (d) of :mod:`parquet_codec.predicate`).

Values are compared as physical keys by the column's sort order
(LogicalTypes.md "Sort Order"), vectorized with numpy: numbers as int64 /
uint64 / float64 (float32 and FLOAT16 widen exactly), byte arrays and
fixed-length values as unsigned bytes, lexicographically, decimals stored in
bytes as their unscaled integers, INT96 timestamps as exact nanoseconds. The filter value is converted once into the
same key (:func:`parquet_codec.predicate.literal_key`). Nulls come from the
definition levels: a slot is null below the leaf's max definition level (a
null struct makes its fields null too).

Set membership (``in`` / ``not in``) converts the set once per column
(:class:`_Members`, cached on the predicate, members sorted) and tests every
value at once with a binary search (``np.isin`` without sorting the members
again): numbers, and byte strings of each length packed into uint64 or
fixed-width void values, whatever the size of the set.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import TypeVar

import numpy as np

from parquet_codec import decimals
from parquet_codec.arrays import Array, BinaryArray, take
from parquet_codec.column_index import EQ, GE, GT, IN, IS_NOT_NULL, IS_NULL, LE, LT, NE, NOT_IN
from parquet_codec.levels import LeafData
from parquet_codec.predicate import ColumnRef, Predicate, cached, literal_key, set_literal_keys, set_values
from parquet_codec.temporal import int96_sort_keys
from parquet_codec.types import LogicalInfo, byte_values, from_pylist, to_logical
from parquet_codec.value_sets import sorted_member

_T = TypeVar("_T")


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
        return int96_sort_keys(values.values)
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
        return int(int96_sort_keys(from_pylist([value], info).values)[0]), True
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


class _Members:
    """The exact keys of an ``in`` / ``not in`` set, converted once for one
    column (keys as :func:`_key` makes them; inexact ones are members of no
    column), and prepared per kind of column keys for vectorized tests."""

    def __init__(self, predicate: Predicate, info: LogicalInfo) -> None:
        values = set_values(predicate)
        self.nan = values.has_nan
        self.keys: list = []
        for group in values.without_nan().groups.values():
            if info.kind == "int96":
                self.keys += int96_sort_keys(from_pylist(group, info).values).tolist()
            elif info.kind in ("fixed_binary", "uuid", "interval"):
                self.keys += byte_values(from_pylist(group, info))
        if info.kind not in ("int96", "fixed_binary", "uuid", "interval"):
            for keys, exact in set_literal_keys(predicate, info):
                self.keys += keys if exact is None else [k for k, e in zip(keys, exact.tolist(), strict=True) if e]
        self._prepared: dict[object, object] = {}

    def prepared(self, key: object, make: Callable[[], _T]) -> _T:
        """``make()``, once per kind of column keys."""
        if key not in self._prepared:
            self._prepared[key] = make()
        return self._prepared[key]  # type: ignore[return-value]


def _member(keys: np.ndarray | _Bytes, predicate: Predicate, info: LogicalInfo) -> np.ndarray:
    """Whether each value is in the predicate's set (NaN is a member of a set holding NaN)."""
    members = cached(predicate, ("rows", info), lambda: _Members(predicate, info))
    if isinstance(keys, _Bytes):
        out, others = _bytes_member(keys, members)
    elif keys.dtype == object:
        out, others = _object_member(keys, members)
    else:
        out, others = _number_member(keys, members)
    for key in others:  # keys of unusual types, compared as one literal
        out |= _compare(keys, EQ, key, True)
    return out


def _split(keys: list, *types: type) -> tuple[list, list]:
    """(keys of exactly these types, the rest)."""
    if set(map(type, keys)) <= set(types):
        return keys, []
    wanted = set(types)
    return [k for k in keys if type(k) in wanted], [k for k in keys if type(k) not in wanted]


def _number_member(keys: np.ndarray, members: _Members) -> tuple[np.ndarray, list]:
    """Numbers compare as numpy compares a number column with a Python int
    (exactly) or float (as float64); set membership is by value as stored,
    as in pyarrow's is_in: -0.0 is not in {0.0}, NaN is in {NaN}."""
    ints, floats, zero_signs, others = members.prepared(("numbers", keys.dtype),
                                                        lambda: _numbers(members.keys, keys.dtype))
    out = sorted_member(keys, ints)
    if keys.dtype.kind == "f":
        if members.nan:
            out |= np.isnan(keys)
        for negative in zero_signs:
            out |= (keys == 0) & (np.signbit(keys) == negative)
    if len(floats):
        out |= sorted_member(keys.astype(np.float64, copy=False), floats)
    return out, others


def _numbers(keys: list, dtype: np.dtype) -> tuple[np.ndarray, np.ndarray, list[bool], list]:
    """Members as sorted arrays: (those compared exactly in ``dtype``, those
    compared as float64, the signs of the zeros among the floats of a float
    column - compared by sign, the rest)."""
    ints, rest = _split(keys, int)
    floats, others = _split(rest, float)
    if dtype.kind == "f":  # an int compares as the float it converts to (OverflowError beyond any float)
        as_float = np.array(ints + floats, dtype=np.float64)
        zeros = as_float == 0
        signs = sorted(set(np.signbit(as_float[zeros]).tolist()))
        return np.zeros(0, dtype=dtype), np.sort(as_float[~zeros & ~np.isnan(as_float)]), signs, others
    limits = np.iinfo(dtype)
    try:
        exact = np.array(ints, dtype=dtype)
    except OverflowError:  # beyond the column's type: equal to none of its values
        exact = np.array([k for k in ints if limits.min <= k <= limits.max], dtype=dtype)
    as_float = np.array(floats, dtype=np.float64)
    return np.sort(exact), np.sort(as_float[~np.isnan(as_float)]), [], others


def _object_member(keys: np.ndarray, members: _Members) -> tuple[np.ndarray, list]:
    """Unscaled decimals (Python ints): np.isin when they fit in 64 bits, else a set lookup."""
    try:
        small = keys.astype(np.int64)
    except (OverflowError, TypeError, ValueError):
        wanted = members.prepared("objects", lambda: set(members.keys))
        return np.fromiter((k in wanted for k in keys.tolist()), dtype=bool, count=len(keys)), []
    exact, floats, _, others = members.prepared("object ints", lambda: _numbers(members.keys, np.dtype(np.int64)))
    out = sorted_member(small, exact)
    if len(floats):
        out |= sorted_member(keys.astype(np.float64), floats)
    return out, others


def _bytes_member(keys: _Bytes, members: _Members) -> tuple[np.ndarray, list]:
    """Byte strings of each length among the members, packed as fixed-width
    values (trailing NULs included) and tested with np.isin."""
    by_length, others = members.prepared("bytes", lambda: _byte_members(members.keys))
    out = np.zeros(len(keys), dtype=bool)
    if not by_length:
        return out, others
    starts = keys.offsets[:-1]
    lengths = keys.offsets[1:] - starts
    for length in np.intersect1d(np.unique(lengths), np.array(list(by_length), dtype=np.int64)).tolist():
        rows = np.flatnonzero(lengths == length)
        if length == 0:
            out[rows] = True
            continue
        window = np.lib.stride_tricks.sliding_window_view(keys.data, length)[starts[rows]]
        out[rows] = sorted_member(_packed(window), by_length[length])
    return out, others


def _byte_members(keys: list) -> tuple[dict[int, np.ndarray], list]:
    byte_keys, others = _split(keys, bytes)
    groups: dict[int, list[bytes]] = {}
    for k in byte_keys:
        groups.setdefault(len(k), []).append(k)
    packed = {}
    for length, group in groups.items():
        rows = np.frombuffer(b"".join(group), dtype=np.uint8).reshape(len(group), length)
        packed[length] = np.sort(_packed(rows))
    return packed, others


def _packed(rows: np.ndarray) -> np.ndarray:
    """``(n, L)`` bytes as n comparable scalars: uint64 up to 8 bytes, else void of width L."""
    n, length = rows.shape
    if length <= 8:
        padded = np.zeros((n, 8), dtype=np.uint8)
        padded[:, :length] = rows
        return padded.view("<u8").reshape(n)
    return np.ascontiguousarray(rows).view(np.dtype((np.void, length))).reshape(n)


def values_match(predicate: Predicate, info: LogicalInfo, values: Array) -> np.ndarray:
    """``predicate`` on non-null physical ``values`` (a bool per value)."""
    keys = column_keys(values, info)
    if predicate.op in (IN, NOT_IN):
        member = _member(keys, predicate, info)
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
