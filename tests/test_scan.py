"""The scanner of filtered reads (scan.py) on row groups whose metadata lies."""

from __future__ import annotations

import io

import numpy as np
import pytest

import parquet_codec as pc
from parquet_codec.errors import CorruptFileError, ResourceLimitError
from tests.support.footer import rewrite_footer

pa = pytest.importorskip("pyarrow")
pq = pytest.importorskip("pyarrow.parquet")


@pytest.mark.parametrize("declared", [1, 49, 51])
def test_a_row_group_declaring_other_rows_than_its_columns_hold_is_corrupt(declared):
    buf = io.BytesIO()
    pq.write_table(pa.table({"k": np.arange(50, dtype=np.int32)}), buf)

    def edit(meta):
        meta.row_groups[0].num_rows = meta.num_rows = declared
    data = rewrite_footer(buf.getvalue(), edit)
    for filters in ([("k", ">=", 5)], [("k", "!=", 3)]):
        with pytest.raises(CorruptFileError, match=f"column holds 50 rows, the row group declares {declared}"):
            pc.read_table(data, filters=filters)


@pytest.mark.parametrize("declared", [1001, 2**31, 2**62])
def test_pages_picked_by_the_page_index_are_counted_before_their_rows_are_laid_out(declared):
    # The last page's rows run to the row group's num_rows: a huge count is
    # refused as corrupt, not turned into an array of that many row numbers.
    buf = io.BytesIO()
    pq.write_table(pa.table({"k": np.arange(1000)}), buf, use_dictionary=False, max_rows_per_page=100,
                   write_page_index=True)

    def edit(meta):
        meta.row_groups[0].num_rows = meta.num_rows = declared
    data = rewrite_footer(buf.getvalue(), edit)
    with pytest.raises(CorruptFileError, match=f"column holds 1000 rows, the row group declares {declared}"):
        pc.read_table(data, filters=[("k", ">=", 990)])


def _small_file() -> bytes:
    buf = io.BytesIO()
    pq.write_table(pa.table({"k": np.arange(1000)}), buf, row_group_size=500)
    return buf.getvalue()


def test_filtered_row_groups_are_read_under_the_memory_limit():
    data = _small_file()
    filters = [("k", ">=", 10)]
    assert sum(t.num_rows for t in pc.ParquetFile(data, memory_limit=2**20).iter_batches(filters=filters)) == 990
    with pytest.raises(ResourceLimitError, match="memory_limit of 64 bytes") as caught:
        list(pc.ParquetFile(data, memory_limit=64).iter_batches(filters=filters))
    assert caught.value.context.get("row_group") == 0


def test_a_filtered_row_group_that_does_not_fit_in_memory_is_a_resource_limit_error(monkeypatch):
    from parquet_codec import scan

    def refuse(*args, **kwargs):
        raise MemoryError("Unable to allocate 8.00 GiB")

    monkeypatch.setattr(scan, "read_column_chunk", refuse)
    data, filters = _small_file(), [("k", ">=", 10)]
    for read in (lambda: pc.read_table(data, filters=filters),
                 lambda: list(pc.ParquetFile(data).iter_batches(filters=filters))):
        with pytest.raises(ResourceLimitError, match="does not fit in memory") as caught:
            read()
        assert caught.value.context.get("row_group") == 0


@pytest.mark.parametrize("misplace", ["shorter", "inside"])
def test_pages_the_offset_index_misplaces_are_read_with_the_whole_chunk(misplace):
    """Page locations in the file but wrong (7 bytes short, or 5 bytes into
    their page): the pages cannot be read there, so the chunk is read whole,
    as without an index, and the rows are pyarrow's (which ignores the index)."""
    from parquet_codec.format.ttypes import OffsetIndex
    from parquet_codec.thrift_io import deserialize, serialize
    from tests.support.footer import footer_start, read_footer

    buf = io.BytesIO()
    pq.write_table(pa.table({"k": np.arange(1000)}), buf, use_dictionary=False, max_rows_per_page=100,
                   write_page_index=True)
    data = buf.getvalue()
    chunk = read_footer(data).row_groups[0].columns[0]
    index = deserialize(OffsetIndex, data, chunk.offset_index_offset,
                        end=chunk.offset_index_offset + chunk.offset_index_length)[0]
    for location in index.page_locations:
        if misplace == "shorter":
            location.compressed_page_size -= 7
        else:
            location.offset += 5
    moved = serialize(index)

    def edit(meta):
        meta.row_groups[0].columns[0].offset_index_offset = footer_start(data)
        meta.row_groups[0].columns[0].offset_index_length = len(moved)
    broken = rewrite_footer(data, edit, insert=moved)
    filters = [("k", ">=", 990)]
    expected = pq.read_table(io.BytesIO(broken), filters=filters).to_pylist()
    assert pc.read_table(broken, filters=filters).to_pylist() == expected
