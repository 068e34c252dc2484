"""Decoding the pages of one column chunk into its levels and values (File
Format: "Column chunks", "Data Pages").

A chunk is an optional dictionary page followed by data pages. Each data
page yields its levels and its encoded non-null values. Values of 1-D
fixed-width types are decoded page by page into one preallocated array (a
PLAIN page without levels is decompressed straight into it), or, for a flat
optional column read into the table's array, straight to their rows; other
values are joined at the end, with dictionary indices gathered once when
every page is dictionary-encoded. Pages with levels are held back in small
batches so that their level streams are decoded together.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from parquet_codec import compression
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
from parquet_codec.encodings.byte_arrays import ByteArraysBuilder
from parquet_codec.encodings.dictionary import IndexPages, gather_append
from parquet_codec.encodings.plain import decode_plain_into, plain_byte_array_ranges, plain_values
from parquet_codec.encodings.prefix_strip import strip_prefixes, strippable
from parquet_codec.encodings.prefix_walk import length_bytes
from parquet_codec.errors import CorruptFileError, DecodingError, ParquetError, UnsupportedError
from parquet_codec.format.ttypes import CompressionCodec, Encoding, PageType, Type
from parquet_codec.levels import LEVEL_DTYPE, LeafData, reaching
from parquet_codec.memory import default_pool
from parquet_codec.page import (
    DataPage,
    PageSections,
    RawPage,
    read_data_page,
    read_dictionary_page,
    split_data_page,
    verify_crc,
)
from parquet_codec.page_levels import batch_levels, join_levels
from parquet_codec.schema import SchemaNode
from parquet_codec.value_slots import Spread, ValueBuffer

_DICTIONARY_ENCODINGS = (Encoding.PLAIN_DICTIONARY, Encoding.RLE_DICTIONARY)


class _Indices:
    """Dictionary indices of consecutive pages, decoded together (IndexPages)
    when first needed, and gathered once all pages are read."""

    def __init__(self, size: int, indices: np.ndarray | None = None) -> None:
        self.size = size  # of the dictionary
        self.pages = IndexPages()
        self._indices = indices

    def holds_more(self) -> bool:
        """Whether pages may still be added (nothing decoded yet, room left)."""
        return self._indices is None and self.pages.count < _BATCH_INDICES

    @property
    def indices(self) -> np.ndarray:
        if self._indices is None:
            self._indices = self.pages.decode(self.size)
        return self._indices


# Data pages with levels are held back, split but not decoded, until they
# hold this many levels or values bytes: then the level streams of all of
# them are decoded in one pass (encodings.rle_batch), saving the fixed
# per-page cost. Larger batches measured slower again (arrays leave the cache).
_BATCH_LEVELS = 1 << 19
_BATCH_BYTES = 4 * 2**20
# Dictionary indices are decoded (encodings.dictionary.IndexPages) this many at a time.
_BATCH_INDICES = 1 << 19

class ChunkReader:
    """Accumulates the pages of one chunk: into ``buffer`` when given, else
    as a list of per-page values joined at the end."""

    def __init__(self, leaf: SchemaNode, codec: int, verify_checksums: bool, decryptor: object | None = None,
                 buffer: ValueBuffer | None = None, expected: int = 0, keep_dictionary: bool = False,
                 spread: Spread | None = None) -> None:
        self.keep_dictionary = keep_dictionary  # else dropped before the values are joined: a large one counts
        self.decryptor = decryptor
        self.leaf = leaf
        self.codec = codec
        self.verify = verify_checksums
        self.dictionary: np.ndarray | ByteArrays | None = None
        self.defs: list[np.ndarray] = []
        self.reps: list[np.ndarray] = []
        self.values: list[np.ndarray | ByteArrays | _Indices] = []  # per page, until ``builder`` is made
        self.builder: ByteArraysBuilder | None = None  # BYTE_ARRAY values, once a PLAIN page needs it
        self.expected = expected  # values the chunk declares, when plausible: sizes the builder
        self.buffer = buffer
        self.index_pages = IndexPages()  # dictionary-encoded pages whose slots in ``buffer`` are claimed
        self.pending: list[tuple[RawPage, PageSections]] = []
        self.pending_bytes = self.pending_levels = 0
        self.data_pages = 0
        self.num_values = 0
        self.spread = spread  # the values go straight to their slots there (and ``buffer`` is None)

    def add(self, page: RawPage) -> None:
        try:
            stored = page
            if self.decryptor is not None:
                # Decrypt first: a GCM page names the tampered module; the CRC
                # (over the stored bytes) still guards CTR pages, which have no tag.
                page = self.decryptor.decrypt_page(page)
            if self.verify and stored.header.crc is not None:
                verify_crc(stored)
            kind = page.header.type
            if kind == PageType.DICTIONARY_PAGE:
                self._add_dictionary(page)
            elif kind == PageType.DATA_PAGE or kind == PageType.DATA_PAGE_V2:
                self._add_data(page)
            # INDEX_PAGE and page types from the future carry nothing to decode.
        except ParquetError as exc:
            exc.add_context(page=page.ordinal, file_offset=page.offset)
            raise

    def _add_dictionary(self, page: RawPage) -> None:
        if self.dictionary is not None or self.data_pages:
            raise CorruptFileError("dictionary page after the first page of the chunk")
        data, count, _ = read_dictionary_page(page, self.codec)
        leaf = self.leaf
        self.dictionary = decode_plain(data, leaf.physical_type, count, type_length=leaf.type_length)[0]

    def _add_data(self, page: RawPage) -> None:
        self.data_pages += 1
        if self.buffer is not None and self._add_plain_direct(page):
            return
        leaf = self.leaf
        if leaf.max_definition_level:
            sections = split_data_page(page, self.codec, leaf.max_repetition_level, leaf.max_definition_level)
            if sections is not None:
                self._hold(page, sections)
                return
        self.flush()  # pages keep their order
        data_page = read_data_page(page, self.codec, leaf.max_repetition_level, leaf.max_definition_level)
        count = data_page.num_values
        if data_page.def_levels is not None:
            present = reaching(data_page.def_levels, leaf.max_definition_level, leaf.max_definition_level)
            self.defs.append(data_page.def_levels)
            if self.spread is not None:
                self._spread_pages([(page, data_page)], present, np.array([data_page.num_values]))
                self.num_values += data_page.num_values
                return
            count = int(np.count_nonzero(present))
        if data_page.rep_levels is not None:
            self.reps.append(data_page.rep_levels)
        self._add_values(page, data_page, count)
        self.num_values += data_page.num_values

    def _add_values(self, raw: RawPage, page: DataPage | PageSections, count: int) -> None:
        """Decode the page's values, or hold its dictionary indices to decode with the next pages'."""
        if page.encoding in _DICTIONARY_ENCODINGS and self._hold_indices(raw, page, count):
            return
        if self.buffer is None:
            part = self._decode_values(page, count)
            if part is not None:
                self.values.append(part)
        else:
            self._decode_into(page, self.buffer.take(count))

    def _hold_indices(self, raw: RawPage, page: DataPage | PageSections, count: int) -> bool:
        """Hold the page's dictionary indices, their slots claimed (in
        ``buffer``, or in the last _Indices part); False when they are to be
        decoded now (into the byte-array builder a PLAIN page made)."""
        context = self._index_context(raw)
        if self.buffer is not None:
            start = self.buffer.filled
            self.buffer.take(count)
            self.index_pages.add(page.values, count, start, context)
            if self.index_pages.count >= _BATCH_INDICES:
                self.index_pages.gather_into(self.dictionary, self.buffer.array)
            return True
        if self.builder is not None:
            return False
        held = self.values[-1] if self.values else None
        if not (isinstance(held, _Indices) and held.holds_more()):
            held = _Indices(len(self.dictionary))
            self.values.append(held)
        held.pages.add(page.values, count, held.pages.count, context)
        return True

    def _index_context(self, raw: RawPage) -> dict:
        """Where a dictionary-encoded page's indices came from, for their
        errors; raises when the chunk has no dictionary page for them."""
        if self.dictionary is None:
            raise CorruptFileError("dictionary-encoded page without a dictionary page")
        return {"page": raw.ordinal, "file_offset": raw.offset}

    def _hold(self, page: RawPage, sections: PageSections) -> None:
        self.pending.append((page, sections))
        self.pending_bytes += len(sections.values)
        self.pending_levels += sections.num_values
        self.num_values += sections.num_values
        if self.pending_bytes >= _BATCH_BYTES or self.pending_levels >= _BATCH_LEVELS:
            self.flush()

    def flush(self) -> None:
        """Decode the held pages: all their levels at once, then their values page by page."""
        pending, self.pending, self.pending_bytes, self.pending_levels = self.pending, [], 0, 0
        if not pending:
            return
        leaf = self.leaf
        counts = np.array([sections.num_values for _, sections in pending], dtype=np.int64)
        if leaf.max_repetition_level:
            self.reps.append(batch_levels(pending, "rep", counts, leaf.max_repetition_level, "repetition"))
        defs = batch_levels(pending, "defs", counts, leaf.max_definition_level, "definition")
        self.defs.append(defs)
        present = reaching(defs, leaf.max_definition_level, leaf.max_definition_level)
        ends = np.cumsum(counts)
        if self.spread is not None:
            self._spread_pages(pending, present, ends)
            return
        starts = [0, *ends[:-1].tolist()]
        stops = np.cumsum([np.count_nonzero(present[a:b]) for a, b in zip(starts, ends.tolist(), strict=True)])
        _each_page(pending, stops.tolist(), lambda page, sections, a, b: self._add_values(page, sections, b - a))

    def _spread_pages(self, pages: list[tuple[RawPage, DataPage | PageSections]], present: np.ndarray,
                      ends: np.ndarray) -> None:
        """Decode the values of ``pages`` (whose levels are ``present`` or not,
        page ``i``'s ending before ``ends[i]``) straight into their slots."""
        slots, rows = self.spread.claim(present)
        stops = (ends if rows is None else np.searchsorted(rows, ends)).tolist()
        _each_page(pages, stops, lambda page, sections, a, b: self._spread_values(page, sections, slots, rows, a, b))
        if self.index_pages.count:
            self.index_pages.gather_into(self.dictionary, slots, rows)

    def _spread_values(self, raw: RawPage, page: DataPage | PageSections, slots: np.ndarray,
                       rows: np.ndarray | None, start: int, stop: int) -> None:
        """Decode the page's values into ``slots`` at ``rows[start:stop]`` (at
        ``start:stop`` without ``rows``), or hold its dictionary indices to
        decode with the batch's others."""
        count = stop - start
        if page.encoding in _DICTIONARY_ENCODINGS:
            self.index_pages.add(page.values, count, start, self._index_context(raw))
            return
        if page.encoding == Encoding.PLAIN:
            values = plain_values(page.values, self.leaf.physical_type, count)
            if rows is not None and not values.flags.aligned:  # (after the levels: scattered several times slower)
                values = values.copy()
        else:
            values = _fixed_width(self._decode_values(page, count), count, slots.dtype)
        slots[slice(start, stop) if rows is None else rows[start:stop]] = values

    def _add_plain_direct(self, page: RawPage) -> bool:
        """Decompress (or copy) a PLAIN page without levels straight into the
        value buffer (BOOLEAN bits are unpacked into it); False (nothing
        done) when the page is not such a page."""
        buffer, leaf, header, codec = self.buffer, self.leaf, page.header, self.codec
        if leaf.max_definition_level or buffer.raw is None:
            return False  # (max_rep > 0 implies max_def > 0)
        if header.type == PageType.DATA_PAGE:
            sub = header.data_page_header
            compressed = codec != CompressionCodec.UNCOMPRESSED
        elif header.type == PageType.DATA_PAGE_V2:
            sub = header.data_page_header_v2
            if sub.repetition_levels_byte_length or sub.definition_levels_byte_length:
                return False
            compressed = sub.is_compressed is not False and codec != CompressionCodec.UNCOMPRESSED
        else:
            return False
        count = sub.num_values
        boolean = leaf.physical_type == Type.BOOLEAN  # PLAIN booleans: one bit each
        size = (count + 7) // 8 if boolean else count * buffer.itemsize
        if sub.encoding != Encoding.PLAIN or header.uncompressed_page_size != size:
            return False
        body = page.body
        if not compressed and len(body) != size:
            return False  # the general path names the inconsistency
        if boolean:
            data = compression.decompress(codec, body, size) if compressed else body
            decode_plain_into(data, Type.BOOLEAN, buffer.take(count))
        elif compressed:
            compression.decompress(codec, body, size, out=buffer.take_bytes(count))
        else:
            buffer.take_bytes(count)[:] = body
        self.num_values += count
        return True

    def _decode_into(self, page: DataPage | PageSections, slot: np.ndarray) -> None:
        """Decode the page's ``len(slot)`` non-null values into ``slot`` (not
        dictionary-encoded ones: see :meth:`_add_values`)."""
        if page.encoding == Encoding.PLAIN:
            decode_plain_into(page.values, self.leaf.physical_type, slot)
        else:
            slot[:] = _fixed_width(self._decode_values(page, len(slot)), len(slot), slot.dtype)

    def _decode_values(self, page: DataPage | PageSections, count: int) -> np.ndarray | ByteArrays | _Indices | None:
        """The page's values; None when they went into the chunk's builder."""
        leaf, encoding, data = self.leaf, page.encoding, page.values
        physical, width = leaf.physical_type, leaf.type_length
        if encoding in _DICTIONARY_ENCODINGS:  # only once a PLAIN page made the builder (_hold_indices)
            return self._binary_part(_Indices(len(self.dictionary), decode_indices(data, count)[0]))
        if encoding == Encoding.PLAIN and physical == Type.BYTE_ARRAY:
            return self._plain_binary(page, count)
        if encoding == Encoding.PLAIN:
            return decode_plain(data, physical, count, type_length=width)[0]
        if encoding == Encoding.RLE and physical == Type.BOOLEAN:
            return RleBitPackedHybrid.decode(data, 1, count, length_prefixed=True)[0].astype(np.bool_)
        if encoding == Encoding.DELTA_BINARY_PACKED and physical in (Type.INT32, Type.INT64):
            return DeltaBinaryPacked.decode(data, physical, count)[0]
        if encoding == Encoding.DELTA_LENGTH_BYTE_ARRAY and physical == Type.BYTE_ARRAY:
            return self._binary_part(DeltaLengthByteArray.decode(data, count)[0])
        if encoding == Encoding.DELTA_BYTE_ARRAY and physical in (Type.BYTE_ARRAY, Type.FIXED_LEN_BYTE_ARRAY):
            return self._binary_part(DeltaByteArray.decode(data, physical, count, type_length=width)[0])
        if encoding == Encoding.BYTE_STREAM_SPLIT:
            values, used = ByteStreamSplit.decode(data, physical, count, type_length=width)
            if used != len(data):  # each stream is as long as the page has values: other bytes make that ambiguous
                raise DecodingError(f"BYTE_STREAM_SPLIT streams of {count} values take {used} bytes, the page "
                                    f"holds {len(data)}")
            return values
        name = Encoding._VALUES_TO_NAMES.get(encoding, f"#{encoding}")
        if encoding in Encoding._VALUES_TO_NAMES:
            raise UnsupportedError(f"{name} values of type {Type._VALUES_TO_NAMES.get(physical)} are not supported")
        raise UnsupportedError(f"unknown encoding {name}")

    # BYTE_ARRAY values of PLAIN pages are copied once, straight into one
    # ByteArraysBuilder per chunk, and so are those of every page after (and,
    # when it is made, before) the first of them: the chunk's values are then
    # never joined. Chunks of dictionary indices only are gathered at the
    # end, into arrays of the exact size.

    def _plain_binary(self, page: DataPage | PageSections, count: int) -> None:
        arr = np.frombuffer(page.values, dtype=np.uint8)
        located = length_bytes(arr, count)  # text: its length prefixes found at once
        if located is None:
            arr, starts, lengths, _ = plain_byte_array_ranges(page.values, count, text=False)
            prefixes = starts - 4
        else:
            prefixes, ends = located
            lengths = ends - prefixes
            lengths -= 4
        builder = self._builder()
        if not strippable(prefixes, lengths):
            builder.append_ranges(arr, prefixes + 4, lengths)
            return
        if not (page.private and arr.flags.writeable):  # (stripping overwrites the page)
            arr = _scratch_copy(arr)
        strip_prefixes(arr, prefixes, lengths, builder.claim(lengths))

    def _binary_part(self, part: ByteArrays | _Indices) -> ByteArrays | _Indices | None:
        """``part`` appended to the chunk's builder if it has one (None), else ``part``."""
        if self.builder is None:
            return part
        self._append(self.builder, part)
        return None

    def _builder(self) -> ByteArraysBuilder:
        """The chunk's builder, made on first use from the values decoded before."""
        if self.builder is None:
            self.builder = ByteArraysBuilder(expected=self.expected)
            for part in self.values:
                self._append(self.builder, part)
            self.values = []
        return self.builder

    def _append(self, builder: ByteArraysBuilder, part: ByteArrays | _Indices) -> None:
        if isinstance(part, _Indices):
            gather_append(builder, self.dictionary, part.indices)
        else:
            builder.append(part)

    def _gather_binary(self, parts: list[_Indices]) -> ByteArrays:
        """The values the pages' indices pick from the BYTE_ARRAY dictionary,
        gathered page by page into a buffer of the exact size."""
        dictionary = self.dictionary
        size = sum(dictionary.taken_size(p.indices) for p in parts)
        builder = ByteArraysBuilder(sum(len(p.indices) for p in parts), size)
        for part in parts:
            gather_append(builder, dictionary, part.indices)
        return builder.finish()

    def finish(self, declared: int) -> LeafData:
        self.flush()
        if self.index_pages.count:
            self.index_pages.gather_into(self.dictionary, self.buffer.array)
        if self.num_values != declared:
            raise CorruptFileError(f"pages hold {self.num_values} values, the column chunk declares {declared}")
        defs = join_levels(self.defs) if self.leaf.max_definition_level else None
        reps = join_levels(self.reps) if self.leaf.max_repetition_level else None
        dictionary = None if self.dictionary is None or not self.keep_dictionary else _as_array(self.dictionary)
        if self.spread is not None:
            return LeafData(defs, reps, self.spread.result(), self.num_values, dictionary, spread=True)
        values = self._join_values() if self.buffer is None else self.buffer.result()
        return LeafData(defs, reps, values, self.num_values, dictionary)

    def _join_values(self) -> Array:
        parts, builder = self.values, self.builder
        if builder is not None:
            self.values = self.dictionary = self.builder = None
            return _as_array(builder.finish())
        if parts and all(isinstance(p, _Indices) for p in parts):
            if isinstance(self.dictionary, ByteArrays):
                return _as_array(self._gather_binary(parts))
            indices = np.concatenate([p.indices for p in parts])
            return _as_array(gather(self.dictionary, indices))
        arrays = [_as_array(gather(self.dictionary, p.indices) if isinstance(p, _Indices) else p) for p in parts]
        # Release the pieces the joined array replaces before joining: with
        # values of a gigabyte, each copy alive at once counts.
        self.values = self.dictionary = parts = None
        return concat(arrays) if arrays else empty_leaf(self.leaf).values


def _each_page(pages: list[tuple[RawPage, DataPage | PageSections]], stops: list[int],
               decode: Callable[[RawPage, DataPage | PageSections, int, int], None]) -> None:
    """``decode(page, sections, start, stop)`` for each page, whose values are
    ``start:stop`` of the pages' together; an error names the page."""
    start = 0
    for (page, sections), stop in zip(pages, stops, strict=True):
        try:
            decode(page, sections, start, stop)
        except ParquetError as exc:
            exc.add_context(page=page.ordinal, file_offset=page.offset)
            raise
        start = stop


def _scratch_copy(arr: np.ndarray) -> np.ndarray:
    """A writable copy of ``arr`` (uint8) in the default pool's memory."""
    copy = default_pool().empty(len(arr), np.uint8)
    copy[:] = arr
    return copy


def _fixed_width(values: object, count: int, dtype: np.dtype) -> np.ndarray:
    """A decoder's answer for ``count`` values of a 1-D ``dtype``, checked to be that."""
    if not isinstance(values, np.ndarray) or values.dtype != dtype or values.shape != (count,):
        raise DecodingError(f"decoder returned {type(values).__name__} where {count} {dtype} values were expected")
    return values


def empty_leaf(leaf: SchemaNode) -> LeafData:
    """The levels and values of a leaf with no values."""
    values = _as_array(decode_plain(b"", leaf.physical_type, 0, type_length=leaf.type_length)[0])
    levels = np.zeros(0, dtype=LEVEL_DTYPE)
    return LeafData(levels if leaf.max_definition_level else None,
                    levels if leaf.max_repetition_level else None, values, 0)


def _as_array(values: np.ndarray | ByteArrays) -> Array:
    if isinstance(values, ByteArrays):
        return BinaryArray.of(values.offsets, values.data)
    if not isinstance(values, np.ndarray):
        raise DecodingError(f"decoder returned {type(values).__name__}")
    return PrimitiveArray.of(values)


__all__ = ["ChunkReader", "empty_leaf"]
