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

Write side: :func:`build_column_index` turns per-page facts
(:class:`~parquet_codec.offset_index.PageEntry`) into the struct, with
``boundary_order`` computed from the data.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from parquet_codec.errors import CorruptFileError, MetadataError, ParquetError
from parquet_codec.format.ttypes import BoundaryOrder, ColumnChunk, ColumnIndex, Type
from parquet_codec.io import ByteSource
from parquet_codec.offset_index import IndexDecryptor, PageEntry, read_index_struct
from parquet_codec.types import LogicalInfo, from_pylist, to_pylist

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
        satisfy a comparison, as in pyarrow's filters."""
        if op not in OPS:
            raise ValueError(f"unknown filter operator {op!r}; expected one of {OPS}")
        if op == IS_NULL or (op == EQ and value is None):
            return self._may_have_nulls()
        if op == IS_NOT_NULL or (op == NE and value is None):
            return ~self.null_pages
        if op in (IN, NOT_IN):
            if isinstance(value, (str, bytes)) or not hasattr(value, "__iter__"):
                raise TypeError(f"{op!r} takes a collection of values, got {value!r}")
            return self._set_match(op, list(value))
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

    def _set_match(self, op: str, values: list) -> np.ndarray:
        has_null = any(v is None for v in values)
        values = [v for v in values if v is not None]
        if op == IN:
            result = np.zeros(len(self), dtype=bool)
            for v in values:
                result |= self.might_match(EQ, v)
            return result | (self._may_have_nulls() if has_null else False)
        # not in: a page is skipped only when every value in it equals one excluded value.
        result = ~self.null_pages
        for v in values:
            result &= self.might_match(NE, v)
        return result


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
    "PageBounds", "bound_keys", "boundary_order", "build_column_index", "has_order",
    "read_column_index", "validate_column_index", "value_key",
]
