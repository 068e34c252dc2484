"""Parquet Modular Encryption (the specification's "Parquet Modular Encryption" page).

Low level: :class:`FileEncryptionProperties` / :class:`FileDecryptionProperties`
with explicit keys or a key retriever. Key management compatible with
parquet-java's PropertiesDrivenCryptoFactory and pyarrow's CryptoFactory:
:class:`CryptoFactory`, :class:`KmsClient`, :class:`InMemoryKms` (from
:mod:`parquet_codec.crypto.keytools`).

Readers take ``decryption=`` as FileDecryptionProperties or as a
CryptoFactory (whose key material, internal or in a sidecar
``_KEY_MATERIAL_FOR_<file>.json``, is then resolved for the file).
"""

from __future__ import annotations

import os

from parquet_codec.crypto.aad import ModuleType, file_aad, module_aad
from parquet_codec.crypto.ciphers import AES_GCM_CTR_V1, AES_GCM_V1, ModuleCipher
from parquet_codec.crypto.decryptor import ColumnChunkDecryptor, FileDecryptor
from parquet_codec.crypto.encryptor import ColumnChunkEncryptor, FileEncryptor
from parquet_codec.crypto.footer import footer_bytes
from parquet_codec.crypto.keytools import (
    CryptoFactory,
    DecryptionConfiguration,
    EncryptionConfiguration,
    InMemoryKms,
    KmsClient,
    KmsConnectionConfig,
)
from parquet_codec.crypto.properties import (
    V2_LAYOUT_ARROW,
    V2_LAYOUT_PARQUET_JAVA,
    FileDecryptionProperties,
    FileEncryptionProperties,
)
from parquet_codec.errors import DecryptionError


def resolve_decryption(decryption: object, source_name: str | None = None,
                       filesystem: object = None) -> FileDecryptionProperties:
    """``decryption=`` as FileDecryptionProperties: a factory (anything with
    ``decryption_properties(file_path=...)``) is asked for the properties of
    this file, so that external key material beside it is found (on
    ``filesystem``, when the file was opened through one)."""
    if isinstance(decryption, FileDecryptionProperties):
        return decryption
    make = getattr(decryption, "decryption_properties", None)
    if callable(make):
        if filesystem is not None and source_name:
            properties = make(file_path=source_name, filesystem=filesystem)
        else:
            properties = make(file_path=source_name if source_name and os.path.exists(source_name) else None)
        if isinstance(properties, FileDecryptionProperties):
            return properties
    raise DecryptionError(f"decryption must be FileDecryptionProperties or a CryptoFactory, "
                          f"not {type(decryption).__name__}")


__all__ = [
    "AES_GCM_CTR_V1",
    "AES_GCM_V1",
    "ColumnChunkDecryptor",
    "ColumnChunkEncryptor",
    "CryptoFactory",
    "DecryptionConfiguration",
    "EncryptionConfiguration",
    "FileDecryptionProperties",
    "FileDecryptor",
    "FileEncryptionProperties",
    "FileEncryptor",
    "InMemoryKms",
    "KmsClient",
    "KmsConnectionConfig",
    "ModuleCipher",
    "ModuleType",
    "V2_LAYOUT_ARROW",
    "V2_LAYOUT_PARQUET_JAVA",
    "file_aad",
    "footer_bytes",
    "module_aad",
    "resolve_decryption",
]
