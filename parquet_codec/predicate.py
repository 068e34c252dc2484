"""Row filters in pyarrow's form, and the places they are evaluated.

The model (:class:`Predicate`, :class:`Filter`) knows nothing about files:
a filter is an OR of AND lists of ``(column, op, value)`` as
``pyarrow.parquet.read_table(filters=...)`` takes them. Evaluation happens at
four levels, each a function of its own, each allowed to answer "maybe" but
never to drop a row that matches (BloomFilter.md, PageIndex.md):

(a) :func:`statistics_might_match` - a column chunk's min/max/null_count;
(b) :func:`bloom_might_match` - its split-block bloom filter (``==``/``in``);
(c) :func:`page_index_rows` - the rows of the pages a ColumnIndex keeps;
(d) :func:`parquet_codec.row_filter.rows_match` - exact, on decoded values.

Semantics follow pyarrow's filters: nulls never satisfy a comparison; a null
is ``in`` a set holding None and ``not in`` one that does not; set
membership (``in`` / ``not in``) compares floats as stored, so NaN is in a set
holding NaN and -0.0 is not in {0.0}, while ``==`` is IEEE equality. One
deliberate difference: ``(col, "==", None)`` means ``is null`` and
``(col, "!=", None)`` ``is not null`` (pyarrow matches nothing for both);
``"is null"`` / ``"is not null"`` are accepted as operators too.

The values of ``in`` / ``not in`` are converted once per predicate and column
type, whatever their number, and cached on the predicate (:func:`set_values`,
:func:`literal_keys`, :class:`~parquet_codec.value_sets.ValueSet`, bloom
filter hashes): every level then decides with array operations (binary
searches over sorted keys, ``np.isin``, one hashing pass), never one value at
a time.
"""

from __future__ import annotations

import datetime as _dt
import math
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any, TypeVar

import numpy as np

from parquet_codec.bloom import Sbbf, value_hashes
from parquet_codec.column_index import (
    EQ,
    GE,
    GT,
    IN,
    IS_NOT_NULL,
    IS_NULL,
    LE,
    LT,
    NE,
    NOT_IN,
    PageBounds,
)  # fmt: skip
from parquet_codec.decimals import floor_unscaled
from parquet_codec.errors import ParquetError, SchemaError
from parquet_codec.format.ttypes import BoundaryOrder, ColumnIndex, ColumnMetaData, OffsetIndex, Type
from parquet_codec.offset_index import RowRanges, rows_of_pages
from parquet_codec.schema import Schema, SchemaNode
from parquet_codec.sort_keys import floors, has_order, plain_number, value_key
from parquet_codec.statistics import SIGNED, sort_order
from parquet_codec.temporal import in_duration_unit, span_counts
from parquet_codec.types import LogicalInfo, logical_info
from parquet_codec.value_sets import SetValues, ValueSet

COMPARISONS = (EQ, NE, LT, LE, GT, GE)
_ALIASES = {"=": EQ}
_ACCEPTED = COMPARISONS + (IN, NOT_IN, IS_NULL, IS_NOT_NULL, "=")
_CONVERSION_ERRORS = (ParquetError, ValueError, TypeError, OverflowError, ArithmeticError)
_T = TypeVar("_T")


# ---------------------------------------------------------------- the model


@dataclass(frozen=True)
class Predicate:
    """``column <op> value``; ``column`` is a dotted leaf path ("s.a" for a struct field).
    ``op`` is normalized ("=" -> "==", comparisons with None -> "is null" / "is not null");
    the values of ``in`` / ``not in`` are a tuple."""

    column: str
    op: str
    value: object = None
    # Conversions of an in / not in set, made once per column type (see cached()).
    _cache: dict = field(default_factory=dict, init=False, repr=False, compare=False, hash=False)

    def __str__(self) -> str:
        if self.op in (IS_NULL, IS_NOT_NULL):
            return f"{self.column} {self.op}"
        value = list(self.value) if isinstance(self.value, tuple) else self.value
        return f"{self.column} {self.op} {value!r}"


@dataclass(frozen=True)
class Filter:
    """A disjunction of conjunctions of predicates (pyarrow's DNF filters)."""

    clauses: tuple[tuple[Predicate, ...], ...]

    @property
    def predicates(self) -> list[Predicate]:
        return [p for clause in self.clauses for p in clause]

    @property
    def columns(self) -> list[str]:
        """The filtered columns, each once, in order of appearance."""
        return list(dict.fromkeys(p.column for p in self.predicates))

    def might_match(self, test: Callable[[Predicate], bool]) -> bool:
        """Whether some clause may hold when ``test`` says which predicates may;
        lazy, so an expensive ``test`` (a bloom filter) runs only when needed."""
        return any(all(test(p) for p in clause) for clause in self.clauses)

    def row_ranges(self, ranges: Callable[[Predicate], RowRanges], num_rows: int) -> RowRanges:
        """AND within a clause (intersection), OR across clauses (union)."""
        out = RowRanges.empty()
        for clause in self.clauses:
            rows = RowRanges.all(num_rows)
            for predicate in clause:
                rows = rows & ranges(predicate)
                if not len(rows):
                    break
            out = out | rows
        return out

    def row_mask(self, mask: Callable[[Predicate], np.ndarray], num_rows: int) -> np.ndarray:
        out = np.zeros(num_rows, dtype=bool)
        for clause in self.clauses:
            rows = np.ones(num_rows, dtype=bool)
            for predicate in clause:
                rows &= mask(predicate)
            out |= rows
        return out

    def __str__(self) -> str:
        return " OR ".join("(" + " AND ".join(map(str, clause)) + ")" for clause in self.clauses)


def parse_filters(filters: object) -> Filter | None:
    """pyarrow's filter form as a :class:`Filter`; None stays None (no filter).

    ``[("x", ">", 5), ...]`` is one AND list; ``[[...], [...]]`` ORs AND lists.
    Raises :class:`SchemaError` for a malformed filter."""
    if filters is None:
        return None
    if isinstance(filters, Filter):
        return filters
    if isinstance(filters, (str, bytes)) or not isinstance(filters, Sequence) or not filters:
        raise SchemaError(f"malformed filters {filters!r}: expected a non-empty list of (column, op, value) "
                          "tuples, or a list of such lists")
    first = filters[0]
    if isinstance(first, Sequence) and first and isinstance(first[0], str):
        filters = [filters]
    clauses = []
    for clause in filters:
        if isinstance(clause, (str, bytes)) or not isinstance(clause, Sequence) or not clause:
            raise SchemaError(f"malformed filters: {clause!r} is not a non-empty list of (column, op, value)")
        clauses.append(tuple(_predicate(item) for item in clause))
    return Filter(tuple(clauses))


def _predicate(item: object) -> Predicate:
    if isinstance(item, (str, bytes)) or not isinstance(item, Sequence) or len(item) != 3:
        raise SchemaError(f"malformed filter {item!r}: expected (column, op, value)")
    column, op, value = item
    if not isinstance(column, str) or not column:
        raise SchemaError(f"filter column must be a non-empty string, got {column!r}")
    if not isinstance(op, str) or op.lower() not in _ACCEPTED:
        raise SchemaError(f"filter operator {op!r} is not one of {list(_ACCEPTED)}")
    op = _ALIASES.get(op.lower(), op.lower())
    if op in (IN, NOT_IN):
        if isinstance(value, (str, bytes)) or not isinstance(value, Iterable):
            raise SchemaError(f"{op!r} takes a collection of values, got {value!r}")
        return Predicate(column, op, tuple(value))
    if value is None and op in (EQ, NE):
        op = IS_NULL if op == EQ else IS_NOT_NULL
    if op in (IS_NULL, IS_NOT_NULL):
        value = None
    return Predicate(column, op, value)


def with_duration_units(filt: Filter, units: dict[str, str]) -> Filter:
    """``filt`` with the time spans (``datetime.timedelta``, ``numpy.timedelta64``,
    ``pandas.Timedelta``) compared with duration columns (``units``: column ->
    "s", "ms", "us" or "ns", from the stored Arrow schema: Parquet stores a
    duration as a bare INT64) given as counts of the column's unit. A span
    between two counts compares as its exact value would: it equals none."""
    return _rewritten(filt, units, _in_unit)


def _in_unit(predicate: Predicate, unit: str) -> Predicate:
    if predicate.op in (IS_NULL, IS_NOT_NULL):
        return predicate
    if predicate.op in (IN, NOT_IN):
        return Predicate(predicate.column, predicate.op, tuple(in_duration_unit(predicate.value, unit)))
    count, exact = span_counts(predicate.value, unit)
    if count is None:
        return predicate
    if exact:
        return Predicate(predicate.column, predicate.op, count)
    # Between count and count + 1: x < span means x <= count, x > span means x > count.
    op = {LT: LE, LE: LE, GT: GT, GE: GT}.get(predicate.op)
    if op is not None:
        return Predicate(predicate.column, op, count)
    return Predicate(predicate.column, IN if predicate.op == EQ else IS_NOT_NULL, () if predicate.op == EQ else None)


def with_timestamp_dates(filt: Filter, schema: Schema) -> Filter:
    """``filt`` with the dates (``datetime.date``, not datetimes) compared with
    timestamp and INT96 columns given as their midnight, as pyarrow casts a
    date to a timestamp: UTC midnight on a UTC-adjusted column (an aware
    datetime, which is what such a column compares with). A column not in
    ``schema`` is left for :func:`bind` to report."""
    zones = {}
    for name in filt.columns:
        try:
            info = logical_info(schema.leaf(name).element)
        except SchemaError:
            continue
        if info.kind in ("timestamp", "int96"):
            zones[name] = _dt.timezone.utc if info.kind == "timestamp" and info.utc else None
    return _rewritten(filt, zones, _dates_as_midnight)


def _rewritten(filt: Filter, by_column: dict[str, Any], rewrite: Callable[[Predicate, Any], Predicate]) -> Filter:
    """``filt`` with each predicate on a column of ``by_column`` replaced by
    ``rewrite(predicate, by_column[column])``; ``filt`` itself when none is."""
    if not any(p.column in by_column for p in filt.predicates):
        return filt
    return Filter(tuple(tuple(rewrite(p, by_column[p.column]) if p.column in by_column else p for p in clause)
                        for clause in filt.clauses))


def _dates_as_midnight(predicate: Predicate, zone: _dt.tzinfo | None) -> Predicate:
    def midnight(value: object) -> object:
        if isinstance(value, _dt.date) and not isinstance(value, _dt.datetime):
            return _dt.datetime.combine(value, _dt.time(), tzinfo=zone)
        return value

    if predicate.op in (IN, NOT_IN):
        return Predicate(predicate.column, predicate.op, tuple(map(midnight, predicate.value)))
    return Predicate(predicate.column, predicate.op, midnight(predicate.value))


# ---------------------------------------------------------------- binding to a schema


@dataclass(frozen=True)
class ColumnRef:
    """A filtered column resolved in a file's schema."""

    leaf: SchemaNode
    info: LogicalInfo


def bind(filt: Filter, schema: Schema) -> dict[str, ColumnRef]:
    """Resolve every filtered column to its leaf and check every value can be
    compared with it; :class:`SchemaError` names the first that cannot."""
    refs: dict[str, ColumnRef] = {}
    for name in filt.columns:
        try:
            leaf = schema.leaf(name)
        except SchemaError:
            leaves = [n.dotted_path for n in schema.leaves]
            raise SchemaError(f"filter column {name!r} is not a leaf column of the file; columns are {leaves}") from None
        if leaf.max_repetition_level > 0:
            raise SchemaError(f"filter column {name!r} is inside a list or map; only columns with one value "
                              "per row (struct fields included) can be filtered")
        refs[name] = ColumnRef(leaf, logical_info(leaf.element))
    for predicate in filt.predicates:
        _check_value(predicate, refs[predicate.column].info)
    return refs


def _check_value(predicate: Predicate, info: LogicalInfo) -> None:
    op = predicate.op
    if op in (IS_NULL, IS_NOT_NULL):
        return
    if op in (LT, LE, GT, GE) and info.kind in ("interval", "null"):
        raise SchemaError(f"filter {predicate}: {info.kind} values have no order")
    if op in (IN, NOT_IN):
        try:
            set_literal_keys(predicate, info)
            return
        except _CONVERSION_ERRORS:
            pass  # the loop below names the first value that cannot be compared
    values = predicate.value if op in (IN, NOT_IN) else (predicate.value,)
    for value in values:
        if value is None:
            if op not in (IN, NOT_IN):
                raise SchemaError(f"filter {predicate}: None only means 'is null' with == and !=")
            continue
        try:
            literal_key(value, info)
        except _CONVERSION_ERRORS as exc:
            raise SchemaError(f"filter {predicate}: {value!r} cannot be compared with a {_type_name(info)} "
                              f"column ({exc})") from None


def _type_name(info: LogicalInfo) -> str:
    if info.kind == "timestamp":
        return f"timestamp[{info.unit}{', UTC' if info.utc else ''}]"
    if info.kind == "decimal":
        return f"decimal({info.precision}, {info.scale})"
    return info.kind


def literal_key(value: object, info: LogicalInfo) -> tuple[object, bool]:
    """A filter value as a key comparable with the column's physical values by
    its sort order, and whether it is exact. An inexact key is the value
    rounded down (a timestamp finer than the column's unit, a decimal with
    more digits than its scale): no stored value equals it, and ``x < value``
    holds exactly when ``x <= key``. Raises when the value cannot be compared."""
    if info.kind == "decimal":
        return _decimal_key(value, info)
    if info.kind in ("timestamp", "int96") and isinstance(value, _dt.datetime):
        aware = value.tzinfo is not None and value.utcoffset() is not None
        if info.kind == "timestamp" and aware != info.utc:
            # As pyarrow: comparing a UTC instant with a wall-clock time is ambiguous.
            raise SchemaError("a timezone-aware datetime compares only with a UTC-adjusted timestamp column "
                              "and a naive one only with a local timestamp column")
    if info.kind in ("int", "float", "float16") and not _number_type(type(value)):
        raise SchemaError(f"{value!r} is not a number")
    if info.kind in _TEMPORAL and _number_type(type(value)):
        raise SchemaError(f"{value!r} is a number, not a {info.kind}")
    if info.kind in ("string", "json") and not isinstance(value, str):
        raise SchemaError(f"{value!r} is not a str")
    return value_key(value, info)


def cached(predicate: Predicate, key: object, make: Callable[[], _T]) -> _T:
    """``make()``, made once per predicate and ``key`` (conversions of its set of values)."""
    cache = predicate._cache
    if key not in cache:
        cache[key] = make()
    return cache[key]


def set_values(predicate: Predicate) -> SetValues:
    """The values of an ``in`` / ``not in`` predicate, grouped by type (made once)."""
    return cached(predicate, "values", lambda: SetValues(predicate.value))


def set_literal_keys(predicate: Predicate, info: LogicalInfo) -> list[tuple[list, np.ndarray | None]]:
    """:func:`literal_keys` of an ``in`` / ``not in`` predicate's values for a column of ``info`` (made once)."""
    return cached(predicate, ("literal", info), lambda: literal_keys(set_values(predicate), info))


def literal_keys(values: SetValues, info: LogicalInfo) -> list[tuple[list, np.ndarray | None]]:
    """:func:`literal_key` of every value of a set (None aside), one batch per
    Python type: per group, the keys (numpy scalars as Python numbers) and
    which are exact (None: all are). Raises as literal_key does when a value
    cannot be compared (for one such value, not necessarily the first)."""
    out: list[tuple[list, np.ndarray | None]] = []
    for kind, group in values.groups.items():
        if info.kind == "decimal":
            out.append(_decimal_keys(kind, group, info))
            continue
        _check_kinds(kind, group, info)
        how = plain_number(kind, info)
        if how == "self" and not floors(kind, info):
            out.append((_as_python(kind, group), None))
        elif how == "float":
            out.append(([float(v) for v in group], None))
        else:
            keys, exact, failed = values.value_keys(kind, info)
            if failed.any():
                bad = group[int(np.flatnonzero(failed)[0])]
                literal_key(bad, info)  # raises its error
                raise SchemaError(f"{bad!r} cannot be stored in the column")
            out.append((keys.tolist(), exact))
    return out


def _check_kinds(kind: type, group: list, info: LogicalInfo) -> None:
    """literal_key's checks of a value's type, for a group of values of one type."""
    bad = group[0] if (info.kind in ("int", "float", "float16") and not _number_type(kind)
                       or info.kind in _TEMPORAL and _number_type(kind)
                       or info.kind in ("string", "json") and not issubclass(kind, str)) else None
    if info.kind == "timestamp" and issubclass(kind, _dt.datetime):
        bad = next((v for v in group if (v.tzinfo is not None and v.utcoffset() is not None) != info.utc), None)
    if bad is not None:
        literal_key(bad, info)  # raises its error


_TEMPORAL = ("date", "time", "timestamp", "int96")


def _number_type(kind: type) -> bool:
    """Whether values of type ``kind`` compare with a number column (a numpy timedelta64 is not one)."""
    return issubclass(kind, (int, float, Decimal, np.number)) and not issubclass(kind, np.timedelta64)


def _as_python(kind: type, group: list) -> list:
    """Numbers as Python numbers (numpy scalars converted exactly)."""
    if not issubclass(kind, np.generic):
        return group
    if issubclass(kind, (np.integer, np.floating)) and np.dtype(kind).itemsize <= 8:
        return np.array(group, dtype=kind).tolist()
    return [v.item() for v in group]


def _decimal_keys(kind: type, group: list, info: LogicalInfo) -> tuple[list, np.ndarray | None]:
    if kind is int and info.scale is not None and info.scale >= 0 and group:
        digits = max(info.precision, 3 * (info.type_length or 32))
        limit = 10 ** max(digits - info.scale, 0)
        if -limit < min(group) and max(group) < limit:  # no digit beyond the column's: exact
            scale = 10**info.scale
            return [v * scale for v in group], None
    pairs = [_decimal_key(v, info) for v in group]
    return [k for k, _ in pairs], np.array([e for _, e in pairs], dtype=bool)


def _decimal_key(value: object, info: LogicalInfo) -> tuple[int, bool]:
    """Unscaled integer key, floored: Decimal('1.005') on scale 2 is 100, inexact."""
    if isinstance(value, bool) or not isinstance(value, (int, float, Decimal)):
        raise SchemaError(f"{value!r} is not a Decimal, int or float")
    # A float is the decimal its shortest repr spells (0.1, not 0.1000000000000000055...):
    # as pyarrow, which compares the column as float64, Decimal("0.10") == 0.1.
    number = Decimal(repr(value)) if isinstance(value, float) else Decimal(value)
    if not number.is_finite():
        raise SchemaError(f"{value!r} is not finite")
    # Exactly, whatever its digits (a context would round it to 28). Stored
    # values may pass the declared precision (pandas writes such), not their
    # storage: any key beyond what that holds compares alike.
    return floor_unscaled(number, info.scale, max(info.precision, 3 * (info.type_length or 32)))


# ---------------------------------------------------------------- (a) statistics


def trust_bounds(column_orders: list | None, leaf: SchemaNode, info: LogicalInfo) -> bool:
    """Whether a chunk's min/max may prune. With a TYPE_ORDER column order the
    bounds follow the column's sort order; without column orders (legacy
    statistics) only signed numeric bounds are trusted, as parquet-java and
    Arrow do: old writers compared byte arrays as signed bytes."""
    if column_orders is not None and leaf.column_index < len(column_orders):
        return column_orders[leaf.column_index].TYPE_ORDER is not None
    return sort_order(info) == SIGNED and info.physical_type not in (Type.BYTE_ARRAY, Type.FIXED_LEN_BYTE_ARRAY)


def chunk_bounds(meta: ColumnMetaData, info: LogicalInfo, trusted: bool) -> PageBounds | None:
    """The chunk's statistics as a one-page :class:`PageBounds`, so chunk and
    page pruning share one set of rules (NaN, inexact values, nulls); None
    without statistics. Bounds that are missing or not trusted are unusable."""
    stats = meta.statistics
    if stats is None or not has_order(info) and stats.null_count is None:
        return None
    lo, hi = stats.min_value, stats.max_value
    if (lo is None or hi is None) and sort_order(info) == SIGNED and \
            info.physical_type not in (Type.BYTE_ARRAY, Type.FIXED_LEN_BYTE_ARRAY):
        lo, hi = stats.min, stats.max  # deprecated fields: signed order, right for signed numbers
    nulls = stats.null_count
    all_null = nulls is not None and meta.num_values is not None and nulls == meta.num_values > 0
    usable = trusted and lo is not None and hi is not None and not all_null
    index = ColumnIndex(
        null_pages=[all_null], min_values=[bytes(lo) if usable else b""], max_values=[bytes(hi) if usable else b""],
        boundary_order=BoundaryOrder.UNORDERED, null_counts=None if nulls is None else [nulls],
        nan_counts=None if stats.nan_count is None else [stats.nan_count],
    )
    bounds = PageBounds.from_column_index(index, info)
    if not usable:
        bounds.usable = np.zeros(1, dtype=bool)
    return bounds


def bounds_match(bounds: PageBounds, predicate: Predicate) -> np.ndarray:
    """Per page (or chunk), whether it may hold a row matching ``predicate``.
    Adds pyarrow's set semantics to :meth:`PageBounds.might_match`: NaN is
    ``in`` a set holding NaN, and a null is ``not in`` a set without None.
    A set's values become a :class:`ValueSet` once per column type."""
    op, value = predicate.op, predicate.value
    if op not in (IN, NOT_IN):
        return bounds.might_match(op, value)
    values = set_values(predicate)
    if op == IN and values.has_nan:
        return np.ones(len(bounds), dtype=bool)  # NaN is never a bound
    keys = cached(predicate, ("bounds", bounds.info), lambda: ValueSet(values.without_nan(), bounds.info))
    result = bounds.might_match(op, keys)
    if op == NOT_IN and not values.has_null:
        result = result | bounds.might_match(IS_NULL)
    return result


def _is_nan(value: object) -> bool:
    return isinstance(value, (float, np.floating)) and math.isnan(value)


def statistics_might_match(predicate: Predicate, ref: ColumnRef, meta: ColumnMetaData,
                           column_orders: list | None) -> bool:
    """Level (a): False only when the chunk's statistics prove no row matches."""
    bounds = chunk_bounds(meta, ref.info, trust_bounds(column_orders, ref.leaf, ref.info))
    if bounds is None:
        return True
    try:
        return bool(bounds_match(bounds, predicate)[0])
    except _CONVERSION_ERRORS:
        return True


# ---------------------------------------------------------------- (b) bloom filters


def uses_bloom_filter(predicate: Predicate) -> bool:
    """Only equality can be answered by a bloom filter (BloomFilter.md)."""
    return predicate.op in (EQ, IN)


def bloom_might_match(predicate: Predicate, bloom: Sbbf | None) -> bool:
    """Level (b): False only when the filter proves every value absent."""
    if bloom is None or not uses_bloom_filter(predicate) or not bloom.proves_absence:
        return True
    if predicate.op == EQ:
        if predicate.value is None or _is_nan(predicate.value):
            return True  # filters record neither nulls nor a canonical NaN
        try:
            return bloom.might_contain_any((predicate.value,))
        except _CONVERSION_ERRORS:
            return True
    values = set_values(predicate)
    if values.has_null or values.has_nan:
        return True
    hashes = cached(predicate, ("bloom", bloom.info), lambda: _set_hashes(predicate.value, bloom.info))
    return hashes is None or bool(bloom.check_hashes(hashes).any())


def _set_hashes(values: Iterable[object], info: LogicalInfo | None) -> np.ndarray | None:
    """The bloom filter hashes of a set's values, all in one pass; None when
    some value cannot be hashed as the column's type (the filter is not used)."""
    if info is None:
        return None
    try:
        return value_hashes(values, info)
    except _CONVERSION_ERRORS:
        return None


# ---------------------------------------------------------------- (c) page index


def page_index_rows(predicate: Predicate, ref: ColumnRef, column_index: ColumnIndex | None,
                    offset_index: OffsetIndex | None, num_rows: int) -> RowRanges:
    """Level (c): the rows of the pages the ColumnIndex cannot rule out (all
    rows without both indexes, or when they disagree on the page count)."""
    if column_index is None or offset_index is None:
        return RowRanges.all(num_rows)
    if len(column_index.null_pages) != len(offset_index.page_locations):
        return RowRanges.all(num_rows)
    if ref.leaf.max_definition_level == 0 and any(column_index.null_pages):
        # A required column has no null page: this index contradicts its column
        # (parquet-mr 1.13 snapshots wrote such), so none of it is trusted.
        return RowRanges.all(num_rows)
    try:
        mask = bounds_match(PageBounds.from_column_index(column_index, ref.info), predicate)
    except _CONVERSION_ERRORS:
        return RowRanges.all(num_rows)
    return rows_of_pages(offset_index, np.flatnonzero(mask), num_rows)


__all__ = [
    "COMPARISONS", "ColumnRef", "Filter", "Predicate", "bind", "bloom_might_match", "bounds_match", "cached",
    "chunk_bounds", "literal_key", "literal_keys", "page_index_rows", "parse_filters", "set_literal_keys",
    "set_values", "statistics_might_match", "trust_bounds", "uses_bloom_filter", "with_timestamp_dates",
]
