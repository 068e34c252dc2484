"""Reading column chunks: flat optional columns decoded straight into their rows."""

from __future__ import annotations

import numpy as np
import pytest

from parquet_codec import chunk_reader, column


def _optional_table(rows: int = 30_000):
    import pyarrow as pa

    rng = np.random.default_rng(5)
    mask = rng.random(rows) < 0.3
    return pa.table({
        "i32": pa.array(rng.integers(-50, 50, rows, dtype=np.int32), mask=mask),  # a dictionary throughout
        "i64": pa.array(rng.integers(-(2**62), 2**62, rows), mask=mask),  # dictionary, then PLAIN
        "f32": pa.array(rng.standard_normal(rows).astype(np.float32), mask=~mask),
        "f64": pa.array(rng.standard_normal(rows), mask=rng.random(rows) < 0.01),
        "b": pa.array(rng.random(rows) < 0.5, mask=mask),
        "none": pa.array(np.zeros(rows), mask=np.ones(rows, dtype=bool)),
        "full": pa.array(rng.integers(0, 2**40, rows)),  # optional, no nulls
    })


@pytest.mark.parametrize("options", [
    {},
    {"data_page_version": "2.0"},
    {"use_dictionary": False, "column_encoding": {"i32": "DELTA_BINARY_PACKED", "i64": "DELTA_BINARY_PACKED",
                                                  "f32": "BYTE_STREAM_SPLIT", "f64": "BYTE_STREAM_SPLIT"}},
    {"compression": "none", "data_page_size": 1000},
    {"write_statistics": False},  # no null counts: "full" is spread too, its batches all present
], ids=["v1", "v2", "delta-bss", "small-pages", "no-statistics"])
@pytest.mark.parametrize("row_groups", [1, 3])
def test_optional_values_are_decoded_straight_into_their_slots(tmp_path, options, row_groups):
    """Flat optional columns read into the table's arrays (value_slots.Spread):
    values at their rows, zeros at the nulls, as pyarrow reads them, over
    dictionary and PLAIN pages (values after the levels: unaligned), DELTA and
    BYTE_STREAM_SPLIT pages, v2 pages, batches of many pages and row groups."""
    import pyarrow.parquet as pq

    from parquet_codec import read_table

    table = _optional_table()
    path = tmp_path / "t.parquet"
    pq.write_table(table, path, row_group_size=-(-table.num_rows // row_groups), dictionary_pagesize_limit=2000,
                   **options)
    ours = read_table(path)
    for name in table.column_names:
        expected = table.column(name).combine_chunks()
        got = ours.column(name).array
        valid = np.asarray(expected.is_valid())
        assert np.array_equal(got.is_valid(), valid), name
        values = np.asarray(got.values)
        assert np.array_equal(values[valid], expected.drop_null().to_numpy(zero_copy_only=False)), name
        assert not values[~valid].any(), name  # zeros at the nulls


def test_pages_read_one_by_one_are_spread_too(tmp_path, monkeypatch):
    """Pages whose levels are not decoded in batches (BIT_PACKED levels, say:
    the page is then decoded whole) go to their slots the same way."""
    import pyarrow.parquet as pq

    from parquet_codec import read_table

    table = _optional_table(5000)
    path = tmp_path / "t.parquet"
    pq.write_table(table, path, data_page_size=2000, dictionary_pagesize_limit=2000, row_group_size=2000)
    monkeypatch.setattr(chunk_reader, "split_data_page", lambda *args: None)
    assert read_table(path).to_pylist() == table.to_pylist()


def test_spread_slots_are_checked_against_the_pages(tmp_path):
    """A chunk whose pages hold more levels than the slots given is corrupt, named so."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    from parquet_codec.errors import CorruptFileError
    from parquet_codec.io import open_source
    from parquet_codec.reader import ParquetFile

    path = tmp_path / "t.parquet"
    pq.write_table(pa.table({"a": pa.array([1, None, 3, 4], pa.int64())}), path)
    pf = ParquetFile(path)
    chunk = pf.metadata.row_group(0).columns[0]
    leaf = pf.schema.leaves[0]
    slots = np.full(4, -1, dtype=np.int64)
    data = column.read_column_chunk(open_source(str(path)), chunk, leaf, spread=slots)
    assert data.spread and slots.tolist() == [1, 0, 3, 4] and data.num_values == 4
    with pytest.raises(CorruptFileError, match="more than the 3 level slots"):
        column.read_column_chunk(open_source(str(path)), chunk, leaf, spread=np.zeros(3, dtype=np.int64))


@pytest.mark.parametrize("extra", [1, 32])
def test_byte_stream_split_pages_of_other_than_their_values_bytes_are_corrupt(extra):
    """Each of the K streams is as long as the page has values: with more
    bytes (a stray one, or streams of twice the values) the layout is
    ambiguous, and pyarrow refuses the page too."""
    import io
    import struct

    import pyarrow as pa
    import pyarrow.parquet as pq

    import parquet_codec as pc
    from parquet_codec.errors import DecodingError
    from parquet_codec.format.ttypes import PageHeader
    from parquet_codec.thrift_io import deserialize, serialize
    from tests.support.footer import read_footer

    buf = io.BytesIO()
    pq.write_table(pa.table({"f": pa.array(np.arange(8, dtype=np.float32))}), buf, use_dictionary=False,
                   column_encoding={"f": "BYTE_STREAM_SPLIT"}, compression="none", write_statistics=False)
    data = buf.getvalue()
    meta = read_footer(data)
    chunk = meta.row_groups[0].columns[0].meta_data
    header, used = deserialize(PageHeader, data, chunk.data_page_offset)
    start = chunk.data_page_offset + used
    body = data[start : start + header.compressed_page_size] + b"\x00" * extra
    header.compressed_page_size = header.uncompressed_page_size = len(body)
    page = serialize(header) + body
    chunk.data_page_offset, chunk.total_compressed_size, chunk.total_uncompressed_size = 4, len(page), len(page)
    footer = serialize(meta)
    with pytest.raises(DecodingError, match="streams of 8 values take 32 bytes, the page holds"):
        pc.read_table(b"PAR1" + page + footer + struct.pack("<I", len(footer)) + b"PAR1")
