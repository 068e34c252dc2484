"""Rewriting a file's footer, to make files that writers do not (tests only)."""

from __future__ import annotations

import struct
from collections.abc import Callable

from parquet_codec.format.ttypes import FileMetaData
from parquet_codec.thrift_io import deserialize, serialize


def footer_start(data: bytes) -> int:
    """The file offset of the serialized FileMetaData."""
    return len(data) - 8 - struct.unpack("<I", data[-8:-4])[0]


def read_footer(data: bytes) -> FileMetaData:
    return deserialize(FileMetaData, data, footer_start(data), end=len(data) - 8)[0]


def rewrite_footer(data: bytes, edit: Callable[[FileMetaData], None], insert: bytes = b"") -> bytes:
    """``data`` with its footer changed by ``edit`` and re-serialized; ``insert``
    goes where the old footer started (offset ``footer_start(data)``), before it."""
    start = footer_start(data)
    meta = read_footer(data)
    edit(meta)
    body = serialize(meta)
    return data[:start] + insert + body + struct.pack("<I", len(body)) + b"PAR1"


def with_empty_bloom_filters(data: bytes, column: int, num_bytes: int = 1024) -> bytes:
    """``data`` with an all-zero bloom filter (one shared by every row group) on
    leaf ``column``, as parquet-java writes them on BOOLEAN columns, which it
    never fills."""
    from parquet_codec.bloom import Sbbf

    bloom = Sbbf(num_bytes).to_bytes()
    start = footer_start(data)

    def edit(meta: FileMetaData) -> None:
        for row_group in meta.row_groups:
            chunk = row_group.columns[column].meta_data
            chunk.bloom_filter_offset, chunk.bloom_filter_length = start, len(bloom)

    return rewrite_footer(data, edit, insert=bloom)
