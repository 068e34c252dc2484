"""ColumnIndex: per-page bounds of a column chunk (PageIndex.md; parquet.thrift ``ColumnIndex``).

One entry per data page: ``null_pages`` (every value null), ``min_values``
/ ``max_values`` (PLAIN bytes, byte arrays without length prefix, compared
by the column's sort order; empty for null pages), ``boundary_order``,
and optionally ``null_counts``, level histograms and ``nan_counts``.

Read side: :func:`read_column_index` fetches and validates the struct;
:class:`PageBounds` decodes its bounds into numpy keys once, and
:meth:`PageBounds.might_match` answers a ``(op, value)`` predicate for every
page at once. Pruning never drops a page that could hold a matching row:
NaN bounds, undecodable bounds and values the column's type cannot represent
exactly all keep the page.

The values of an ``in`` / ``not in`` set become keys once per column
(:class:`ValueSet`: one conversion per Python type among them, see
:class:`SetValues` and :func:`value_keys`), kept sorted, so that each page is
decided with a binary search whatever the size of the set.

Write side: :func:`build_column_index` turns per-page facts
(:class:`~parquet_codec.offset_index.PageEntry`) into the struct, with
``boundary_order`` computed from the data.
"""

from __future__ import annotations

from bisect import bisect_left
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

import numpy as np

from parquet_codec.errors import CorruptFileError, MetadataError, ParquetError
from parquet_codec.format.ttypes import BoundaryOrder, ColumnChunk, ColumnIndex, Type
from parquet_codec.io import ByteSource
from parquet_codec.offset_index import IndexDecryptor, PageEntry, read_index_struct
from parquet_codec.types import LogicalInfo, byte_values, from_pylist, to_pylist

_BYTE_KINDS = ("string", "binary", "enum", "json", "bson", "uuid", "fixed_binary")
_NO_ORDER = ("interval", "int96", "null")
_FLOAT_KINDS = ("float", "float16")
_NUMERIC_DTYPES = {Type.INT32: "<i4", Type.INT64: "<i8", Type.FLOAT: "<f4", Type.DOUBLE: "<f8"}

EQ, NE, LT, LE, GT, GE, IN, NOT_IN, IS_NULL, IS_NOT_NULL = (
    "==", "!=", "<", "<=", ">", ">=", "in", "not in", "is null", "is not null")  # fmt: skip
OPS = (EQ, NE, LT, LE, GT, GE, IN, NOT_IN, IS_NULL, IS_NOT_NULL)
# A rounded predicate value still bounds the true one: compare non-strictly.
_NON_STRICT = {LT: LE, GT: GE}


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


def value_key(value: object, info: LogicalInfo) -> tuple[object, bool]:
    """A predicate value as a key comparable with :func:`bound_keys`, and
    whether the key is exact. Plain numbers compare exactly with numeric
    keys; other values go through the column's type, and a value the type
    rounds (a timestamp finer than the unit, a too-precise decimal) is
    inexact. Raises ``ParquetError`` / ``ValueError`` when the value cannot
    be stored in the column at all."""
    numeric = isinstance(value, (int, float, np.integer, np.floating)) and not isinstance(value, (bool, np.bool_))
    if numeric and info.kind in ("int", "float", "float16") and info.physical_type != Type.FIXED_LEN_BYTE_ARRAY:
        return value, True
    if numeric and info.kind == "float16":
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


#: What :func:`value_key` raises for a value the column cannot hold (callers treat the value as inexact).
VALUE_ERRORS = (ParquetError, ValueError, TypeError, OverflowError)
# Values converted (and checked for an exception) one at a time when a batch fails.
_SPLIT_BELOW = 8


def plain_number(kind: type, info: LogicalInfo) -> str | None:
    """How :func:`value_key` keys values of Python type ``kind``: "self" (the
    number is its own key: a number compared with a number column), "float"
    (``float(value)``: a number on a FLOAT16 column), or None (converted
    through the column's type, as :func:`value_keys` does)."""
    if not issubclass(kind, (int, float, np.integer, np.floating)) or issubclass(kind, (bool, np.bool_)):
        return None
    if info.kind in ("int", "float", "float16") and info.physical_type != Type.FIXED_LEN_BYTE_ARRAY:
        return "self"
    return "float" if info.kind == "float16" else None


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
    if n < _SPLIT_BELOW:
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
    exact = np.fromiter((_equal(d, v) for d, v in zip(decoded, values, strict=True)), dtype=bool, count=n)
    parts.append((keys, exact & usable, np.zeros(n, dtype=bool)))


def _equal(decoded: object, value: object) -> bool:
    try:
        return bool(decoded == value)
    except (TypeError, ValueError):
        return False


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
            if how == "self" and dtype is not None and dtype.kind in "iuf":
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


# ---------------------------------------------------------------- page bounds and predicates


@dataclass
class PageBounds:
    """The decoded bounds of every page of one ColumnIndex."""

    null_pages: np.ndarray  # bool
    null_counts: np.ndarray | None  # int64
    nan_counts: np.ndarray | None  # int64
    min: np.ndarray
    max: np.ndarray
    usable: np.ndarray  # bool: a non-null page whose bounds can be compared
    info: LogicalInfo

    @classmethod
    def from_column_index(cls, index: ColumnIndex, info: LogicalInfo) -> PageBounds:
        null_pages = np.array(index.null_pages, dtype=bool)
        lo, lo_ok = bound_keys(index.min_values, info, null_pages)
        hi, hi_ok = bound_keys(index.max_values, info, null_pages)
        with np.errstate(invalid="ignore"):
            inverted = np.asarray(lo > hi, dtype=bool)  # a minimum above its maximum: corrupt, not used
        counts = None if index.null_counts is None else np.array(index.null_counts, dtype=np.int64)
        if counts is not None and (counts < 0).any():  # not a count: unknown, as if absent
            counts = None
        nans = None if index.nan_counts is None else np.array(index.nan_counts, dtype=np.int64)
        return cls(null_pages, counts, nans, lo, hi, lo_ok & hi_ok & ~inverted, info)

    def __len__(self) -> int:
        return len(self.null_pages)

    def might_match(self, op: str, value: object = None) -> np.ndarray:
        """Per page, whether a row of it may satisfy ``column <op> value``.

        ``op`` is one of :data:`OPS` (pyarrow's filter operators); ``==`` /
        ``!=`` with ``None`` mean ``is null`` / ``is not null``. Nulls never
        satisfy a comparison, as in pyarrow's filters. The values of ``in`` /
        ``not in`` are a collection or a :class:`ValueSet` converted once.
        ``in`` keeps a page when a member may lie within its bounds; ``not in``
        skips one whose values all equal one member (bounds equal to a member;
        for floats no NaN, and zeros of both signs in the set when the bounds
        are zeros: membership is by the value as stored)."""
        if op not in OPS:
            raise ValueError(f"unknown filter operator {op!r}; expected one of {OPS}")
        if op == IS_NULL or (op == EQ and value is None):
            return self._may_have_nulls()
        if op == IS_NOT_NULL or (op == NE and value is None):
            return ~self.null_pages
        if op in (IN, NOT_IN):
            if isinstance(value, ValueSet):
                return self._set_match(op, value if value.info == self.info else ValueSet(value.values, self.info))
            if isinstance(value, (str, bytes)) or not hasattr(value, "__iter__"):
                raise TypeError(f"{op!r} takes a collection of values, got {value!r}")
            return self._set_match(op, ValueSet(value, self.info))
        try:
            key, exact = value_key(value, self.info)
        except (ParquetError, ValueError, TypeError, OverflowError):
            key, exact = None, False  # the type cannot hold the value: compare nothing, keep pages
        return ~self.null_pages & (~self.usable | self._compare(op, key, exact))

    def pages(self, op: str, value: object = None) -> np.ndarray:
        """Indices of the pages that may match (int64, ascending)."""
        return np.flatnonzero(self.might_match(op, value))

    def _may_have_nulls(self) -> np.ndarray:
        if self.null_counts is None:
            return np.ones(len(self), dtype=bool)
        return self.null_pages | (self.null_counts > 0)

    def _compare(self, op: str, key: object, exact: bool) -> np.ndarray:
        """The comparison on usable pages (other entries are masked by the caller)."""
        keep_all = np.ones(len(self), dtype=bool)
        if key is None or (not exact and op in (EQ, NE)):
            return keep_all
        op = op if exact else _NON_STRICT.get(op, op)
        lo, hi = self.min, self.max
        if lo.dtype == object:  # compare as Python objects: numpy would make bytes an 'S' array, dropping trailing NULs
            key = _object_scalar(key)
        with np.errstate(invalid="ignore"):
            if op == EQ:
                return np.asarray((lo <= key) & (hi >= key), dtype=bool)
            if op == NE:
                return ~np.asarray((lo == key) & (hi == key), dtype=bool) | self._may_have_nan()
            result = {LT: lambda: lo < key, LE: lambda: lo <= key, GT: lambda: hi > key, GE: lambda: hi >= key}[op]()
        return np.asarray(result, dtype=bool)

    def _may_have_nan(self) -> np.ndarray:
        """NaN satisfies ``!=`` yet is never a bound: float pages may hide one unless nan_counts say not."""
        if self.info.kind not in _FLOAT_KINDS:
            return np.zeros(len(self), dtype=bool)
        if self.nan_counts is None:
            return np.ones(len(self), dtype=bool)
        return self.nan_counts > 0

    def _set_match(self, op: str, values: ValueSet) -> np.ndarray:
        present = ~self.null_pages
        if op == IN:
            result = np.zeros(len(self), dtype=bool)
            if values.inexact:  # a value no stored value equals: its page cannot be told, kept
                result |= present
            elif values.exact:
                result |= present & (~self.usable | self._holds_any(values))
            for v in values.others:
                result |= self.might_match(EQ, v)
            return result | (self._may_have_nulls() if values.has_null else False)
        # not in: a page is skipped only when every value in it equals one excluded value.
        result = present & ~(self.usable & ~self._may_have_nan() & self._holds_only(values))
        for v in values.others:
            result &= self.might_match(NE, v)
        return result

    def _holds_any(self, values: ValueSet) -> np.ndarray:
        """Per page, whether a member lies within [min, max] (meaningful where usable)."""
        lo, hi = self.min, self.max
        if lo.dtype == object:
            out = np.zeros(len(self), dtype=bool)
            keys = values.key_list()
            for i in np.flatnonzero(self.usable & ~self.null_pages).tolist():
                j = bisect_left(keys, lo[i])
                out[i] = j < len(keys) and keys[j] <= hi[i]
            return out
        out = _within(values.keys, lo, hi)
        if len(values.float_keys):
            out |= _within(values.float_keys, lo.astype(np.float64), hi.astype(np.float64))
        return out

    def _holds_only(self, values: ValueSet) -> np.ndarray:
        """Per page, whether min and max both equal one member (meaningful where usable)."""
        lo, hi = self.min, self.max
        if lo.dtype == object:
            out = np.zeros(len(self), dtype=bool)
            keys = values.key_set()
            for i in np.flatnonzero(self.usable & ~self.null_pages).tolist():
                out[i] = lo[i] == hi[i] and lo[i] in keys
            return out
        with np.errstate(invalid="ignore"):
            out = (lo == hi) & _contains(values.keys, lo)
            if len(values.float_keys):
                lo_f, hi_f = lo.astype(np.float64), hi.astype(np.float64)
                out |= (lo_f == hi_f) & _contains(values.float_keys, lo_f)
            if lo.dtype.kind == "f" and not values.both_zeros:
                out &= lo != 0  # zeros of either sign may hide behind zero bounds
        return out


def _within(keys: np.ndarray, lo: np.ndarray, hi: np.ndarray) -> np.ndarray:
    """Per (lo, hi), whether some of the sorted ``keys`` lies within [lo, hi]."""
    out = np.zeros(len(lo), dtype=bool)
    if not len(keys):
        return out
    with np.errstate(invalid="ignore"):
        first = np.searchsorted(keys, lo, side="left")
        inside = first < len(keys)
        out[inside] = keys[first[inside]] <= hi[inside]
    return out


def _contains(keys: np.ndarray, x: np.ndarray) -> np.ndarray:
    """Per ``x``, whether it equals one of the sorted ``keys``."""
    out = np.zeros(len(x), dtype=bool)
    if not len(keys):
        return out
    with np.errstate(invalid="ignore"):
        at = np.searchsorted(keys, x, side="left")
        inside = at < len(keys)
        out[inside] = keys[at[inside]] == x[inside]
    return out


def _object_scalar(value: object) -> np.ndarray:
    """``value`` as a 0-d object array, compared element by element as itself."""
    out = np.empty((), dtype=object)
    out[()] = value
    return out


# ---------------------------------------------------------------- boundary order


def boundary_order(lo: np.ndarray, hi: np.ndarray, usable: np.ndarray, skip: np.ndarray | None = None) -> int:
    """ASCENDING when the bounds of the pages that are not skipped (null
    pages) never decrease, DESCENDING when they never increase, else
    UNORDERED; ASCENDING wins a tie (one page, or equal bounds), as in
    parquet-java. A kept page without usable bounds makes it UNORDERED."""
    keep = np.ones(len(lo), dtype=bool) if skip is None else ~np.asarray(skip, dtype=bool)
    if not usable[keep].all():
        return BoundaryOrder.UNORDERED
    lo, hi = lo[keep], hi[keep]
    if len(lo) < 2:
        return BoundaryOrder.ASCENDING
    if np.asarray(lo[1:] >= lo[:-1], dtype=bool).all() and np.asarray(hi[1:] >= hi[:-1], dtype=bool).all():
        return BoundaryOrder.ASCENDING
    if np.asarray(lo[1:] <= lo[:-1], dtype=bool).all() and np.asarray(hi[1:] <= hi[:-1], dtype=bool).all():
        return BoundaryOrder.DESCENDING
    return BoundaryOrder.UNORDERED


# ---------------------------------------------------------------- building (writer side)


def build_column_index(pages: Sequence[PageEntry], info: LogicalInfo) -> ColumnIndex | None:
    """The ColumnIndex of a chunk's data pages, or None when none can be
    written: no sort order (INT96, INTERVAL; parquet-java writes none
    either), no pages, or a page with values but without bounds (a page of
    only NaN), which no reader could then prune correctly."""
    if not pages or not has_order(info):
        return None
    null_pages = [bool(p.null_page) for p in pages]
    if any(not null and (p.min_value is None or p.max_value is None)
           for p, null in zip(pages, null_pages, strict=True)):
        return None
    mins = [b"" if null else bytes(p.min_value) for p, null in zip(pages, null_pages, strict=True)]
    maxs = [b"" if null else bytes(p.max_value) for p, null in zip(pages, null_pages, strict=True)]
    skip = np.array(null_pages, dtype=bool)
    lo, lo_ok = bound_keys(mins, info, skip)
    hi, hi_ok = bound_keys(maxs, info, skip)
    return ColumnIndex(
        null_pages=null_pages,
        min_values=mins,
        max_values=maxs,
        boundary_order=boundary_order(lo, hi, lo_ok & hi_ok, skip),
        null_counts=[int(p.null_count) for p in pages],
        repetition_level_histograms=_joined([p.rep_histogram for p in pages]),
        definition_level_histograms=_joined([p.def_histogram for p in pages]),
        nan_counts=_all_or_none([p.nan_count for p in pages]) if info.kind in _FLOAT_KINDS else None,
    )


def _all_or_none(values: list[int | None]) -> list[int] | None:
    return None if any(v is None for v in values) else [int(v) for v in values]  # type: ignore[arg-type]


def _joined(histograms: list[list[int] | None]) -> list[int] | None:
    """Per-page histograms concatenated, as the format stores them; None unless every page has one."""
    if any(h is None for h in histograms):
        return None
    return [int(x) for h in histograms for x in h]  # type: ignore[union-attr]


# ---------------------------------------------------------------- reading


def read_column_index(source: ByteSource, chunk: ColumnChunk, *, num_pages: int | None = None,
                      decryptor: IndexDecryptor | None = None) -> ColumnIndex | None:
    """The chunk's ColumnIndex (``column_index_offset`` / ``_length``), or None
    when it has none. ``num_pages``, when known (from the OffsetIndex), is
    checked against the index's page count. ``decryptor`` (the chunk's
    crypto.ColumnChunkDecryptor) opens the index of an encrypted column."""
    decrypt = None if decryptor is None else decryptor.decrypt_column_index
    index = read_index_struct(source, ColumnIndex, chunk.column_index_offset, chunk.column_index_length,
                              "ColumnIndex", decrypt)
    if index is not None:
        validate_column_index(index, num_pages, file_offset=chunk.column_index_offset)
    return index


def validate_column_index(index: ColumnIndex, num_pages: int | None = None, *, file_offset: int | None = None) -> None:
    """Reject a ColumnIndex whose lists disagree in length or whose fields are missing."""
    def fail(problem: str) -> MetadataError:
        return MetadataError(f"ColumnIndex {problem}", file_offset=file_offset)

    if index.null_pages is None or index.min_values is None or index.max_values is None:
        raise fail("lacks null_pages, min_values or max_values")
    n = len(index.null_pages)
    if len(index.min_values) != n or len(index.max_values) != n:
        raise fail(f"has {n} null_pages, {len(index.min_values)} min_values, {len(index.max_values)} max_values")
    if num_pages is not None and n != num_pages:
        raise fail(f"describes {n} pages, the OffsetIndex {num_pages}")
    if index.boundary_order not in BoundaryOrder._VALUES_TO_NAMES:
        raise fail(f"has unknown boundary_order {index.boundary_order}")
    for name in ("null_counts", "nan_counts"):
        counts = getattr(index, name)
        if counts is not None and len(counts) != n:
            raise fail(f"has {len(counts)} {name} for {n} pages")
    for name in ("repetition_level_histograms", "definition_level_histograms"):
        hist = getattr(index, name)
        if hist is not None and (n == 0 or len(hist) % n):
            raise fail(f"{name} of {len(hist)} entries do not split into {n} pages")


__all__ = [
    "EQ", "NE", "LT", "LE", "GT", "GE", "IN", "NOT_IN", "IS_NULL", "IS_NOT_NULL", "OPS", "VALUE_ERRORS",
    "PageBounds", "SetValues", "ValueSet", "bound_keys", "boundary_order", "build_column_index", "has_order",
    "plain_number", "read_column_index", "validate_column_index", "value_key", "value_keys",
]
