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

from parquet_codec.errors import CorruptFileError, DecryptionError, MetadataError
from parquet_codec.format.ttypes import FileMetaData, RowGroup
from parquet_codec.io import ByteSource
from parquet_codec.thrift_io import StructReader

_CREATED_BY = re.compile(r"\s*(\S+)(?:\s+version\s+(\S+))?", re.IGNORECASE)

MAGIC = b"PAR1"
ENCRYPTED_MAGIC = b"PARE"
_TAIL = 64 * 1024


class FileMetadata:
    """FileMetaData whose row groups are decoded on first use."""

    # Set by read_footer for encrypted files read with decryption properties:
    # the crypto.FileDecryptor that column chunks of this file decrypt with.
    decryptor: object | None = None

    def __init__(self, data: bytes | bytearray | memoryview, base_offset: int = 0) -> None:
        self._reader = StructReader(data, base_offset)
        self._top, end = self._reader.read(FileMetaData, 0, skip=("row_groups",))
        self.size = end
        self._row_group_starts = self._reader.list_field_starts(FileMetaData, "row_groups", RowGroup)
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
        if isinstance(index, bool) or not hasattr(index, "__index__"):
            raise TypeError(f"a row group index is an integer, not {index!r}")
        index = index.__index__()
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

    # Checking -------------------------------------------------------------
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
        raise DecryptionError("file has an encrypted footer (PARE): decryption properties are required")
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


def key_value_bytes(text: object) -> bytes:
    """Key-value metadata text as stored: UTF-8, and the original bytes of text read
    from a file where it was not UTF-8 (decoded with surrogate escapes)."""
    return str(text).encode("utf-8", "surrogateescape")


def key_value_text(raw: bytes) -> str:
    """Stored key-value bytes as text: the inverse of :func:`key_value_bytes`."""
    return bytes(raw).decode("utf-8", "surrogateescape")


__all__ = ["FileMetadata", "key_value_bytes", "key_value_text", "read_footer", "MAGIC", "ENCRYPTED_MAGIC"]
