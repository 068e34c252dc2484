"""The page index (PageIndex.md): ColumnIndex and OffsetIndex together.

The two structures live in :mod:`parquet_codec.column_index` (per-page
bounds, predicates, boundary order) and :mod:`parquet_codec.offset_index`
(page locations, row ranges); this module joins them for filtered reads:
prune the pages of the filtered column with its ColumnIndex, turn the kept
pages into rows with its OffsetIndex, then map those rows to the pages of
every other projected column through their OffsetIndexes ("Technical
Approach": "Once rows of a column are skipped, the corresponding rows in the
other columns have to be skipped").
"""

from __future__ import annotations

import numpy as np

from parquet_codec.column_index import (
    EQ,
    GE,
    GT,
    IN,
    IS_NOT_NULL,
    IS_NULL,
    LE,
    LT,
    NE,
    NOT_IN,
    OPS,
    PageBounds,
    boundary_order,
    build_column_index,
    read_column_index,
    validate_column_index,
)  # fmt: skip
from parquet_codec.errors import MetadataError
from parquet_codec.format.ttypes import ColumnChunk, ColumnIndex, OffsetIndex
from parquet_codec.io import ByteSource
from parquet_codec.offset_index import (
    IndexDecryptor,
    PageEntry,
    RowRanges,
    build_offset_index,
    page_byte_ranges,
    page_row_spans,
    pages_for_rows,
    read_offset_index,
    rows_of_pages,
    validate_offset_index,
)  # fmt: skip
from parquet_codec.sort_keys import bound_keys, has_order, value_key
from parquet_codec.types import LogicalInfo


def read_page_index(source: ByteSource, chunk: ColumnChunk, num_rows: int, *,
                    decryptor: IndexDecryptor | None = None) -> tuple[ColumnIndex | None, OffsetIndex | None]:
    """Both indexes of one chunk (either may be None), checked to describe the same pages;
    ``decryptor`` opens those of an encrypted column (Encryption, section 4.4.2)."""
    offsets = read_offset_index(source, chunk, num_rows=num_rows, decryptor=decryptor)
    num_pages = None if offsets is None else len(offsets.page_locations)
    return read_column_index(source, chunk, num_pages=num_pages, decryptor=decryptor), offsets


def matching_rows(column_index: ColumnIndex | None, offset_index: OffsetIndex, info: LogicalInfo, op: str,
                  value: object, num_rows: int) -> RowRanges:
    """The rows of a row group that may satisfy ``column <op> value``: the rows of
    the pages the ColumnIndex cannot rule out (all rows without a ColumnIndex)."""
    num_pages = len(offset_index.page_locations)
    if column_index is None:
        return RowRanges.all(num_rows)
    if len(column_index.null_pages) != num_pages:
        raise MetadataError(f"ColumnIndex describes {len(column_index.null_pages)} pages, "
                            f"the OffsetIndex {num_pages}")
    pages = PageBounds.from_column_index(column_index, info).pages(op, value)
    return rows_of_pages(offset_index, pages, num_rows)


def pages_to_fetch(offset_index: OffsetIndex, rows: RowRanges, num_rows: int) -> np.ndarray:
    """The pages of a column that hold any of ``rows`` (the dictionary page, not
    in the OffsetIndex, is needed too whenever a page is)."""
    return pages_for_rows(offset_index, rows, num_rows)


__all__ = [
    "EQ", "NE", "LT", "LE", "GT", "GE", "IN", "NOT_IN", "IS_NULL", "IS_NOT_NULL", "OPS",
    "IndexDecryptor", "PageBounds", "PageEntry", "RowRanges", "bound_keys", "boundary_order", "build_column_index",
    "build_offset_index", "has_order", "matching_rows", "page_byte_ranges", "page_row_spans", "pages_for_rows",
    "pages_to_fetch", "read_column_index", "read_offset_index", "read_page_index", "rows_of_pages",
    "validate_column_index", "validate_offset_index", "value_key",
]
