"""Footer and header (de)serialization: field ids and types match the format.

A footer parsed and re-serialized must give back the exact bytes. That holds
only if every field id, wire type and container type in thrift/parquet.thrift
is the one real writers use, so this is the IDL's conformance test.
"""

from __future__ import annotations

import io
import struct

import pytest

from parquet_codec import thrift_io
from parquet_codec.errors import MetadataError, ParquetError
from parquet_codec.format.ttypes import (
    ColumnIndex,
    FileMetaData,
    KeyValue,
    OffsetIndex,
    PageHeader,
    SchemaElement,
)
from tests.conftest import CORPUS_DATA, FIXTURES, corpus_files

# Files whose footers carry fields this IDL does not define. Thrift readers
# skip unknown fields, so these re-serialize without them.
UNKNOWN_FIELDS = {
    # a LogicalType union member from a future version of the format
    "unknown-logical-type.parquet",
    # a pre-release parquet-mr 1.12 snapshot wrote an experimental list field
    "dict-page-offset-zero.parquet",
}


def footer_range(data: bytes) -> tuple[int, int]:
    assert data[-4:] == b"PAR1"
    length = struct.unpack("<i", data[-8:-4])[0]
    return len(data) - 8 - length, len(data) - 8


def assert_footer_round_trips(data: bytes, exact: bool = True) -> FileMetaData:
    start, end = footer_range(data)
    meta, used = thrift_io.deserialize(FileMetaData, data, start, end=end)
    assert used == end - start
    again = thrift_io.serialize(meta)
    if exact:
        assert again == data[start:end]
    else:
        assert thrift_io.deserialize(FileMetaData, again)[0] == meta
    return meta


def plain_footer_files() -> list:
    files = [p for p in corpus_files() if p.read_bytes()[-4:] == b"PAR1"]
    return files + sorted((FIXTURES / "spark").rglob("*.parquet")) if (FIXTURES / "spark").is_dir() else files


@pytest.mark.parametrize("path", plain_footer_files(), ids=lambda p: p.name)
def test_corpus_footer_round_trips_byte_for_byte(path):
    assert_footer_round_trips(path.read_bytes(), exact=path.name not in UNKNOWN_FIELDS)


@pytest.mark.skipif(not CORPUS_DATA.is_dir(), reason="corpus not present")
def test_pure_python_protocol_agrees_with_accelerated():
    for path in corpus_files()[:40]:
        data = path.read_bytes()
        if data[-4:] != b"PAR1":
            continue
        start, end = footer_range(data)
        fast = thrift_io.deserialize(FileMetaData, data, start, end=end)
        slow = thrift_io.deserialize(FileMetaData, data, start, end=end, fallback=True)
        assert fast == slow


def pyarrow_files():
    pa = pytest.importorskip("pyarrow")
    pq = pytest.importorskip("pyarrow.parquet")
    import datetime
    import decimal

    table = pa.table(
        {
            "i8": pa.array([1, None, -3], pa.int8()),
            "u64": pa.array([1, 2**64 - 1, None], pa.uint64()),
            "f16": pa.array([1.5, None, -0.0], pa.float16()),
            "s": ["a", None, "ccc"],
            "dec": pa.array([decimal.Decimal("1.23"), None, decimal.Decimal("-9.99")], pa.decimal128(5, 2)),
            "big": pa.array([decimal.Decimal("1" * 30), None, 0], pa.decimal128(38, 0)),
            "ts": pa.array([datetime.datetime(2020, 1, 1), None, datetime.datetime(1900, 5, 5)], pa.timestamp("ns", "UTC")),
            "t": pa.array([datetime.time(1, 2, 3), None, datetime.time(0)], pa.time64("us")),
            "d": pa.array([datetime.date(1500, 1, 1), None, datetime.date(2999, 1, 1)]),
            "lst": [[1, 2], None, []],
            "st": [{"x": 1, "y": "a"}, None, {"x": None, "y": None}],
            "m": pa.array([[("k", 1)], None, []], pa.map_(pa.string(), pa.int32())),
            "uuid": pa.array([b"0123456789abcdef", None, b"fedcba9876543210"], pa.uuid()),
        }
    )
    options = [
        {},
        {"data_page_version": "2.0", "compression": "zstd", "write_page_index": True},
        {"use_dictionary": False, "write_statistics": False, "compression": "gzip"},
        {"store_schema": False, "write_page_checksum": True, "use_compliant_nested_type": False},
        {"use_deprecated_int96_timestamps": True, "version": "1.0"},
    ]
    for opts in options:
        buf = io.BytesIO()
        pq.write_table(table.replace_schema_metadata({"k": "v", "empty": ""}), buf, **opts)
        yield buf.getvalue()
    sorted_buf = io.BytesIO()
    pq.write_table(table.select(["i8"]), sorted_buf, sorting_columns=[pq.SortingColumn(0, descending=True)])
    yield sorted_buf.getvalue()


def test_pyarrow_footers_round_trip_byte_for_byte():
    for data in pyarrow_files():
        assert_footer_round_trips(data)


def test_page_index_and_page_header_round_trip():
    pq = pytest.importorskip("pyarrow.parquet")
    pa = pytest.importorskip("pyarrow")
    buf = io.BytesIO()
    pq.write_table(pa.table({"a": list(range(1000)), "s": [str(i % 7) for i in range(1000)]}), buf,
                   write_page_index=True, data_page_version="2.0", write_page_checksum=True)
    data = buf.getvalue()
    start, end = footer_range(data)
    meta, _ = thrift_io.deserialize(FileMetaData, data, start, end=end)
    for chunk in meta.row_groups[0].columns:
        offset = chunk.meta_data.dictionary_page_offset or chunk.meta_data.data_page_offset
        header, used = thrift_io.deserialize(PageHeader, data, offset)
        assert thrift_io.serialize(header) == data[offset : offset + used]
        assert header.crc is not None
        for cls, off, length in (
            (ColumnIndex, chunk.column_index_offset, chunk.column_index_length),
            (OffsetIndex, chunk.offset_index_offset, chunk.offset_index_length),
        ):
            index, used = thrift_io.deserialize(cls, data, off, end=off + length)
            assert used == length
            assert thrift_io.serialize(index) == data[off : off + length]


def test_consumed_length_is_reported():
    element = SchemaElement(name="x", num_children=0)
    raw = thrift_io.serialize(element)
    obj, used = thrift_io.deserialize(SchemaElement, raw + b"trailing garbage")
    assert obj == element and used == len(raw)


@pytest.mark.parametrize("fallback", [False, True])
def test_truncated_and_garbage_input_raise_metadata_error(fallback):
    raw = thrift_io.serialize(
        FileMetaData(version=1, schema=[SchemaElement(name="root", num_children=0)], num_rows=0, row_groups=[],
                     key_value_metadata=[KeyValue("a", "b" * 50)], created_by="me")
    )
    for cut in range(len(raw) - 1):
        with pytest.raises(MetadataError) as info:
            thrift_io.deserialize(FileMetaData, raw[:cut], fallback=fallback)
        assert "FileMetaData" in str(info.value)


@pytest.mark.parametrize("fallback", [False, True])
def test_hostile_lengths_do_not_allocate(fallback):
    import tracemalloc

    # FileMetaData field 2 (list<struct>) claiming 2**31 elements in a 16-byte buffer,
    # then a key-value string claiming 1 GiB.
    huge_list = bytes([0x15, 0x02, 0x19, 0xFC]) + b"\xff\xff\xff\xff\x07" + b"\x00" * 8
    huge_string = bytes([0x59, 0x1C, 0x18]) + b"\x80\x80\x80\x80\x04" + b"abc"
    tracemalloc.start()
    for raw in (huge_list, huge_string):
        with pytest.raises(ParquetError):
            thrift_io.deserialize(FileMetaData, raw, fallback=fallback)
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    assert peak < 10 * 2**20


def test_deeply_nested_unknown_fields_do_not_crash():
    # An unknown field id 20 of type struct, nested 100000 deep.
    raw = bytes([0x15, 0x02]) + bytes([0xFC, 0x14 * 2]) * 1 + b"\x1c" * 100_000
    with pytest.raises(MetadataError):
        thrift_io.deserialize(FileMetaData, raw)


def test_range_outside_buffer_is_rejected():
    with pytest.raises(MetadataError):
        thrift_io.deserialize(FileMetaData, b"abc", 2, end=10)


def test_field_with_unexpected_wire_type_is_skipped():
    # SchemaElement field 4 (name) as a string, then field 5 (num_children) sent as
    # a binary instead of an i32: Thrift readers skip a field of the wrong type.
    raw = bytes([0x48, 0x01]) + b"x" + bytes([0x18, 0x02]) + b"ab" + b"\x00"
    for fallback in (False, True):
        element, used = thrift_io.deserialize(SchemaElement, raw, fallback=fallback)
        assert element.name == "x" and element.num_children is None and used == len(raw)
    reader = thrift_io.StructReader(raw)
    assert reader.read(SchemaElement, 0)[0].name == "x"


def test_repeated_list_field_counts_as_its_last_occurrence():
    # A footer whose row_groups field (id 4) occurs twice: Thrift decoders keep
    # the last, as pyarrow does; the lazy row-group walk must agree with them.
    from parquet_codec.format.ttypes import ColumnChunk, ColumnMetaData, RowGroup
    from parquet_codec.metadata import FileMetadata

    chunk = ColumnChunk(file_offset=4, meta_data=ColumnMetaData(
        type=1, encodings=[0], path_in_schema=["x"], codec=0, num_values=1, total_uncompressed_size=4,
        total_compressed_size=4, data_page_offset=4))
    meta = FileMetaData(version=1, num_rows=1, schema=[SchemaElement(name="root", num_children=1),
                                                        SchemaElement(name="x", type=1, repetition_type=0)],
                        row_groups=[RowGroup(columns=[chunk], total_byte_size=4, num_rows=1)] * 3)
    raw = thrift_io.serialize(meta)
    # field 4 again (long form: type list, zigzag id 8), a list of one struct, before the final stop
    header = bytes([0x09, 0x08, 0x1C])
    element_at = len(raw) - 1 + len(header)
    raw = raw[:-1] + header + thrift_io.serialize(meta.row_groups[0]) + b"\x00"
    assert thrift_io.deserialize(FileMetaData, raw)[0].row_groups == [meta.row_groups[0]]
    assert thrift_io.StructReader(raw).list_field_starts(FileMetaData, "row_groups", RowGroup) == [element_at]
    assert FileMetadata(raw).num_row_groups == 1
