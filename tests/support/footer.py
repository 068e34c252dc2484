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
