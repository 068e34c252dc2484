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

The values of an ``in`` / ``not in`` set become sorted keys once per column
(:class:`~parquet_codec.value_sets.ValueSet`), so that each page is decided
with a binary search whatever the size of the set.

Write side: :func:`build_column_index` turns per-page facts
(:class:`~parquet_codec.offset_index.PageEntry`) into the struct, with
``boundary_order`` computed from the data.
"""

from __future__ import annotations

from bisect import bisect_left
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from parquet_codec.errors import MetadataError, ParquetError
from parquet_codec.format.ttypes import BoundaryOrder, ColumnChunk, ColumnIndex
from parquet_codec.io import ByteSource
from parquet_codec.offset_index import IndexDecryptor, PageEntry, read_index_struct
from parquet_codec.sort_keys import _FLOAT_KINDS, bound_keys, has_order, value_key
from parquet_codec.types import LogicalInfo
from parquet_codec.value_sets import ValueSet, sorted_member

EQ, NE, LT, LE, GT, GE, IN, NOT_IN, IS_NULL, IS_NOT_NULL = (
    "==", "!=", "<", "<=", ">", ">=", "in", "not in", "is null", "is not null")  # fmt: skip
OPS = (EQ, NE, LT, LE, GT, GE, IN, NOT_IN, IS_NULL, IS_NOT_NULL)
#: The comparison with an inexact key, which is its value rounded down
#: (sort_keys.value_key): ``x < v`` is ``x <= key``, ``x >= v`` is ``x > key``.
_NON_STRICT = {LT: LE, GE: GT}


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
            out = (lo == hi) & sorted_member(lo, values.keys)
            if len(values.float_keys):
                lo_f, hi_f = lo.astype(np.float64), hi.astype(np.float64)
                out |= (lo_f == hi_f) & sorted_member(lo_f, values.float_keys)
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
    "EQ", "NE", "LT", "LE", "GT", "GE", "IN", "NOT_IN", "IS_NULL", "IS_NOT_NULL", "OPS",
    "PageBounds", "boundary_order", "build_column_index", "read_column_index", "validate_column_index",
]
