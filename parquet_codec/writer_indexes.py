"""What a file writer puts after its row groups: page indexes and bloom filters
(PageIndex.md, BloomFilter.md).

Layout, as parquet-java writes it: every ColumnIndex (row group by row
group, column by column), then every OffsetIndex, then every bloom filter,
then the footer. Each chunk's indexes are built, serialized and (for an
encrypted column) encrypted as soon as the chunk is written, since its page
offsets are final by then; only those small module bytes, and the finished
bloom filters, stay in memory until the file is closed, as in parquet-java
and Arrow C++.

- ColumnIndex: per-page bounds by sort order, null pages, null counts,
  boundary order from the data, level histograms where parquet-java writes
  them (repetition iff max repetition level > 0, definition iff max
  definition level > 1) and NaN counts for float columns. None for columns
  without a sort order (INT96, INTERVAL) or with ``write_statistics`` off.
- OffsetIndex: every chunk, with page locations (header included),
  first_row_index and unencoded_byte_array_data_bytes for BYTE_ARRAY.
- Bloom filters (``bloom_filter_options``, pyarrow's option): sized as
  pyarrow 26 sizes them by default (for ``min(ndv, distinct values in the
  chunk)``), or as parquet-java does; ``bloom_filter_length`` counts the
  header and the bitset as stored.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from parquet_codec.arrays import Array
from parquet_codec.bloom import ARROW, MAX_BYTES, MIN_BYTES, PARQUET_JAVA, BloomFilterBuilder
from parquet_codec.column_index import build_column_index
from parquet_codec.column_writer import ChunkOut, PageRecord
from parquet_codec.errors import UnsupportedError
from parquet_codec.format.ttypes import ColumnChunk, Type
from parquet_codec.offset_index import PageEntry, build_offset_index
from parquet_codec.schema import SchemaNode
from parquet_codec.thrift_io import serialize
from parquet_codec.types import LogicalInfo

#: Default false positive probability: pyarrow's (0.05) and parquet-java's (0.01).
DEFAULT_FPP = {ARROW: 0.05, PARQUET_JAVA: 0.01}
SIZINGS = (ARROW, PARQUET_JAVA)


class ModuleEncryptor(Protocol):
    """The index and bloom filter side of crypto.ColumnChunkEncryptor."""

    def encrypt_column_index(self, serialized: bytes) -> bytes: ...

    def encrypt_offset_index(self, serialized: bytes) -> bytes: ...

    def encrypt_bloom_filter(self, serialized_header: bytes, bitset: bytes) -> bytes: ...


class Sink(Protocol):
    position: int

    def write(self, data: bytes) -> None: ...


# ---------------------------------------------------------------- bloom filter options


@dataclass(frozen=True)
class BloomSpec:
    """One column's bloom filter request: expected distinct values (None: the
    sizing's default) and false positive probability."""

    ndv: int | None
    fpp: float


def bloom_specs(options: Mapping[str, Any] | None, leaves: Sequence[SchemaNode], sizing: str = ARROW,
                max_bytes: int | None = None) -> dict[int, BloomSpec]:
    """``bloom_filter_options`` resolved to leaf column indexes.

    Keys are dotted leaf paths (a top-level primitive column is its own
    name); values are ``{"ndv": N, "fpp": P}`` (either may be left out),
    ``True`` or ``{}`` for the defaults, ``False`` / ``None`` for no filter.
    Unknown columns, group columns and BOOLEAN columns are refused."""
    if sizing not in SIZINGS:
        raise UnsupportedError(f"bloom_filter_sizing must be one of {SIZINGS}, not {sizing!r}")
    if max_bytes is not None and not (isinstance(max_bytes, int) and MIN_BYTES <= max_bytes <= MAX_BYTES):
        raise UnsupportedError(f"bloom_filter_max_bytes must be an int in [{MIN_BYTES}, {MAX_BYTES}], not {max_bytes!r}")
    if not options:
        return {}
    if not isinstance(options, Mapping):
        raise UnsupportedError("bloom_filter_options must be a dict {column: {'ndv': N, 'fpp': P} | True}")
    by_path = {leaf.dotted_path: leaf for leaf in leaves}
    specs: dict[int, BloomSpec] = {}
    for column, value in options.items():
        leaf = by_path.get(str(column))
        if leaf is None:
            raise UnsupportedError(f"bloom_filter_options names {column!r}, which is not a leaf column; "
                                   f"leaf columns are {sorted(by_path)}")
        spec = _bloom_spec(str(column), value, sizing)
        if spec is None:
            continue
        if leaf.physical_type == Type.BOOLEAN:
            raise UnsupportedError(f"column {column!r}: bloom filters are not defined for BOOLEAN columns")
        specs[leaf.column_index] = spec
    return specs


def _bloom_spec(column: str, value: Any, sizing: str) -> BloomSpec | None:
    if value is None or value is False:
        return None
    if value is True:
        value = {}
    if not isinstance(value, Mapping):
        raise UnsupportedError(f"bloom_filter_options[{column!r}] must be True or a dict with 'ndv' and 'fpp'")
    unknown = set(value) - {"ndv", "fpp"}
    if unknown:
        raise UnsupportedError(f"bloom_filter_options[{column!r}] has unknown keys {sorted(unknown)}; "
                               "expected 'ndv' and 'fpp'")
    ndv, fpp = value.get("ndv"), value.get("fpp", DEFAULT_FPP[sizing])
    if ndv is not None and (isinstance(ndv, bool) or not isinstance(ndv, int) or ndv <= 0):
        raise UnsupportedError(f"bloom_filter_options[{column!r}]['ndv'] must be a positive integer, not {ndv!r}")
    if isinstance(fpp, bool) or not isinstance(fpp, (int, float)) or not 0.0 < fpp < 1.0 or math.isnan(fpp):
        raise UnsupportedError(f"bloom_filter_options[{column!r}]['fpp'] must lie strictly between 0 and 1, "
                               f"not {fpp!r}")
    return BloomSpec(ndv, float(fpp))


def bloom_filter_bytes(spec: BloomSpec, node: SchemaNode, info: LogicalInfo, values: Array, *, sizing: str = ARROW,
                       max_bytes: int | None = None, encryptor: ModuleEncryptor | None = None) -> bytes:
    """The stored bloom filter of one chunk's non-null ``values``: header and
    bitset, or their two encrypted modules for an encrypted column."""
    builder = BloomFilterBuilder(node.physical_type, type_length=node.type_length, ndv=spec.ndv, fpp=spec.fpp,
                                 sizing=sizing, max_bytes=max_bytes, info=info)
    builder.insert_values(values)
    bloom = builder.finish()
    if encryptor is None:
        return bloom.to_bytes()
    return encryptor.encrypt_bloom_filter(serialize(bloom.header()), bloom.bitset)


# ---------------------------------------------------------------- page indexes


def page_entry(record: PageRecord) -> PageEntry:
    """What the page indexes say about one written data page."""
    size = record.size
    return PageEntry(
        offset=record.offset, compressed_size=record.compressed_page_size, first_row_index=record.first_row_index,
        null_count=record.null_count, null_page=record.null_page, min_value=record.min_value,
        max_value=record.max_value, nan_count=record.nan_count, unencoded_byte_array_bytes=size.unencoded_bytes,
        rep_histogram=size.rep_histogram, def_histogram=size.def_histogram,
    )


def page_index_bytes(out: ChunkOut, info: LogicalInfo, *, statistics: bool,
                     encryptor: ModuleEncryptor | None = None) -> tuple[bytes | None, bytes]:
    """The stored ColumnIndex (None when the chunk gets none) and OffsetIndex of a written chunk."""
    entries = [page_entry(r) for r in out.pages]
    column_index = build_column_index(entries, info) if statistics else None
    ci = None if column_index is None else serialize(column_index)
    oi = serialize(build_offset_index(entries))
    if encryptor is not None:
        ci = None if ci is None else encryptor.encrypt_column_index(ci)
        oi = encryptor.encrypt_offset_index(oi)
    return ci, oi


# ---------------------------------------------------------------- after the row groups


@dataclass
class _Pending:
    chunk: ColumnChunk
    column_index: bytes | None = None
    offset_index: bytes | None = None
    bloom_filter: bytes | None = None


class TrailingModules:
    """The page indexes and bloom filters of every chunk written so far, until :meth:`write`."""

    def __init__(self) -> None:
        self._pending: list[_Pending] = []

    def add(self, chunk: ColumnChunk, *, column_index: bytes | None = None, offset_index: bytes | None = None,
            bloom_filter: bytes | None = None) -> None:
        if column_index is None and offset_index is None and bloom_filter is None:
            return
        self._pending.append(_Pending(chunk, column_index, offset_index, bloom_filter))

    def __len__(self) -> int:
        return len(self._pending)

    def write(self, sink: Sink) -> None:
        """Append every ColumnIndex, then every OffsetIndex, then every bloom filter,
        and point their column chunks at them."""
        for item in self._pending:
            if item.column_index is not None:
                item.chunk.column_index_offset = sink.position
                item.chunk.column_index_length = len(item.column_index)
                sink.write(item.column_index)
        for item in self._pending:
            if item.offset_index is not None:
                item.chunk.offset_index_offset = sink.position
                item.chunk.offset_index_length = len(item.offset_index)
                sink.write(item.offset_index)
        for item in self._pending:
            if item.bloom_filter is not None:
                item.chunk.meta_data.bloom_filter_offset = sink.position
                item.chunk.meta_data.bloom_filter_length = len(item.bloom_filter)
                sink.write(item.bloom_filter)
        self._pending.clear()


__all__ = [
    "DEFAULT_FPP", "SIZINGS", "BloomSpec", "TrailingModules", "bloom_filter_bytes", "bloom_specs", "page_entry",
    "page_index_bytes",
]
