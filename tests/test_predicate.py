"""The filter model (pyarrow's form), its validation, and each evaluation level on its own."""

from __future__ import annotations

import datetime as dt
import io
import math
from decimal import Decimal

import numpy as np
import pytest

import parquet_codec as pc
from parquet_codec.arrays import BinaryArray, PrimitiveArray
from parquet_codec.bloom import Sbbf
from parquet_codec.errors import ParquetError, SchemaError
from parquet_codec.format.ttypes import (
    ColumnMetaData,
    ColumnOrder,
    LogicalType,
    MicroSeconds,
    Statistics,
    TimestampType,
    TimeUnit,
    Type,
    TypeDefinedOrder,
)
from parquet_codec.levels import LeafData
from parquet_codec.offset_index import PageEntry, RowRanges, build_offset_index
from parquet_codec.page_index import build_column_index
from parquet_codec.predicate import (
    ColumnRef,
    Filter,
    Predicate,
    bind,
    bloom_might_match,
    literal_key,
    page_index_rows,
    parse_filters,
    statistics_might_match,
)
from parquet_codec.row_filter import rows_match, take_rows
from parquet_codec.schema import Schema, group, list_, primitive
from parquet_codec.statistics import encode_bound
from parquet_codec.types import LogicalInfo, logical_info
from tests.support.footer import with_empty_bloom_filters

INT = LogicalInfo("int", Type.INT64, bit_width=64)
FLOAT = LogicalInfo("float", Type.DOUBLE, bit_width=64)
STRING = LogicalInfo("string", Type.BYTE_ARRAY)
TYPE_ORDER = [ColumnOrder(TYPE_ORDER=TypeDefinedOrder())]


def _schema() -> Schema:
    return Schema.from_fields([
        primitive("i", "INT64"),
        primitive("s", "BYTE_ARRAY", logical_type="STRING"),
        group("st", [primitive("a", "INT32")]),
        list_("l", primitive("element", "INT32")),
        primitive("ts", "INT64", logical_type=LogicalType(TIMESTAMP=TimestampType(
            isAdjustedToUTC=True, unit=TimeUnit(MICROS=MicroSeconds())))),
    ])


def _ref(schema: Schema, name: str) -> ColumnRef:
    leaf = schema.leaf(name)
    return ColumnRef(leaf, logical_info(leaf.element))


# ---------------------------------------------------------------- model and validation


def test_parse_and_list_or_list_and_aliases():
    f = parse_filters([("x", ">", 5), ("y", "=", "a")])
    assert f == Filter(((Predicate("x", ">", 5), Predicate("y", "==", "a")),))
    f = parse_filters([[("x", "in", [1, 2])], [("y", "==", None)], [("z", "!=", None)]])
    assert [c[0] for c in f.clauses] == [Predicate("x", "in", (1, 2)), Predicate("y", "is null"),
                                         Predicate("z", "is not null")]
    assert parse_filters(None) is None
    assert parse_filters([("x", "IS NULL", 0)]).clauses[0][0] == Predicate("x", "is null")
    assert f.columns == ["x", "y", "z"]
    assert str(parse_filters([("x", "<", 3), ("y", "in", {4})])) == "(x < 3 AND y in [4])"


@pytest.mark.parametrize("bad", [[], [[]], "x > 5", [("x", ">")], [("x", "~", 1)], [("x", "in", "abc")],
                                 [(1, "==", 2)], [[("x", "==", 1)], "y"]])
def test_malformed_filters_raise_schema_error(bad):
    with pytest.raises(SchemaError):
        parse_filters(bad)


def test_bind_resolves_leaves_and_rejects_what_cannot_be_filtered():
    schema = _schema()
    refs = bind(parse_filters([("i", ">", 1), ("st.a", "==", 2)]), schema)
    assert refs["st.a"].leaf.path == ("st", "a")
    for bad in ([("nope", "==", 1)], [("st", "==", 1)], [("l.list.element", "==", 1)], [("i", "==", "text")],
                [("s", "<", 5)], [("ts", ">", dt.datetime(2020, 1, 1))], [("i", ">", None)]):
        with pytest.raises(SchemaError):
            bind(parse_filters(bad), schema)
    bind(parse_filters([("ts", ">", dt.datetime(2020, 1, 1, tzinfo=dt.UTC))]), schema)


def test_literal_keys_are_floored_and_flag_inexact_values():
    dec = LogicalInfo("decimal", Type.INT64, precision=10, scale=2)
    assert literal_key(Decimal("1.005"), dec) == (100, False)
    assert literal_key(Decimal("-1.005"), dec) == (-101, False)
    assert literal_key(Decimal("1.5"), dec) == (150, True)
    assert literal_key(3, dec) == (300, True)
    ms = LogicalInfo("timestamp", Type.INT64, unit="ms", utc=False)
    assert literal_key(dt.datetime(1970, 1, 1, 0, 0, 0, 1500), ms) == (1, False)


# ---------------------------------------------------------------- (a) statistics


def _meta(info: LogicalInfo, lo=None, hi=None, nulls=0, num_values=100, **stats) -> ColumnMetaData:
    def enc(v):
        return (v if isinstance(v, bytes) else encode_bound(v, info))
    s = Statistics(null_count=nulls, min_value=None if lo is None else enc(lo),
                   max_value=None if hi is None else enc(hi), **stats)
    return ColumnMetaData(type=info.physical_type, num_values=num_values, statistics=s)


def _ref_of(info: LogicalInfo, name: str = "x") -> ColumnRef:
    physical = Type._VALUES_TO_NAMES[info.physical_type]
    logical = "STRING" if info.kind == "string" else None
    leaf = Schema.from_fields([primitive(name, physical, logical_type=logical, type_length=info.type_length)]).leaf(name)
    return ColumnRef(leaf, info)


def _stats(filters, info, meta, orders=TYPE_ORDER) -> bool:
    ref = _ref_of(info)
    return parse_filters(filters).might_match(lambda p: statistics_might_match(p, ref, meta, orders))


def test_statistics_prune_by_bounds_and_nulls():
    meta = _meta(INT, 10, 20, nulls=0)
    assert _stats([("x", "==", 15)], INT, meta)
    assert not _stats([("x", "==", 21)], INT, meta)
    assert not _stats([("x", "<", 10)], INT, meta)
    assert _stats([("x", "<=", 10)], INT, meta)
    assert not _stats([("x", "is null", None)], INT, meta)
    assert not _stats([("x", "in", [1, 2, 30])], INT, meta)
    assert _stats([[("x", "==", 1)], [("x", ">", 19.5)]], INT, meta)
    assert not _stats([("x", "!=", 10)], INT, _meta(INT, 10, 10))
    # A null is "not in" a set without None (pyarrow), so a chunk with nulls stays.
    assert _stats([("x", "not in", [10])], INT, _meta(INT, 10, 10, nulls=3))
    assert not _stats([("x", "not in", [10, None])], INT, _meta(INT, 10, 10, nulls=3))


def test_all_null_chunks_and_missing_statistics():
    all_null = _meta(INT, nulls=100, num_values=100)
    assert not _stats([("x", ">", 0)], INT, all_null)
    assert _stats([("x", "==", None)], INT, all_null)
    assert _stats([("x", "in", [1, None])], INT, all_null)
    none = ColumnMetaData(type=Type.INT64, num_values=100, statistics=None)
    assert _stats([("x", "==", 5)], INT, none)
    assert _stats([("x", "==", 5)], INT, _meta(INT, nulls=0))  # no bounds


def test_nan_and_signed_zero_bounds_never_drop_matches():
    # Writers that put NaN in bounds: unusable, keep.
    assert _stats([("x", "==", 5.0)], FLOAT, _meta(FLOAT, math.nan, math.nan))
    assert _stats([("x", ">", 100.0)], FLOAT, _meta(FLOAT, 1.0, math.nan))
    # NaN matches "in [nan]" and "!=" but is never a bound.
    assert _stats([("x", "in", [math.nan])], FLOAT, _meta(FLOAT, 1.0, 2.0))
    assert _stats([("x", "!=", 1.0)], FLOAT, _meta(FLOAT, 1.0, 1.0))
    assert not _stats([("x", "!=", 1.0)], FLOAT, _meta(FLOAT, 1.0, 1.0, nan_count=0))
    # -0.0 == +0.0: a chunk bounded by either zero matches both.
    for lo, hi in ((-0.0, -0.0), (0.0, 0.0), (-0.0, 0.0)):
        assert _stats([("x", "==", 0.0)], FLOAT, _meta(FLOAT, lo, hi))
        assert _stats([("x", "==", -0.0)], FLOAT, _meta(FLOAT, lo, hi))
        assert not _stats([("x", "<", -0.0)], FLOAT, _meta(FLOAT, lo, hi))


def test_truncated_and_legacy_binary_bounds():
    # Truncated: min a prefix of the true min, max a larger string; both inclusive bounds.
    meta = _meta(STRING, b"abc", b"abd", is_min_value_exact=False, is_max_value_exact=False)
    assert _stats([("x", "==", "abcdefgh")], STRING, meta)
    assert _stats([("x", "<", "abcd")], STRING, meta)
    assert _stats([("x", ">=", "abd")], STRING, meta)
    assert not _stats([("x", ">", "abd")], STRING, meta)
    assert not _stats([("x", "<", "abc")], STRING, meta)
    # Without column orders, byte-array bounds may be signed-order garbage: never prune on them.
    assert _stats([("x", ">", "abd")], STRING, meta, orders=None)
    assert not _stats([("x", ">", 30)], INT, _meta(INT, 10, 20), orders=None)
    # Deprecated min/max fields: trusted for signed numbers only.
    legacy = ColumnMetaData(type=Type.INT64, num_values=10, statistics=Statistics(
        null_count=0, min=encode_bound(1, INT), max=encode_bound(2, INT)))
    assert not _stats([("x", ">", 2)], INT, legacy, orders=None)


# ---------------------------------------------------------------- (b) bloom filters


def test_bloom_filter_level():
    bloom = Sbbf.for_column(100, 0.01, info=STRING)
    bloom.insert_values(BinaryArray.of(np.array([0, 3, 6]), np.frombuffer(b"foobar", np.uint8)), Type.BYTE_ARRAY)

    def check(filters):
        return parse_filters(filters).might_match(lambda p: bloom_might_match(p, bloom))

    assert check([("x", "==", "foo")]) and check([("x", "in", ["zzz", "bar"])])
    assert not check([("x", "==", "nothere")]) and not check([("x", "in", ["nope", "nada"])])
    assert check([("x", "in", ["nope", None])])  # nulls are not recorded
    assert check([("x", ">", "zzz")])  # not an equality: the filter cannot say
    assert check([("x", "==", "nothere")]) is False
    assert bloom_might_match(Predicate("x", "==", "q"), None)


def test_bloom_filter_of_a_boolean_column_proves_nothing():
    # parquet-java writes bloom filters on BOOLEAN columns (parquet.bloom.filter.enabled)
    # that it never fills: every lookup misses, yet the chunk holds both values.
    empty = Sbbf(32, info=LogicalInfo("boolean", Type.BOOLEAN))
    assert bloom_might_match(Predicate("flag", "==", True), empty)
    assert bloom_might_match(Predicate("flag", "in", (True, False)), empty)
    assert not bloom_might_match(Predicate("x", "==", 5), Sbbf(32, info=INT))


def test_read_keeps_rows_an_empty_boolean_bloom_filter_would_hide():
    out = io.BytesIO()
    pc.write_table({"id": list(range(10)), "flag": [i % 3 == 0 for i in range(10)]}, out, row_group_size=4)
    data = with_empty_bloom_filters(out.getvalue(), column=1)
    assert pc.ParquetFile(io.BytesIO(data)).bloom_filter(0, "flag") is not None
    for filters, wanted in (([("flag", "==", True)], True), ([("flag", "in", [True])], True),
                            ([("flag", "==", False)], False)):
        got = pc.read_table(io.BytesIO(data), filters=filters, columns=["id"]).column("id").to_pylist()
        assert got == [i for i in range(10) if (i % 3 == 0) == wanted], filters


# ---------------------------------------------------------------- (c) page index


def _indexes(bounds, info, rows_per_page=10, nulls=None):
    pages = []
    for i, (lo, hi) in enumerate(bounds):
        null = lo is None
        pages.append(PageEntry(offset=100 + 50 * i, compressed_size=50, first_row_index=rows_per_page * i,
                               null_count=(nulls or [0] * len(bounds))[i] if not null else rows_per_page,
                               null_page=null, min_value=None if null else encode_bound(lo, info),
                               max_value=None if null else encode_bound(hi, info)))
    return build_column_index(pages, info), build_offset_index(pages)


def test_page_index_rows_and_combination():
    ci, oi = _indexes([(0, 9), (10, 19), (20, 29), (None, None)], INT, nulls=[0, 2, 0, 10])
    ref = _ref_of(INT)

    def rows(filters):
        return parse_filters(filters).row_ranges(lambda p: page_index_rows(p, ref, ci, oi, 40), 40)

    assert rows([("x", "==", 15)]) == RowRanges.of([10], [20])
    assert rows([("x", ">=", 15), ("x", "<", 22)]) == RowRanges.of([10], [30])
    assert rows([[("x", "<", 3)], [("x", ">", 25)]]) == RowRanges.of([0, 20], [10, 30])
    assert rows([("x", "is null", None)]) == RowRanges.of([10, 30], [20, 40])
    assert rows([("x", "not in", [5])]) == RowRanges.of([0], [40])
    assert rows([("x", "==", 100)]) == RowRanges.empty()
    assert page_index_rows(Predicate("x", "==", 1), ref, None, oi, 40) == RowRanges.all(40)


# ---------------------------------------------------------------- (d) rows


def _leaf(values, info, physical=None):
    """LeafData of an optional column from Python values (None is null)."""
    from parquet_codec.types import from_pylist

    present = [v for v in values if v is not None]
    array = from_pylist(present, info)
    array.validity = None
    defs = np.array([v is not None for v in values], dtype=np.int16)
    return LeafData(defs, None, array, len(values))


def _rows(filters, info, values):
    ref = _ref_of(info)
    data = _leaf(values, info)
    return parse_filters(filters).row_mask(lambda p: rows_match(p, ref, data), len(values)).tolist()


def test_rows_numbers_nan_zero_and_nulls():
    vals = [1.0, math.nan, None, -0.0, 0.0, 5.5]
    assert _rows([("x", ">", 0.5)], FLOAT, vals) == [True, False, False, False, False, True]
    assert _rows([("x", "==", 0.0)], FLOAT, vals) == [False, False, False, True, True, False]
    assert _rows([("x", "in", [0.0])], FLOAT, vals) == [False, False, False, False, True, False]
    assert _rows([("x", "!=", 1.0)], FLOAT, vals) == [False, True, False, True, True, True]
    assert _rows([("x", "in", [math.nan])], FLOAT, vals) == [False, True, False, False, False, False]
    assert _rows([("x", "not in", [1.0])], FLOAT, vals) == [False, True, True, True, True, True]
    assert _rows([("x", "not in", [1.0, None])], FLOAT, vals) == [False, True, False, True, True, True]
    assert _rows([("x", "==", None)], FLOAT, vals) == [False, False, True, False, False, False]
    assert _rows([("x", "in", [None, 5.5])], FLOAT, vals) == [False, False, True, False, False, True]
    assert _rows([("x", "<", 2**70)], INT, [1, None, -5]) == [True, False, True]
    assert _rows([("x", "in", list(range(100)))], INT, [1, None, 500]) == [True, False, False]


def test_rows_strings_by_utf8_byte_order():
    vals = ["", "a", "ab", "b", "é", "\U0001F600", None, "abc"]
    expect = [v is not None and v.encode() < b"ab" for v in vals]
    assert _rows([("x", "<", "ab")], STRING, vals) == expect
    assert _rows([("x", ">=", "é")], STRING, vals) == [v is not None and v >= "é" for v in vals]
    assert _rows([("x", "==", "ab")], STRING, vals) == [v == "ab" for v in vals]
    many = [f"k{i}" for i in range(40)] + ["a"]
    assert _rows([("x", "in", many)], STRING, vals) == [v == "a" for v in vals]


def test_rows_decimals_dates_timestamps():
    for physical, length in ((Type.INT32, None), (Type.FIXED_LEN_BYTE_ARRAY, 5), (Type.BYTE_ARRAY, None)):
        dec = LogicalInfo("decimal", physical, type_length=length, precision=9, scale=2)
        vals = [Decimal("1.00"), Decimal("-3.50"), None, Decimal("1.01")]
        assert _rows([("x", ">", Decimal("1.005"))], dec, vals) == [False, False, False, True]
        assert _rows([("x", "<=", Decimal("1.005"))], dec, vals) == [True, True, False, False]
        assert _rows([("x", "==", Decimal("1.005"))], dec, vals) == [False] * 4
        assert _rows([("x", ">=", -3.5)], dec, vals) == [True, True, False, True]
    date = LogicalInfo("date", Type.INT32)
    assert _rows([("x", ">=", dt.date(2020, 1, 2))], date, [dt.date(2020, 1, 1), dt.date(2020, 1, 2)]) == [False, True]
    ts = LogicalInfo("timestamp", Type.INT64, unit="ms", utc=True)
    t0 = dt.datetime(2020, 1, 1, tzinfo=dt.UTC)
    vals = [t0, t0 + dt.timedelta(milliseconds=1), None]
    finer = t0 + dt.timedelta(microseconds=500)
    assert _rows([("x", ">", finer)], ts, vals) == [False, True, False]
    assert _rows([("x", "<", finer)], ts, vals) == [True, False, False]
    assert _rows([("x", "!=", finer)], ts, vals) == [True, True, False]


def test_take_rows_keeps_whole_records():
    # Two-level list column: records [[1, 2], [], None, [3]] -> rep/def levels.
    defs = np.array([3, 3, 1, 0, 3], dtype=np.int16)
    reps = np.array([0, 1, 0, 0, 0], dtype=np.int16)
    data = LeafData(defs, reps, PrimitiveArray.of(np.array([1, 2, 3])), 5)
    out = take_rows(data, np.array([True, False, True, True]), 3)
    assert out.def_levels.tolist() == [3, 3, 0, 3] and out.rep_levels.tolist() == [0, 1, 0, 0]
    assert out.values.values.tolist() == [1, 2, 3] and out.num_values == 4


def test_conversion_errors_are_parquet_errors():
    with pytest.raises(ParquetError):
        bind(parse_filters([("i", "in", ["a", 1])]), _schema())


# ---------------------------------------------------------------- large sets


def _member_reference(keys, values, info):
    """Set membership one member at a time, as it was before sets were converted once."""
    from parquet_codec import row_filter

    out = np.zeros(len(keys), dtype=bool)
    members = []
    for value in values:
        if value is None:
            continue
        if isinstance(value, (float, np.floating)) and math.isnan(value):
            if isinstance(keys, np.ndarray) and keys.dtype.kind == "f":
                out |= np.isnan(keys)
            continue
        key, exact = row_filter._key(value, info)
        if exact:
            members.append(key)
    floats = isinstance(keys, np.ndarray) and keys.dtype.kind == "f"
    for key in members:
        if floats and isinstance(key, (int, float)) and key == 0:
            out |= (keys == 0) & (np.signbit(keys) == (math.copysign(1.0, key) < 0))
        else:
            out |= row_filter._compare(keys, "==", key, True)
    return out


@pytest.mark.parametrize("name", ["int64", "int32", "int8", "uint32", "uint64", "float", "double", "float16", "bool",
                                  "string", "binary", "fixed", "uuid", "dec32", "dec64", "decflba", "decbin", "ts_ms",
                                  "ts_us_utc", "date", "int96"])
def test_set_membership_of_rows_matches_one_comparison_per_member(name):
    import random

    from parquet_codec.row_filter import column_keys, values_match
    from parquet_codec.types import from_pylist
    from tests.test_column_index import INFOS, _candidates, _stored

    info = INFOS[name]
    rng = random.Random(name)
    stored, candidates = _stored(name), _candidates(name)
    for _ in range(40):
        column = from_pylist([rng.choice(stored) for _ in range(rng.randint(0, 30))], info)
        values = tuple(rng.choice(candidates) for _ in range(rng.randint(0, 12)))
        try:
            expected = _member_reference(column_keys(column, info), values, info).tolist()
        except (ParquetError, ValueError, TypeError, OverflowError):  # some value cannot be compared
            with pytest.raises((ParquetError, ValueError, TypeError, OverflowError)):
                values_match(Predicate("x", "in", values), info, column)
            continue
        assert values_match(Predicate("x", "in", values), info, column).tolist() == expected, values
        assert values_match(Predicate("x", "not in", values), info, column).tolist() == [not e for e in expected]
