"""Set membership on page bounds: :class:`ValueSet` (keys converted once, pages
decided by binary search) answers as one comparison per member would."""

from __future__ import annotations

import datetime as dt
import math
import random
import uuid
from decimal import Decimal

import numpy as np
import pytest

from parquet_codec import column_index
from parquet_codec.column_index import (
    EQ,
    IN,
    NE,
    NOT_IN,
    PageBounds,
)
from parquet_codec.errors import ParquetError
from parquet_codec.format.ttypes import BoundaryOrder, ColumnIndex, Type
from parquet_codec.sort_keys import bound_keys, plain_number, value_key
from parquet_codec.types import LogicalInfo, from_pylist
from parquet_codec.value_sets import SetValues, ValueSet, value_keys

UTC = dt.UTC
ERRORS = (ParquetError, ValueError, TypeError, OverflowError)
T0 = dt.datetime(2021, 1, 1)

INFOS = {
    "int64": LogicalInfo("int", Type.INT64, bit_width=64),
    "int32": LogicalInfo("int", Type.INT32, bit_width=32),
    "int8": LogicalInfo("int", Type.INT32, bit_width=8),
    "uint32": LogicalInfo("int", Type.INT32, bit_width=32, signed=False),
    "uint64": LogicalInfo("int", Type.INT64, bit_width=64, signed=False),
    "float": LogicalInfo("float", Type.FLOAT, bit_width=32),
    "double": LogicalInfo("float", Type.DOUBLE, bit_width=64),
    "float16": LogicalInfo("float16", Type.FIXED_LEN_BYTE_ARRAY, type_length=2, bit_width=16),
    "bool": LogicalInfo("boolean", Type.BOOLEAN),
    "string": LogicalInfo("string", Type.BYTE_ARRAY),
    "binary": LogicalInfo("binary", Type.BYTE_ARRAY),
    "fixed": LogicalInfo("fixed_binary", Type.FIXED_LEN_BYTE_ARRAY, type_length=3),
    "uuid": LogicalInfo("uuid", Type.FIXED_LEN_BYTE_ARRAY, type_length=16),
    "dec32": LogicalInfo("decimal", Type.INT32, precision=9, scale=2),
    "dec64": LogicalInfo("decimal", Type.INT64, precision=18, scale=3),
    "decflba": LogicalInfo("decimal", Type.FIXED_LEN_BYTE_ARRAY, type_length=5, precision=9, scale=2),
    "decbin": LogicalInfo("decimal", Type.BYTE_ARRAY, precision=20, scale=4),
    "ts_ms": LogicalInfo("timestamp", Type.INT64, unit="ms", utc=False),
    "ts_us_utc": LogicalInfo("timestamp", Type.INT64, unit="us", utc=True),
    "date": LogicalInfo("date", Type.INT32),
    "int96": LogicalInfo("int96", Type.INT96),
}


def _candidates(name: str) -> list:
    """Values of the column's type (bounds are drawn from these) and others a filter may hold."""
    info = INFOS[name]
    kind = info.kind
    if kind == "int":
        small = list(range(-6, 7)) if info.signed else list(range(0, 13))
        top = 2**info.bit_width if not info.signed else 2 ** (info.bit_width - 1)
        return small + [top - 1, -top, top, 2**70, -(2**70), 1.5, 2.0, -0.0, math.nan, np.int32(3),
                        np.uint64(5), np.int64(-2), np.float32(4.0), np.float16(1.5), np.uint64(2**63 + 1),
                        np.longdouble(2), "x", True, Decimal("2"), Decimal("2.5"), None]
    if kind in ("float", "float16"):
        return [-2.5, -1.0, -0.0, 0.0, 0.5, 1.0, 3.0, 1e10, math.inf, -math.inf, math.nan, 0, 1, -3, 2**60,
                10**400, np.float32(0.5), np.float16(-0.0), np.float64(3.0), np.int64(1), np.float32(math.nan),
                np.longdouble(0.5), "x", None, True]
    if kind == "boolean":
        return [True, False, None, 1, 0, "x"]
    if kind in ("string", "binary"):
        words = ["", "a", "ab", "b", "a\x00", "é", "zz", "abcdefghij", "abcdefghik"]
        return words + [w.encode() for w in words] + [b"\xff\x00", 5, None, "\ud800"]
    if kind == "fixed_binary":
        return [b"abc", b"ab\x00", b"\x00\x00\x00", b"zzz", b"abd", b"ab", "abc", None, 3]
    if kind == "uuid":
        ids = [uuid.UUID(int=i) for i in (0, 1, 2**64, 2**127)]
        return ids + [u.bytes for u in ids] + ["nope", None]
    if kind == "decimal":
        return [Decimal("1.00"), Decimal("-3.50"), Decimal("1.005"), Decimal("0"), Decimal("12.34"), 1, -3, 0,
                2.5, 0.1, Decimal("1e30"), 10**25, Decimal("NaN"), "1", None, True]
    if kind == "timestamp":
        aware = info.utc
        base = T0.replace(tzinfo=UTC) if aware else T0
        return [base + dt.timedelta(milliseconds=k) for k in range(-3, 4)] + [
            base + dt.timedelta(microseconds=1500), base + dt.timedelta(days=400), np.datetime64("2021-01-01"),
            5, None, "x", T0 if aware else T0.replace(tzinfo=UTC)]
    if kind == "date":
        d0 = dt.date(2021, 1, 1)
        return [d0 + dt.timedelta(days=k) for k in range(-3, 4)] + [T0, np.datetime64("2021-01-02"), 5, None, "x"]
    if kind == "int96":
        return [T0 + dt.timedelta(seconds=k) for k in range(4)] + [None, 3]
    raise AssertionError(name)


def _stored(name: str) -> list:
    """The candidates a column of this type can store as they are (bound material)."""
    out = []
    for v in _candidates(name):
        if v is None:
            continue
        try:
            key, exact = value_key(v, INFOS[name])
            _raw(v, INFOS[name])
        except ERRORS:
            continue
        if (exact or INFOS[name].kind == "int96") and not isinstance(v, np.generic):
            out.append(v)
    return out


def _raw(value: object, info: LogicalInfo) -> bytes:
    physical = from_pylist([value], info)
    if hasattr(physical, "offsets"):
        return np.asarray(physical.data[int(physical.offsets[0]) : int(physical.offsets[1])]).tobytes()
    return np.ascontiguousarray(physical.values).tobytes()


def _random_bounds(name: str, rng: random.Random, pages: int) -> PageBounds:
    info = INFOS[name]
    stored = [v for v in _stored(name) if not (isinstance(v, float) and math.isnan(v))]
    nulls, mins, maxs, null_counts, nan_counts = [], [], [], [], []
    for _ in range(pages):
        if rng.random() < 0.15:
            nulls.append(True)
            mins.append(b"")
            maxs.append(b"")
            null_counts.append(10)
            nan_counts.append(0)
            continue
        a, b = rng.choice(stored), rng.choice(stored)
        if rng.random() < 0.3:
            b = a
        if info.kind in ("float", "float16") and rng.random() < 0.2:
            b = math.nan if rng.random() < 0.5 else a  # NaN bounds are not usable
            a = -0.0 if rng.random() < 0.5 else a
        if info.kind in ("float", "float16") and rng.random() < 0.15:
            a, b = rng.choice([(-0.0, 0.0), (0.0, 0.0), (-0.0, -0.0), (0.0, -0.0)])
        ra, rb = _raw(a, info), _raw(b, info)
        ka, kb = bound_keys([ra, rb], info)[0].tolist()
        with np.errstate(invalid="ignore"):
            if isinstance(ka, (int, float, bytes)) and ka > kb and rng.random() < 0.9:
                ra, rb = rb, ra  # mostly ordered; some inverted (unusable)
        nulls.append(False)
        mins.append(ra)
        maxs.append(rb)
        null_counts.append(rng.choice([0, 0, 3]))
        nan_counts.append(rng.choice([0, 0, 1]))
    index = ColumnIndex(null_pages=nulls, min_values=mins, max_values=maxs, boundary_order=BoundaryOrder.UNORDERED,
                        null_counts=null_counts if rng.random() < 0.8 else None,
                        nan_counts=nan_counts if info.kind in ("float", "float16") and rng.random() < 0.7 else None)
    return PageBounds.from_column_index(index, info)


def _reference(bounds: PageBounds, op: str, values: list) -> np.ndarray:
    """One comparison per member, as sets were matched before ValueSet."""
    has_null = any(v is None for v in values)
    values = [v for v in values if v is not None]
    if op == IN:
        result = np.zeros(len(bounds), dtype=bool)
        for v in values:
            result |= bounds.might_match(EQ, v)
        return result | (bounds._may_have_nulls() if has_null else False)
    result = ~bounds.null_pages
    for v in values:
        result &= bounds.might_match(NE, v)
    if bounds.info.kind in ("float", "float16"):
        # Membership is by value as stored: a page bounded by zeros may hold either zero,
        # and is skipped only when both are excluded.
        signs = set()
        for v in values:
            try:
                key, exact = value_key(v, bounds.info)
            except ERRORS:
                continue
            if exact and isinstance(key, (int, float, np.number)) and key == 0:
                signs.add(bool(np.signbit(float(key))))
        if signs != {True, False}:
            with np.errstate(invalid="ignore"):
                result |= ~bounds.null_pages & (bounds.min == 0) & (bounds.max == 0)
    return result


def _outcome(call):
    try:
        return call().tolist()
    except Exception as exc:  # noqa: BLE001 - the same error must come out of both
        return type(exc)


@pytest.mark.parametrize("name", sorted(INFOS))
def test_value_sets_match_one_comparison_per_member(name):
    rng = random.Random(name)
    candidates = _candidates(name)
    for _ in range(60):
        bounds = _random_bounds(name, rng, rng.randint(1, 8))
        values = [rng.choice(candidates) for _ in range(rng.randint(0, 12))]
        for op in (IN, NOT_IN):
            expected = _outcome(lambda: _reference(bounds, op, values))  # noqa: B023
            assert _outcome(lambda: bounds.might_match(op, values)) == expected, (op, values)  # noqa: B023
            keys = ValueSet(SetValues(values), bounds.info)
            assert _outcome(lambda: bounds.might_match(op, keys)) == expected, (op, values)  # noqa: B023


@pytest.mark.parametrize("name", sorted(INFOS))
def test_value_keys_convert_as_value_key_does_one_value_at_a_time(name):
    info = INFOS[name]
    values = [v for v in _candidates(name) if v is not None and plain_number(type(v), info) is None] * 3
    keys, exact, failed = value_keys(values, info)
    for i, v in enumerate(values):
        try:
            key, ok = value_key(v, info)
        except ERRORS:
            assert failed[i], v
            continue
        assert not failed[i] and exact[i] == ok, v
        assert keys[i] == key or isinstance(key, (float, np.floating)) and math.isnan(key), v


def test_a_not_in_set_skips_a_page_of_zeros_only_when_both_zeros_are_excluded():
    info = INFOS["double"]
    index = ColumnIndex(null_pages=[False], min_values=[_raw(-0.0, info)], max_values=[_raw(0.0, info)],
                        boundary_order=BoundaryOrder.ASCENDING, null_counts=[0], nan_counts=[0])
    bounds = PageBounds.from_column_index(index, info)
    assert bounds.might_match(NOT_IN, [0.0]).tolist() == [True]  # the page may hold -0.0
    assert bounds.might_match(NOT_IN, [-0.0]).tolist() == [True]
    assert bounds.might_match(NOT_IN, [0.0, -0.0]).tolist() == [False]
    assert bounds.might_match(NOT_IN, [1.0]).tolist() == [True]


def test_large_sets_are_decided_without_one_comparison_per_member(monkeypatch):
    info = INFOS["int64"]
    lo = np.array([0, 100, 10**6, -50], dtype="<i8")
    hi = np.array([9, 199, 2 * 10**6, -40], dtype="<i8")
    index = ColumnIndex(null_pages=[False] * 4, min_values=[v.tobytes() for v in lo],
                        max_values=[v.tobytes() for v in hi], boundary_order=BoundaryOrder.UNORDERED,
                        null_counts=[0] * 4)
    bounds = PageBounds.from_column_index(index, info)
    calls = []
    original = PageBounds._compare
    monkeypatch.setattr(PageBounds, "_compare", lambda self, *a: calls.append(a) or original(self, *a))
    monkeypatch.setattr(column_index, "value_key", lambda *a: calls.append(a) or value_key(*a))
    values = list(range(150, 1_000_150, 5))
    assert bounds.might_match(IN, values).tolist() == [False, True, True, False]
    assert bounds.might_match(NOT_IN, values).tolist() == [True, True, True, True]
    assert bounds.might_match(IN, [*values[:9], 2.0, np.int32(-45)]).tolist() == [True, True, False, True]
    assert calls == []
