"""The file footer (File Format: "Metadata"), decoded lazily.

A footer of a wide file holds tens of thousands of ColumnChunk structs. The
file-level fields (schema, key-value metadata, column orders) are decoded on
open; each RowGroup is located by letting the C decoder skip over it and is
decoded the first time a read or a caller touches it.
"""

from __future__ import annotations

import re
import struct
from functools import cached_property

from parquet_codec.errors import CorruptFileError, MetadataError, UnsupportedError
from parquet_codec.format.ttypes import FileMetaData, RowGroup
from parquet_codec.io import ByteSource
from parquet_codec.thrift_io import StructReader

_CREATED_BY = re.compile(r"\s*(\S+)(?:\s+version\s+(\S+))?", re.IGNORECASE)

MAGIC = b"PAR1"
ENCRYPTED_MAGIC = b"PARE"
_TAIL = 64 * 1024
_ROW_GROUPS_FIELD = 4

# Compact-protocol wire types (Thrift compact protocol specification).
_BOOL_TRUE, _BOOL_FALSE, _BYTE, _I16, _I32, _I64, _DOUBLE, _BINARY, _LIST, _SET, _MAP, _STRUCT = range(1, 13)
_MAX_DEPTH = 64


class FileMetadata:
    """FileMetaData whose row groups are decoded on first use."""

    # Set by read_footer for encrypted files read with decryption properties:
    # the crypto.FileDecryptor that column chunks of this file decrypt with.
    decryptor: object | None = None

    def __init__(self, data: bytes | bytearray | memoryview, base_offset: int = 0) -> None:
        self._reader = StructReader(data, base_offset)
        self._top, end = self._reader.read(FileMetaData, 0, skip=("row_groups",))
        self.size = end
        self._row_group_starts = self._locate_row_groups()
        self._row_groups: dict[int, RowGroup] = {}
        self._validate()

    # File-level fields -------------------------------------------------
    @property
    def version(self) -> int:
        return self._top.version

    @property
    def num_rows(self) -> int:
        return self._top.num_rows

    @property
    def created_by(self) -> str | None:
        return self._top.created_by

    @cached_property
    def writer(self) -> tuple[str, tuple[int, ...]]:
        """The writing application and its version, parsed from ``created_by``
        ("parquet-mr version 1.12.3 (build ...)" -> ("parquet-mr", (1, 12, 3)));
        the version is () when absent."""
        match = _CREATED_BY.match(self.created_by or "")
        if match is None:
            return (self.created_by or "").strip(), ()
        version = tuple(int(p) for p in re.findall(r"\d+", match.group(2) or "")[:3])
        return match.group(1), version

    @property
    def key_value_metadata(self) -> dict[str, str | None]:
        return {kv.key: kv.value for kv in self._top.key_value_metadata or ()}

    @property
    def column_orders(self) -> list | None:
        return self._top.column_orders

    @property
    def encryption_algorithm(self) -> object | None:
        return self._top.encryption_algorithm

    @property
    def schema_elements(self) -> list:
        return self._top.schema

    @cached_property
    def schema(self):
        from parquet_codec.schema import Schema

        return Schema.from_elements(self._top.schema)

    @property
    def num_row_groups(self) -> int:
        return len(self._row_group_starts)

    def row_group(self, index: int) -> RowGroup:
        """The RowGroup struct ``index``, decoded on first use."""
        if not 0 <= index < self.num_row_groups:
            raise IndexError(f"row group {index} out of range 0..{self.num_row_groups - 1}")
        group = self._row_groups.get(index)
        if group is None:
            group, _ = self._reader.read(RowGroup, self._row_group_starts[index])
            self._check_row_group(index, group)
            self._row_groups[index] = group
        return group

    def to_thrift(self) -> FileMetaData:
        """The whole FileMetaData struct, every row group decoded."""
        top = FileMetaData(**{name: getattr(self._top, name) for name in FileMetaData.__slots__})
        top.row_groups = [self.row_group(i) for i in range(self.num_row_groups)]
        return top

    # Locating and checking -----------------------------------------------
    def _locate_row_groups(self) -> list[int]:
        """Walk the top-level fields to the row_groups list and measure each element."""
        data = self._reader._data
        pos, field_id = 0, 0
        while True:
            if pos >= len(data):
                raise MetadataError("FileMetaData runs past the end of the footer",
                                    file_offset=self._reader.base_offset + pos)
            header = data[pos]
            pos += 1
            wire = header & 0x0F
            if wire == 0:
                raise MetadataError("FileMetaData has no row_groups field")
            delta = header >> 4
            if delta:
                field_id += delta
            else:
                raw, pos = _varint(data, pos, self._reader.base_offset)
                field_id = (raw >> 1) ^ -(raw & 1)
            if field_id == _ROW_GROUPS_FIELD and wire == _LIST:
                return self._reader.list_elements(RowGroup, pos)[1]
            pos = self._skip(wire, pos, 0)

    def _skip(self, wire: int, pos: int, depth: int) -> int:
        """Skip one compact-protocol value (pure Python; used on the few top-level fields)."""
        data, base = self._reader._data, self._reader.base_offset
        if depth > _MAX_DEPTH:
            raise MetadataError("metadata nested too deeply", file_offset=base + pos)
        if wire in (_BOOL_TRUE, _BOOL_FALSE):
            return pos
        if wire == _BYTE:
            return pos + 1
        if wire in (_I16, _I32, _I64):
            return _varint(data, pos, base)[1]
        if wire == _DOUBLE:
            return pos + 8
        if wire == _BINARY:
            length, pos = _varint(data, pos, base)
            return pos + length
        if wire in (_LIST, _SET):
            header = data[pos] if pos < len(data) else 0
            size, pos = header >> 4, pos + 1
            if size == 15:
                size, pos = _varint(data, pos, base)
            if size > len(data) - pos:
                raise MetadataError("list longer than the footer", file_offset=base + pos)
            element = header & 0x0F
            if element in (_BOOL_TRUE, _BOOL_FALSE):  # list booleans take one byte each
                return pos + size
            for _ in range(size):
                pos = self._skip(element, pos, depth + 1)
            return pos
        if wire == _STRUCT:
            while True:
                if pos >= len(data):
                    raise MetadataError("struct runs past the end of the footer", file_offset=base + pos)
                header = data[pos]
                pos += 1
                if header == 0:
                    return pos
                if not header >> 4:
                    pos = _varint(data, pos, base)[1]
                pos = self._skip(header & 0x0F, pos, depth + 1)
        if wire == _MAP:
            size, pos = _varint(data, pos, base)
            if size == 0:
                return pos
            kinds = data[pos] if pos < len(data) else 0
            pos += 1
            for _ in range(size):
                pos = self._skip(kinds >> 4, pos, depth + 1)
                pos = self._skip(kinds & 0x0F, pos, depth + 1)
            return pos
        raise MetadataError(f"unknown compact-protocol type {wire}", file_offset=base + pos)

    def _validate(self) -> None:
        top = self._top
        if top.schema is None or not top.schema:
            raise MetadataError("footer has no schema")
        if top.num_rows is None or top.num_rows < 0:
            raise MetadataError(f"footer num_rows {top.num_rows} is invalid")

    def _check_row_group(self, index: int, group: RowGroup) -> None:
        if group.columns is None or group.num_rows is None or group.num_rows < 0:
            raise MetadataError("row group lacks columns or a valid num_rows", row_group=index)
        expected = len(self.schema.leaves)
        if len(group.columns) != expected:
            raise MetadataError(
                f"row group has {len(group.columns)} column chunks, the schema has {expected} columns",
                row_group=index,
            )


def _varint(data: bytes, pos: int, base: int) -> tuple[int, int]:
    result = shift = 0
    while True:
        if pos >= len(data) or shift > 63:
            raise MetadataError("malformed varint in footer", file_offset=base + pos)
        byte = data[pos]
        result |= (byte & 0x7F) << shift
        pos += 1
        shift += 7
        if not byte & 0x80:
            return result, pos


def read_footer(source: ByteSource, decryption: object | None = None) -> FileMetadata:
    """Locate, bound-check and parse the footer.

    ``decryption`` (crypto.FileDecryptionProperties) opens encrypted-footer
    ("PARE") files and verifies the signature of encrypted plaintext-footer files."""
    size = source.size
    if size < 12:
        raise CorruptFileError(f"file of {size} bytes is too small to be Parquet")
    tail_len = min(size, _TAIL)
    tail = source.read(size - tail_len, tail_len)
    magic = bytes(tail[-4:])
    if magic == ENCRYPTED_MAGIC and decryption is None:
        raise UnsupportedError("file has an encrypted footer (PARE): decryption properties are required")
    if magic not in (MAGIC, ENCRYPTED_MAGIC):
        raise CorruptFileError(f"file does not end with the Parquet magic (found {magic!r})", file_offset=size - 4)
    if bytes(source.read(0, 4)) != magic:
        raise CorruptFileError(f"file does not start with the Parquet magic {magic!r}", file_offset=0)
    length = struct.unpack("<I", tail[-8:-4])[0]
    start = size - 8 - length
    if start < 4:
        raise CorruptFileError(f"footer length {length} exceeds the file of {size} bytes", file_offset=size - 8)
    data = tail[len(tail) - 8 - length : len(tail) - 8] if length + 8 <= tail_len else source.read(start, length)
    try:
        if decryption is not None:
            from parquet_codec.crypto.footer import open_footer

            metadata, decryptor = open_footer(magic, data, decryption, base_offset=start)
            metadata.decryptor = decryptor
            return metadata
        return FileMetadata(data, base_offset=start)
    except MetadataError as exc:
        exc.add_context(file=source.name)
        raise


__all__ = ["FileMetadata", "read_footer", "MAGIC", "ENCRYPTED_MAGIC"]
