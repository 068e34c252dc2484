"""Writing one column chunk (File Format: "Column chunks", "Data Pages").

From a leaf's shredded :class:`~parquet_codec.levels.LeafData` this module
chooses the value encoding, cuts pages at record boundaries by size and row
count (:mod:`parquet_codec.page_cuts`), encodes levels and values,
compresses, checksums, and produces the chunk's ``ColumnMetaData`` with
statistics and size statistics.

Encoding choice by default:

- dictionary first (not for BOOLEAN; not for FIXED_LEN_BYTE_ARRAY with v1
  pages, as parquet-java), with ``PLAIN_DICTIONARY`` pages in v1 and
  ``RLE_DICTIONARY`` pages plus a PLAIN dictionary page in v2;
- the dictionary is abandoned when the first page's worth of values would not
  shrink (dictionary plus indices at least as large as the plain values), and
  the chunk falls back mid-way once the dictionary page would exceed
  ``dictionary_pagesize_limit``: the pages before that point stay
  dictionary-encoded, the rest use the fallback encoding;
- fallback (or dictionary off): PLAIN, but RLE for BOOLEAN in v2 pages, as
  pyarrow writes them. The data page version chooses the page layout only:
  parquet-java's v2 writer falls back to the DELTA encodings instead, which
  polars cannot read for FIXED_LEN_BYTE_ARRAY (decimals, UUIDs, float16),
  fastparquet not at all for byte arrays or with nulls, and pyarrow not into
  a dictionary column (an Arrow dictionary type) (``column_encoding`` still
  asks for them);
- an explicit ``encoding`` (``column_encoding``, or BYTE_STREAM_SPLIT from
  ``use_byte_stream_split``) replaces the fallback encoding, as in pyarrow:
  the dictionary still comes first when enabled.

Each page's location, row range, bounds, null and NaN counts are kept in a
:class:`PageRecord` for the page index.

Encrypted columns pass a :class:`PageSealer` (crypto.ColumnChunkEncryptor):
every page is sealed as it is appended, so offsets, sizes and CRCs describe
the stored (encrypted) bytes.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import Protocol

import numpy as np

from parquet_codec.arrays import Array, BinaryArray, PrimitiveArray, concat
from parquet_codec.distinct import Distinct, distinct_bytes, distinct_values
from parquet_codec.encodings import (
    ByteArrays,
    ByteStreamSplit,
    DeltaBinaryPacked,
    DeltaByteArray,
    DeltaLengthByteArray,
    encode_plain,
    index_bit_width,
)
from parquet_codec.encodings.plain import plain_byte_arrays
from parquet_codec.encodings.rle import RleBitPackedHybrid
from parquet_codec.errors import UnsupportedError
from parquet_codec.format.ttypes import (
    ColumnChunk,
    ColumnMetaData,
    CompressionCodec,
    Encoding,
    GeospatialStatistics,
    PageEncodingStats,
    PageHeader,
    PageType,
    Type,
)
from parquet_codec.geospatial import geospatial_statistics
from parquet_codec.levels import LeafData
from parquet_codec.page import (
    PageOut,
    encode_levels,
    write_data_page_v1,
    write_data_page_v2,
    write_dictionary_page,
)
from parquet_codec.page_cuts import DEFAULT_MAX_ROWS_PER_PAGE, page_cuts, slot_levels
from parquet_codec.schema import SchemaNode
from parquet_codec.statistics import (
    DEFAULT_TRUNCATE_LENGTH,
    Bounds,
    SizeCounts,
    size_counts,
    to_thrift,
    value_bounds,
)
from parquet_codec.types import LogicalInfo

DEFAULT_PAGE_SIZE = 1024 * 1024
DEFAULT_DICTIONARY_PAGE_SIZE = 1024 * 1024
_SAMPLE = 8192  # values tested before trying a dictionary

_VALID_ENCODINGS = {
    Encoding.PLAIN: None,  # every type
    Encoding.RLE: (Type.BOOLEAN,),
    Encoding.DELTA_BINARY_PACKED: (Type.INT32, Type.INT64),
    Encoding.DELTA_LENGTH_BYTE_ARRAY: (Type.BYTE_ARRAY,),
    Encoding.DELTA_BYTE_ARRAY: (Type.BYTE_ARRAY, Type.FIXED_LEN_BYTE_ARRAY),
    Encoding.BYTE_STREAM_SPLIT: (Type.FLOAT, Type.DOUBLE, Type.INT32, Type.INT64, Type.FIXED_LEN_BYTE_ARRAY),
}
_V2_FALLBACK = {Type.BOOLEAN: Encoding.RLE}


@dataclass(frozen=True)
class ColumnOptions:
    """How one column is written (the writer resolves per-column options into this)."""

    codec: int = CompressionCodec.SNAPPY
    compression_level: int | None = None
    use_dictionary: bool = True
    encoding: int | None = None  # the non-dictionary encoding; None = the page version's default
    page_version: int = 1
    data_page_size: int = DEFAULT_PAGE_SIZE
    dictionary_pagesize_limit: int = DEFAULT_DICTIONARY_PAGE_SIZE
    write_statistics: bool = True
    write_page_checksum: bool = False
    statistics_truncate_length: int | None = DEFAULT_TRUNCATE_LENGTH
    max_rows_per_page: int | None = DEFAULT_MAX_ROWS_PER_PAGE  # rows per data page at most (None: no cap)


class PageSealer(Protocol):
    """Encrypts finished pages (crypto.ColumnChunkEncryptor): returns the stored header and body."""

    def seal_page(self, header: PageHeader, body: bytes, data_page_ordinal: int | None, *,
                  checksum: bool = False) -> tuple[bytes, bytes]: ...


@dataclass
class PageRecord:
    """A data page as the page index describes it (PageIndex.md)."""

    offset: int  # file offset of the page header
    compressed_page_size: int  # header and body, as stored
    first_row_index: int  # within the row group
    num_values: int
    null_count: int
    min_value: bytes | None  # encoded (possibly truncated) bounds; None for a null page or no order
    max_value: bytes | None
    size: SizeCounts
    nan_count: int | None = None  # float columns only

    @property
    def null_page(self) -> bool:
        return self.num_values == self.null_count


@dataclass
class ChunkOut:
    """A written column chunk: its bytes, its ColumnChunk and its pages."""

    parts: list[bytes]
    chunk: ColumnChunk
    pages: list[PageRecord] = field(default_factory=list)

    @property
    def size(self) -> int:
        return self.chunk.meta_data.total_compressed_size


def default_encoding(physical_type: int, page_version: int) -> int:
    """The non-dictionary encoding pyarrow's writer uses with pages of that version."""
    return _V2_FALLBACK.get(physical_type, Encoding.PLAIN) if page_version == 2 else Encoding.PLAIN


def check_encoding(encoding: int, physical_type: int, column: str) -> None:
    """Refuse an encoding the format does not define for the physical type."""
    if encoding not in _VALID_ENCODINGS:
        name = Encoding._VALUES_TO_NAMES.get(encoding, encoding)
        raise UnsupportedError(f"column {column!r}: {name} cannot be requested as a column encoding "
                               "(dictionary encodings are chosen with use_dictionary)")
    allowed = _VALID_ENCODINGS[encoding]
    if allowed is not None and physical_type not in allowed:
        raise UnsupportedError(f"column {column!r}: {Encoding._VALUES_TO_NAMES[encoding]} is not defined for "
                               f"{Type._VALUES_TO_NAMES[physical_type]} values")


def dictionary_allowed(physical_type: int, page_version: int) -> bool:
    """parquet-java never dictionary-encodes booleans, nor FIXED_LEN_BYTE_ARRAY in v1."""
    if physical_type == Type.BOOLEAN:
        return False
    return not (physical_type == Type.FIXED_LEN_BYTE_ARRAY and page_version == 1)


# ---------------------------------------------------------------- values


def _take(values: Array, idx: np.ndarray) -> Array:
    if isinstance(values, BinaryArray):
        offsets = np.asarray(values.offsets, dtype=np.int64)
        return BinaryArray.of(*ByteArrays(offsets, values.data).take(idx))
    return PrimitiveArray.of(values.values[idx])


def _slice(values: Array, start: int, stop: int) -> Array:
    if isinstance(values, BinaryArray):
        offsets = np.asarray(values.offsets[start : stop + 1], dtype=np.int64)
        base = int(offsets[0]) if len(offsets) else 0
        end = int(offsets[-1]) if len(offsets) else 0
        return BinaryArray.of(offsets - base, values.data[base:end])
    return PrimitiveArray.of(values.values[start:stop])


def _plain_sizes(values: Array) -> np.ndarray | int:
    """PLAIN bytes per value: a width, or an array for byte arrays."""
    if isinstance(values, BinaryArray):
        return np.diff(np.asarray(values.offsets, dtype=np.int64)) + 4
    raw = values.values
    return raw.shape[1] if raw.ndim == 2 else (raw.dtype.itemsize if raw.dtype != np.bool_ else 1)


def encode_values(values: Array, encoding: int, physical_type: int,
                  type_length: int | None) -> bytes | np.ndarray:
    """Non-null values in one of the non-dictionary encodings: bytes, or a
    uint8 array (PLAIN byte arrays) that pages join or compress uncopied."""
    if isinstance(values, BinaryArray):
        raw: object = ByteArrays(np.asarray(values.offsets, dtype=np.int64), values.data)
    else:
        raw = values.values
    if encoding == Encoding.PLAIN and physical_type == Type.BYTE_ARRAY:
        return plain_byte_arrays(raw)
    if encoding == Encoding.PLAIN:
        return encode_plain(raw, physical_type, type_length=type_length)
    if encoding == Encoding.RLE:
        return RleBitPackedHybrid.encode(np.asarray(raw, dtype=np.uint8), 1, length_prefixed=True)
    if encoding == Encoding.DELTA_BINARY_PACKED:
        return DeltaBinaryPacked.encode(raw, physical_type)
    if encoding == Encoding.DELTA_LENGTH_BYTE_ARRAY:
        return DeltaLengthByteArray.encode(raw)
    if encoding == Encoding.DELTA_BYTE_ARRAY:
        return DeltaByteArray.encode(raw, physical_type, type_length=type_length)
    return ByteStreamSplit.encode(raw, physical_type, type_length=type_length)


# ---------------------------------------------------------------- dictionary planning


@dataclass
class _Dictionary:
    ids: np.ndarray  # entry of each dictionary-encoded value
    values: Array  # the entries, in id order
    count: int  # how many leading values are dictionary-encoded

    @property
    def bit_width(self) -> int:
        return index_bit_width(len(self.values))


def _distinct(values: Array, probe: int, limit: float | None = None) -> Distinct:
    """Entries in order of first appearance; with ``limit``, counted only until
    the entries' PLAIN bytes pass it (see :func:`~parquet_codec.distinct.distinct`)."""
    def entry_bytes(first: np.ndarray) -> int:
        return int(_entry_bytes(values, first).sum())

    if isinstance(values, BinaryArray):
        return distinct_bytes(values.offsets, values.data, probe, entry_bytes=entry_bytes, limit=limit)
    return distinct_values(values.values, probe, entry_bytes=entry_bytes, limit=limit)


def _entry_bytes(values: Array, first: np.ndarray) -> np.ndarray:
    """PLAIN bytes of the values at ``first`` (dictionary entries)."""
    if isinstance(values, BinaryArray):
        return np.asarray(values.offsets[first + 1] - values.offsets[first], dtype=np.int64) + 4
    return np.full(len(first), _plain_sizes(values), dtype=np.int64)


def _worth_it(values: Array, probe: Distinct, limit: float) -> bool:
    """parquet-java's test on the first page: the dictionary must fit and,
    with the indices, take less room than the plain values."""
    dict_bytes = int(_entry_bytes(values, probe.first).sum())
    if dict_bytes > limit:
        return False
    sizes = _plain_sizes(values)
    plain = int(sizes.sum()) if isinstance(sizes, np.ndarray) else sizes * len(probe.ids)
    return dict_bytes + len(probe.ids) * index_bit_width(probe.size) / 8 < plain


def plan_dictionary(values: Array, probe_values: int, limit: int) -> _Dictionary | None:
    """Dictionary-encode a leading part of ``values`` (all of it when the
    dictionary stays within ``limit`` bytes), or None when not worth it.
    Entries are numbered in order of first appearance, as parquet-java and
    pyarrow number them."""
    n = len(values)
    probe = max(1, min(n, probe_values))
    # The test runs on a sample of the first page: sorting a whole page of
    # random numbers per chunk costs more than the rest of the chunk.
    sample = min(probe, _SAMPLE)
    head = _slice(values, 0, sample)
    if n == 0 or not _worth_it(head, _distinct(head, sample), limit * sample / probe):
        return None
    # Counting stops soon after the dictionary outgrows the limit: the rest falls back anyway.
    found = _distinct(values, probe, limit)
    grown = np.cumsum(_entry_bytes(values, found.first))
    if grown[-1] <= limit:
        return _Dictionary(found.ids, _take(values, found.first), n)
    over = int(np.argmax(grown > limit))  # the entry that no longer fits
    count = int(found.first[over])  # values before it use only the entries before it
    if count == 0:
        return None
    return _Dictionary(found.ids[:count], _take(values, found.first[:over]), count)


def given_dictionary(values: Array, entries: Array) -> _Dictionary:
    """Dictionary-encode all of ``values`` with ``entries`` (an Arrow
    dictionary's) first, then any other value in order of appearance: as
    pyarrow writes a dictionary array, its entries each in its place, unused
    ones too, whatever the dictionary page size limit."""
    both = concat([entries, values])
    found = _distinct(both, len(both))
    return _Dictionary(found.ids[len(entries):], _take(both, found.first), len(values))


# ---------------------------------------------------------------- page cutting


# ---------------------------------------------------------------- the chunk


class _ChunkBuilder:
    """Appends pages and accumulates what ColumnMetaData reports about them."""

    def __init__(self, node: SchemaNode, info: LogicalInfo, leaf: LeafData, options: ColumnOptions,
                 file_offset: int, sealer: PageSealer | None = None) -> None:
        self.node, self.info, self.leaf, self.options = node, info, leaf, options
        self.lv = slot_levels(leaf, node.max_definition_level)
        self.start = self.offset = file_offset
        self.sealer = sealer
        self.data_pages = 0
        self.parts: list[bytes] = []
        self.records: list[PageRecord] = []
        self.stats: Counter = Counter()
        self.uncompressed = 0
        self.dictionary_offset: int | None = None
        self.data_offset: int | None = None
        self.bounds: Bounds | None = None
        self.nulls = 0
        self.sizes: SizeCounts | None = None

    @property
    def plain_checksum(self) -> bool:
        """Whether a page's CRC is taken as written; a sealed page's is taken
        over its ciphertext by the sealer instead."""
        return self.options.write_page_checksum and self.sealer is None

    def append(self, page: PageOut, page_type: int, encoding: int) -> tuple[int, int]:
        """Store a page (sealed first when the column is encrypted); its offset and stored size."""
        header, body = page.header_bytes, page.body
        if self.sealer is not None:
            ordinal = None if page_type == PageType.DICTIONARY_PAGE else self.data_pages
            header, body = self.sealer.seal_page(page.header, body, ordinal, checksum=self.options.write_page_checksum)
        if page_type != PageType.DICTIONARY_PAGE:
            self.data_pages += 1
        at, size = self.offset, len(header) + len(body)
        self.parts += (header, body)
        self.offset += size
        self.uncompressed += page.uncompressed_size - len(page.header_bytes) + len(header)
        self.stats[(page_type, encoding)] += 1
        return at, size

    def dictionary_page(self, dictionary: _Dictionary) -> None:
        opts, node = self.options, self.node
        raw = bytes(encode_values(dictionary.values, Encoding.PLAIN, node.physical_type, node.type_length))
        encoding = Encoding.PLAIN_DICTIONARY if opts.page_version == 1 else Encoding.PLAIN
        page = write_dictionary_page(raw, len(dictionary.values), encoding, opts.codec,
                                     level=opts.compression_level, checksum=self.plain_checksum)
        self.dictionary_offset = self.append(page, PageType.DICTIONARY_PAGE, encoding)[0]

    def data_page(self, a: int, b: int, encoded: bytes | np.ndarray, encoding: int, bounds: Bounds | None,
                  values: Array | None, nan_count: int | None = None) -> None:
        """Slots ``a..b`` whose values are already ``encoded``."""
        leaf, node, opts, lv = self.leaf, self.node, self.options, self.lv
        defs = None if leaf.def_levels is None else leaf.def_levels[a:b]
        reps = None if leaf.rep_levels is None else leaf.rep_levels[a:b]
        count = b - a
        nulls = count - (lv.values_before(b) - lv.values_before(a))
        v2 = opts.page_version == 2
        rep = encode_levels(reps, node.max_repetition_level, length_prefixed=not v2)
        dfn = encode_levels(defs, node.max_definition_level, length_prefixed=not v2)
        stats = to_thrift(bounds, nulls, self.info, truncate_length=opts.statistics_truncate_length) \
            if opts.write_statistics else None
        shared = {"level": opts.compression_level, "checksum": self.plain_checksum, "statistics": stats}
        if v2:
            rows = count if reps is None else int(np.count_nonzero(reps == 0))
            page = write_data_page_v2(encoded, encoding, count, nulls, rows, rep, dfn, opts.codec, **shared)
        else:
            page = write_data_page_v1(encoded, encoding, count, rep, dfn, opts.codec, **shared)
        at, stored = self.append(page, PageType.DATA_PAGE_V2 if v2 else PageType.DATA_PAGE, encoding)
        if self.data_offset is None:
            self.data_offset = at
        sizes = size_counts(values, defs, reps, count, node.max_definition_level, node.max_repetition_level,
                            node.physical_type)
        self.sizes = sizes if self.sizes is None else self.sizes.merge(sizes)
        self.bounds = bounds if self.bounds is None else self.bounds.merge(bounds)
        self.nulls += nulls
        first_row = a if lv.starts is None else int(np.searchsorted(lv.starts, a, side="left"))
        lo = None if stats is None else stats.min_value
        hi = None if stats is None else stats.max_value
        self.records.append(PageRecord(at, stored, first_row, count, nulls, lo, hi, sizes, nan_count))

    def finish(self) -> ChunkOut:
        node, opts = self.node, self.options
        encodings = sorted({enc for _, enc in self.stats} | {Encoding.RLE})
        meta = ColumnMetaData(
            type=node.physical_type, encodings=encodings, path_in_schema=list(node.path), codec=opts.codec,
            num_values=self.leaf.num_values, total_uncompressed_size=self.uncompressed,
            total_compressed_size=self.offset - self.start, data_page_offset=self.data_offset,
            dictionary_page_offset=self.dictionary_offset,
            statistics=to_thrift(self.bounds, self.nulls, self.info,
                                 truncate_length=opts.statistics_truncate_length) if opts.write_statistics else None,
            encoding_stats=[PageEncodingStats(page_type=t, encoding=e, count=c) for (t, e), c in self.stats.items()],
            size_statistics=None if self.sizes is None else self.sizes.to_thrift(),
            geospatial_statistics=self._geospatial_statistics(),
        )
        return ChunkOut(self.parts, ColumnChunk(file_offset=0, meta_data=meta), self.records)


    def _geospatial_statistics(self) -> GeospatialStatistics | None:
        """A GEOMETRY chunk's bounding box and types (none for GEOGRAPHY, whose
        edges are not straight in X and Y, as pyarrow writes none)."""
        geo = self.info.geo
        if geo is None or geo.geography or not self.options.write_statistics:
            return None
        return geospatial_statistics(self.leaf.values)


def write_column_chunk(node: SchemaNode, info: LogicalInfo, leaf: LeafData, options: ColumnOptions,
                       file_offset: int, sealer: PageSealer | None = None) -> ChunkOut:
    """Encode one leaf's levels and values as a column chunk starting at ``file_offset``;
    ``sealer`` encrypts each page of an encrypted column."""
    physical = node.physical_type
    fallback = default_encoding(physical, options.page_version) if options.encoding is None else options.encoding
    check_encoding(fallback, physical, node.dotted_path)
    builder = _ChunkBuilder(node, info, leaf, options, file_offset, sealer)
    lv, values, slots = builder.lv, leaf.values, leaf.num_values
    dictionary = None
    # A given dictionary is written even when every slot is null: its entries are the
    # column's categories (pandas keeps unused ones), which a reader gets back only from the page.
    given = leaf.dictionary is not None and len(leaf.dictionary) > 0
    if options.use_dictionary and dictionary_allowed(physical, options.page_version) and (len(values) or given):
        if leaf.dictionary is not None:
            dictionary = given_dictionary(values, leaf.dictionary)
        else:
            per_page = int(options.data_page_size // max(_mean_plain_size(values), 1.0))
            dictionary = plan_dictionary(values, per_page, options.dictionary_pagesize_limit)
    split = 0
    if dictionary is not None:
        split = slots
        if dictionary.count < len(values):  # fall back at the record holding the first value that did not fit
            slot = lv.slot_of_value(dictionary.count)
            split = slot if lv.starts is None else int(lv.starts[np.searchsorted(lv.starts, slot, side="right") - 1])
        if split > 0:
            builder.dictionary_page(dictionary)
            _dictionary_pages(builder, dictionary, split, options.write_statistics)
    if split < slots or slots == 0:
        _fallback_pages(builder, split, fallback)
    return builder.finish()


def _mean_plain_size(values: Array) -> float:
    """PLAIN bytes per value on average (without an array of every value's size)."""
    if isinstance(values, BinaryArray):
        n = len(values)
        return (int(values.offsets[-1]) - int(values.offsets[0]) + 4 * n) / n
    return float(_plain_sizes(values))


def _fallback_pages(builder: _ChunkBuilder, start: int, encoding: int) -> None:
    """Data pages of values in the non-dictionary ``encoding`` over slots ``start..``
    to the end of the chunk (one empty page for an empty chunk)."""
    lv, leaf, node, info = builder.lv, builder.leaf, builder.node, builder.info
    values, slots, options = leaf.values, leaf.num_values, builder.options
    cuts = page_cuts(lv, start, slots, _plain_sizes(values), options.data_page_size,
                     options.max_rows_per_page) if slots else [0, 0]
    for a, b in zip(cuts[:-1], cuts[1:], strict=False):
        page_values = _slice(values, lv.values_before(a), lv.values_before(b))
        bounds = value_bounds(page_values, info) if options.write_statistics else None
        encoded = encode_values(page_values, encoding, node.physical_type, node.type_length)
        builder.data_page(a, b, encoded, encoding, bounds, page_values, nan_count(page_values, info))


def _float_view(values: Array, info: LogicalInfo) -> np.ndarray | None:
    """The values as a float array, for float columns (FLOAT16 included); None otherwise."""
    if info.kind not in ("float", "float16") or not isinstance(values, PrimitiveArray):
        return None
    raw = values.values
    if raw.ndim == 2:  # FLOAT16 as (n, 2) bytes
        return np.ascontiguousarray(raw).view("<f2").reshape(len(raw))
    return raw


def nan_count(values: Array, info: LogicalInfo) -> int | None:
    """How many of ``values`` are NaN (float columns), None for other columns."""
    floats = _float_view(values, info)
    return None if floats is None else int(np.count_nonzero(np.isnan(floats)))


def _dictionary_pages(builder: _ChunkBuilder, dictionary: _Dictionary, split: int, stats_on: bool) -> None:
    """Data pages of dictionary indices over slots ``0..split``."""
    lv, opts = builder.lv, builder.options
    width = dictionary.bit_width
    encoding = Encoding.PLAIN_DICTIONARY if opts.page_version == 1 else Encoding.RLE_DICTIONARY
    cuts = page_cuts(lv, 0, split, width / 8 + 0.01, opts.data_page_size, opts.max_rows_per_page)
    entries = len(dictionary.values)
    floats = _float_view(dictionary.values, builder.info)
    nan_entries = None if floats is None else np.isnan(floats)
    for a, b in zip(cuts[:-1], cuts[1:], strict=False):
        va, vb = lv.values_before(a), lv.values_before(b)
        ids = dictionary.ids[va:vb]
        bounds = None
        if stats_on and len(ids):
            used = np.flatnonzero(np.bincount(ids, minlength=entries))
            bounds = value_bounds(_take(dictionary.values, used), builder.info)
        encoded = bytes([width]) + RleBitPackedHybrid.encode(ids.astype(np.uint32, copy=False), width)
        values = _slice(builder.leaf.values, va, vb) if builder.node.physical_type == Type.BYTE_ARRAY else None
        nans = None if nan_entries is None else int(np.count_nonzero(nan_entries[ids]))
        builder.data_page(a, b, encoded, encoding, bounds, values, nans)

__all__ = [
    "ChunkOut", "ColumnOptions", "PageRecord", "PageSealer", "DEFAULT_PAGE_SIZE", "DEFAULT_DICTIONARY_PAGE_SIZE",
    "DEFAULT_MAX_ROWS_PER_PAGE",
    "check_encoding", "default_encoding", "dictionary_allowed", "encode_values", "nan_count", "plan_dictionary",
    "write_column_chunk",
]
