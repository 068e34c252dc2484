"""Encrypted and signed footers (Parquet Modular Encryption, sections 5.3 and 5.4).

Encrypted footer mode ends a file with

    FileCryptoMetaData | encrypted FileMetaData module | 4-byte LE length of both | "PARE"

Plaintext footer mode keeps the usual "PAR1" tail, with FileMetaData carrying
``encryption_algorithm`` and ``footer_signing_key_metadata`` and a 28-byte
signature (nonce + GCM tag of the serialized footer) right after it:

    FileMetaData | nonce (12) + tag (16) | 4-byte LE length of both | "PAR1"
"""

from __future__ import annotations

import struct
from typing import TYPE_CHECKING

from parquet_codec.crypto.ciphers import SIGNATURE_LENGTH
from parquet_codec.crypto.decryptor import FileDecryptor
from parquet_codec.crypto.properties import FileDecryptionProperties
from parquet_codec.errors import DecryptionError, MetadataError, ParquetError
from parquet_codec.format.ttypes import FileCryptoMetaData, FileMetaData
from parquet_codec.thrift_io import deserialize, serialize

if TYPE_CHECKING:
    from parquet_codec.crypto.encryptor import FileEncryptor
    from parquet_codec.metadata import FileMetadata

MAGIC = b"PAR1"
ENCRYPTED_MAGIC = b"PARE"


def read_encrypted_footer(data: memoryview | bytes, properties: FileDecryptionProperties,
                          base_offset: int = 0) -> tuple[FileMetadata, FileDecryptor]:
    """Parse the footer region of a "PARE" file (without its length and magic)."""
    from parquet_codec.metadata import FileMetadata

    crypto, used = deserialize(FileCryptoMetaData, data)
    if crypto.encryption_algorithm is None:
        raise MetadataError("FileCryptoMetaData has no encryption algorithm", file_offset=base_offset)
    decryptor = FileDecryptor(properties, crypto.encryption_algorithm, crypto.key_metadata)
    plaintext = decryptor.decrypt_footer(memoryview(data)[used:])
    return FileMetadata(plaintext, base_offset=base_offset + used), decryptor


def verify_plaintext_footer(metadata: FileMetadata, data: memoryview | bytes,
                            properties: FileDecryptionProperties) -> FileDecryptor | None:
    """The decryptor of a plaintext-footer encrypted file, after checking its footer
    signature; None when the file is not encrypted."""
    algorithm = metadata.encryption_algorithm
    if algorithm is None:
        return None
    decryptor = FileDecryptor(properties, algorithm, metadata._top.footer_signing_key_metadata)
    footer, signature = memoryview(data)[: metadata.size], memoryview(data)[metadata.size :]
    if len(signature) != SIGNATURE_LENGTH:
        raise DecryptionError(f"plaintext footer is followed by {len(signature)} bytes, not a "
                              f"{SIGNATURE_LENGTH}-byte signature")
    decryptor.verify_footer_signature(footer, signature)
    return decryptor


def open_footer(tail_magic: bytes, data: memoryview | bytes, properties: FileDecryptionProperties,
                base_offset: int = 0) -> tuple[FileMetadata, FileDecryptor | None]:
    """The footer of a file read with decryption properties: PARE or (signed) PAR1."""
    from parquet_codec.metadata import FileMetadata

    try:
        if tail_magic == ENCRYPTED_MAGIC:
            return read_encrypted_footer(data, properties, base_offset)
        metadata = FileMetadata(data, base_offset=base_offset)
        return metadata, verify_plaintext_footer(metadata, data, properties)
    except ParquetError as exc:
        if isinstance(exc, DecryptionError) and "footer" not in exc.message:
            exc.message = f"footer: {exc.message}"
        raise


# Writing ----------------------------------------------------------------------
def encrypted_footer_bytes(metadata: FileMetaData, encryptor: FileEncryptor) -> bytes:
    """Everything after the last column chunk (and indexes) of a "PARE" file."""
    crypto = FileCryptoMetaData(encryption_algorithm=encryptor.algorithm_struct(),
                                key_metadata=encryptor.properties.footer_key_metadata)
    body = serialize(crypto) + encryptor.encrypt_footer(serialize(metadata))
    return body + struct.pack("<I", len(body)) + ENCRYPTED_MAGIC


def signed_footer_bytes(metadata: FileMetaData, encryptor: FileEncryptor) -> bytes:
    """Everything after the last column chunk of a plaintext-footer encrypted file.

    Sets ``encryption_algorithm`` and ``footer_signing_key_metadata`` on
    ``metadata`` before serializing it, since the signature covers them."""
    metadata.encryption_algorithm = encryptor.algorithm_struct()
    metadata.footer_signing_key_metadata = encryptor.properties.footer_key_metadata
    footer = serialize(metadata)
    body = footer + encryptor.sign_footer(footer)
    return body + struct.pack("<I", len(body)) + MAGIC


def footer_bytes(metadata: FileMetaData, encryptor: FileEncryptor) -> bytes:
    """The footer tail in the mode the encryption properties ask for."""
    if encryptor.properties.plaintext_footer:
        return signed_footer_bytes(metadata, encryptor)
    return encrypted_footer_bytes(metadata, encryptor)


__all__ = [
    "ENCRYPTED_MAGIC",
    "MAGIC",
    "encrypted_footer_bytes",
    "footer_bytes",
    "open_footer",
    "read_encrypted_footer",
    "signed_footer_bytes",
    "verify_plaintext_footer",
]
