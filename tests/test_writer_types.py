"""Writer type options (stored_types.py) against pyarrow as the oracle: version,
coerce_timestamps, allow_truncated_timestamps, use_deprecated_int96_timestamps,
store_decimal_as_integer and write_time_adjusted_to_utc.

Each case writes the same pyarrow table with ``pc.write_table`` and
``pq.write_table`` and the same options, then checks that both raise or
neither does, and otherwise the footer schema elements (physical, logical and
converted types), the values pyarrow reads back and the format version.
pyarrow writes with ``store_schema=False``: the ARROW:schema entry (which this
package does not write) would otherwise change how pyarrow reads its own file.
"""

from __future__ import annotations

import datetime as dt
import decimal

import numpy as np
import pytest

import parquet_codec as pc
from parquet_codec.errors import ParquetError
from parquet_codec.format.ttypes import ConvertedType, Type
from parquet_codec.temporal import int96_parts

pa = pytest.importorskip("pyarrow")
pq = pytest.importorskip("pyarrow.parquet")

D = decimal.Decimal


def _outcome(write, path):
    try:
        write(path)
    except Exception as exc:  # noqa: BLE001 - whatever each library raises is compared below
        return exc
    return (pc.ParquetFile(path).schema.to_elements(), pq.read_table(path).to_pylist(),
            pq.ParquetFile(path).metadata.format_version)


def _local_time_converted(ours, theirs) -> bool:
    """The one known difference: a TIME with isAdjustedToUTC=false gets the
    legacy TIME_MILLIS/TIME_MICROS converted type here (LogicalTypes.md
    forward-compatibility tables, converted_types.py); pyarrow writes none."""
    time = theirs.logicalType.TIME if theirs.logicalType is not None else None
    return (time is not None and not time.isAdjustedToUTC and theirs.converted_type is None
            and ours.converted_type in (ConvertedType.TIME_MILLIS, ConvertedType.TIME_MICROS)
            and ours.logicalType == theirs.logicalType and ours.type == theirs.type)


def check_like_pyarrow(tmp_path, table, **options):
    """Write ``table`` both ways; assert the same outcome. Returns ours (an exception or the result)."""
    theirs = _outcome(lambda p: pq.write_table(table, p, store_schema=False, **options), tmp_path / "pa.parquet")
    ours = _outcome(lambda p: pc.write_table(table, p, **options), tmp_path / "pc.parquet")
    if isinstance(theirs, Exception) or isinstance(ours, Exception):
        assert isinstance(theirs, Exception) and isinstance(ours, Exception), (options, theirs, ours)
        if isinstance(ours, Exception):
            assert isinstance(ours, (ParquetError, TypeError)), ours
        return ours
    (our_elements, our_values, our_version), (their_elements, their_values, their_version) = ours, theirs
    assert len(our_elements) == len(their_elements)
    for mine, other in zip(our_elements, their_elements, strict=True):
        if mine != other:
            assert _local_time_converted(mine, other), (options, mine, other)
    assert our_values == their_values, options
    assert our_version == their_version, options
    return ours


def _element(result, name):
    return next(e for e in result[0] if e.name == name)


# ---------------------------------------------------------------- version


def _all_types_table():
    cols = {}
    for width in (8, 16, 32, 64):
        for prefix in ("", "u"):
            typ = getattr(pa, f"{prefix}int{width}")()
            info = np.iinfo(typ.to_pandas_dtype())
            cols[f"{prefix}int{width}"] = pa.array([int(info.min), None, int(info.max), 0], typ)
    for unit in ("s", "ms", "us", "ns"):
        for tz in (None, "UTC", "America/New_York"):
            # whole microseconds, so that the implicit ns -> us coercion loses nothing
            k = {"s": 1, "ms": 10**3, "us": 10**6, "ns": 10**9}[unit]  # one second
            cols[f"ts_{unit}_{tz}"] = pa.array([-86_400 * k, None, k, -k - max(1, k // 10**6)], pa.timestamp(unit, tz))
    cols["time32_s"] = pa.array([0, None, 86_399, 1], pa.time32("s"))
    cols["time32_ms"] = pa.array([0, None, 86_399_999, 1], pa.time32("ms"))
    cols["time64_us"] = pa.array([0, None, 86_399_999_999, 1], pa.time64("us"))
    cols["time64_ns"] = pa.array([0, None, 86_399_999_999_999, 1], pa.time64("ns"))
    cols["date32"] = pa.array([-719_162, None, 0, 2_932_896], pa.date32())
    cols["date64"] = pa.array([-86_400_000, None, 0, 86_400_000], pa.date64())
    for precision in (1, 9, 10, 18, 19, 38):
        digits = str(10**precision - 1)
        big = f"{digits[:-1] or 0}.{digits[-1]}"  # the largest value; strings, as arithmetic would round
        cols[f"dec{precision}"] = pa.array([D(big), None, D("-" + big), D("0.0")], pa.decimal128(precision, 1))
    cols["dec256"] = pa.array([D("1.5"), None, D("-2.5"), D(0)], pa.decimal256(50, 1))
    cols["string"] = pa.array(["a", None, "", "é"])
    cols["large_string"] = pa.array(["a", None, "", "é"], pa.large_string())
    cols["binary"] = pa.array([b"a", None, b"", b"\x00"])
    cols["fixed"] = pa.array([b"ab", None, b"cd", b"\x00\x00"], pa.binary(2))
    cols["float16"] = pa.array([np.float16(1.5), None, np.float16(-2), np.float16(0)], pa.float16())
    cols["float32"] = pa.array([1.5, None, -2.0, 0.0], pa.float32())
    cols["float64"] = pa.array([1.5, None, -2.0, 0.0])
    cols["bool"] = pa.array([True, None, False, True])
    cols["uuid"] = pa.array([b"a" * 16, None, b"b" * 16, b"c" * 16], pa.uuid())
    cols["json"] = pa.array(["{}", None, "[]", "1"], pa.json_())
    cols["null"] = pa.nulls(4)
    cols["list_uint32"] = pa.array([[0, 2**32 - 1], None, [], [None]], pa.list_(pa.uint32()))
    cols["struct_ts"] = pa.array([{"t": 1000, "u": 5}, None, {"t": None, "u": None}, {"t": -1000, "u": 2**32 - 1}],
                                 pa.struct([("t", pa.timestamp("ns")), ("u", pa.uint32())]))
    cols["map"] = pa.array([[("k", 1000)], None, [], [("z", None)]], pa.map_(pa.string(), pa.timestamp("ns", "UTC")))
    return pa.table(cols)


@pytest.mark.parametrize("version", ["1.0", "2.4", "2.6", None])
def test_version_types_like_pyarrow(tmp_path, version):
    check_like_pyarrow(tmp_path, _all_types_table(), version=version)


def test_version_details(tmp_path):
    table = _all_types_table()
    v1 = check_like_pyarrow(tmp_path, table, version="1.0")
    assert _element(v1, "uint32").type == Type.INT64 and _element(v1, "uint32").logicalType is None
    assert _element(v1, "ts_ns_None").logicalType.TIMESTAMP.unit.MICROS is not None
    assert v1[2] == "1.0"
    v24 = check_like_pyarrow(tmp_path, table, version="2.4")
    assert _element(v24, "uint32").converted_type == ConvertedType.UINT_32
    assert _element(v24, "ts_ns_UTC").converted_type == ConvertedType.TIMESTAMP_MICROS
    v26 = check_like_pyarrow(tmp_path, table, version="2.6")
    assert _element(v26, "ts_ns_UTC").logicalType.TIMESTAMP.unit.NANOS is not None
    assert _element(v26, "ts_ns_UTC").converted_type is None
    assert pc.ParquetFile(tmp_path / "pc.parquet").metadata.version == 2


@pytest.mark.parametrize("version", ["1.0", "2.4", "2.6"])
@pytest.mark.parametrize("allow", [False, True])
def test_version_nanosecond_coercion_never_truncates(tmp_path, version, allow):
    # the implicit ns -> us coercion raises on lost data even when truncation is allowed
    table = pa.table({"a": pa.array([1000, None, -1001], pa.timestamp("ns"))})
    ours = check_like_pyarrow(tmp_path, table, version=version, allow_truncated_timestamps=allow)
    assert isinstance(ours, ParquetError) == (version != "2.6")
    if version != "2.6":
        assert "timestamp[ns] to timestamp[us] would lose data: -1001" in str(ours) and "'a'" in str(ours)


@pytest.mark.parametrize("version", ["2.0", "1", "2.5", 1.0, 2.6])
def test_unknown_version_raises(tmp_path, version):
    assert isinstance(check_like_pyarrow(tmp_path, pa.table({"a": [1]}), version=version), ParquetError)


def test_version_from_numpy_columns(tmp_path):
    data = {"t": np.array(["2020-01-01T00:00:00.000001", "NaT"], dtype="datetime64[ns]"),
            "u": np.array([1, 2**32 - 1], np.uint32)}
    pc.write_table(data, tmp_path / "pc.parquet", version="1.0")
    pq.write_table(pa.table(data), tmp_path / "pa.parquet", version="1.0", store_schema=False)
    ours, theirs = (pc.ParquetFile(tmp_path / f"{w}.parquet").schema.to_elements() for w in ("pc", "pa"))
    assert ours == theirs
    assert pq.read_table(tmp_path / "pc.parquet").to_pylist() == pq.read_table(tmp_path / "pa.parquet").to_pylist()


# ---------------------------------------------------------------- coerce_timestamps


def _lossy_timestamps(unit, tz=None):
    values = [0, None, 999, 1000, -999, -1000, -1001, -1999, 1_000_001, 86_400 * 10**6 - 1, -(2**31)]
    whole = [0, None, 1000, -1000, 5000, -86_400_000, 2_000_000, None, -3_000_000, 10**9, 0]  # no loss to ms
    return pa.table({"a": pa.array(values, pa.timestamp(unit, tz)), "whole": pa.array(whole, pa.timestamp(unit, tz)),
                     "nested": pa.array([[v] for v in values], pa.list_(pa.timestamp(unit)))})


@pytest.mark.parametrize("unit", ["s", "ms", "us", "ns"])
@pytest.mark.parametrize("coerce", ["ms", "us"])
@pytest.mark.parametrize("allow", [False, True])
@pytest.mark.parametrize("version", ["1.0", "2.6"])
def test_coerce_timestamps_like_pyarrow(tmp_path, unit, coerce, allow, version):
    ours = check_like_pyarrow(tmp_path, _lossy_timestamps(unit, "UTC"), coerce_timestamps=coerce,
                              allow_truncated_timestamps=allow, version=version)
    if not isinstance(ours, Exception):
        assert _element(ours, "a").logicalType.TIMESTAMP.unit == _element(ours, "whole").logicalType.TIMESTAMP.unit
        assert getattr(_element(ours, "a").logicalType.TIMESTAMP.unit, {"ms": "MILLIS", "us": "MICROS"}[coerce])


def test_coerce_truncates_toward_zero(tmp_path):
    table = pa.table({"a": pa.array([-1001, -1999, 1999, None, -1000], pa.timestamp("us"))})
    check_like_pyarrow(tmp_path, table, coerce_timestamps="ms", allow_truncated_timestamps=True)
    values = pc.read_table(tmp_path / "pc.parquet").to_pydict()["a"]
    epoch = dt.datetime(1970, 1, 1)
    assert values == [epoch - dt.timedelta(milliseconds=1)] * 2 + [epoch + dt.timedelta(milliseconds=1), None,
                                                                    epoch - dt.timedelta(milliseconds=1)]


def test_coerce_error_names_column_and_value(tmp_path):
    table = pa.table({"ok": [1, 2], "when": pa.array([1_000_000, 1001], pa.timestamp("us", "UTC"))})
    ours = check_like_pyarrow(tmp_path, table, coerce_timestamps="ms")
    assert "Casting from timestamp[us, tz=UTC] to timestamp[ms] would lose data: 1001" in str(ours)
    assert "'when'" in str(ours)


@pytest.mark.parametrize("coerce", ["ns", "s", "MS", "seconds"])
def test_coerce_timestamps_invalid_unit(tmp_path, coerce):
    table = pa.table({"a": pa.array([1], pa.timestamp("ms"))})
    assert isinstance(check_like_pyarrow(tmp_path, table, coerce_timestamps=coerce), ParquetError)


@pytest.mark.parametrize("unit, coerce", [("ms", "us"), ("s", "us"), ("s", "ms")])
def test_coerce_overflow_raises(tmp_path, unit, coerce):
    table = pa.table({"a": pa.array([2**62, None], pa.timestamp(unit))})
    assert isinstance(check_like_pyarrow(tmp_path, table, coerce_timestamps=coerce), Exception)


def test_allow_truncated_without_coerce_is_no_op(tmp_path):
    table = pa.table({"a": pa.array([1001, None], pa.timestamp("ns"))})
    ours = check_like_pyarrow(tmp_path, table, allow_truncated_timestamps=True)
    assert _element(ours, "a").logicalType.TIMESTAMP.unit.NANOS is not None


# ---------------------------------------------------------------- INT96


def _int96_table(unit):
    per_day = 86_400 * {"s": 1, "ms": 10**3, "us": 10**6, "ns": 10**9}[unit]
    values = [0, None, 1, -1, per_day, -per_day, per_day - 1, -per_day - 1, 10_000 * per_day, -50_000 * per_day]
    return pa.table({"a": pa.array(values, pa.timestamp(unit)), "tz": pa.array(values, pa.timestamp(unit, "Asia/Tokyo")),
                     "list": pa.array([[v] for v in values], pa.list_(pa.timestamp(unit)))})


@pytest.mark.parametrize("unit", ["s", "ms", "us", "ns"])
@pytest.mark.parametrize("extra", [{}, {"coerce_timestamps": "ms"}, {"version": "1.0", "coerce_timestamps": "us"}])
def test_int96_like_pyarrow(tmp_path, unit, extra):
    ours = check_like_pyarrow(tmp_path, _int96_table(unit), use_deprecated_int96_timestamps=True, **extra)
    for name in ("a", "tz", "element"):
        element = _element(ours, name)
        assert element.type == Type.INT96 and element.logicalType is None and element.converted_type is None
    # the stored 12-byte values themselves, not only what they read as
    mine, theirs = (pc.ParquetFile(tmp_path / f"{w}.parquet").read() for w in ("pc", "pa"))
    for name in ("a", "tz"):
        a, b = mine.column(name).array, theirs.column(name).array
        assert np.array_equal(a.validity, b.validity)
        ok = a.validity
        for x, y in zip(int96_parts(a.values[ok]), int96_parts(b.values[ok]), strict=True):
            assert np.array_equal(x, y)


def test_int96_false_writes_int64(tmp_path):
    ours = check_like_pyarrow(tmp_path, _int96_table("us"), use_deprecated_int96_timestamps=False)
    assert _element(ours, "a").type == Type.INT64


# ---------------------------------------------------------------- store_decimal_as_integer, TIME adjusted to UTC


@pytest.mark.parametrize("store", [False, True])
@pytest.mark.parametrize("version", ["1.0", "2.6"])
def test_store_decimal_as_integer_like_pyarrow(tmp_path, store, version):
    ours = check_like_pyarrow(tmp_path, _all_types_table(), store_decimal_as_integer=store, version=version)
    expected = {1: Type.INT32, 9: Type.INT32, 10: Type.INT64, 18: Type.INT64, 19: Type.FIXED_LEN_BYTE_ARRAY}
    for precision, physical in expected.items():
        assert _element(ours, f"dec{precision}").type == (physical if store else Type.FIXED_LEN_BYTE_ARRAY)


@pytest.mark.parametrize("value", [None, 1, "yes"])
def test_store_decimal_as_integer_must_be_bool(tmp_path, value):
    assert isinstance(check_like_pyarrow(tmp_path, pa.table({"a": [1]}), store_decimal_as_integer=value), TypeError)


@pytest.mark.parametrize("adjusted", [False, True, None, 1])
def test_write_time_adjusted_to_utc_like_pyarrow(tmp_path, adjusted):
    ours = check_like_pyarrow(tmp_path, _all_types_table(), write_time_adjusted_to_utc=adjusted)
    for name in ("time32_s", "time32_ms", "time64_us", "time64_ns"):
        assert _element(ours, name).logicalType.TIME.isAdjustedToUTC == bool(adjusted)


def test_parquet_writer_converts_each_batch(tmp_path):
    first = pa.table({"t": pa.array([1000, None], pa.timestamp("ns")), "u": pa.array([1, 2**32 - 1], pa.uint32())})
    second = pa.table({"t": pa.array([-2000], pa.timestamp("ns")), "u": pa.array([7], pa.uint32())})
    schema = pc.Table.from_arrow(first).schema
    with pc.ParquetWriter(tmp_path / "pc.parquet", schema, version="1.0") as writer:
        writer.write_table(first)
        writer.write_table(second)
    with pq.ParquetWriter(tmp_path / "pa.parquet", first.schema, version="1.0", store_schema=False) as writer:
        writer.write_table(first)
        writer.write_table(second)
    ours, theirs = (tmp_path / "pc.parquet", tmp_path / "pa.parquet")
    assert pc.ParquetFile(ours).schema.to_elements() == pc.ParquetFile(theirs).schema.to_elements()
    assert pq.read_table(ours).to_pylist() == pq.read_table(theirs).to_pylist()


@pytest.mark.parametrize("options", [{"coerce_timestamps": "ms"}, {"version": "2.4"},
                                     {"use_deprecated_int96_timestamps": True}])
def test_converting_timestamps_keeps_dictionaries(tmp_path, options):
    """A table whose timestamps the options convert keeps its Arrow dictionaries:
    a categorical's unused categories, and a dictionary of timestamps converted
    with its values (its entries are written ahead of them)."""
    stamps = pa.array([0, 1_000_000, 3_000_000], pa.timestamp("ns"))
    table = pa.table({
        "t": pa.array([5_000_000, None], pa.timestamp("ns")),
        "c": pa.DictionaryArray.from_arrays(pa.array([1, None], pa.int8()), pa.array(["a", "b", "c"])),
        "d": pa.DictionaryArray.from_arrays(pa.array([2, 1], pa.int8()), stamps),
    })
    pc.write_table(table, tmp_path / "pc.parquet", **options)
    pq.write_table(table, tmp_path / "pa.parquet", **options)
    ours, theirs = pq.read_table(tmp_path / "pc.parquet"), pq.read_table(tmp_path / "pa.parquet")
    assert ours.column("c").chunk(0).dictionary.to_pylist() == ["a", "b", "c"]
    assert ours.to_pylist() == theirs.to_pylist()
    assert ours.schema == theirs.schema
