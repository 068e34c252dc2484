"""Page indexes the writer puts after the row groups (writer_indexes.py).

Every chunk of every type is checked against its own pages (decoded one by
one, tests/test_page_index.py), pyarrow must see the indexes, and per page
the bounds and null counts must equal what pyarrow computes over the same
rows; where pages are cut alike, the indexes must equal pyarrow's.
"""

from __future__ import annotations

import io

import numpy as np
import pyarrow as pa
import pyarrow.compute as pac
import pyarrow.parquet as pq
import pytest

from parquet_codec.column_index import PageBounds
from parquet_codec.format.ttypes import BoundaryOrder
from parquet_codec.reader import ParquetFile
from parquet_codec.schema import Schema
from parquet_codec.table import Table
from parquet_codec.types import logical_info
from parquet_codec.writer import ParquetWriter, write_table
from tests.test_page_index import check_chunk_indexes
from tests.test_writer import _columns

NO_ORDER = {"int96", "interval"}


@pytest.fixture(scope="module")
def every_type() -> Table:
    cols = _columns()
    schema = Schema.from_fields([c[0] for c in cols.values()])
    return Table.from_pydict({k: v[1] for k, v in cols.items()}, schema)


def _write(table, **options) -> bytes:
    sink = io.BytesIO()
    write_table(table, sink, **options)
    return sink.getvalue()


@pytest.mark.parametrize("version", ["1.0", "2.0"])
@pytest.mark.parametrize("dictionary", [True, False])
def test_every_type_indexes_describe_their_pages(every_type, version, dictionary):
    data = _write(every_type, data_page_size=64, data_page_version=version, use_dictionary=dictionary,
                  row_group_size=100)
    pf = ParquetFile(data)
    arrow_meta = pq.ParquetFile(io.BytesIO(data)).metadata
    for rg in range(pf.num_row_groups):
        for leaf in pf.schema.leaves:
            column_index, offset_index = check_chunk_indexes(pf, rg, leaf)
            arrow_chunk = arrow_meta.row_group(rg).column(leaf.column_index)
            assert arrow_chunk.has_offset_index
            assert arrow_chunk.has_column_index == (leaf.path[0] not in NO_ORDER), leaf.dotted_path
            if column_index is None:
                continue
            _check_histograms(column_index, len(offset_index.page_locations), leaf)
            _check_boundary_order(column_index, leaf)


def _check_histograms(column_index, pages: int, leaf) -> None:
    """As parquet-java writes them: repetition iff max rep > 0, definition iff max def > 1."""
    rep, dfn = column_index.repetition_level_histograms, column_index.definition_level_histograms
    assert (rep is not None) == (leaf.max_repetition_level > 0), leaf.dotted_path
    assert (dfn is not None) == (leaf.max_definition_level > 1), leaf.dotted_path
    if dfn is not None:
        per_page = np.array(dfn).reshape(pages, leaf.max_definition_level + 1)
        nulls = per_page[:, : leaf.max_definition_level].sum(axis=1)
        assert nulls.tolist() == column_index.null_counts


def _check_boundary_order(column_index, leaf) -> None:
    bounds = PageBounds.from_column_index(column_index, logical_info(leaf.element))
    keep = ~bounds.null_pages
    lo, hi = bounds.min[keep], bounds.max[keep]
    up = all(lo[1:] >= lo[:-1]) and all(hi[1:] >= hi[:-1])
    down = all(lo[1:] <= lo[:-1]) and all(hi[1:] <= hi[:-1])
    expected = BoundaryOrder.ASCENDING if up else BoundaryOrder.DESCENDING if down else BoundaryOrder.UNORDERED
    assert column_index.boundary_order == expected, leaf.dotted_path


ARROW_TABLE = pa.table({
    "up": pa.array(range(2000), pa.int64()),
    "down": pa.array([None if i % 9 == 0 else 5000 - i for i in range(2000)], pa.int32()),
    "s": pa.array([None if i % 13 == 0 else f"k{(i * 7919) % 1000:04d}" for i in range(2000)]),
    "f": pa.array([float("nan") if i % 17 == 0 else (i % 50) * 0.5 for i in range(2000)]),
})


def test_bounds_per_page_equal_pyarrow_compute():
    """For the pages we cut, pyarrow's own min/max/null counts over those rows."""
    data = _write(ARROW_TABLE, data_page_size=512, use_dictionary=False, row_group_size=1000)
    rows = pq.read_table(io.BytesIO(data))
    assert rows.drop_columns(["f"]).equals(ARROW_TABLE.drop_columns(["f"]))
    np.testing.assert_array_equal(rows["f"].to_numpy(), ARROW_TABLE["f"].to_numpy())  # NaN == NaN here
    pf = ParquetFile(data)
    for rg in range(pf.num_row_groups):
        group = rows.slice(rg * 1000, 1000)
        for leaf in pf.schema.leaves:
            column_index, offset_index = pf.column_index(rg, leaf.dotted_path), pf.offset_index(rg, leaf.dotted_path)
            starts = [loc.first_row_index for loc in offset_index.page_locations] + [1000]
            assert len(starts) > 2, leaf.dotted_path
            bounds = PageBounds.from_column_index(column_index, logical_info(leaf.element))
            for i, (a, b) in enumerate(zip(starts[:-1], starts[1:], strict=True)):
                values = group.column(leaf.dotted_path).slice(a, b - a)
                assert column_index.null_counts[i] == values.null_count
                if leaf.dotted_path == "f":
                    nan = pac.is_nan(values).to_pylist().count(True)
                    assert column_index.nan_counts[i] == nan
                    values = pac.filter(values, pac.invert(pac.is_nan(values)))
                extremes = pac.min_max(values).as_py()
                lo, hi = bounds.min[i], bounds.max[i]
                if isinstance(lo, bytes):
                    lo, hi = lo.decode(), hi.decode()
                assert (lo, hi) == (extremes["min"], extremes["max"]), (leaf.dotted_path, i)
    assert pf.column_index(0, "up").boundary_order == BoundaryOrder.ASCENDING
    assert pf.column_index(0, "down").boundary_order == BoundaryOrder.DESCENDING
    assert pf.column_index(0, "s").boundary_order == BoundaryOrder.UNORDERED


def test_same_pages_same_indexes_as_pyarrow():
    """Pages of 100 rows on both sides: the indexes pyarrow writes are ours, field by field
    (pyarrow also writes a definition histogram for max definition level 1; parquet-java does not)."""
    table = pa.table({"x": pa.array([(i * 37) % 1000 for i in range(1000)], pa.int64()),
                      "y": pa.array([None if i % 7 == 0 else f"v{i:05d}" for i in range(1000)])})
    theirs = io.BytesIO()
    pq.write_table(table, theirs, use_dictionary=False, write_page_index=True, max_rows_per_page=100,
                   compression="none")
    # x: 8-byte PLAIN values, no levels -> 800 bytes is 100 rows.
    ours = ParquetFile(_write(table.select(["x"]), use_dictionary=False, data_page_size=800, compression="none"))
    arrow_file = ParquetFile(theirs.getvalue())
    mine, theirs_ci = ours.column_index(0, "x"), arrow_file.column_index(0, "x")
    assert len(mine.null_pages) == 10
    for name in ("null_pages", "min_values", "max_values", "boundary_order", "null_counts"):
        assert getattr(mine, name) == getattr(theirs_ci, name), name
    first_rows = [[loc.first_row_index for loc in f.offset_index(0, "x").page_locations] for f in (ours, arrow_file)]
    assert first_rows[0] == first_rows[1]


def test_statistics_off_drops_the_column_index_not_the_offset_index():
    data = _write(ARROW_TABLE, write_statistics=["up"], data_page_size=512)
    pf, meta = ParquetFile(data), pq.ParquetFile(io.BytesIO(data)).metadata.row_group(0)
    assert pf.column_index(0, "up") is not None and pf.column_index(0, "s") is None
    assert all(meta.column(i).has_offset_index for i in range(4))
    assert not meta.column(2).has_column_index
    none = _write(ARROW_TABLE, write_page_index=False)
    chunk = ParquetFile(none).metadata.row_group(0).columns[0]
    assert chunk.column_index_offset is None and chunk.offset_index_offset is None


def test_layout_after_row_groups_and_streaming(tmp_path):
    """All ColumnIndexes, then all OffsetIndexes, then all bloom filters, then the footer;
    the writer keeps no page bytes between row groups."""
    path = tmp_path / "t.parquet"
    table = Table.from_arrow(ARROW_TABLE)
    with ParquetWriter(path, table.schema, data_page_size=1024, bloom_filter_options={"s": True, "up": True}) as w:
        for start in range(0, 2000, 500):
            w.write_table(table.slice(start, 500))
            assert all(not chunk.parts for group in w.row_group_chunks for chunk in group)
    meta = ParquetFile(path).metadata.to_thrift()
    chunks = [c for g in meta.row_groups for c in g.columns]
    end_of_data = max((c.meta_data.dictionary_page_offset or c.meta_data.data_page_offset)
                      + c.meta_data.total_compressed_size for c in chunks)
    spans = ([(c.column_index_offset, c.column_index_length) for c in chunks]
             + [(c.offset_index_offset, c.offset_index_length) for c in chunks]
             + [(c.meta_data.bloom_filter_offset, c.meta_data.bloom_filter_length) for c in chunks
                if c.meta_data.bloom_filter_offset is not None])
    assert len(spans) == 2 * len(chunks) + 2 * len(meta.row_groups)
    position = end_of_data
    for offset, length in spans:  # contiguous, in that order
        assert offset == position
        position += length
    size = path.stat().st_size
    footer_length = int.from_bytes(path.read_bytes()[-8:-4], "little")
    assert position == size - 8 - footer_length
    assert [g.ordinal for g in meta.row_groups] == [0, 1, 2, 3]


def test_nested_histograms_sum_to_size_statistics():
    table = pa.table({"l": pa.array([[i, None] if i % 3 else ([] if i % 2 else None) for i in range(600)],
                                    pa.list_(pa.int32()))})
    pf = ParquetFile(_write(table, data_page_size=128))
    leaf = pf.schema.leaves[0]
    column_index = pf.column_index(0, "l.list.element")
    size = pf.metadata.row_group(0).columns[0].meta_data.size_statistics
    pages = len(column_index.null_pages)
    assert pages > 1
    for name, chunk_hist, width in (("repetition_level_histograms", size.repetition_level_histogram,
                                     leaf.max_repetition_level + 1),
                                    ("definition_level_histograms", size.definition_level_histogram,
                                     leaf.max_definition_level + 1)):
        per_page = np.array(getattr(column_index, name)).reshape(pages, width)
        assert per_page.sum(axis=0).tolist() == chunk_hist
