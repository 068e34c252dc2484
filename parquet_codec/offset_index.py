"""OffsetIndex: where each data page of a column chunk lies and which rows it holds
(PageIndex.md; parquet.thrift ``OffsetIndex`` / ``PageLocation``).

``page_locations[i]`` gives the file offset of page ``i``'s header, the
page's size including its header, and the index of its first row in the row
group; pages start at row boundaries, so page ``i`` holds rows
``first_row_index[i] .. first_row_index[i + 1]`` (the last page runs to the
row group's end). The dictionary page is not listed.

Also here: :class:`PageEntry`, what the writer knows about each page (it
feeds both indexes), and :class:`RowRanges`, the sorted row selection that
page pruning produces and decoding consumes.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import Protocol

import numpy as np

from parquet_codec.errors import CorruptFileError, MetadataError, ParquetError
from parquet_codec.format.ttypes import ColumnChunk, OffsetIndex, PageLocation
from parquet_codec.io import ByteSource
from parquet_codec.thrift_io import deserialize

# No page index struct is anywhere near this big; a larger length is corrupt.
MAX_INDEX_BYTES = 256 * 2**20


@dataclass
class PageEntry:
    """One data page as the page indexes describe it (the writer fills one per page).

    ``min_value`` / ``max_value`` are PLAIN bytes of the page's bounds
    (possibly truncated); leave them None for a null page (all values null)
    or a page without bounds. ``compressed_size`` includes the page header.
    Histograms count slots per level (``max_level + 1`` entries).
    """

    offset: int
    compressed_size: int
    first_row_index: int
    null_count: int = 0
    null_page: bool = False
    min_value: bytes | None = None
    max_value: bytes | None = None
    nan_count: int | None = None
    unencoded_byte_array_bytes: int | None = None
    rep_histogram: list[int] | None = None
    def_histogram: list[int] | None = None


# ---------------------------------------------------------------- reading


class IndexDecryptor(Protocol):
    """The page index side of crypto.ColumnChunkDecryptor: the ColumnIndex and
    OffsetIndex of an encrypted column are GCM modules 6 and 7 (Encryption, section 4.4.2)."""

    def decrypt_column_index(self, stored: memoryview | bytes) -> bytes: ...

    def decrypt_offset_index(self, stored: memoryview | bytes) -> bytes: ...


def read_index_struct(source: ByteSource, cls: type, offset: int | None, length: int | None, what: str,
                      decrypt: Callable[[memoryview], bytes] | None = None) -> object | None:
    """Fetch and parse a page index struct at ``offset``; None when ``offset`` is unset.
    The range is checked against the file before anything is read; ``decrypt``
    turns the stored module of an encrypted column into the serialized struct."""
    if offset is None:
        return None
    size = source.size
    if length is None:
        raise MetadataError(f"{what} has an offset ({offset}) but no length", file_offset=offset)
    if offset < 0 or length <= 0 or length > MAX_INDEX_BYTES or offset + length > size:
        raise CorruptFileError(
            f"{what} of {length} bytes at offset {offset} lies outside the file of {size} bytes", file_offset=offset
        )
    data = source.read(offset, length)
    if decrypt is not None:
        try:
            data = decrypt(data)
        except ParquetError as exc:
            raise exc.add_context(file_offset=offset) from None
    try:
        return deserialize(cls, data)[0]
    except MetadataError as exc:
        if decrypt is not None:  # positions in the plaintext are not file offsets
            exc.message = f"decrypted {what} does not parse: {exc.message}"
            exc.context["file_offset"] = offset
            raise
        exc.context["file_offset"] = offset + int(exc.context.get("file_offset", 0))  # type: ignore[call-overload]
        raise


def read_offset_index(source: ByteSource, chunk: ColumnChunk, *, num_rows: int | None = None,
                      decryptor: IndexDecryptor | None = None) -> OffsetIndex | None:
    """The chunk's OffsetIndex (``offset_index_offset`` / ``_length``), or None
    when it has none; page locations are checked against the file and, given
    ``num_rows`` (the row group's), against the rows. ``decryptor`` (the
    chunk's crypto.ColumnChunkDecryptor) opens the index of an encrypted column."""
    decrypt = None if decryptor is None else decryptor.decrypt_offset_index
    index = read_index_struct(source, OffsetIndex, chunk.offset_index_offset, chunk.offset_index_length,
                              "OffsetIndex", decrypt)
    if index is not None:
        validate_offset_index(index, source.size, num_rows, file_offset=chunk.offset_index_offset)
    return index


def validate_offset_index(index: OffsetIndex, file_size: int, num_rows: int | None = None, *,
                          file_offset: int | None = None) -> None:
    """Pages must lie in the file in order, start at row 0 and at non-decreasing rows."""
    def fail(problem: str) -> MetadataError:
        return MetadataError(f"OffsetIndex {problem}", file_offset=file_offset)

    locations = index.page_locations
    if locations is None:
        raise fail("lacks page_locations")
    if any(loc.offset is None or loc.compressed_page_size is None or loc.first_row_index is None
           for loc in locations):
        raise fail("has a page location with a missing field")
    offsets, sizes, first = _location_arrays(index)
    bad = np.flatnonzero((offsets < 0) | (sizes <= 0) | (offsets + sizes > file_size))
    if len(bad):
        i = int(bad[0])
        raise fail(f"page {i} at {int(offsets[i])} of {int(sizes[i])} bytes lies outside the file of {file_size} bytes")
    if len(offsets) > 1 and (offsets[1:] < offsets[:-1] + sizes[:-1]).any():
        raise fail("lists pages that overlap or are out of order")
    if len(first) and first[0] != 0:
        raise fail(f"starts at row {int(first[0])}, not 0")
    if (np.diff(first) < 0).any():
        raise fail("has decreasing first_row_index values")
    if num_rows is not None and len(first) and first[-1] >= max(num_rows, 1):
        raise fail(f"has a page starting at row {int(first[-1])} of a row group of {num_rows} rows")
    unencoded = index.unencoded_byte_array_data_bytes
    if unencoded is not None and len(unencoded) != len(locations):
        raise fail(f"has {len(unencoded)} unencoded_byte_array_data_bytes for {len(locations)} pages")


def _location_arrays(index: OffsetIndex) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(offsets, sizes, first_row_index) of every page as int64 arrays."""
    locations = index.page_locations
    n = len(locations)
    offsets = np.fromiter((loc.offset for loc in locations), dtype=np.int64, count=n)
    sizes = np.fromiter((loc.compressed_page_size for loc in locations), dtype=np.int64, count=n)
    first = np.fromiter((loc.first_row_index for loc in locations), dtype=np.int64, count=n)
    return offsets, sizes, first


# ---------------------------------------------------------------- building (writer side)


def build_offset_index(pages: Sequence[PageEntry]) -> OffsetIndex:
    """The OffsetIndex of a chunk's data pages; ``unencoded_byte_array_data_bytes``
    is written when every page reports it (BYTE_ARRAY columns)."""
    unencoded = [p.unencoded_byte_array_bytes for p in pages]
    return OffsetIndex(
        page_locations=[
            PageLocation(offset=int(p.offset), compressed_page_size=int(p.compressed_size),
                         first_row_index=int(p.first_row_index))
            for p in pages
        ],
        unencoded_byte_array_data_bytes=None if not pages or None in unencoded else [int(u) for u in unencoded],
    )


# ---------------------------------------------------------------- rows and pages


def page_row_spans(index: OffsetIndex, num_rows: int) -> tuple[np.ndarray, np.ndarray]:
    """(first row, one past the last row) of every page of a row group of ``num_rows`` rows."""
    first = _location_arrays(index)[2]
    stops = np.append(first[1:], np.int64(num_rows)) if len(first) else first
    return first, stops


def page_byte_ranges(index: OffsetIndex, pages: np.ndarray | Sequence[int]) -> list[tuple[int, int]]:
    """(file offset, length) of the given pages, adjacent pages coalesced into one range."""
    offsets, sizes, _ = _location_arrays(index)
    idx = np.asarray(pages, dtype=np.intp)
    return [(int(a), int(b - a)) for a, b in RowRanges.of(offsets[idx], offsets[idx] + sizes[idx])]


def rows_of_pages(index: OffsetIndex, pages: np.ndarray | Sequence[int], num_rows: int) -> RowRanges:
    """The rows held by the given pages, as merged ranges."""
    starts, stops = page_row_spans(index, num_rows)
    idx = np.asarray(pages, dtype=np.intp)
    return RowRanges.of(starts[idx], stops[idx])


def pages_for_rows(index: OffsetIndex, rows: RowRanges, num_rows: int) -> np.ndarray:
    """Indices of the pages holding at least one row of ``rows`` (ascending)."""
    starts, stops = page_row_spans(index, num_rows)
    if not len(rows):
        return np.zeros(0, dtype=np.int64)
    # For each page, the first range ending after the page's first row; it overlaps
    # the page when it also starts before the page ends.
    k = np.searchsorted(rows.stops, starts, side="right")
    hit = k < len(rows)
    hit[hit] = rows.starts[k[hit]] < stops[hit]
    return np.flatnonzero(hit & (stops > starts))


class RowRanges:
    """Sorted, disjoint, non-adjacent half-open row ranges ``[start, stop)`` within a row group."""

    __slots__ = ("starts", "stops")

    def __init__(self, starts: np.ndarray, stops: np.ndarray) -> None:
        """Takes ranges already normalized; use :meth:`of` for arbitrary ones."""
        self.starts = np.asarray(starts, dtype=np.int64)
        self.stops = np.asarray(stops, dtype=np.int64)

    @classmethod
    def of(cls, starts: Sequence[int] | np.ndarray, stops: Sequence[int] | np.ndarray) -> RowRanges:
        """Normalize any ranges: drop empty ones, sort, merge overlapping and adjacent ones."""
        return _covered([(np.asarray(starts, dtype=np.int64), np.asarray(stops, dtype=np.int64))], 1)

    @classmethod
    def all(cls, num_rows: int) -> RowRanges:
        return cls.of([0], [num_rows])

    @classmethod
    def empty(cls) -> RowRanges:
        return cls(np.zeros(0, np.int64), np.zeros(0, np.int64))

    def union(self, other: RowRanges) -> RowRanges:
        return _covered([(self.starts, self.stops), (other.starts, other.stops)], 1)

    def intersection(self, other: RowRanges) -> RowRanges:
        return _covered([(self.starts, self.stops), (other.starts, other.stops)], 2)

    __or__ = union
    __and__ = intersection

    @property
    def num_rows(self) -> int:
        return int((self.stops - self.starts).sum())

    def __len__(self) -> int:
        return len(self.starts)

    def __iter__(self) -> Iterator[tuple[int, int]]:
        return iter(zip(self.starts.tolist(), self.stops.tolist(), strict=True))

    def to_mask(self, num_rows: int) -> np.ndarray:
        """A bool mask of ``num_rows`` rows, True inside the ranges."""
        edges = np.zeros(num_rows + 1, dtype=np.int64)
        np.add.at(edges, np.minimum(self.starts, num_rows), 1)
        np.add.at(edges, np.minimum(self.stops, num_rows), -1)
        return np.cumsum(edges[:-1]) > 0

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, RowRanges):
            return NotImplemented
        return np.array_equal(self.starts, other.starts) and np.array_equal(self.stops, other.stops)

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return f"RowRanges({list(self)})"


def _covered(lists: list[tuple[np.ndarray, np.ndarray]], depth: int) -> RowRanges:
    """Rows covered by at least ``depth`` of the range lists: a sweep over the
    range ends, starts before stops at one position so touching ranges merge."""
    starts = np.concatenate([s for s, _ in lists])
    stops = np.concatenate([e for _, e in lists])
    keep = stops > starts
    starts, stops = starts[keep], stops[keep]
    if not len(starts):
        return RowRanges.empty()
    position = np.concatenate([starts, stops])
    delta = np.concatenate([np.ones(len(starts), np.int64), -np.ones(len(stops), np.int64)])
    order = np.lexsort((-delta, position))  # by position, +1 before -1
    position, delta = position[order], delta[order]
    level = np.cumsum(delta)
    before = level - delta
    opens = position[(level >= depth) & (before < depth)]
    closes = position[(level < depth) & (before >= depth)]
    keep = closes > opens
    return RowRanges(opens[keep], closes[keep])


__all__ = [
    "MAX_INDEX_BYTES", "IndexDecryptor", "PageEntry", "RowRanges", "build_offset_index", "page_byte_ranges",
    "page_row_spans", "pages_for_rows", "read_index_struct", "read_offset_index", "rows_of_pages", "validate_offset_index",
]
