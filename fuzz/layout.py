"""A valid file taken apart for the mutator: footer struct, pages and where they are.

:func:`parse` decodes the footer with thrift_io and walks each column chunk's
page headers; :meth:`FileLayout.build` puts the (mutated) pieces back
together, moving every offset the footer holds past a page whose header or
body changed size, so mutations reach the decoders instead of stopping at the
first bounds check.
"""

from __future__ import annotations

import copy
import struct
from dataclasses import dataclass, field, replace

from parquet_codec.format.ttypes import ColumnChunk, FileMetaData, PageHeader
from parquet_codec.metadata import MAGIC
from parquet_codec.page import read_page_header
from parquet_codec.thrift_io import deserialize, serialize

_MAX_PAGES = 256
_CHUNK_OFFSETS = ("data_page_offset", "dictionary_page_offset", "index_page_offset", "bloom_filter_offset")
_INDEX_OFFSETS = ("offset_index_offset", "column_index_offset")


@dataclass
class Page:
    """One page: where its header starts, the header struct, the body bytes, its chunk."""

    offset: int
    header: PageHeader
    header_size: int
    body: bytes
    codec: int
    chunk: tuple[int, int]  # (row group, column) of the chunk holding the page

    @property
    def end(self) -> int:
        return self.offset + self.header_size + len(self.body)


@dataclass
class FileLayout:
    """The bytes of a plaintext file, its footer and its pages (in file order)."""

    data: bytes
    footer_start: int
    meta: FileMetaData
    pages: list[Page] = field(default_factory=list)
    touched: tuple[int, int] | None = None  # the chunk of the page a mutation changed
    _footer: bytes = b""

    def fresh(self) -> FileLayout:
        """A copy safe to mutate: the footer decoded again, page headers copied on access."""
        meta, _ = deserialize(FileMetaData, self._footer)
        return FileLayout(self.data, self.footer_start, meta, [replace(p) for p in self.pages], None, self._footer)

    def page(self, index: int) -> Page:
        """Page ``index`` with a private copy of its header, recorded as the one touched."""
        page = self.pages[index]
        page.header = copy.deepcopy(page.header)
        self.touched = page.chunk
        return page

    def build(self, replaced: dict[int, tuple[PageHeader, bytes]] | None = None) -> bytes:
        """The file with pages ``replaced`` ({index: (header, body)}) and the current footer."""
        replaced = replaced or {}
        parts, pos, shifts = [], 0, []
        for index, page in enumerate(self.pages):
            if index not in replaced:
                continue
            header, body = replaced[index]
            raw = serialize(header) + body
            parts.append(self.data[pos : page.offset])
            parts.append(raw)
            pos = page.end
            shifts.append((page.offset, len(raw) - (page.end - page.offset), page.chunk))
        parts.append(self.data[pos : self.footer_start])
        for at, delta, (i, j) in shifts:
            _shift_offsets(self.meta, at, delta, self.meta.row_groups[i].columns[j])
        footer = serialize(self.meta)
        return b"".join(parts) + footer + struct.pack("<I", len(footer)) + MAGIC


def _shift_offsets(meta: FileMetaData, at: int, delta: int, changed: ColumnChunk) -> None:
    """Move every offset after ``at`` by ``delta``; grow the chunk that holds the change."""
    if not delta:
        return
    for group in meta.row_groups or ():
        if group.file_offset is not None and group.file_offset > at:
            group.file_offset += delta
        for chunk in group.columns or ():
            _shift_chunk(chunk, at, delta)
            if chunk is changed and chunk.meta_data is not None:
                m = chunk.meta_data
                m.total_compressed_size = (m.total_compressed_size or 0) + delta
                m.total_uncompressed_size = (m.total_uncompressed_size or 0) + delta


def _shift_chunk(chunk: ColumnChunk, at: int, delta: int) -> None:
    for name in _INDEX_OFFSETS:
        value = getattr(chunk, name)
        if value is not None and value > at:
            setattr(chunk, name, value + delta)
    if chunk.meta_data is None:
        return
    for name in _CHUNK_OFFSETS:
        value = getattr(chunk.meta_data, name)
        if value is not None and value > at:
            setattr(chunk.meta_data, name, value + delta)


def parse(data: bytes) -> FileLayout | None:
    """The layout of a plaintext Parquet file, or None when ``data`` is not one."""
    if len(data) < 12 or data[:4] != MAGIC or data[-4:] != MAGIC:
        return None
    length = struct.unpack("<I", data[-8:-4])[0]
    start = len(data) - 8 - length
    if start < 4:
        return None
    try:
        meta, _ = deserialize(FileMetaData, data, start, end=len(data) - 8)
        layout = FileLayout(data, start, meta, _footer=data[start : len(data) - 8])
        for i, group in enumerate(meta.row_groups or ()):
            for j, chunk in enumerate(group.columns or ()):
                _walk_chunk(layout, chunk, (i, j))
    except Exception:  # noqa: BLE001 - anything unparsable is simply "not a layout"
        return None
    layout.pages.sort(key=lambda p: p.offset)
    return layout


def _walk_chunk(layout: FileLayout, chunk: ColumnChunk, where: tuple[int, int]) -> None:
    m = chunk.meta_data
    if m is None or not m.total_compressed_size:
        return
    start = m.data_page_offset
    if m.dictionary_page_offset and 0 < m.dictionary_page_offset < start:
        start = m.dictionary_page_offset
    end = min(start + m.total_compressed_size, layout.footer_start)
    view = memoryview(layout.data)
    pos = start
    while pos < end and len(layout.pages) < _MAX_PAGES:
        header, used = read_page_header(view[:end], pos)
        body_end = pos + used + (header.compressed_page_size or 0)
        if body_end > end or header.compressed_page_size is None or header.compressed_page_size < 0:
            return
        layout.pages.append(Page(pos, header, used, layout.data[pos + used : body_end], m.codec, where))
        pos = body_end


__all__ = ["FileLayout", "Page", "parse"]
