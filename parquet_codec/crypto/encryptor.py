"""Encrypting the modules of one file, for the writer (Parquet Modular Encryption,
sections 4.4, 5.1-5.4).

The writer asks :class:`FileEncryptor` for one :class:`ColumnChunkEncryptor`
per encrypted column chunk and passes each module through it as it is
written; after the chunk, :meth:`FileEncryptor.seal_column_chunk` moves the
column metadata where the mode requires, and
:func:`parquet_codec.crypto.footer.footer_bytes` ends the file.
"""

from __future__ import annotations

import copy
import os
import zlib

from parquet_codec.crypto.aad import ChunkAads, ModuleType, file_aad, module_aad
from parquet_codec.crypto.ciphers import AES_GCM_V1, ModuleCipher
from parquet_codec.crypto.properties import V2_LAYOUT_ARROW, FileEncryptionProperties
from parquet_codec.errors import EncryptionError
from parquet_codec.format.ttypes import (
    AesGcmCtrV1,
    AesGcmV1,
    ColumnChunk,
    ColumnCryptoMetaData,
    EncryptionAlgorithm,
    EncryptionWithColumnKey,
    EncryptionWithFooterKey,
    PageHeader,
    PageType,
)
from parquet_codec.thrift_io import serialize

# parquet-java and Arrow C++ both use 8 random bytes for aad_file_unique.
AAD_FILE_UNIQUE_LENGTH = 8


class FileEncryptor:
    """Encryption state of one file being written: a fresh aad_file_unique per file."""

    def __init__(self, properties: FileEncryptionProperties, aad_file_unique: bytes | None = None) -> None:
        self.properties = properties
        self.aad_file_unique = os.urandom(AAD_FILE_UNIQUE_LENGTH) if aad_file_unique is None else aad_file_unique
        self.file_aad = file_aad(properties.aad_prefix, self.aad_file_unique)
        self.footer_cipher = ModuleCipher(properties.footer_key, properties.algorithm)
        self._ciphers: dict[bytes, ModuleCipher] = {properties.footer_key: self.footer_cipher}

    @property
    def magic(self) -> bytes:
        """The magic at both ends of the file: "PARE" for an encrypted footer."""
        return b"PAR1" if self.properties.plaintext_footer else b"PARE"

    def algorithm_struct(self) -> EncryptionAlgorithm:
        props = self.properties
        params = {
            "aad_prefix": props.aad_prefix if props.store_aad_prefix else None,
            "aad_file_unique": self.aad_file_unique,
            "supply_aad_prefix": True if props.aad_prefix is not None and not props.store_aad_prefix else None,
        }
        if props.algorithm == AES_GCM_V1:
            return EncryptionAlgorithm(AES_GCM_V1=AesGcmV1(**params))
        return EncryptionAlgorithm(AES_GCM_CTR_V1=AesGcmCtrV1(**params))

    def encrypt_footer(self, footer: bytes) -> bytes:
        return self.footer_cipher.encrypt(footer, module_aad(self.file_aad, ModuleType.FOOTER), ModuleType.FOOTER)

    def sign_footer(self, footer: bytes) -> bytes:
        return self.footer_cipher.sign(footer, module_aad(self.file_aad, ModuleType.FOOTER))

    def column(self, row_group: int, column: int, dotted_path: str) -> ColumnChunkEncryptor | None:
        """The encryptor of one column chunk; None for a column left in plaintext."""
        key = self.properties.column_key(dotted_path)
        if key is None:
            return None
        cipher = self.footer_cipher if self.properties.encrypted_with_footer_key(dotted_path) else self._cipher(key.key)
        return ColumnChunkEncryptor(cipher, self.file_aad, row_group, column, self.properties.data_page_v2_layout)

    def _cipher(self, key: bytes) -> ModuleCipher:
        """One cipher per key for the whole file, not one per column chunk."""
        cipher = self._ciphers.get(key)
        if cipher is None:
            cipher = self._ciphers[key] = ModuleCipher(key, self.properties.algorithm)
        return cipher

    def seal_column_chunk(self, chunk: ColumnChunk, row_group: int, column: int, dotted_path: str) -> ColumnChunk:
        """Set crypto_metadata, and encrypt the ColumnMetaData where section 5.3 asks.

        Footer-key columns under an encrypted footer keep ``meta_data``;
        otherwise the metadata goes to ``encrypted_column_metadata`` and
        ``meta_data`` is dropped (encrypted footer) or kept without
        statistics for legacy readers (plaintext footer)."""
        key = self.properties.column_key(dotted_path)
        if key is None:
            return chunk
        footer_key = self.properties.encrypted_with_footer_key(dotted_path)
        if footer_key:
            chunk.crypto_metadata = ColumnCryptoMetaData(ENCRYPTION_WITH_FOOTER_KEY=EncryptionWithFooterKey())
        else:
            chunk.crypto_metadata = ColumnCryptoMetaData(ENCRYPTION_WITH_COLUMN_KEY=EncryptionWithColumnKey(
                path_in_schema=dotted_path.split("."), key_metadata=key.key_metadata))
        if footer_key and not self.properties.plaintext_footer:
            return chunk
        encryptor = self.column(row_group, column, dotted_path)
        # Thrift binary fields take bytes only (a large module comes back as a memoryview).
        chunk.encrypted_column_metadata = bytes(encryptor.encrypt(ModuleType.COLUMN_META_DATA,
                                                                  serialize(chunk.meta_data)))
        chunk.meta_data = _redacted(chunk.meta_data) if self.properties.plaintext_footer else None
        return chunk


def _redacted(meta: object) -> object:
    """ColumnMetaData for legacy readers: offsets and sizes, no values-derived statistics."""
    redacted = copy.copy(meta)
    for name in ("statistics", "size_statistics", "geospatial_statistics"):
        if hasattr(redacted, name):
            setattr(redacted, name, None)
    return redacted


class ColumnChunkEncryptor:
    """Encrypts the modules of one column chunk (the writer's counterpart of ColumnChunkDecryptor)."""

    def __init__(self, cipher: ModuleCipher, file_aad_bytes: bytes, row_group: int, column: int,
                 v2_layout: str) -> None:
        self.cipher = cipher
        self.file_aad = file_aad_bytes
        self.row_group = row_group
        self.column = column
        self.v2_layout = v2_layout
        self._aad = ChunkAads(file_aad_bytes, row_group, column)

    def encrypt(self, module_type: ModuleType, plaintext: bytes | memoryview, page: int | None = None, *,
                lead: bytes | memoryview = b"") -> bytes | memoryview:
        """One module in its stored form (after ``lead``, plaintext bytes stored in front of it);
        ``page`` is the data page ordinal of page modules."""
        return self.cipher.encrypt(plaintext, self._aad(module_type, page), module_type, lead=lead)

    def seal_page(self, header: PageHeader, body: bytes, data_page_ordinal: int | None,
                  *, checksum: bool = False) -> tuple[bytes, bytes | memoryview]:
        """Encrypt a finished page: returns (stored header, stored body).

        ``body`` is the plaintext body as page.py lays it out (compressed);
        ``data_page_ordinal`` counts data pages only (None for the dictionary
        page). ``compressed_page_size`` and the CRC are set from the stored
        (encrypted) body, as parquet-java and Arrow C++ do."""
        if header.type == PageType.DICTIONARY_PAGE:
            stored = self.encrypt(ModuleType.DICTIONARY_PAGE, body)
            header_type, ordinal = ModuleType.DICTIONARY_PAGE_HEADER, None
        elif header.type in (PageType.DATA_PAGE, PageType.DATA_PAGE_V2):
            if data_page_ordinal is None:
                raise EncryptionError("a data page needs its data page ordinal")
            stored = self._data_body(header, body, data_page_ordinal)
            header_type, ordinal = ModuleType.DATA_PAGE_HEADER, data_page_ordinal
        else:
            raise EncryptionError(f"cannot encrypt a page of type {header.type}")
        header.compressed_page_size = len(stored)
        if checksum or header.crc is not None:
            crc = zlib.crc32(stored)
            header.crc = crc - (1 << 32) if crc >= 1 << 31 else crc
        return self.encrypt(header_type, serialize(header), ordinal), stored

    def _data_body(self, header: PageHeader, body: bytes, ordinal: int) -> bytes | memoryview:
        if header.type != PageType.DATA_PAGE_V2 or self.v2_layout == V2_LAYOUT_ARROW:
            return self.encrypt(ModuleType.DATA_PAGE, body, ordinal)
        sub = header.data_page_header_v2
        levels = (sub.repetition_levels_byte_length or 0) + (sub.definition_levels_byte_length or 0)
        view = memoryview(body)
        return self.encrypt(ModuleType.DATA_PAGE, view[levels:], ordinal, lead=view[:levels])

    def encrypt_column_index(self, serialized: bytes) -> bytes | memoryview:
        return self.encrypt(ModuleType.COLUMN_INDEX, serialized)

    def encrypt_offset_index(self, serialized: bytes) -> bytes | memoryview:
        return self.encrypt(ModuleType.OFFSET_INDEX, serialized)

    def encrypt_bloom_filter(self, serialized_header: bytes, bitset: bytes) -> bytes:
        """Header module then bitset module, as section "Bloom filter / Encryption" lays them out."""
        return b"".join((self.encrypt(ModuleType.BLOOM_FILTER_HEADER, serialized_header),
                         self.encrypt(ModuleType.BLOOM_FILTER_BITSET, bitset)))


__all__ = ["AAD_FILE_UNIQUE_LENGTH", "ColumnChunkEncryptor", "FileEncryptor"]
