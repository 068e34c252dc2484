"""The lazy footer decodes to exactly what a full decode gives."""

from __future__ import annotations

import io
import struct

import pytest

from parquet_codec import thrift_io
from parquet_codec.errors import (
    CorruptFileError,
    DecryptionError,
    MetadataError,
    ParquetError,
)
from parquet_codec.format.ttypes import FileMetaData
from parquet_codec.io import open_source
from parquet_codec.metadata import FileMetadata, read_footer
from tests.conftest import corpus_files, requires_corpus
from tests.support.footer import read_footer as full_footer  # the whole footer decoded at once


@requires_corpus()
def test_lazy_footer_equals_full_decode_on_corpus():
    checked = 0
    for path in corpus_files():
        data = path.read_bytes()
        if data[-4:] != b"PAR1":
            continue
        meta = read_footer(open_source(data))
        assert meta.to_thrift() == full_footer(data), path.name
        checked += 1
    assert checked > 50


def test_wide_footer_row_groups_are_located(tmp_path):
    pa = pytest.importorskip("pyarrow")
    pq = pytest.importorskip("pyarrow.parquet")
    table = pa.table({f"c{i}": list(range(10)) for i in range(50)})
    path = tmp_path / "wide.parquet"
    pq.write_table(table, path, row_group_size=3)
    meta = read_footer(open_source(str(path)))
    assert meta.num_row_groups == 4
    assert [meta.row_group(i).num_rows for i in range(4)] == [3, 3, 3, 1]
    assert meta.to_thrift() == full_footer(path.read_bytes())
    with pytest.raises(IndexError):
        meta.row_group(4)


def small_file() -> bytes:
    pa = pytest.importorskip("pyarrow")
    pq = pytest.importorskip("pyarrow.parquet")
    buf = io.BytesIO()
    pq.write_table(pa.table({"a": [1, 2, 3]}), buf)
    return buf.getvalue()


def test_sources_agree():
    data = small_file()
    by_bytes = read_footer(open_source(data))
    by_file = read_footer(open_source(io.BytesIO(data)))
    assert by_bytes.to_thrift() == by_file.to_thrift()
    assert by_bytes.num_rows == 3


@pytest.mark.parametrize(
    "mutate, error",
    [
        (lambda d: d[:-1] + b"X", CorruptFileError),
        (lambda d: b"XXXX" + d[4:], CorruptFileError),
        (lambda d: d[:-8] + struct.pack("<I", len(d)) + b"PAR1", CorruptFileError),
        (lambda d: d[:-8] + struct.pack("<I", 2**32 - 1) + b"PAR1", CorruptFileError),
        (lambda d: d[:-4] + b"PARE", DecryptionError),  # no keys given
        (lambda d: b"PAR1", CorruptFileError),
    ],
)
def test_bad_tails_are_rejected(mutate, error):
    with pytest.raises(error):
        read_footer(open_source(mutate(small_file())))


def test_every_truncated_footer_raises_parquet_error():
    data = small_file()
    length = struct.unpack("<i", data[-8:-4])[0]
    footer = data[len(data) - 8 - length : -8]
    for cut in range(len(footer)):
        with pytest.raises(ParquetError):
            FileMetadata(footer[:cut])


def test_footer_without_row_groups_field_is_rejected():
    raw = thrift_io.serialize(FileMetaData(version=1, schema=[], num_rows=0))
    with pytest.raises(MetadataError):
        FileMetadata(raw)


@pytest.mark.parametrize("element_type", [0x00, 0x05, 0x0C])
def test_empty_row_group_list_of_any_element_type_reads(element_type):
    """fastparquet writes a file of no rows with an empty row-group list whose
    element type is 0, not struct; Thrift readers (pyarrow's) take an empty
    list of any element type, and so does the footer's row-group index."""
    from parquet_codec.format.ttypes import SchemaElement

    raw = bytearray(thrift_io.serialize(FileMetaData(
        version=1, schema=[SchemaElement(name="schema", num_children=0)], num_rows=0, row_groups=[])))
    at = raw.index(bytes([0x19, 0x0C]))  # field 4 (row_groups), a list of 0 structs
    raw[at + 1] = element_type
    meta = FileMetadata(bytes(raw))
    assert meta.num_row_groups == 0 and meta.num_rows == 0
    assert thrift_io.deserialize(FileMetaData, bytes(raw), fallback=True)[0].row_groups == []


def test_file_of_no_rows_fastparquet_writes_reads(tmp_path):
    fastparquet = pytest.importorskip("fastparquet")
    pd = pytest.importorskip("pandas")
    pq = pytest.importorskip("pyarrow.parquet")
    from parquet_codec import reader

    path = tmp_path / "empty.parquet"
    fastparquet.write(str(path), pd.DataFrame({"a": pd.Series([], dtype="int64"), "s": pd.Series([], dtype=object)}))
    table = reader.read_table(path)
    assert table.num_rows == 0 and table.to_arrow().schema.equals(pq.read_table(path).schema)
