"""The pyarrow bridge: arrays equal (values and type) to what pyarrow.parquet
reads for the same column, sharing numpy memory where Arrow's layout allows."""

from __future__ import annotations

import datetime as dt
import io
import sys
import uuid
from decimal import Decimal

import numpy as np
import pytest

from parquet_codec import arrow_adapter
from parquet_codec.arrays import BinaryArray, ListArray, MapArray, PrimitiveArray, StructArray
from parquet_codec.arrow_adapter import (
    ArrowChild,
    ArrowField,
    field_from_arrow,
    from_arrow,
    leaf_to_arrow,
    nested_to_arrow,
    to_arrow_type,
)
from parquet_codec.errors import UnsupportedError
from parquet_codec.format import ttypes as T
from parquet_codec.type_annotations import element_fields
from parquet_codec.types import LogicalInfo, from_pylist, logical_info, to_pylist
from tests.test_types import (
    CASES,
    INT96_INFO,
    Case,
    all_same,
    crafted,
    int96_exact,
    int96_file,
    leaf_element,
    physical_array,
    pyarrow_read,
)

pa = pytest.importorskip("pyarrow")
pq = pytest.importorskip("pyarrow.parquet")


def assert_arrow_equal(ours, theirs):
    assert ours.type == theirs.type, (ours.type, theirs.type)
    try:
        theirs.validate(full=True)
    except pa.ArrowInvalid:  # e.g. TIME values outside a day, as the file holds them
        ours.validate()
    else:
        ours.validate(full=True)
    if pa.types.is_floating(ours.type):  # equals() treats NaN as unequal to itself
        assert all_same(ours.to_pylist(), theirs.to_pylist())
    else:
        assert ours.equals(theirs), (ours, theirs)


# ---------------------------------------------------------------- leaves


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.id)
def test_leaf_to_arrow_matches_pyarrow(case: Case):
    buf, physical, info = crafted(case)
    theirs = pyarrow_read(buf)
    assert to_arrow_type(info) == theirs.type
    assert_arrow_equal(leaf_to_arrow(physical, info), theirs)


def test_int96_to_arrow():
    values = [0, -1, 1704141296123456, None, 253402300799999999, -62135596800000000]
    rows = [None if u is None else int96_exact(u) for u in values]
    buf = int96_file(rows)
    physical = physical_array(rows, "fixed", 12)
    assert logical_info(leaf_element(buf)) == INT96_INFO
    us = leaf_to_arrow(physical, INT96_INFO, int96_unit="us")
    assert_arrow_equal(us, pyarrow_read(buf, coerce_int96_timestamp_unit="us"))
    assert_arrow_equal(
        leaf_to_arrow(physical, INT96_INFO, int96_unit="ms"), pyarrow_read(buf, coerce_int96_timestamp_unit="ms")
    )
    in_ns = rows[:4]
    assert_arrow_equal(
        leaf_to_arrow(physical_array(in_ns, "fixed", 12), INT96_INFO), pyarrow_read(int96_file(in_ns))
    )
    with pytest.raises(UnsupportedError, match="value 4"):
        leaf_to_arrow(physical, INT96_INFO)  # pyarrow would silently wrap


def test_zero_copy_buffers():
    def address(array: np.ndarray) -> int:
        return array.__array_interface__["data"][0]

    stamps = np.array([0, 1, 2], dtype=np.int64)
    out = leaf_to_arrow(PrimitiveArray.of(stamps), LogicalInfo("timestamp", T.Type.INT64, unit="us", utc=True))
    assert out.buffers()[1].address == address(stamps)
    unsigned = np.array([-1, 5], dtype=np.int32)
    out = leaf_to_arrow(PrimitiveArray.of(unsigned), LogicalInfo("int", T.Type.INT32, bit_width=32, signed=False))
    assert out.buffers()[1].address == address(unsigned) and out.to_pylist() == [2**32 - 1, 5]
    halves = np.array([[0, 0x3C], [0, 0xC0]], dtype=np.uint8)
    out = leaf_to_arrow(PrimitiveArray.of(halves), LogicalInfo("float16", 7, type_length=2, bit_width=16))
    assert out.buffers()[1].address == address(halves) and out.to_pylist() == [1.0, -2.0]
    strings = BinaryArray.of(np.array([0, 1, 3], np.int64), np.frombuffer(b"abc", np.uint8).copy())
    out = leaf_to_arrow(strings, LogicalInfo("string", T.Type.BYTE_ARRAY))
    assert out.buffers()[2].address == address(strings.data) and out.to_pylist() == ["a", "bc"]
    ids = np.frombuffer(uuid.UUID(int=7).bytes * 2, np.uint8).copy().reshape(2, 16)
    out = leaf_to_arrow(PrimitiveArray.of(ids), LogicalInfo("uuid", 7, type_length=16))
    assert out.storage.buffers()[1].address == address(ids) and out.to_pylist() == [uuid.UUID(int=7)] * 2


def test_large_offsets(monkeypatch):
    monkeypatch.setattr(arrow_adapter, "_INT32_MAX", 3)
    strings = BinaryArray.of(np.array([0, 2, 5], np.int64), np.frombuffer(b"abcde", np.uint8).copy())
    out = leaf_to_arrow(strings, LogicalInfo("string", T.Type.BYTE_ARRAY))
    assert out.type == pa.large_string() and out.to_pylist() == ["ab", "cde"]
    out = leaf_to_arrow(strings, LogicalInfo("json", T.Type.BYTE_ARRAY))
    assert out.type == pa.json_(pa.large_string()) and out.to_pylist() == ["ab", "cde"]
    out = leaf_to_arrow(strings, LogicalInfo("bson", T.Type.BYTE_ARRAY))
    assert out.type == pa.large_binary()
    items = PrimitiveArray.of(np.arange(5, dtype=np.int64))
    lists = ListArray.of(np.array([0, 2, 5], np.int64), items)
    out = nested_to_arrow(lists, lambda child, role: ArrowChild(leaf_to_arrow(child, LogicalInfo("int", 2, bit_width=64))))
    assert out.type == pa.large_list(pa.int64()) and out.to_pylist() == [[0, 1], [2, 3, 4]]
    maps = MapArray.of(np.array([0, 2, 5], np.int64), items, items)
    with pytest.raises(UnsupportedError):
        nested_to_arrow(maps, lambda child, role: ArrowChild(leaf_to_arrow(child, LogicalInfo("int", 2, bit_width=64))))


def test_arrow_types():
    assert to_arrow_type(LogicalInfo("string", 6), large=True) == pa.large_string()
    assert to_arrow_type(LogicalInfo("enum", 6)) == pa.binary()
    assert to_arrow_type(LogicalInfo("decimal", 6, precision=38, scale=2)) == pa.decimal128(38, 2)
    assert to_arrow_type(LogicalInfo("decimal", 6, precision=39, scale=2)) == pa.decimal256(39, 2)
    assert to_arrow_type(INT96_INFO, int96_unit="ms") == pa.timestamp("ms")
    with pytest.raises(UnsupportedError):
        to_arrow_type(LogicalInfo("decimal", 6, precision=77, scale=0))


def test_missing_pyarrow_is_a_clear_error(monkeypatch):
    monkeypatch.setitem(sys.modules, "pyarrow", None)
    with pytest.raises(UnsupportedError, match="pyarrow is not installed"):
        to_arrow_type(LogicalInfo("boolean", 0))


# ---------------------------------------------------------------- nested


def written(table, **options) -> bytes:
    sink = io.BytesIO()
    pq.write_table(table, sink, store_schema=False, **options)
    return sink.getvalue()


def read_back(table):
    return pq.read_table(io.BytesIO(written(table)))


def field_converter(field: ArrowField):
    """The reader-side recursion a caller of nested_to_arrow writes."""

    def convert(array, f: ArrowField = field):
        if f.layout == "leaf":
            return leaf_to_arrow(array, f.info)
        roles = {kid.name: kid for kid in f.children}
        if f.layout == "list":
            roles = {"element": f.children[0]}
        elif f.layout == "map":
            roles = {"key": f.children[0], "value": f.children[1]}

        def child(sub, role):
            kid = roles[role]
            return ArrowChild(convert(sub, kid), kid.nullable, kid.name, kid.field_id)

        return nested_to_arrow(array, child)

    return convert


def test_hand_built_nested_arrays_match_pyarrow():
    int32 = LogicalInfo("int", T.Type.INT32, bit_width=32)
    string = LogicalInfo("string", T.Type.BYTE_ARRAY)
    table = pa.table(
        {
            "l": pa.array([[1, None], None, [], [3]], pa.list_(pa.field("element", pa.int32()))),
            "s": pa.array([{"a": 1, "b": "x"}, None, {"a": None, "b": None}, {"a": 4, "b": "yz"}]),
            "m": pa.array([[("k", 1)], None, [], [("a", None), ("b", 2)]], pa.map_(pa.string(), pa.int32())),
        }
    )
    theirs = read_back(table)
    ints = PrimitiveArray.of(np.array([1, 0, 3], np.int32), np.array([True, False, True]))
    lists = ListArray.of(np.array([0, 2, 2, 2, 3], np.int64), ints, np.array([True, False, True, True]))
    out = nested_to_arrow(lists, lambda child, role: ArrowChild(leaf_to_arrow(child, int32), True))
    assert_arrow_equal(out, theirs.column("l").combine_chunks())

    valid = np.array([True, False, True, True])
    a = PrimitiveArray.of(np.array([1, 0, 0, 4], np.int32), np.array([True, False, False, True]))
    b = BinaryArray.of(np.array([0, 1, 1, 1, 3], np.int64), np.frombuffer(b"xyz", np.uint8).copy(), a.validity)
    struct_array = StructArray(4, {"a": a, "b": b}, validity=valid)
    long_a = LogicalInfo("int", T.Type.INT64, bit_width=64)
    out = nested_to_arrow(
        struct_array,
        lambda child, role: ArrowChild(leaf_to_arrow(child, long_a if role == "a" else string)),
    )
    a64 = PrimitiveArray.of(np.array([1, 0, 0, 4], np.int64), a.validity)
    out = nested_to_arrow(
        StructArray(4, {"a": a64, "b": b}, validity=valid),
        lambda child, role: ArrowChild(leaf_to_arrow(child, long_a if role == "a" else string)),
    )
    assert_arrow_equal(out, theirs.column("s").combine_chunks())

    keys = BinaryArray.of(np.array([0, 1, 2, 3], np.int64), np.frombuffer(b"kab", np.uint8).copy())
    items = PrimitiveArray.of(np.array([1, 0, 2], np.int32), np.array([True, False, True]))
    maps = MapArray.of(np.array([0, 1, 1, 1, 3], np.int64), keys, items, np.array([True, False, True, True]))
    out = nested_to_arrow(
        maps, lambda child, role: ArrowChild(leaf_to_arrow(child, string if role == "key" else int32), role != "key")
    )
    assert_arrow_equal(out, theirs.column("m").combine_chunks())


def test_map_without_values_reads_as_list_of_keys():
    keys = PrimitiveArray.of(np.array([1, 2, 3], np.int32))
    maps = MapArray.of(np.array([0, 2, 3], np.int64), keys, None)
    out = nested_to_arrow(
        maps, lambda child, role: ArrowChild(leaf_to_arrow(child, LogicalInfo("int", 1, bit_width=32)), False)
    )
    expected = pa.array([[1, 2], [3]], pa.list_(pa.field("key", pa.int32(), nullable=False)))
    assert_arrow_equal(out, expected)
    assert out.type.value_field.name == "key"


def test_field_ids_become_field_metadata():
    items = PrimitiveArray.of(np.array([1], np.int64))
    out = nested_to_arrow(
        ListArray.of(np.array([0, 1], np.int64), items),
        lambda child, role: ArrowChild(leaf_to_arrow(child, LogicalInfo("int", 2, bit_width=64)), False, "x", 7),
    )
    assert out.type.value_field.metadata == {b"PARQUET:field_id": b"7"}
    assert out.type.value_field.name == "x" and not out.type.value_field.nullable


# ---------------------------------------------------------------- from_arrow (writer input)


WRITER_INPUTS = [
    pa.array([1, None, -128], pa.int8()),
    pa.array([1, None, 255], pa.uint8()),
    pa.array([1, None, 2**32 - 1], pa.uint32()),
    pa.array([1, None, 2**64 - 1], pa.uint64()),
    pa.array([1, None, -(2**63)], pa.int64()),
    pa.array([True, None, False]),
    pa.array([1.5, None, float("inf")], pa.float16()),
    pa.array([1.5, None], pa.float32()),
    pa.array([1.5, None], pa.float64()),
    pa.array(["a", None, "h\u00e9"]),
    pa.array(["a", None, "bc"], pa.large_string()),
    pa.array(["a", None], pa.string_view()),
    pa.array([b"a", None, b""], pa.binary()),
    pa.array([b"a", None], pa.large_binary()),
    pa.array([b"abc", None], pa.binary(3)),
    pa.array([Decimal("1.50"), None, Decimal("-99999999999999999999.99")], pa.decimal128(22, 2)),
    pa.array([Decimal("1.5"), None], pa.decimal32(3, 1)),
    pa.array([Decimal("1.5"), None], pa.decimal64(12, 1)),
    pa.array([Decimal("-1" + "0" * 60), None], pa.decimal256(70, 3)),
    pa.array([dt.date(1, 1, 1), None, dt.date(9999, 12, 31)], pa.date32()),
    pa.array([dt.date(2020, 1, 1), None], pa.date64()),
    pa.array([dt.time(1, 2, 3), None], pa.time32("s")),
    pa.array([dt.time(1, 2, 3, 4000), None], pa.time32("ms")),
    pa.array([dt.time(1, 2, 3, 4), None], pa.time64("us")),
    pa.array([1001, None], pa.time64("ns")),
    pa.array([dt.datetime(2020, 1, 1), None], pa.timestamp("s")),
    pa.array([dt.datetime(2020, 1, 1), None], pa.timestamp("ms", tz="UTC")),
    pa.array([dt.datetime(2020, 1, 1), None], pa.timestamp("us", tz="Europe/Paris")),
    pa.array([1001, None], pa.timestamp("ns")),
    pa.array([1, None], pa.duration("s")),
    pa.array([uuid.UUID(int=1), None], pa.uuid()),
    pa.array(['{"a": 1}', None], pa.json_()),
    pa.array([None, None], pa.null()),
    pa.array(["x", None, "y", "x"]).dictionary_encode(),
    pa.array([1, 2, None, 4, 5], pa.int32()).slice(1, 3),
    pa.array(["a", "bb", None, "ccc"]).slice(1, 3),
    pa.array([True, False, None, True, True]).slice(2, 3),
    pa.array([[1, None], None, []], pa.list_(pa.int64())),
    pa.array([[1, 2], None], pa.large_list(pa.int16())),
    pa.array([[1, 2], [3, None]], pa.list_(pa.int8(), 2)),
    pa.array([{"a": 1, "b": [1.5]}, None, {"a": None, "b": None}]),
    pa.array([[("k", 1)], None, []], pa.map_(pa.string(), pa.int32())),
    pa.array([[[1], None], [[2, 3]], None], pa.list_(pa.list_(pa.int32()))).slice(1, 2),
]


def _leaves(field: ArrowField):
    if field.layout == "leaf":
        yield field
    for kid in field.children:
        yield from _leaves(kid)


@pytest.mark.parametrize("array", WRITER_INPUTS, ids=lambda a: str(a.type))
def test_from_arrow_round_trips_like_pyarrow(array):
    """from_arrow -> physical -> Arrow equals pyarrow's write + read, and the
    Parquet types chosen are the ones pyarrow writes."""
    buf = written(pa.table({"c": array}))
    theirs = pq.read_table(io.BytesIO(buf)).column(0).combine_chunks()
    physical, field = from_arrow(array, "c")
    assert len(physical) == len(array)
    ours = field_converter(field)(physical)
    assert_arrow_equal(ours, theirs)
    meta = pq.ParquetFile(io.BytesIO(buf)).metadata
    for i, leaf in enumerate(_leaves(field)):
        element = T.SchemaElement(name="x", **element_fields(leaf.info))
        column = meta.schema.column(i)
        assert T.Type._VALUES_TO_NAMES[element.type] == column.physical_type
        if element.type == T.Type.FIXED_LEN_BYTE_ARRAY:
            assert element.type_length == column.length
        assert logical_info(element) == leaf.info


def test_date64_values_off_midnight_are_truncated_to_the_day_as_pyarrow_writes_them():
    """pyarrow writes date64 as DATE days truncated toward zero (-1 ms is day 0,
    -86_400_001 ms day -1); a cast that refuses to lose the time of day raised here."""
    ms = [-1, -86_400_001, 1, 86_400_001, -86_399_999, -86_400_000, 0, None]
    dates = pa.array(ms, pa.date64())
    for array in (dates, pa.array([ms[:3], None, ms[3:]], pa.list_(pa.date64()))):
        buf = written(pa.table({"c": array}))
        theirs = pq.read_table(io.BytesIO(buf)).column(0).combine_chunks()
        physical, field = from_arrow(array, "c")
        assert_arrow_equal(field_converter(field)(physical), theirs)
    physical, _ = from_arrow(dates)
    assert physical.values.tolist()[:7] == [0, -1, 0, 1, 0, -1, 0]


def test_from_arrow_keeps_buffers_and_zeroes_null_slots():
    values = np.array([5, 6, 7], dtype=np.int64)
    array = pa.Array.from_buffers(pa.int64(), 3, [None, pa.py_buffer(values)])
    physical, _ = from_arrow(array)
    assert physical.values.__array_interface__["data"][0] == values.__array_interface__["data"][0]
    masked = pa.Array.from_buffers(pa.int64(), 3, [pa.py_buffer(np.packbits([1, 0, 1], bitorder="little")), pa.py_buffer(values)])
    physical, _ = from_arrow(masked)
    assert physical.values.tolist() == [5, 0, 7] and physical.validity.tolist() == [True, False, True]


def test_from_arrow_drops_ranges_behind_null_slots():
    values = pa.array([1, 2, 3, 4, 5], pa.int64())
    lists = pa.ListArray.from_arrays(pa.array([0, 2, 4, 5], pa.int32()), values, mask=pa.array([False, True, False]))
    physical, _ = from_arrow(lists)
    assert physical.offsets.tolist() == [0, 2, 2, 3]
    assert physical.values.values.tolist() == [1, 2, 5]
    data = pa.py_buffer(b"abcdef")
    strings = pa.Array.from_buffers(
        pa.string(), 3, [pa.py_buffer(np.packbits([1, 0, 1], bitorder="little")),
                         pa.py_buffer(np.array([0, 2, 4, 6], np.int32)), data],
    )  # fmt: skip
    physical, field = from_arrow(strings)
    assert physical.offsets.tolist() == [0, 2, 2, 4] and physical.data.tobytes() == b"abef"
    assert to_pylist(physical, field.info) == ["ab", None, "ef"]


def test_from_arrow_chunked_and_field_description():
    chunked = pa.chunked_array([pa.array([1, 2]), pa.array([None, 4])])
    physical, field = from_arrow(chunked, "n", nullable=False)
    assert physical.values.tolist() == [1, 2, 0, 4] and field.name == "n" and not field.nullable
    schema_field = pa.field("m", pa.map_(pa.string(), pa.int32()), metadata={b"PARQUET:field_id": b"3"})
    described = field_from_arrow(schema_field)
    assert described.layout == "map" and described.field_id == 3
    assert [kid.name for kid in described.children] == ["key", "value"]
    assert not described.children[0].nullable


@pytest.mark.parametrize("raw", [b"0", b"07", b"2147483647", b"-1", b"-5", b"2147483648", b"abc", b"", b" 7",
                                 b"+3", b"7 ", b"1.0", "\u0667".encode()])
def test_field_id_metadata_read_as_pyarrow_writes_it(raw):
    """PARQUET:field_id is the field id only when it is a decimal int32 of at
    least 0; pyarrow writes no field id for anything else (negative, out of
    range, not a number), where this raised or wrote the negative id."""
    pq = pytest.importorskip("pyarrow.parquet")
    field = pa.field("a", pa.int64(), metadata={b"PARQUET:field_id": raw})
    sink = io.BytesIO()
    pq.write_table(pa.table({"a": pa.array([1], pa.int64())}, schema=pa.schema([field])), sink, store_schema=False)
    from parquet_codec.reader import ParquetFile

    expected = ParquetFile(sink.getvalue()).schema.leaves[0].field_id  # pyarrow's, as written
    assert field_from_arrow(field).field_id == expected


@pytest.mark.parametrize(
    "array",
    [
        pa.array([(1, 2, 3)], pa.month_day_nano_interval()),
        pa.UnionArray.from_sparse(pa.array([0], pa.int8()), [pa.array([1], pa.int32())]),
        pa.RunEndEncodedArray.from_arrays(pa.array([2], pa.int32()), pa.array([1])),
    ],
    ids=["interval", "union", "run_end_encoded"],
)
def test_from_arrow_unsupported(array):
    with pytest.raises(UnsupportedError):
        from_arrow(array)


def test_bson_reads_as_bytes():
    """BSON values are bytes, as pyarrow reads the type (binary)."""
    values = all_same(to_pylist(physical_array([b"\x00\x01"], "bytes"), LogicalInfo("bson", 6)), [b"\x00\x01"])
    assert values


@pytest.mark.parametrize("case", CASES[::3], ids=lambda c: c.id)
def test_empty_columns(case: Case):
    _, _, info = crafted(case)
    empty = from_pylist([], info)
    assert to_pylist(empty, info) == []
    out = leaf_to_arrow(empty, info)
    assert len(out) == 0 and out.type == to_arrow_type(info)
    physical, _ = from_arrow(out)
    assert len(physical) == 0
