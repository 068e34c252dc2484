"""What a writer encrypts and what a reader may decrypt with (Parquet Modular
Encryption, sections 4.3 "Key metadata" and 4.4.1 "AAD prefix").

These are the low-level properties: explicit keys, or a ``key_retriever``
callable that turns a module's ``key_metadata`` into a key. The key-tools
layer (:mod:`parquet_codec.crypto.keytools`) builds both from a KMS.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from parquet_codec.crypto.ciphers import ALGORITHMS, check_key
from parquet_codec.errors import DecryptionError, EncryptionError

KeyRetriever = Callable[[bytes], bytes]

# DATA_PAGE_V2 layouts (the specification does not fix one): parquet-java
# encrypts only the compressed values and leaves the levels in plaintext in
# front; Arrow C++ encrypts the whole page body. Each reads only its own.
V2_LAYOUT_PARQUET_JAVA = "parquet-java"
V2_LAYOUT_ARROW = "arrow"
V2_LAYOUTS = (V2_LAYOUT_PARQUET_JAVA, V2_LAYOUT_ARROW)


def _metadata_bytes(value: bytes | str | None, what: str) -> bytes | None:
    if value is None:
        return None
    if isinstance(value, str):
        return value.encode("utf-8")
    if isinstance(value, (bytes, bytearray, memoryview)):
        return bytes(value)
    raise EncryptionError(f"{what} must be bytes or str, not {type(value).__name__}")


class ColumnKey:
    """One column's key and the key metadata stored beside it."""

    __slots__ = ("key", "key_metadata")

    def __init__(self, key: bytes, key_metadata: bytes | None = None) -> None:
        self.key = key
        self.key_metadata = key_metadata

    def __repr__(self) -> str:  # never show key bytes
        return f"ColumnKey(<{len(self.key) * 8}-bit key>, key_metadata={self.key_metadata!r})"


class FileEncryptionProperties:
    """How to encrypt one file.

    ``column_keys`` maps dotted leaf paths ("a.b.c") to a key or to a
    ``(key, key_metadata)`` pair. With ``column_keys=None`` every column is
    encrypted with the footer key ("uniform encryption"); otherwise columns
    absent from the mapping stay plaintext, or with ``complete_columns=True``
    are encrypted with the footer key (parquet-java's
    ``parquet.encryption.complete.columns``).

    ``plaintext_footer`` keeps a signed, readable footer (section 5.4) so
    legacy readers can read the unencrypted columns. ``aad_prefix`` binds the
    file's identity into every module; ``store_aad_prefix=False`` leaves it
    out of the file (readers must supply it).

    ``data_page_v2_layout``: "parquet-java" (default; readable by Spark and
    parquet-java) or "arrow" (readable by pyarrow / Arrow C++). See
    :data:`V2_LAYOUTS`.
    """

    def __init__(
        self,
        footer_key: bytes,
        footer_key_metadata: bytes | str | None = None,
        column_keys: Mapping[str, Any] | None = None,
        algorithm: str = "AES_GCM_V1",
        plaintext_footer: bool = False,
        aad_prefix: bytes | str | None = None,
        store_aad_prefix: bool = True,
        *,
        data_page_v2_layout: str = V2_LAYOUT_PARQUET_JAVA,
        complete_columns: bool = False,
    ) -> None:
        self.footer_key = check_key(footer_key, "footer key")
        self.footer_key_metadata = _metadata_bytes(footer_key_metadata, "footer key metadata")
        if algorithm not in ALGORITHMS:
            raise EncryptionError(f"unknown encryption algorithm {algorithm!r}; use one of {ALGORITHMS}")
        self.algorithm = algorithm
        self.plaintext_footer = bool(plaintext_footer)
        self.aad_prefix = _metadata_bytes(aad_prefix, "AAD prefix")
        if self.aad_prefix == b"":
            raise EncryptionError("AAD prefix must not be empty (pass None for no prefix)")
        self.store_aad_prefix = bool(store_aad_prefix)
        if data_page_v2_layout not in V2_LAYOUTS:
            raise EncryptionError(f"data_page_v2_layout must be one of {V2_LAYOUTS}, got {data_page_v2_layout!r}")
        self.data_page_v2_layout = data_page_v2_layout
        self.uniform = column_keys is None
        self.complete_columns = bool(complete_columns)
        self.column_keys: dict[str, ColumnKey] = {}
        for path, value in (column_keys or {}).items():
            self.column_keys[str(path)] = _column_key(path, value)
        # External key material (keytools.KeyMaterialStore, set by CryptoFactory): the
        # writer saves it beside the data file when it commits that file.
        self.key_material_store: Any = None

    def column_key(self, dotted_path: str) -> ColumnKey | None:
        """The key of a column: the footer key for a footer-key column, None for a plaintext column."""
        if self.encrypted_with_footer_key(dotted_path):
            return ColumnKey(self.footer_key, None)
        return self.column_keys.get(dotted_path)

    def encrypted_with_footer_key(self, dotted_path: str) -> bool:
        return self.uniform or (self.complete_columns and dotted_path not in self.column_keys)

    def check_columns(self, dotted_paths: list[str]) -> None:
        """Every configured column must exist: a typo would silently leave data plaintext."""
        missing = sorted(set(self.column_keys) - set(dotted_paths))
        if missing:
            raise EncryptionError(f"encryption keys given for columns not in the schema: {missing}; "
                                  f"columns are {dotted_paths}")

    def __repr__(self) -> str:
        return (f"FileEncryptionProperties(algorithm={self.algorithm!r}, plaintext_footer={self.plaintext_footer}, "
                f"columns={sorted(self.column_keys) if not self.uniform else 'all (uniform)'})")


def _column_key(path: object, value: Any) -> ColumnKey:
    if isinstance(value, ColumnKey):
        return ColumnKey(check_key(value.key, f"key of column {path!r}"), value.key_metadata)
    if isinstance(value, tuple):
        if len(value) != 2:
            raise EncryptionError(f"column {path!r}: expected a key or a (key, key_metadata) pair")
        key, metadata = value
        return ColumnKey(check_key(key, f"key of column {path!r}"),
                         _metadata_bytes(metadata, f"key metadata of column {path!r}"))
    return ColumnKey(check_key(value, f"key of column {path!r}"), None)


class FileDecryptionProperties:
    """Keys for reading encrypted files.

    ``footer_key`` and ``column_keys`` ({"a.b.c": key}) are explicit keys;
    ``key_retriever(key_metadata) -> key`` resolves keys not given
    explicitly. ``aad_prefix`` must be given for files that do not store
    theirs, and when given it must equal a stored one.
    """

    def __init__(
        self,
        footer_key: bytes | None = None,
        column_keys: Mapping[str, bytes] | None = None,
        aad_prefix: bytes | str | None = None,
        key_retriever: KeyRetriever | None = None,
    ) -> None:
        self.footer_key = None if footer_key is None else check_key(footer_key, "footer key", DecryptionError)
        self.column_keys = {str(p): check_key(k, f"key of column {p!r}", DecryptionError)
                            for p, k in (column_keys or {}).items()}
        self.aad_prefix = _metadata_bytes(aad_prefix, "AAD prefix")
        if key_retriever is not None and not callable(key_retriever):
            raise DecryptionError("key_retriever must be callable(key_metadata: bytes) -> bytes")
        self.key_retriever = key_retriever

    def footer_key_for(self, key_metadata: bytes | None) -> bytes:
        """The footer key: explicit, else retrieved from the footer's key metadata."""
        if self.footer_key is not None:
            return self.footer_key
        return self._retrieve(key_metadata, "footer")

    def column_key_for(self, dotted_path: str, key_metadata: bytes | None) -> bytes:
        key = self.column_keys.get(dotted_path)
        if key is not None:
            return key
        return self._retrieve(key_metadata, f"column {dotted_path!r}")

    def _retrieve(self, key_metadata: bytes | None, what: str) -> bytes:
        if self.key_retriever is None:
            hint = f" (key metadata {_short(key_metadata)})" if key_metadata else ""
            raise DecryptionError(f"no key for the {what}{hint}: pass it explicitly or give a key_retriever")
        try:
            key = self.key_retriever(bytes(key_metadata or b""))
        except DecryptionError:
            raise
        except Exception as exc:  # a KMS or user callable can fail in any way
            raise DecryptionError(f"cannot retrieve the key of the {what}: {type(exc).__name__}: {exc}") from exc
        if key is None:
            raise DecryptionError(f"key retriever returned no key for the {what} (key metadata {_short(key_metadata)})")
        return check_key(key, f"retrieved key of the {what}", DecryptionError)

    def __repr__(self) -> str:
        return (f"FileDecryptionProperties(footer_key={'set' if self.footer_key else None}, "
                f"column_keys={sorted(self.column_keys)}, aad_prefix={self.aad_prefix!r}, "
                f"key_retriever={'set' if self.key_retriever else None})")


def _short(key_metadata: bytes | None) -> str:
    text = repr(bytes(key_metadata or b""))
    return text if len(text) <= 60 else text[:57] + "..."


__all__ = [
    "ColumnKey",
    "FileDecryptionProperties",
    "FileEncryptionProperties",
    "KeyRetriever",
    "V2_LAYOUTS",
    "V2_LAYOUT_ARROW",
    "V2_LAYOUT_PARQUET_JAVA",
]
