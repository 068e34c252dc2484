"""The ARROW:schema IPC message: decoding pyarrow's bytes, encoding bytes pyarrow reads, hostile input."""

from __future__ import annotations

import base64
import contextlib
import itertools
import random
import struct
import time

import pytest

from parquet_codec.arrow_schema import (
    ARROW_SCHEMA_KEY,
    ArrowField,
    ArrowSchema,
    ArrowType,
    DictionaryEncoding,
    decode_schema,
    encode_schema,
    schema_from_metadata,
    schema_to_metadata,
)
from parquet_codec.errors import MetadataError
from parquet_codec.flatbuffers import Builder, Reader

pa = pytest.importorskip("pyarrow")
pq = pytest.importorskip("pyarrow.parquet")
types = pa.types

# --- expected values from pyarrow's own description of a type ------------------------------------------


def expected_type(t) -> ArrowType:
    """The ArrowType a pyarrow (non-dictionary) type must decode to."""
    simple = [
        (types.is_null, "null"), (types.is_boolean, "bool"), (types.is_binary, "binary"),
        (types.is_string, "utf8"), (types.is_large_binary, "large_binary"),
        (types.is_large_string, "large_utf8"), (types.is_binary_view, "binary_view"),
        (types.is_string_view, "utf8_view"), (types.is_list, "list"), (types.is_large_list, "large_list"),
        (types.is_list_view, "list_view"), (types.is_large_list_view, "large_list_view"),
        (types.is_struct, "struct"), (types.is_run_end_encoded, "run_end_encoded"),
    ]  # fmt: skip
    for check, name in simple:
        if check(t):
            return ArrowType(name)
    if types.is_integer(t):
        return ArrowType("int", bit_width=t.bit_width, signed=types.is_signed_integer(t))
    if types.is_floating(t):
        return ArrowType("float", bit_width=t.bit_width)
    if types.is_decimal(t):
        return ArrowType("decimal", bit_width=t.bit_width, precision=t.precision, scale=t.scale)
    if types.is_date(t):
        return ArrowType("date", unit="day" if types.is_date32(t) else "ms")
    if types.is_time(t):
        return ArrowType("time", unit=t.unit, bit_width=t.bit_width)
    if types.is_timestamp(t):
        return ArrowType("timestamp", unit=t.unit, timezone=t.tz)
    if types.is_duration(t):
        return ArrowType("duration", unit=t.unit)
    if t == pa.month_day_nano_interval():
        return ArrowType("interval", unit="month_day_nano")
    if types.is_fixed_size_binary(t):
        return ArrowType("fixed_size_binary", byte_width=t.byte_width)
    if types.is_fixed_size_list(t):
        return ArrowType("fixed_size_list", list_size=t.list_size)
    if types.is_map(t):
        return ArrowType("map", keys_sorted=t.keys_sorted)
    if types.is_union(t):
        return ArrowType("union", union_mode=t.mode, type_ids=tuple(t.type_codes))
    raise AssertionError(f"no expectation for {t}")


def expected_field(f, dict_ids: itertools.count) -> ArrowField:
    """The ArrowField a pyarrow field must decode to; dictionary ids are given in pre-order, as pyarrow does."""
    t = f.type
    dictionary = None
    if types.is_dictionary(t):
        index = t.index_type
        dictionary = DictionaryEncoding(
            next(dict_ids), index.bit_width, types.is_signed_integer(index), t.ordered
        )
        t = t.value_type
    children = tuple(expected_field(t.field(i), dict_ids) for i in range(t.num_fields))
    metadata = tuple((k.decode(), v.decode()) for k, v in (f.metadata or {}).items())
    return ArrowField(f.name, f.nullable, expected_type(t), children, dictionary, metadata)


def expected_schema(s) -> ArrowSchema:
    ids = itertools.count()
    metadata = tuple((k.decode(), v.decode()) for k, v in (s.metadata or {}).items())
    return ArrowSchema(tuple(expected_field(f, ids) for f in s), metadata)


def serialized(s) -> bytes:
    return s.serialize().to_pybytes()


def read_back(message: bytes):
    return pa.ipc.read_schema(pa.py_buffer(message))


# --- the cases -----------------------------------------------------------------------------------------

PRIMITIVES = [
    pa.null(), pa.bool_(), pa.int8(), pa.int16(), pa.int32(), pa.int64(), pa.uint8(), pa.uint16(),
    pa.uint32(), pa.uint64(), pa.float16(), pa.float32(), pa.float64(), pa.decimal128(38, 10),
    pa.decimal128(5, -2), pa.decimal256(76, 3), pa.decimal32(9, 2), pa.decimal64(18, 4), pa.date32(),
    pa.date64(), pa.time32("s"), pa.time32("ms"), pa.time64("us"), pa.time64("ns"),
    *[pa.timestamp(u) for u in ("s", "ms", "us", "ns")],
    *[pa.timestamp(u, tz=tz) for u in ("s", "ms", "us", "ns") for tz in ("UTC", "+07:30")],
    pa.timestamp("us", tz="America/New_York"), *[pa.duration(u) for u in ("s", "ms", "us", "ns")],
    pa.month_day_nano_interval(), pa.binary(), pa.string(), pa.large_binary(), pa.large_string(),
    pa.binary(16), pa.binary(1), pa.string_view(), pa.binary_view(),
]  # fmt: skip

NESTED = [
    pa.list_(pa.int32()), pa.large_list(pa.string()), pa.list_(pa.float64(), 3),
    pa.list_view(pa.int16()), pa.large_list_view(pa.binary()),
    pa.list_(pa.field("element", pa.int64(), nullable=False)),
    pa.struct([pa.field("a", pa.int8()), pa.field("b", pa.string(), nullable=False)]), pa.struct([]),
    pa.map_(pa.string(), pa.int64()), pa.map_(pa.int32(), pa.list_(pa.string()), keys_sorted=True),
    pa.union([pa.field("i", pa.int32()), pa.field("s", pa.string())], "dense"),
    pa.union([pa.field("i", pa.int32()), pa.field("s", pa.string())], "sparse", [5, 9]),
    pa.run_end_encoded(pa.int32(), pa.string()), pa.run_end_encoded(pa.int64(), pa.list_(pa.int8())),
    pa.dictionary(pa.int8(), pa.string()), pa.dictionary(pa.int16(), pa.large_string(), ordered=True),
    pa.dictionary(pa.uint32(), pa.int64()), pa.dictionary(pa.int64(), pa.binary(4)),
    pa.list_(pa.struct([pa.field("m", pa.map_(pa.string(), pa.list_(pa.timestamp("ns", "UTC"))))])),
    pa.struct([pa.field("d", pa.dictionary(pa.int8(), pa.string())), pa.field("l", pa.list_(pa.list_(pa.decimal128(10, 2))))]),
    pa.list_(pa.dictionary(pa.int32(), pa.string(), ordered=True), 2),
]  # fmt: skip


def _single(t, nullable: bool = True):
    return pa.schema([pa.field("col", t, nullable=nullable)])


SCHEMAS = {
    **{f"primitive-{t}": _single(t) for t in PRIMITIVES},
    **{f"nested-{t}": _single(t) for t in NESTED},
    **{f"required-{t}": _single(t, nullable=False) for t in (pa.int32(), pa.string(), pa.list_(pa.int8()))},
    "empty": pa.schema([]),
    "empty-with-metadata": pa.schema([], metadata={"only": "metadata"}),
    "wide": pa.schema([pa.field(f"c{i}", t) for i, t in enumerate(PRIMITIVES + NESTED)]),
    "metadata": pa.schema(
        [
            pa.field("a", pa.int32(), metadata={"k": "v", "é": "ünïcødé ✓", "empty": ""}),
            pa.field("b", pa.struct([pa.field("c", pa.string(), metadata={"日本": "語"})]), nullable=False),
        ],
        metadata={"pandas": '{"x": 1}', "ключ": "значение", "": "empty key"},
    ),
    "non-ascii-names": pa.schema([pa.field("naïve ☃", pa.int8()), pa.field("", pa.string())]),
    "several-dictionaries": pa.schema(
        [
            pa.field("x", pa.dictionary(pa.int8(), pa.string())),
            pa.field("s", NESTED[-2]),
            pa.field("y", NESTED[-1]),
        ]
    ),
}


@pytest.mark.parametrize("name", list(SCHEMAS))
def test_decode_matches_pyarrow_field_by_field(name):
    s = SCHEMAS[name]
    decoded = decode_schema(serialized(s))
    expected = expected_schema(s)
    assert decoded.metadata == expected.metadata
    assert len(decoded.fields) == len(expected.fields)
    for got, want in zip(decoded.fields, expected.fields, strict=True):
        assert got == want
    assert decoded == expected


@pytest.mark.parametrize("name", list(SCHEMAS))
def test_encode_is_read_back_by_pyarrow(name):
    s = SCHEMAS[name]
    decoded = decode_schema(serialized(s))
    message = encode_schema(decoded)
    assert message[:4] == b"\xff\xff\xff\xff" and len(message) % 8 == 0
    assert struct.unpack_from("<i", message, 4)[0] == len(message) - 8
    assert read_back(message).equals(s, check_metadata=True)
    assert decode_schema(message) == decoded
    assert decode_schema(memoryview(message)) == decoded


def test_day_time_interval_and_other_pyarrow_gaps():
    # pyarrow has no Python constructor for a day-time interval: go through the IPC reader.
    schema = ArrowSchema((ArrowField("i", True, ArrowType("interval", unit="day_time")),
                          ArrowField("y", True, ArrowType("interval", unit="year_month"))))  # fmt: skip
    back = read_back(encode_schema(schema))
    assert str(back.field("i").type) == "day_time_interval"
    assert decode_schema(serialized(back)) == schema


def test_extension_type_decodes_as_storage_with_metadata():
    s = pa.schema([pa.field("u", pa.uuid(), metadata={"x": "y"})])
    decoded = decode_schema(serialized(s))
    (f,) = decoded.fields
    assert f.type == ArrowType("fixed_size_binary", byte_width=16)
    assert ("ARROW:extension:name", "arrow.uuid") in f.metadata and ("x", "y") in f.metadata
    assert read_back(encode_schema(decoded)).equals(s, check_metadata=True)


def test_undecodable_utf8_uses_surrogateescape():
    s = pa.schema(
        [pa.field("f", pa.int8(), metadata={b"k\xff": b"\xfe\x00v"})], metadata={b"\xc3": b"\x80\xff"}
    )
    decoded = decode_schema(serialized(s))
    assert decoded.metadata == (("\udcc3", "\udc80\udcff"),)
    assert decoded.fields[0].metadata == (("k\udcff", "\udcfe\x00v"),)
    assert read_back(encode_schema(decoded)).equals(s, check_metadata=True)
    odd_name = ArrowSchema((ArrowField("a\udcff", True, ArrowType("bool")),))
    assert decode_schema(encode_schema(odd_name)) == odd_name


def test_parquet_file_metadata(tmp_path):
    table = pa.table(
        {
            "i": pa.array([1, None, 3], pa.int16()),
            "s": pa.array(["a", "b", None]).dictionary_encode(),
            "l": pa.array([[1.5], [], None], pa.large_list(pa.float32())),
            "t": pa.array([0, 1, 2], pa.timestamp("ms", tz="Europe/Paris")),
            "m": pa.array([[("k", 1)], [], None], pa.map_(pa.string(), pa.int64())),
        }
    ).replace_schema_metadata({"origin": "test ✓"})
    path = tmp_path / "t.parquet"
    pq.write_table(table, path)
    kv = pq.read_metadata(path).metadata
    value = kv[ARROW_SCHEMA_KEY.encode()]
    decoded = schema_from_metadata(value)
    assert decoded == schema_from_metadata(value.decode("ascii"))
    assert [f.name for f in decoded.fields] == table.column_names
    assert decoded.fields[1].dictionary is not None and decoded.fields[1].type == ArrowType("utf8")
    assert read_back(encode_schema(decoded)).equals(table.schema, check_metadata=True)
    # what pyarrow stores is what schema_to_metadata produces, modulo flatbuffer layout
    assert schema_from_metadata(schema_to_metadata(decoded)) == decoded
    assert base64.b64decode(schema_to_metadata(decoded)) == encode_schema(decoded)


def test_legacy_message_without_continuation_marker():
    s = SCHEMAS["metadata"]
    message = serialized(s)
    assert message[:4] == b"\xff\xff\xff\xff"
    assert decode_schema(message[4:]) == decode_schema(message) == expected_schema(s)


# --- malformed and hostile input -----------------------------------------------------------------------

RICH = SCHEMAS["wide"]
RICH_BYTES = serialized(RICH)


def _reframe(flatbuffer: bytes) -> bytes:
    return b"\xff\xff\xff\xff" + struct.pack("<i", len(flatbuffer)) + flatbuffer


def _decode_or_metadata_error(data) -> None:
    with contextlib.suppress(MetadataError):
        decode_schema(data)


def test_truncated_messages():
    for n in range(len(RICH_BYTES)):
        with pytest.raises(MetadataError):
            decode_schema(RICH_BYTES[:n])


def test_truncated_flatbuffer_with_consistent_length():
    fb = RICH_BYTES[8:]
    for n in range(len(fb)):
        _decode_or_metadata_error(_reframe(fb[:n]))


def test_random_byte_flips():
    rng = random.Random(20240601)
    sources = [RICH_BYTES, serialized(SCHEMAS["metadata"]), serialized(SCHEMAS[f"nested-{NESTED[-3]}"])]
    start = time.monotonic()
    for _ in range(4000):
        data = bytearray(rng.choice(sources))
        for _ in range(rng.randint(1, 4)):
            pos = rng.randrange(len(data))
            data[pos] = rng.choice(
                (0, 0xFF, 0x7F, 0x80, rng.randrange(256), data[pos] ^ (1 << rng.randrange(8)))
            )
        _decode_or_metadata_error(bytes(data))
    assert time.monotonic() - start < 60


def _message_root(data: bytes):
    return Reader(data, 8, len(data)).root()


def _patch(data: bytes, pos: int, fmt: str, value: int) -> bytes:
    out = bytearray(data)
    struct.pack_into("<" + fmt, out, pos, value)
    return bytes(out)


def test_huge_vector_length():
    header = _message_root(RICH_BYTES).table(2)
    vector = header.reader.uoffset(header.field_position(1, 4))
    for count in (0x7FFFFFFF, 0xFFFFFFFF, len(RICH_BYTES)):
        with pytest.raises(MetadataError, match="declares"):
            decode_schema(_patch(RICH_BYTES, vector, "I", count))


def test_offsets_outside_the_buffer_and_self_references():
    header = _message_root(RICH_BYTES).table(2)
    fields_offset = header.field_position(1, 4)
    with pytest.raises(MetadataError, match="past the end"):
        decode_schema(_patch(RICH_BYTES, fields_offset, "I", 0xFFFFFFF0))
    with pytest.raises(MetadataError, match="points at itself"):
        decode_schema(_patch(RICH_BYTES, fields_offset, "I", 0))
    with pytest.raises(MetadataError, match="vtable"):
        decode_schema(_patch(RICH_BYTES, header.pos, "i", 0x7FFFFFFF))
    with pytest.raises(MetadataError, match="declares"):
        decode_schema(_patch(RICH_BYTES, 4, "i", 0x7FFFFFFF))
    with pytest.raises(MetadataError, match="declares"):
        decode_schema(_patch(RICH_BYTES, 4, "i", -8))


def _field(b: Builder, name: str, type_id: int, type_ref: int, children: list[int]) -> int:
    return b.create_table(
        {1: ("?", True), 2: ("B", type_id)},
        {0: b.create_string(name), 3: type_ref, 5: b.create_table_vector(children)},
    )


def _message(b: Builder, fields: list[int], *, endianness=0, version=4, header_type=1) -> bytes:
    schema = b.create_table({0: ("h", endianness)} if endianness else {}, {1: b.create_table_vector(fields)})
    msg = b.create_table({0: ("h", version), 1: ("B", header_type)}, {2: schema})
    return _reframe(b.finish(msg))


def test_deep_nesting_is_refused():
    b = Builder()
    ref = _field(b, "leaf", 2, b.create_table({0: ("i", 32), 1: ("?", True)}), [])
    for _ in range(3000):
        ref = _field(b, "item", 12, b.create_table(), [ref])
    with pytest.raises(MetadataError, match="nested deeper"):
        decode_schema(_message(b, [ref]))


def test_reasonable_nesting_round_trips():
    t = pa.int8()
    for _ in range(60):
        t = pa.list_(t)
    s = _single(t)
    decoded = decode_schema(serialized(s))
    assert read_back(encode_schema(decoded)).equals(s)
    field = ArrowField("x", True, ArrowType("bool"))
    for _ in range(500):
        field = ArrowField("l", True, ArrowType("list"), (field,))
    with pytest.raises(MetadataError, match="nested deeper"):
        encode_schema(ArrowSchema((field,)))


def test_shared_children_cannot_explode():
    b = Builder()
    ref = _field(b, "leaf", 6, b.create_table(), [])
    for _ in range(8):
        ref = _field(b, "s", 13, b.create_table(), [ref] * 60)
    start = time.monotonic()
    with pytest.raises(MetadataError, match="number of tables|referenced more often"):
        decode_schema(_message(b, [ref]))
    assert time.monotonic() - start < 10


def test_unknown_type_id_decodes_as_unknown():
    b = Builder()
    message = _message(b, [_field(b, "future", 200, b.create_table(), [])])
    decoded = decode_schema(message)
    assert decoded.fields[0].type == ArrowType("unknown")
    with pytest.raises(MetadataError, match="cannot encode"):
        encode_schema(decoded)
    # and the same with a real message whose type byte is patched
    field = _message_root(RICH_BYTES).table(2).tables(1)[0]
    patched = _patch(RICH_BYTES, field.field_position(2, 1), "B", 99)
    assert decode_schema(patched).fields[0].type == ArrowType("unknown")


def test_invalid_messages():
    b = Builder()
    with pytest.raises(MetadataError, match="big-endian"):
        decode_schema(_message(b, [], endianness=1))
    b = Builder()
    with pytest.raises(MetadataError, match="RecordBatch, not a Schema"):
        decode_schema(_message(b, [], header_type=3))
    b = Builder()
    with pytest.raises(MetadataError, match="version V3"):
        decode_schema(_message(b, [], version=2))
    b = Builder()
    assert decode_schema(_message(b, [], version=3)) == ArrowSchema(())
    b = Builder()
    with pytest.raises(MetadataError, match="has no type"):
        decode_schema(_message(b, [_field(b, "x", 0, b.create_table(), [])]))
    b = Builder()
    bad_unit = _field(b, "t", 10, b.create_table({0: ("h", 9)}), [])
    with pytest.raises(MetadataError, match="invalid TimeUnit value 9"):
        decode_schema(_message(b, [bad_unit]))
    with pytest.raises(MetadataError, match="end-of-stream"):
        decode_schema(b"\xff\xff\xff\xff\x00\x00\x00\x00")
    for data in (b"", b"\xff\xff", b"\xff\xff\xff\xff\x08"):
        with pytest.raises(MetadataError):
            decode_schema(data)


@pytest.mark.parametrize(
    "value", ["not base64!!", "////", "ü", b"\xff\xfe", "QUJD", base64.b64encode(b"\x00" * 16).decode(), ""]
)
def test_schema_from_metadata_errors_name_the_key(value):
    with pytest.raises(MetadataError, match=ARROW_SCHEMA_KEY):
        schema_from_metadata(value)


def test_schema_from_metadata_tolerates_missing_padding():
    text = schema_to_metadata(decode_schema(serialized(SCHEMAS["metadata"]))).rstrip("=")
    assert schema_from_metadata(text) == expected_schema(SCHEMAS["metadata"])


@pytest.mark.parametrize(
    "bad",
    [
        ArrowType("int"), ArrowType("float", bit_width=8), ArrowType("time", unit="s"),
        ArrowType("timestamp", unit="fortnight"), ArrowType("union"), ArrowType("int", bit_width=2**40, signed=True),
        ArrowType("nonsense"),
    ],
)  # fmt: skip
def test_encoding_invalid_types_raises(bad):
    with pytest.raises((MetadataError, ValueError)):
        encode_schema(ArrowSchema((ArrowField("x", True, bad),)))


def test_types_print_as_pyarrow_prints_them():
    from parquet_codec.arrow_schema import field_text

    types = [
        pa.int8(), pa.uint64(), pa.float16(), pa.float32(), pa.float64(), pa.decimal128(10, 2),
        pa.decimal256(40, 3), pa.decimal32(5, 1), pa.date32(), pa.date64(), pa.time32("s"), pa.time64("ns"),
        pa.timestamp("us", tz="UTC"), pa.timestamp("ns"), pa.duration("ms"), pa.month_day_nano_interval(),
        pa.binary(4), pa.string(), pa.large_string(), pa.binary_view(), pa.string_view(), pa.list_(pa.int64()),
        pa.large_list(pa.field("x", pa.int32(), False)), pa.list_(pa.int8(), 3), pa.list_view(pa.int32()),
        pa.struct([("a", pa.int32()), pa.field("b", pa.string(), False)]), pa.map_(pa.string(), pa.int64()),
        pa.dictionary(pa.int8(), pa.string(), True), pa.dictionary(pa.uint32(), pa.large_string()), pa.uuid(),
        pa.json_(), pa.null(), pa.bool_(), pa.run_end_encoded(pa.int32(), pa.string()),
        pa.sparse_union([pa.field("a", pa.int32())]), pa.dense_union([pa.field("a", pa.int32()), pa.field("b", pa.string())]),
    ]
    for typ in types:
        for nullable in (True, False):
            field = pa.field("c", typ, nullable=nullable or typ == pa.null())
            decoded = decode_schema(pa.schema([field]).serialize().to_pybytes()).fields[0]
            assert field_text(decoded) == str(field).removeprefix("pyarrow.Field<").removesuffix(">"), typ


@pytest.mark.parametrize("kind, size", [("fixed_size_list", "list_size"), ("fixed_size_binary", "byte_width")])
def test_negative_fixed_sizes_are_refused(kind, size):
    """pyarrow reads a negative size back and then refuses the type it made
    (list_size should be a positive integer): the stored field is invalid."""
    item = ArrowField("item", True, ArrowType("int", bit_width=32, signed=True))
    children = (item,) if kind == "fixed_size_list" else ()
    for value, valid in ((0, True), (-5, False)):
        message = encode_schema(ArrowSchema((ArrowField("f", True, ArrowType(kind, **{size: value}), children),)))
        if valid:
            assert getattr(decode_schema(message).fields[0].type, size) == 0
        else:
            with pytest.raises(MetadataError, match="invalid"):
                decode_schema(message)
