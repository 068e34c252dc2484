"""Reading one column chunk (File Format: "Column chunks").

A chunk is an optional dictionary page followed by data pages. Each data
page yields its levels and its encoded non-null values; the values of all
pages are joined into one array, with dictionary indices gathered once when
every page is dictionary-encoded.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from parquet_codec.arrays import Array, BinaryArray, PrimitiveArray, concat
from parquet_codec.encodings import (
    ByteArrays,
    ByteStreamSplit,
    DeltaBinaryPacked,
    DeltaByteArray,
    DeltaLengthByteArray,
    RleBitPackedHybrid,
    decode_indices,
    decode_plain,
    gather,
)
from parquet_codec.errors import CorruptFileError, DecodingError, ParquetError, UnsupportedError
from parquet_codec.format.ttypes import ColumnChunk, ColumnMetaData, Encoding, PageLocation, PageType, Type
from parquet_codec.io import ByteSource
from parquet_codec.levels import LEVEL_DTYPE, LeafData
from parquet_codec.page import (
    DataPage,
    RawPage,
    iter_page_run,
    iter_pages,
    read_data_page,
    read_dictionary_page,
    verify_crc,
)
from parquet_codec.schema import SchemaNode

_DICTIONARY_ENCODINGS = (Encoding.PLAIN_DICTIONARY, Encoding.RLE_DICTIONARY)


@dataclass
class _Indices:
    """Dictionary indices of one page, gathered once all pages are read."""

    indices: np.ndarray


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
    if dictionary is not None and 0 < dictionary < start:
        start = dictionary
    length = meta.total_compressed_size
    if start is None or length is None or start < 4 or length < 0 or start + length > file_size:
        raise CorruptFileError(
            f"column chunk range {start}+{length} lies outside the file of {file_size} bytes", file_offset=start
        )
    return start, min(length + padding, file_size - start)


def read_column_chunk(
    source: ByteSource, chunk: ColumnChunk, leaf: SchemaNode, *, verify_checksums: bool = True, padding: int = 0,
    decryptor: object | None = None,
) -> LeafData:
    """Decode every page of ``chunk`` into the leaf's levels and non-null values.

    ``padding``: see :func:`chunk_range`. ``decryptor``
    (crypto.ColumnChunkDecryptor) decrypts an encrypted chunk; its
    ``metadata`` replaces the chunk's (possibly encrypted) ColumnMetaData."""
    meta = chunk.meta_data if decryptor is None else decryptor.metadata
    if meta is None:
        if chunk.crypto_metadata is not None or chunk.encrypted_column_metadata is not None:
            raise UnsupportedError("column is encrypted: decryption properties are required")
        raise CorruptFileError("column chunk has no metadata")
    _check_meta(meta, leaf)
    if meta.num_values == 0:  # nothing to read; some writers leave the offsets at 0
        return empty_leaf(leaf)
    start, length = chunk_range(meta, source.size, padding=padding)
    reader = _ChunkReader(leaf, meta.codec, verify_checksums, decryptor)
    for page in iter_pages(source.read(start, length), start, meta.num_values, decryptor):
        reader.add(page)
    return reader.finish(meta.num_values)



def read_column_pages(
    source: ByteSource, chunk: ColumnChunk, leaf: SchemaNode, page_locations: Sequence[PageLocation],
    pages: Sequence[int] | np.ndarray, *, verify_checksums: bool = True,
) -> LeafData:
    """Decode only the data pages ``pages`` (indices into an OffsetIndex's
    ``page_locations``, ascending) and the dictionary page (PageIndex.md: the
    OffsetIndex lists data pages only; whatever precedes the first one in the
    chunk is the dictionary page). Adjacent pages are fetched as one byte range.
    The result holds the levels and values of those pages' rows, in order.
    Plaintext chunks only: encrypted pages need their ordinal in the chunk."""
    meta = chunk.meta_data
    if meta is None:
        raise CorruptFileError("column chunk has no metadata")
    _check_meta(meta, leaf)
    reader = _ChunkReader(leaf, meta.codec, verify_checksums)
    idx = np.asarray(pages, dtype=np.int64)
    if not len(idx) or meta.num_values == 0:
        return empty_leaf(leaf)
    start, _ = chunk_range(meta, source.size)
    first = page_locations[0].offset
    dictionary = 1 if first > start else 0
    if dictionary:
        for page in iter_page_run(source.read(start, first - start), start):
            reader.add(page)
    offsets = np.array([loc.offset for loc in page_locations], dtype=np.int64)
    sizes = np.array([loc.compressed_page_size for loc in page_locations], dtype=np.int64)
    # Runs of consecutive page indices are contiguous in the file: one read each.
    breaks = np.flatnonzero(np.diff(idx) != 1) + 1
    for run in np.split(idx, breaks):
        a, b = int(run[0]), int(run[-1])
        begin, end = int(offsets[a]), int(offsets[b] + sizes[b])
        for page in iter_page_run(source.read(begin, end - begin), begin, a + dictionary):
            reader.add(page)
    return reader.finish(reader.num_values)

def _check_meta(meta: ColumnMetaData, leaf: SchemaNode) -> None:
    if meta.type != leaf.physical_type:
        raise CorruptFileError(
            f"column chunk has type {Type._VALUES_TO_NAMES.get(meta.type, meta.type)}, the schema says "
            f"{Type._VALUES_TO_NAMES.get(leaf.physical_type)}"
        )
    if meta.num_values is None or meta.num_values < 0:
        raise CorruptFileError(f"column chunk declares {meta.num_values} values")


class _ChunkReader:
    """Accumulates the pages of one chunk."""

    def __init__(self, leaf: SchemaNode, codec: int, verify_checksums: bool, decryptor: object | None = None) -> None:
        self.decryptor = decryptor
        self.leaf = leaf
        self.codec = codec
        self.verify = verify_checksums
        self.dictionary: np.ndarray | ByteArrays | None = None
        self.defs: list[np.ndarray] = []
        self.reps: list[np.ndarray] = []
        self.values: list[np.ndarray | ByteArrays | _Indices] = []
        self.num_values = 0

    def add(self, page: RawPage) -> None:
        try:
            stored = page
            if self.decryptor is not None:
                # Decrypt first: a GCM page names the tampered module; the CRC
                # (over the stored bytes) still guards CTR pages, which have no tag.
                page = self.decryptor.decrypt_page(page)
            if self.verify:
                verify_crc(stored)
            if page.type == PageType.DICTIONARY_PAGE:
                self._add_dictionary(page)
            elif page.type in (PageType.DATA_PAGE, PageType.DATA_PAGE_V2):
                self._add_data(page)
            # INDEX_PAGE and page types from the future carry nothing to decode.
        except ParquetError as exc:
            exc.add_context(page=page.ordinal, file_offset=page.offset)
            raise

    def _add_dictionary(self, page: RawPage) -> None:
        if self.dictionary is not None or self.values:
            raise CorruptFileError("dictionary page after the first page of the chunk")
        data, count, _ = read_dictionary_page(page, self.codec)
        leaf = self.leaf
        self.dictionary = decode_plain(data, leaf.physical_type, count, type_length=leaf.type_length)[0]

    def _add_data(self, page: RawPage) -> None:
        leaf = self.leaf
        data_page = read_data_page(page, self.codec, leaf.max_repetition_level, leaf.max_definition_level)
        count = data_page.num_values
        if data_page.def_levels is not None:
            count = int(np.count_nonzero(data_page.def_levels == leaf.max_definition_level))
            self.defs.append(data_page.def_levels)
        if data_page.rep_levels is not None:
            self.reps.append(data_page.rep_levels)
        self.values.append(self._decode_values(data_page, count))
        self.num_values += data_page.num_values

    def _decode_values(self, page: DataPage, count: int) -> np.ndarray | ByteArrays | _Indices:
        leaf, encoding, data = self.leaf, page.encoding, page.values
        physical, width = leaf.physical_type, leaf.type_length
        if encoding in _DICTIONARY_ENCODINGS:
            if self.dictionary is None:
                raise CorruptFileError("dictionary-encoded page without a dictionary page")
            return _Indices(decode_indices(data, count)[0])
        if encoding == Encoding.PLAIN:
            return decode_plain(data, physical, count, type_length=width)[0]
        if encoding == Encoding.RLE and physical == Type.BOOLEAN:
            return RleBitPackedHybrid.decode(data, 1, count, length_prefixed=True)[0].astype(np.bool_)
        if encoding == Encoding.DELTA_BINARY_PACKED and physical in (Type.INT32, Type.INT64):
            return DeltaBinaryPacked.decode(data, physical, count)[0]
        if encoding == Encoding.DELTA_LENGTH_BYTE_ARRAY and physical == Type.BYTE_ARRAY:
            return DeltaLengthByteArray.decode(data, count)[0]
        if encoding == Encoding.DELTA_BYTE_ARRAY and physical in (Type.BYTE_ARRAY, Type.FIXED_LEN_BYTE_ARRAY):
            return DeltaByteArray.decode(data, physical, count, type_length=width)[0]
        if encoding == Encoding.BYTE_STREAM_SPLIT:
            return ByteStreamSplit.decode(data, physical, count, type_length=width)[0]
        name = Encoding._VALUES_TO_NAMES.get(encoding, f"#{encoding}")
        if encoding in Encoding._VALUES_TO_NAMES:
            raise UnsupportedError(f"{name} values of type {Type._VALUES_TO_NAMES.get(physical)} are not supported")
        raise UnsupportedError(f"unknown encoding {name}")

    def finish(self, declared: int) -> LeafData:
        if self.num_values != declared:
            raise CorruptFileError(f"pages hold {self.num_values} values, the column chunk declares {declared}")
        defs = _join_levels(self.defs) if self.leaf.max_definition_level else None
        reps = _join_levels(self.reps) if self.leaf.max_repetition_level else None
        return LeafData(defs, reps, self._join_values(), self.num_values)

    def _join_values(self) -> Array:
        parts = self.values
        if parts and all(isinstance(p, _Indices) for p in parts):
            indices = np.concatenate([p.indices for p in parts])
            return _as_array(gather(self.dictionary, indices))
        arrays = [_as_array(gather(self.dictionary, p.indices) if isinstance(p, _Indices) else p) for p in parts]
        # Release the pieces the joined array replaces before joining: with
        # values of a gigabyte, each copy alive at once counts.
        self.values = self.dictionary = parts = None
        return concat(arrays) if arrays else empty_leaf(self.leaf).values


def empty_leaf(leaf: SchemaNode) -> LeafData:
    """The levels and values of a leaf with no values."""
    values = _as_array(decode_plain(b"", leaf.physical_type, 0, type_length=leaf.type_length)[0])
    levels = np.zeros(0, dtype=LEVEL_DTYPE)
    return LeafData(levels if leaf.max_definition_level else None,
                    levels if leaf.max_repetition_level else None, values, 0)


def _join_levels(parts: list[np.ndarray]) -> np.ndarray:
    if not parts:
        return np.zeros(0, dtype=LEVEL_DTYPE)
    return parts[0] if len(parts) == 1 else np.concatenate(parts)


def _as_array(values: np.ndarray | ByteArrays) -> Array:
    if isinstance(values, ByteArrays):
        return BinaryArray.of(values.offsets, values.data)
    if not isinstance(values, np.ndarray):
        raise DecodingError(f"decoder returned {type(values).__name__}")
    return PrimitiveArray.of(values)


__all__ = ["LEGACY_DICTIONARY_PADDING", "chunk_range", "empty_leaf", "read_column_chunk", "read_column_pages"]
