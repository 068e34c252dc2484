"""Pages of a column chunk (File Format: "Data Pages", "Checksumming").

A column chunk is a sequence of (PageHeader, body) pairs: at most one
dictionary page first, then data pages v1 or v2. This module walks those
pairs, verifies CRCs, decompresses, and splits a data page into its
repetition levels, definition levels and encoded values. Decoding the values
themselves is the column layer's business.
"""

from __future__ import annotations

import threading
import zlib
from collections.abc import Callable, Iterator
from dataclasses import dataclass

import numpy as np

from parquet_codec import compression
from parquet_codec.encodings.rle import BitPacked, RleBitPackedHybrid
from parquet_codec.errors import (
    ChecksumError,
    CorruptFileError,
    MetadataError,
    ParquetError,
    UnsupportedError,
)
from parquet_codec.format.ttypes import (
    CompressionCodec,
    DataPageHeader,
    DataPageHeaderV2,
    DictionaryPageHeader,
    Encoding,
    PageHeader,
    PageType,
)
from parquet_codec.thrift_io import WindowDecoder, deserialize, serialize

# A page header is a few dozen bytes; statistics can make it larger, but a
# header this big is a corrupt length, not a real header.
MAX_HEADER_SIZE = 16 * 2**20
_HEADER_WINDOW = 256


@dataclass(slots=True)
class RawPage:
    """One page as stored: its header and its (compressed) body."""

    header: PageHeader
    ordinal: int  # position among the chunk's pages, dictionary page included
    offset: int  # file offset of the header
    body: memoryview

    @property
    def type(self) -> int:
        return self.header.type


@dataclass
class DataPage:
    """A decompressed data page split into its sections."""

    num_values: int  # level count: values and nulls
    encoding: int
    rep_levels: np.ndarray | None
    def_levels: np.ndarray | None
    values: memoryview  # encoded values, decompressed
    private: bool = False  # values is a buffer of the page's own (decompressed), which a decoder may overwrite


def iter_pages(chunk: memoryview, chunk_offset: int, num_values: int, decryptor: object | None = None
               ) -> Iterator[RawPage]:
    """Walk the pages of a column chunk until ``num_values`` levels are seen.

    ``chunk`` holds the chunk's bytes, which start at file offset ``chunk_offset``.
    ``decryptor`` (crypto.ColumnChunkDecryptor) reads encrypted page headers;
    the bodies stay encrypted (the CRC covers them as stored).
    """
    pos, seen, ordinal = 0, 0, 0
    parse = _header_parser(chunk, decryptor)
    while seen < num_values:
        if pos >= len(chunk):
            raise CorruptFileError(
                f"column chunk ends after {seen} of {num_values} values", file_offset=chunk_offset + pos
            )
        page, pos = _page_at(chunk, pos, chunk_offset, ordinal, parse)
        seen += _level_count(page.header)
        if seen > num_values:  # checked before the page's values are materialized
            raise CorruptFileError(f"page {ordinal} brings the column chunk to {seen} values, more than the "
                                   f"{num_values} it declares", page=ordinal, file_offset=page.offset)
        yield page
        ordinal += 1


def iter_page_run(run: memoryview, run_offset: int, first_ordinal: int = 0, decryptor: object | None = None
                  ) -> Iterator[RawPage]:
    """Every page of ``run``: whole pages fetched by byte range (as an
    OffsetIndex locates them, PageIndex.md), starting at file offset
    ``run_offset``; ``first_ordinal`` is the first page's position in the chunk
    (dictionary page included), which also fixes the AAD of encrypted headers."""
    pos, ordinal = 0, first_ordinal
    parse = _header_parser(run, decryptor)
    while pos < len(run):
        page, pos = _page_at(run, pos, run_offset, ordinal, parse)
        yield page
        ordinal += 1


# Parses the page header at a position of a run of pages (its ordinal fixes
# the AAD of an encrypted header): returns the header and its stored size.
_HeaderParser = Callable[[int, int], tuple[PageHeader, int]]


def _header_parser(chunk: memoryview, decryptor: object | None) -> _HeaderParser:
    """The header parser of a run of pages: the decryptor's for an encrypted
    chunk; for a run inside a ``bytes`` object (a file read, an in-memory
    file), a decoder working in place on that object, with no copied window
    per header; read_page_header otherwise."""
    if decryptor is not None:
        return lambda pos, ordinal: decryptor.read_page_header(chunk, pos, ordinal)
    located = _bytes_owner(chunk)
    if located is None:
        return lambda pos, ordinal: read_page_header(chunk, pos)
    owner, base = located
    decoder = WindowDecoder(owner, limit=MAX_HEADER_SIZE)  # one per run: it holds the run's bytes

    def parse(pos: int, ordinal: int) -> tuple[PageHeader, int]:
        # A failure of the in-place decoder goes through read_page_header, which reports it.
        return decoder.decode_at(PageHeader, base + pos) or read_page_header(chunk, pos)

    return parse


def _bytes_owner(chunk: memoryview) -> tuple[bytes, int] | None:
    """The ``bytes`` object a contiguous ``chunk`` views and the chunk's offset in it; None for other memory."""
    view = memoryview(chunk)
    owner = view.obj
    if type(owner) is not bytes or not view.c_contiguous:
        return None
    if len(owner) == view.nbytes:
        return owner, 0
    start = np.frombuffer(view, dtype=np.uint8).__array_interface__["data"][0]
    base = start - np.frombuffer(owner, dtype=np.uint8).__array_interface__["data"][0]
    return (owner, base) if 0 <= base <= len(owner) - view.nbytes else None


def _page_at(chunk: memoryview, pos: int, chunk_offset: int, ordinal: int, parse: _HeaderParser
             ) -> tuple[RawPage, int]:
    """The page whose header starts at ``pos``, and the position after its body."""
    offset = chunk_offset + pos
    try:
        header, used = parse(pos, ordinal)
    except ParquetError as exc:
        # the parser saw the run's bytes only: its offset is within them, not the file's
        exc.context["file_offset"] = offset
        exc.add_context(page=ordinal)
        raise
    _check_header(header, ordinal, offset)
    body_start = pos + used
    body_end = body_start + header.compressed_page_size
    if body_end > len(chunk):
        raise CorruptFileError(
            f"page of {header.compressed_page_size} bytes runs past the end of the column chunk",
            page=ordinal,
            file_offset=offset,
        )
    return RawPage(header, ordinal, offset, chunk[body_start:body_end]), body_end


_local = threading.local()


def read_page_header(chunk: memoryview, pos: int) -> tuple[PageHeader, int]:
    """Parse the PageHeader at ``pos``, looking at a small window first: the
    parser copies what it is given, and most headers are tiny. The first try
    reuses this thread's decoder; the general path reports failures."""
    decoder = getattr(_local, "headers", None)
    if decoder is None:
        decoder = _local.headers = WindowDecoder()
    if 0 <= pos <= len(chunk):
        parsed = decoder.decode(PageHeader, bytes(chunk[pos : pos + _HEADER_WINDOW]))
        if parsed is not None:
            return parsed
    window = _HEADER_WINDOW
    while True:
        end = min(len(chunk), pos + window)
        try:
            return deserialize(PageHeader, chunk, pos, end=end)
        except MetadataError:
            if end == len(chunk) or window >= MAX_HEADER_SIZE:
                raise
            window *= 16


# The sub-header each page type requires (File Format: "PageHeader").
_SUB_HEADERS = {
    PageType.DATA_PAGE: "data_page_header",
    PageType.DATA_PAGE_V2: "data_page_header_v2",
    PageType.DICTIONARY_PAGE: "dictionary_page_header",
}


def _check_header(header: PageHeader, ordinal: int, offset: int) -> None:
    """Reject a header whose type, sizes, sub-header or value count is missing or negative."""
    uncompressed, compressed = header.uncompressed_page_size, header.compressed_page_size
    if header.type is None or uncompressed is None or compressed is None or uncompressed < 0 or compressed < 0:
        name, value = next((name, value) for name, value in (
            ("type", header.type), ("uncompressed_page_size", uncompressed), ("compressed_page_size", compressed),
        ) if value is None or (name != "type" and value < 0))
        raise CorruptFileError(f"page header has invalid {name} {value}", page=ordinal, file_offset=offset)
    expected = _SUB_HEADERS.get(header.type)
    if expected is None:
        return
    sub = getattr(header, expected)
    if sub is None:
        raise CorruptFileError(f"page header lacks its {expected}", page=ordinal, file_offset=offset)
    if sub.num_values is None or sub.num_values < 0:
        declared = "no count of" if sub.num_values is None else sub.num_values
        raise CorruptFileError(f"page declares {declared} values", page=ordinal, file_offset=offset)


def _level_count(header: PageHeader) -> int:
    if header.type == PageType.DATA_PAGE:
        return header.data_page_header.num_values
    if header.type == PageType.DATA_PAGE_V2:
        return header.data_page_header_v2.num_values
    return 0


def verify_crc(page: RawPage) -> None:
    """Compare the header's CRC-32 with the page body as stored (compressed)."""
    if page.header.crc is None:
        return
    actual = zlib.crc32(page.body)
    if actual != page.header.crc & 0xFFFFFFFF:
        raise ChecksumError(
            f"page CRC-32 mismatch: header says {page.header.crc & 0xFFFFFFFF:#010x}, bytes give {actual:#010x}",
            page=page.ordinal,
            file_offset=page.offset,
        )


def decompress_body(page: RawPage, codec: int, body: memoryview | None = None) -> memoryview:
    """The page body (or the compressed part of it) decompressed to its declared size."""
    body = page.body if body is None else body
    size = page.header.uncompressed_page_size
    if codec == CompressionCodec.UNCOMPRESSED:
        if len(body) != size:
            raise CorruptFileError(
                f"uncompressed page holds {len(body)} bytes, header says {size}", page=page.ordinal,
                file_offset=page.offset,
            )
        return body
    return memoryview(compression.decompress(codec, body, size))


def read_dictionary_page(page: RawPage, codec: int) -> tuple[memoryview, int, int]:
    """The decompressed PLAIN dictionary bytes, the entry count and the encoding."""
    header = page.header.dictionary_page_header
    if header.encoding not in (Encoding.PLAIN, Encoding.PLAIN_DICTIONARY):
        raise UnsupportedError(f"dictionary page encoding {_encoding_name(header.encoding)}")
    return decompress_body(page, codec), header.num_values, header.encoding


def read_data_page(page: RawPage, codec: int, max_rep: int, max_def: int) -> DataPage:
    """Split a v1 or v2 data page into levels and encoded values."""
    try:
        sections = _split(page, codec, max_rep, max_def)
        if sections is None:  # BIT_PACKED levels, or sections that do not fit (named there)
            return _read_v1(page, codec, max_rep, max_def)
        n = sections.num_values
        rep = _section_levels(sections.rep, max_rep, n, "repetition")
        dfn = _section_levels(sections.defs, max_def, n, "definition")
        return DataPage(n, sections.encoding, rep, dfn, sections.values, sections.private)
    except ParquetError as exc:
        exc.add_context(page=page.ordinal, file_offset=page.offset)
        raise


def _read_v1(page: RawPage, codec: int, max_rep: int, max_def: int) -> DataPage:
    header = page.header.data_page_header
    data = decompress_body(page, codec)
    n = header.num_values
    rep, pos = _levels_v1(data, 0, header.repetition_level_encoding, max_rep, n, "repetition")
    dfn, pos = _levels_v1(data, pos, header.definition_level_encoding, max_def, n, "definition")
    return DataPage(n, header.encoding, rep, dfn, data[pos:], _private(codec, data))


@dataclass
class PageSections:
    """A decompressed data page whose level sections are not decoded yet:
    each is the bare runs of an RLE/bit-packed hybrid stream."""

    num_values: int
    encoding: int
    rep: memoryview | None  # None when the column has no repetition levels
    defs: memoryview | None
    values: memoryview
    private: bool = False  # as DataPage.private


def split_data_page(page: RawPage, codec: int, max_rep: int, max_def: int) -> PageSections | None:
    """A v1 or v2 data page with RLE levels split into its sections, the
    levels left encoded (to decode many pages' at once). None for a v1 page
    with BIT_PACKED levels or level sections that do not fit, which
    :func:`read_data_page` then decodes or reports; a v2 page whose sections
    do not fit raises the error :func:`read_data_page` gives it."""
    try:
        return _split(page, codec, max_rep, max_def)
    except ParquetError as exc:
        exc.add_context(page=page.ordinal, file_offset=page.offset)
        raise


def _split(page: RawPage, codec: int, max_rep: int, max_def: int) -> PageSections | None:
    if page.type == PageType.DATA_PAGE:
        return _split_v1(page, codec, max_rep, max_def)
    return _split_v2(page, codec, max_rep, max_def)


def _split_v1(page: RawPage, codec: int, max_rep: int, max_def: int) -> PageSections | None:
    header = page.header.data_page_header
    if (max_rep and header.repetition_level_encoding != Encoding.RLE) or (
            max_def and header.definition_level_encoding != Encoding.RLE):
        return None
    data = decompress_body(page, codec)
    rep, pos = _level_section(data, 0, max_rep)
    dfn, pos = _level_section(data, pos, max_def)
    if pos < 0:
        return None
    return PageSections(header.num_values, header.encoding, rep, dfn, data[pos:], _private(codec, data))


def _level_section(data: memoryview, pos: int, max_level: int) -> tuple[memoryview | None, int]:
    """The runs of a length-prefixed v1 level section at ``pos`` and the position
    after it; position -1 when the section does not fit (or ``pos`` is -1)."""
    if max_level == 0 or pos < 0:
        return None, pos
    if pos + 4 > len(data):
        return None, -1
    end = pos + 4 + int.from_bytes(data[pos : pos + 4], "little")
    return (data[pos + 4 : end], end) if end <= len(data) else (None, -1)


def _split_v2(page: RawPage, codec: int, max_rep: int, max_def: int) -> PageSections:
    rep, dfn = _v2_level_bytes(page)
    header = page.header.data_page_header_v2
    values = _v2_values(page, codec)
    private = header.is_compressed is not False and _private(codec, values)
    return PageSections(header.num_values, header.encoding, rep if max_rep else None, dfn if max_def else None,
                        values, private)


def _private(codec: int, data: memoryview) -> bool:
    """Whether ``data``, decompressed with ``codec``, is a buffer of its own:
    every codec but UNCOMPRESSED makes one (which may be read-only)."""
    return codec != CompressionCodec.UNCOMPRESSED and not data.readonly


def _levels_v1(
    data: memoryview, pos: int, encoding: int, max_level: int, count: int, kind: str
) -> tuple[np.ndarray | None, int]:
    if max_level == 0:
        return None, pos
    width = max_level.bit_length()
    if encoding == Encoding.RLE:
        levels, used = RleBitPackedHybrid.decode(data[pos:], width, count, length_prefixed=True)
    elif encoding == Encoding.BIT_PACKED:
        levels, used = BitPacked.decode(data[pos:], width, count)
    else:
        raise UnsupportedError(f"{kind} levels encoded as {_encoding_name(encoding)}")
    return _checked_levels(levels, count, max_level, kind), pos + used


def _v2_level_bytes(page: RawPage) -> tuple[memoryview, memoryview]:
    """The repetition and definition level sections of a v2 page (never compressed)."""
    header = page.header.data_page_header_v2
    rep_len, def_len = header.repetition_levels_byte_length, header.definition_levels_byte_length
    body = page.body
    if rep_len is None or def_len is None or rep_len < 0 or def_len < 0 or rep_len + def_len > len(body):
        raise CorruptFileError(f"level lengths {rep_len} + {def_len} exceed the page body of {len(body)} bytes")
    return body[:rep_len], body[rep_len : rep_len + def_len]


def _v2_values(page: RawPage, codec: int) -> memoryview:
    """The encoded values of a v2 page, decompressed unless the page says they are not."""
    header = page.header.data_page_header_v2
    levels = header.repetition_levels_byte_length + header.definition_levels_byte_length
    values = page.body[levels:]
    if header.is_compressed is False or codec == CompressionCodec.UNCOMPRESSED:
        return values
    size = page.header.uncompressed_page_size - levels
    if size < 0:
        raise CorruptFileError(f"uncompressed page size {page.header.uncompressed_page_size} is smaller than its levels")
    return memoryview(compression.decompress(codec, values, size))


def _section_levels(data: memoryview | None, max_level: int, count: int, kind: str) -> np.ndarray | None:
    """The levels of a bare RLE/bit-packed hybrid section (None: the column has none)."""
    if data is None:
        return None
    levels, _ = RleBitPackedHybrid.decode(data, max_level.bit_length(), count)
    return _checked_levels(levels, count, max_level, kind)


def _checked_levels(levels: np.ndarray, count: int, max_level: int, kind: str) -> np.ndarray:
    if len(levels) != count:
        raise CorruptFileError(f"page holds {len(levels)} {kind} levels, header says {count}")
    if count and int(levels.max()) > max_level:
        raise CorruptFileError(f"{kind} level {int(levels.max())} exceeds the column's maximum {max_level}")
    return levels.astype(np.int16, copy=False)


def _encoding_name(encoding: int) -> str:
    return Encoding._VALUES_TO_NAMES.get(encoding, f"#{encoding}")


__all__ = [
    "DataPage",
    "PageSections",
    "split_data_page",
    "RawPage",
    "decompress_body",
    "iter_page_run",
    "iter_pages",
    "read_data_page",
    "read_dictionary_page",
    "verify_crc",
]


# ---------------------------------------------------------------------------
# Writing pages (File Format: "Data Pages"; the thrift PageHeader comments).
# The layouts are the ones the readers above take apart: v1 bodies are
# [rep levels][def levels][values], all compressed together, with each level
# section RLE-encoded behind a 4-byte length; v2 bodies put both level
# sections, RLE without length prefixes, uncompressed in front of the
# compressed values. The CRC-32 covers the page bytes after the header as
# stored (compressed), for every page type.


@dataclass
class PageOut:
    """One page ready to append: header and body bytes, plus their sizes."""

    header: PageHeader
    header_bytes: bytes
    body: bytes
    uncompressed_size: int  # header + uncompressed body, as ColumnMetaData counts it

    @property
    def size(self) -> int:
        return len(self.header_bytes) + len(self.body)


def encode_levels(levels: np.ndarray | None, max_level: int, *, length_prefixed: bool) -> bytes:
    """A level section: RLE/bit-packed hybrid at ``bit_width(max_level)``;
    empty when the column has no such levels."""
    if max_level == 0 or levels is None:
        return b""
    return RleBitPackedHybrid.encode(levels, max_level.bit_length(), length_prefixed=length_prefixed)


def _finish(header: PageHeader, body: bytes, uncompressed_body: int, checksum: bool) -> PageOut:
    if len(body) > compression.MAX_PAGE_SIZE or uncompressed_body > compression.MAX_PAGE_SIZE:
        raise UnsupportedError(f"a page of {max(len(body), uncompressed_body)} bytes exceeds the format's 2 GiB limit")
    header.compressed_page_size = len(body)
    header.uncompressed_page_size = uncompressed_body
    if checksum:
        crc = zlib.crc32(body)
        header.crc = crc - (1 << 32) if crc >= 1 << 31 else crc  # Thrift i32 is signed
    raw = serialize(header)
    return PageOut(header, raw, body, len(raw) + uncompressed_body)


def write_data_page_v1(values: bytes, encoding: int, num_values: int, rep: bytes, dfn: bytes, codec: int, *,
                       level: int | None = None, checksum: bool = False, statistics: object = None) -> PageOut:
    """A DATA_PAGE: levels (length-prefixed RLE, from :func:`encode_levels`) and values compressed together."""
    raw = b"".join((rep, dfn, values))
    sub = DataPageHeader(num_values=num_values, encoding=encoding, definition_level_encoding=Encoding.RLE,
                         repetition_level_encoding=Encoding.RLE, statistics=statistics)
    header = PageHeader(type=PageType.DATA_PAGE, data_page_header=sub)
    body = raw if codec == CompressionCodec.UNCOMPRESSED else compression.compress(codec, raw, level=level)
    return _finish(header, body, len(raw), checksum)


def write_data_page_v2(values: bytes, encoding: int, num_values: int, num_nulls: int, num_rows: int, rep: bytes,
                       dfn: bytes, codec: int, *, level: int | None = None, checksum: bool = False,
                       statistics: object = None) -> PageOut:
    """A DATA_PAGE_V2: uncompressed levels (RLE, no prefix) before the compressed values.
    ``is_compressed`` is set even for UNCOMPRESSED, as parquet-java does; a page
    without value bytes (all nulls, or empty lists) stores none, ``is_compressed``
    false, as pyarrow writes it: no codec's stream of nothing (DuckDB refuses the
    Hadoop LZ4 one)."""
    empty = not len(values)
    compressed = values if empty or codec == CompressionCodec.UNCOMPRESSED else compression.compress(
        codec, values, level=level)
    sub = DataPageHeaderV2(num_values=num_values, num_nulls=num_nulls, num_rows=num_rows, encoding=encoding,
                           definition_levels_byte_length=len(dfn), repetition_levels_byte_length=len(rep),
                           is_compressed=not empty, statistics=statistics)
    header = PageHeader(type=PageType.DATA_PAGE_V2, data_page_header_v2=sub)
    return _finish(header, b"".join((rep, dfn, compressed)), len(rep) + len(dfn) + len(values), checksum)


def write_dictionary_page(values: bytes, num_values: int, encoding: int, codec: int, *,
                          level: int | None = None, checksum: bool = False) -> PageOut:
    """A DICTIONARY_PAGE of PLAIN values; ``encoding`` is PLAIN_DICTIONARY (v1) or PLAIN (v2)."""
    sub = DictionaryPageHeader(num_values=num_values, encoding=encoding)
    header = PageHeader(type=PageType.DICTIONARY_PAGE, dictionary_page_header=sub)
    body = values if codec == CompressionCodec.UNCOMPRESSED else compression.compress(codec, values, level=level)
    return _finish(header, body, len(values), checksum)


__all__ += ["PageOut", "encode_levels", "write_data_page_v1", "write_data_page_v2", "write_dictionary_page"]
