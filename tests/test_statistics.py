"""Statistics: sort orders, NaN and signed zeros, truncation, size statistics."""

from __future__ import annotations

import numpy as np
import pytest

from parquet_codec.arrays import BinaryArray, PrimitiveArray
from parquet_codec.format.ttypes import Type
from parquet_codec.statistics import (
    SIGNED,
    UNDEFINED,
    UNSIGNED,
    Bounds,
    size_counts,
    sort_order,
    to_thrift,
    truncate_max,
    truncate_min,
    value_bounds,
)
from parquet_codec.types import LogicalInfo


def _binary(items: list[bytes]) -> BinaryArray:
    offsets = np.zeros(len(items) + 1, dtype=np.int64)
    np.cumsum([len(i) for i in items], out=offsets[1:])
    return BinaryArray.of(offsets, np.frombuffer(b"".join(items), dtype=np.uint8))


INT32 = LogicalInfo("int", Type.INT32, bit_width=32)
UINT32 = LogicalInfo("int", Type.INT32, bit_width=32, signed=False)
DOUBLE = LogicalInfo("float", Type.DOUBLE, bit_width=64)
STRING = LogicalInfo("string", Type.BYTE_ARRAY)


def test_sort_orders() -> None:
    assert sort_order(INT32) == SIGNED and sort_order(UINT32) == UNSIGNED
    assert sort_order(STRING) == UNSIGNED
    assert sort_order(LogicalInfo("decimal", Type.BYTE_ARRAY, precision=5, scale=0)) == SIGNED
    assert sort_order(LogicalInfo("interval", Type.FIXED_LEN_BYTE_ARRAY, type_length=12)) == UNDEFINED
    assert sort_order(LogicalInfo("int96", Type.INT96)) == UNDEFINED


def test_unsigned_integers_compare_unsigned() -> None:
    values = PrimitiveArray.of(np.array([1, -1, 5], dtype=np.int32))  # -1 is 2**32 - 1 unsigned
    assert value_bounds(values, INT32) == Bounds(-1, 5)
    assert value_bounds(values, UINT32) == Bounds(1, 2**32 - 1)
    stats = to_thrift(value_bounds(values, UINT32), 0, UINT32)
    assert stats.max_value == b"\xff\xff\xff\xff" and stats.max is None  # no legacy field for unsigned


def test_nan_excluded_and_zero_signs() -> None:
    assert value_bounds(PrimitiveArray.of(np.array([np.nan, np.nan])), DOUBLE) is None
    stats = to_thrift(value_bounds(PrimitiveArray.of(np.array([0.0, np.nan, 3.0])), DOUBLE), 2, DOUBLE)
    assert np.frombuffer(stats.min_value, "<f8")[0] == 0 and np.signbit(np.frombuffer(stats.min_value, "<f8")[0])
    stats = to_thrift(value_bounds(PrimitiveArray.of(np.array([-0.0, -3.0])), DOUBLE), 0, DOUBLE)
    assert not np.signbit(np.frombuffer(stats.max_value, "<f8")[0])
    assert stats.min == stats.min_value and stats.null_count == 0  # legacy fields for signed doubles


def test_byte_order_is_unsigned_and_vectorized() -> None:
    rng = np.random.default_rng(5)
    items = [bytes(rng.integers(0, 256, rng.integers(0, 20), dtype=np.uint8)) for _ in range(3000)]
    items += [b"\xff" * 12 + b"\x00", b"\xff" * 12, b""]
    bounds = value_bounds(_binary(items), STRING)
    assert (bounds.min, bounds.max) == (min(items), max(items))
    shared = [b"https://example.com/" + bytes([i % 7, i % 5]) for i in range(500)]
    assert value_bounds(_binary(shared), STRING) == Bounds(min(shared), max(shared))


def test_decimals_compare_as_signed_numbers() -> None:
    info = LogicalInfo("decimal", Type.FIXED_LEN_BYTE_ARRAY, type_length=2, precision=4, scale=0)
    rows = np.array([[0xFF, 0xFE], [0x00, 0x05], [0x80, 0x00]], dtype=np.uint8)  # -2, 5, -32768
    bounds = value_bounds(PrimitiveArray.of(rows), info)
    assert bounds.min[0] == -32768 and bounds.max[0] == 5
    binary = LogicalInfo("decimal", Type.BYTE_ARRAY, precision=10, scale=0)
    b = value_bounds(_binary([b"\xff", b"\x01\x00", b"\x80"]), binary)
    assert (b.min[0], b.max[0]) == (-128, 256)


def test_float16_bounds() -> None:
    info = LogicalInfo("float16", Type.FIXED_LEN_BYTE_ARRAY, type_length=2, bit_width=16)
    raw = np.array([1.5, np.nan, -2.0], dtype="<f2").view(np.uint8).reshape(3, 2)
    stats = to_thrift(value_bounds(PrimitiveArray.of(raw), info), 0, info)
    assert np.frombuffer(stats.min_value, "<f2")[0] == -2.0 and np.frombuffer(stats.max_value, "<f2")[0] == 1.5


def test_truncation() -> None:
    assert truncate_min(b"abcdef", 3, False) == (b"abc", False)
    assert truncate_max(b"abcdef", 3, False) == (b"abd", False)
    assert truncate_max(b"ab\xff\xffz", 4, False) == (b"ac", False)
    assert truncate_max(b"\xff\xff\xff", 2, False) == (b"\xff\xff\xff", True)
    text = "aé€z".encode()
    lo, exact = truncate_min(text, 4, True)
    assert lo == "aé".encode() and not exact
    hi, _ = truncate_max(text, 4, True)
    assert hi.decode() == "aê" and hi > text[: len(hi)]
    stats = to_thrift(Bounds(b"a" * 10, b"b" * 10), 0, STRING, truncate_length=4)
    assert (stats.min_value, stats.max_value) == (b"aaaa", b"bbbc")
    assert stats.is_min_value_exact is False and stats.is_max_value_exact is False


@pytest.mark.parametrize("info", [LogicalInfo("int96", Type.INT96),
                                  LogicalInfo("interval", Type.FIXED_LEN_BYTE_ARRAY, type_length=12)])
def test_no_bounds_without_order(info: LogicalInfo) -> None:
    width = 12
    values = PrimitiveArray.of(np.zeros((3, width), dtype=np.uint8))
    assert value_bounds(values, info) is None
    stats = to_thrift(None, 4, info)
    assert stats.null_count == 4 and stats.min_value is None


def test_size_statistics() -> None:
    values = _binary([b"ab", b"cde"])
    defs = np.array([2, 1, 2, 0], dtype=np.int16)
    reps = np.array([0, 1, 0, 0], dtype=np.int16)
    counts = size_counts(values, defs, reps, 4, 2, 1, Type.BYTE_ARRAY)
    assert counts.unencoded_bytes == 5
    assert counts.def_histogram == [1, 1, 2] and counts.rep_histogram == [3, 1]
    flat = size_counts(PrimitiveArray.of(np.arange(3)), None, None, 3, 1, 0, Type.INT64)
    assert (flat.unencoded_bytes, flat.rep_histogram, flat.def_histogram) == (None, None, None)
