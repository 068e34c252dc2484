"""Reading one column chunk (File Format: "Column chunks").

The chunk's metadata is checked against its leaf and locates its pages
(:func:`chunk_range`); every page is read (:func:`read_column_chunk`), or only
the data pages an OffsetIndex selects (:func:`read_column_pages`, PageIndex.md),
and :mod:`parquet_codec.chunk_reader` decodes them into levels and values.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from parquet_codec.chunk_reader import ChunkReader, empty_leaf
from parquet_codec.errors import CorruptFileError, DecryptionError, UnsupportedError
from parquet_codec.format.ttypes import ColumnChunk, ColumnMetaData, PageLocation, Type
from parquet_codec.io import ByteSource
from parquet_codec.levels import LeafData
from parquet_codec.page import iter_page_run, iter_pages
from parquet_codec.schema import SchemaNode
from parquet_codec.value_slots import Spread, plausible_items, value_buffer

# PARQUET-816: parquet-mr before 1.2.9 left part of the dictionary page out of
# total_compressed_size. Readers extend such chunks by up to this many bytes.
LEGACY_DICTIONARY_PADDING = 100


def chunk_range(meta: ColumnMetaData, file_size: int, *, padding: int = 0) -> tuple[int, int]:
    """File offset and length of a column chunk's pages.

    A dictionary page offset of 0 (or one past the data pages) is ignored:
    some writers store 0 for "absent" and the dictionary page, if any, is
    then found at the data page offset. ``padding`` extends the range for
    writers known to understate it, never past the end of the file.
    """
    start = meta.data_page_offset
    dictionary = meta.dictionary_page_offset
    if dictionary is not None and start is not None and 0 < dictionary < start:
        start = dictionary
    length = meta.total_compressed_size
    if start is None or length is None:
        missing = "data_page_offset" if start is None else "total_compressed_size"
        raise CorruptFileError(f"column chunk metadata lacks its {missing}", file_offset=start)
    if start < 4 or length < 0 or start + length > file_size:
        raise CorruptFileError(
            f"column chunk range {start}+{length} lies outside the file of {file_size} bytes", file_offset=start
        )
    return start, min(length + padding, file_size - start)


def read_column_chunk(
    source: ByteSource, chunk: ColumnChunk, leaf: SchemaNode, *, verify_checksums: bool = True, padding: int = 0,
    decryptor: object | None = None, out: np.ndarray | None = None, keep_dictionary: bool = False,
    spread: np.ndarray | None = None,
) -> LeafData:
    """Decode every page of ``chunk`` into the leaf's levels and non-null values.

    ``padding``: see :func:`chunk_range`. ``decryptor``
    (crypto.ColumnChunkDecryptor) decrypts an encrypted chunk; its
    ``metadata`` replaces the chunk's (possibly encrypted) ColumnMetaData.
    ``out`` (a 1-D array of the leaf's :func:`plain_dtype`) receives the
    non-null values, which are then a view of it. ``spread`` (the same, for a
    flat optional leaf: one slot per level) receives the values at their
    slots instead, nulls zero (LeafData.spread). ``keep_dictionary``: return
    the values of the dictionary page too (LeafData.dictionary)."""
    check_local(chunk)
    meta = chunk.meta_data if decryptor is None else decryptor.metadata
    if meta is None:
        if chunk.crypto_metadata is not None or chunk.encrypted_column_metadata is not None:
            raise DecryptionError("column is encrypted: decryption properties are required")
        raise CorruptFileError("column chunk has no metadata")
    _check_meta(meta, leaf)
    if meta.num_values == 0:  # nothing to read; some writers leave the offsets at 0
        return empty_leaf(leaf)
    start, length = chunk_range(meta, source.size, padding=padding)
    spreading = spread is not None and out is None and leaf.max_repetition_level == 0 and leaf.max_definition_level
    buffer = None if spreading else value_buffer(leaf, meta.num_values, length, out)
    expected = meta.num_values if buffer is None and plausible_items(meta.num_values, 8, length) else 0  # offsets
    reader = ChunkReader(leaf, meta.codec, verify_checksums, decryptor, buffer, expected, keep_dictionary,
                          Spread(spread, leaf) if spreading else None)
    for page in iter_pages(source.read(start, length), start, meta.num_values, decryptor):
        reader.add(page)
    return reader.finish(meta.num_values)



def read_column_pages(
    source: ByteSource, chunk: ColumnChunk, leaf: SchemaNode, page_locations: Sequence[PageLocation],
    pages: Sequence[int] | np.ndarray, *, verify_checksums: bool = True, decryptor: object | None = None,
    keep_dictionary: bool = False,
) -> LeafData:
    """Decode only the data pages ``pages`` (indices into an OffsetIndex's
    ``page_locations``, ascending) and the dictionary page (PageIndex.md: the
    OffsetIndex lists data pages only; whatever precedes the first one in the
    chunk is the dictionary page). Adjacent pages are fetched as one byte range.
    The result holds the levels and values of those pages' rows, in order.
    ``decryptor``: see :func:`read_column_chunk` (a page's AAD ordinal is its index)."""
    check_local(chunk)
    meta = chunk.meta_data if decryptor is None else decryptor.metadata
    if meta is None:
        raise CorruptFileError("column chunk has no metadata")
    _check_meta(meta, leaf)
    buffer = value_buffer(leaf, meta.num_values, min(max(meta.total_compressed_size or 0, 0), source.size))
    reader = ChunkReader(leaf, meta.codec, verify_checksums, decryptor, buffer=buffer,
                          keep_dictionary=keep_dictionary)
    idx = np.asarray(pages, dtype=np.int64)
    if not len(idx) or meta.num_values == 0:
        return empty_leaf(leaf)
    start, _ = chunk_range(meta, source.size)
    first = page_locations[0].offset
    dictionary = 1 if first > start else 0
    if dictionary:
        for page in iter_page_run(source.read(start, first - start), start, 0, decryptor):
            reader.add(page)
    offsets = np.array([loc.offset for loc in page_locations], dtype=np.int64)
    sizes = np.array([loc.compressed_page_size for loc in page_locations], dtype=np.int64)
    # Runs of consecutive page indices are contiguous in the file: one read each.
    breaks = np.flatnonzero(np.diff(idx) != 1) + 1
    for run in np.split(idx, breaks):
        a, b = int(run[0]), int(run[-1])
        begin, end = int(offsets[a]), int(offsets[b] + sizes[b])
        for page in iter_page_run(source.read(begin, end - begin), begin, a + dictionary, decryptor):
            reader.add(page)
    return reader.finish(reader.num_values)


def check_local(chunk: ColumnChunk) -> None:
    """Raise UnsupportedError for a chunk whose data another file holds
    (``file_path``: a summary file such as ``_metadata`` lists the row groups
    of a dataset's files): its offsets do not point into this file."""
    if chunk.file_path:
        raise UnsupportedError(f"the column chunk's data is in another file, {chunk.file_path!r} (this is a "
                               "summary file): read that file, or the dataset")


def _check_meta(meta: ColumnMetaData, leaf: SchemaNode) -> None:
    if meta.type != leaf.physical_type:
        raise CorruptFileError(
            f"column chunk has type {Type._VALUES_TO_NAMES.get(meta.type, meta.type)}, the schema says "
            f"{Type._VALUES_TO_NAMES.get(leaf.physical_type)}"
        )
    if meta.num_values is None:
        raise CorruptFileError("column chunk metadata lacks its num_values")
    if meta.num_values < 0:
        raise CorruptFileError(f"column chunk declares {meta.num_values} values")


__all__ = ["LEGACY_DICTIONARY_PADDING", "check_local", "chunk_range", "read_column_chunk", "read_column_pages"]
