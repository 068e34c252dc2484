"""The values of an ``in`` / ``not in`` filter as keys of a column's type.

A set may hold a million values. They are converted once per column type
(:class:`ValueSet`), a batch per Python type among them (:class:`SetValues`,
:func:`value_keys`), and kept sorted, so that pages (column_index.PageBounds)
and rows (row_filter) are decided with binary searches whatever the size of
the set. A value the column's type cannot hold matches nothing; one it
rounds keeps the pages that might hold it, as sort_keys.value_key does for
a single value.
"""

from __future__ import annotations

import math
from collections.abc import Iterable

import numpy as np

from parquet_codec.errors import ParquetError
from parquet_codec.sort_keys import bound_keys, floors, plain_number, same_value, value_key
from parquet_codec.types import LogicalInfo, byte_values, from_pylist, to_pylist

#: What :func:`value_key` raises for a value the column cannot hold (callers treat the value as inexact).
VALUE_ERRORS = (ParquetError, ValueError, TypeError, OverflowError)
# Values converted (and checked for an exception) one at a time when a batch fails.
_SPLIT_BELOW = 8


def value_keys(values: list, info: LogicalInfo) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """:func:`value_key` of many values through the column's type, in batches:
    ``(keys, exact, failed)``, one entry per value. ``failed`` marks a value
    for which value_key raises (its key is meaningless and ``exact`` False).
    A batch that fails is split until the values that fail are found, so each
    value gets the answer value_key gives it alone."""
    n = len(values)
    parts: list[tuple[np.ndarray, np.ndarray, np.ndarray]] = []
    _convert(values, info, parts)
    dtypes = {p[0].dtype for p in parts if not p[2].all()}
    dtype = dtypes.pop() if len(dtypes) == 1 else np.dtype(object)
    keys = np.empty(n, dtype=object) if dtype.kind == "O" else np.zeros(n, dtype=dtype)
    exact, failed = np.zeros(n, dtype=bool), np.zeros(n, dtype=bool)
    at = 0
    for part_keys, part_exact, part_failed in parts:
        m = len(part_keys)
        ok = ~part_failed
        keys[at : at + m][ok] = part_keys[ok]
        exact[at : at + m], failed[at : at + m] = part_exact, part_failed
        at += m
    return keys, exact, failed


def _convert(values: list, info: LogicalInfo, parts: list) -> None:
    n = len(values)
    if n == 0:
        return
    if n < _SPLIT_BELOW or floors(type(values[0]), info):  # (numbers floored are keyed one by one)
        for value in values:
            try:
                key, exact = value_key(value, info)
            except VALUE_ERRORS:
                parts.append((np.array([None], dtype=object), np.zeros(1, bool), np.ones(1, bool)))
                continue
            holder = np.empty(1, dtype=object)
            holder[0] = key
            keys = holder if not isinstance(key, np.generic) else np.array([key])
            parts.append((keys, np.array([exact]), np.zeros(1, bool)))
        return
    try:
        physical = from_pylist(values, info)
        if hasattr(physical, "offsets"):
            raw = byte_values(physical)
        else:
            flat = np.ascontiguousarray(physical.values).tobytes()
            width = len(flat) // n
            raw = [flat[i : i + width] for i in range(0, n * width, width)]
        keys, usable = bound_keys(raw, info)
        decoded = to_pylist(physical, info)
    except VALUE_ERRORS:
        half = n // 2
        _convert(values[:half], info, parts)
        _convert(values[half:], info, parts)
        return
    exact = np.fromiter(map(same_value, decoded, values), dtype=bool, count=n)
    parts.append((keys, exact & usable, np.zeros(n, dtype=bool)))


class SetValues:
    """The values of an ``in`` / ``not in`` set grouped by Python type, once:
    each group converts as one batch (the conversions treat values of one
    type alike). ``has_null``: None is among them; ``has_nan``: a float NaN is."""

    def __init__(self, values: Iterable[object]) -> None:
        values = values if isinstance(values, (list, tuple)) else list(values)
        kinds = set(map(type, values))
        groups: dict[type, list] = {}
        if len(kinds) == 1:
            groups[kinds.pop()] = list(values)
        else:
            for value in values:
                group = groups.get(type(value))
                if group is None:
                    groups[type(value)] = [value]
                else:
                    group.append(value)
        self.has_null = groups.pop(type(None), None) is not None
        self.groups = groups
        self._keys: dict[tuple[type, LogicalInfo], tuple[np.ndarray, np.ndarray, np.ndarray]] = {}
        self._nans = {kind: mask for kind, mask in ((k, _nan_mask(k, g)) for k, g in groups.items())
                      if mask is not None and mask.any()}
        self.has_nan = bool(self._nans)

    def value_keys(self, kind: type, info: LogicalInfo) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """:func:`value_keys` of the group of type ``kind``, converted once per column type."""
        key = (kind, info)
        if key not in self._keys:
            self._keys[key] = value_keys(self.groups[kind], info)
        return self._keys[key]

    def without_nan(self) -> SetValues:
        """The same set without its NaN values (self when it has none)."""
        if not self.has_nan:
            return self
        out = SetValues(())
        out.has_null = self.has_null
        for kind, group in self.groups.items():
            mask = self._nans.get(kind)
            kept = group if mask is None else [v for v, nan in zip(group, mask.tolist(), strict=True) if not nan]
            if kept:
                out.groups[kind] = kept
        return out


def _nan_mask(kind: type, group: list) -> np.ndarray | None:
    """Which values of a group of one type are NaN (None: a type that is never NaN)."""
    if not issubclass(kind, (float, np.floating)):
        return None
    try:
        return np.isnan(np.array(group, dtype=np.float64))
    except (TypeError, ValueError, OverflowError):
        return np.fromiter((v != v for v in group), dtype=bool, count=len(group))


class ValueSet:
    """An ``in`` / ``not in`` set as keys comparable with one column's bounds,
    converted once by :func:`value_key`'s rules: exact keys sorted (``keys``
    compare with the bounds as they are; ``float_keys`` with integer bounds
    converted to float64, as numpy compares an integer with a float), whether
    some value has an exact key (``exact``; a NaN or a number beyond the
    column's range counts) and whether some value has none (``inexact``: no
    stored value equals it). ``others`` are values of unusual types (numpy
    long doubles, int subclasses, ints too large for a float) compared one
    by one, as :meth:`PageBounds.might_match` compares a single value."""

    def __init__(self, values: SetValues | Iterable[object], info: LogicalInfo) -> None:
        self.values = values if isinstance(values, SetValues) else SetValues(values)
        self.info = info
        self.has_null = self.values.has_null
        self.exact = self.inexact = False
        self.others: list = []
        dtype = _bound_dtype(info)
        keys: list = []
        floats: list = []
        for kind, group in self.values.groups.items():
            how = plain_number(kind, info)
            if floors(kind, info) and dtype is not None:
                self._add_floored(group, dtype, keys)
            elif how == "self" and dtype is not None and dtype.kind in "iuf":
                self._add_numbers(kind, group, dtype, keys, floats)
            elif how == "float":
                self._add_float16(group, keys)
            else:
                group_keys, exact, _failed = self.values.value_keys(kind, info)
                self.inexact |= not exact.all()
                if exact.any():
                    self.exact = True
                    keys.append(group_keys[exact])
        # Both zeros in the set: a page bounded by zeros (of either sign) holds only members.
        # (Read before sorting: numpy's sort may swap the signs of equal zeros.)
        signs = {bool(s) for part in keys if part.dtype.kind == "f" for s in np.signbit(part[part == 0])}
        self.both_zeros = dtype is not None and dtype.kind == "f" and signs == {False, True}
        self.keys = _sorted_keys(keys, dtype)
        self.float_keys = _sorted_keys(floats, np.dtype(np.float64))
        self._key_list: list | None = None
        self._key_set: set | None = None

    def key_list(self) -> list:
        """The sorted keys as a list (object keys: bytes or ints, searched with bisect)."""
        if self._key_list is None:
            self._key_list = self.keys.tolist()
        return self._key_list

    def key_set(self) -> set:
        if self._key_set is None:
            self._key_set = set(self.key_list())
        return self._key_set

    def _add_numbers(self, kind: type, group: list, dtype: np.dtype, keys: list, floats: list) -> None:
        """Numbers that are their own keys, as numpy compares them with ``dtype`` bounds."""
        if kind is int or issubclass(kind, np.integer) and not issubclass(kind, np.timedelta64):
            self.exact = True
            if kind is not int and np.can_cast(kind, dtype, "safe"):  # numpy ints: as numpy compares them
                keys.append(np.array(group, dtype=kind).astype(dtype))
                return
            ints = group if kind is int else [int(v) for v in group]
            if dtype.kind == "f":
                try:
                    keys.append(np.array(ints, dtype=np.float64))
                except OverflowError:  # beyond any float: compared alone, raising as numpy does
                    self.others.extend(v for v, k in zip(group, ints, strict=True) if not _fits_float(k))
                    keys.append(np.array([k for k in ints if _fits_float(k)], dtype=np.float64))
            else:
                keys.append(_in_range(ints, dtype))  # another integer is in no page's range
        elif kind is float or issubclass(kind, np.floating) and np.dtype(kind).itemsize <= 8:
            self.exact = True
            array = np.array(group, dtype=np.float64)
            (keys if dtype.kind == "f" else floats).append(array[~np.isnan(array)])
        else:
            self.others.extend(group)

    def _add_floored(self, group: list, dtype: np.dtype, keys: list) -> None:
        """Floats on an integer column, Decimals on a number column, by
        value_key's exact keys; one that is not integral (inexact) or not
        finite matches no stored value."""
        exact_keys = []
        for value in group:
            try:
                key, exact = value_key(value, self.info)
            except VALUE_ERRORS:
                self.inexact = True
                continue
            if not exact:
                self.inexact = True
            elif isinstance(key, float) and not math.isfinite(key):
                self.exact = True  # (as a NaN: equal to nothing, but a member)
            else:
                exact_keys.append(key)
        if exact_keys:
            self.exact = True
            keys.append(np.array(exact_keys, dtype=np.float64) if dtype.kind == "f" else _in_range(exact_keys, dtype))

    def _add_float16(self, group: list, keys: list) -> None:
        try:
            array = np.array([float(v) for v in group], dtype=np.float64)
        except VALUE_ERRORS:
            converted = []
            for v in group:
                try:
                    converted.append(float(v))
                except VALUE_ERRORS:
                    self.inexact = True
            array = np.array(converted, dtype=np.float64)
        if len(array):
            self.exact = True
            keys.append(array[~np.isnan(array)])


def _bound_dtype(info: LogicalInfo) -> np.dtype | None:
    try:
        return bound_keys([], info)[0].dtype
    except ParquetError:
        return None


def _in_range(ints: list, dtype: np.dtype) -> np.ndarray:
    try:
        return np.array(ints, dtype=dtype)
    except OverflowError:
        limits = np.iinfo(dtype)
        return np.array([k for k in ints if limits.min <= k <= limits.max], dtype=dtype)


def _fits_float(value: int) -> bool:
    try:
        float(value)
    except OverflowError:
        return False
    return True


def _sorted_keys(parts: list, dtype: np.dtype | None) -> np.ndarray:
    if dtype is None or dtype.kind == "O":
        merged = [k for part in parts for k in part]
        out = np.empty(len(merged), dtype=object)
        out[:] = sorted(merged)
        return out
    if not parts:
        return np.zeros(0, dtype=dtype)
    return np.sort(np.concatenate(parts).astype(dtype, copy=False))


def sorted_member(values: np.ndarray, keys: np.ndarray) -> np.ndarray:
    """Per value, whether it equals one of the sorted ``keys`` (``np.isin``
    without sorting the keys again): a binary search each."""
    if not len(keys) or not len(values):
        return np.zeros(len(values), dtype=bool)
    at = np.minimum(np.searchsorted(keys, values), len(keys) - 1)
    return keys[at] == values


__all__ = ["VALUE_ERRORS", "SetValues", "ValueSet", "sorted_member", "value_keys"]
