"""Envelope encryption driven by master key ids (parquet-java's
PropertiesDrivenCryptoFactory; pyarrow.parquet.encryption.CryptoFactory).

Each file gets random data keys (one for the footer, one per encrypted
column). A data key is wrapped by the KMS under a master key (single
wrapping) or, by default, locally under a random key-encryption key (KEK)
that the KMS wraps (double wrapping: one KMS call per master key, not per
file). The wrapped keys travel as PKMT1 key material, inside the file's
key_metadata or in a sidecar file. Each factory caches the KEKs it made
or unwrapped for ``cache_lifetime`` seconds, per access token, as Arrow
C++'s CryptoFactory does (parquet-java keeps one cache per process): a
factory never decrypts with a key another factory's KMS gave. Key material
in a sidecar can be rotated: rewrapped under new versions of the master
keys, the data file untouched.
"""

from __future__ import annotations

import base64
import os
import time
from collections.abc import Callable, Mapping, Sequence
from datetime import timedelta
from typing import Any

from parquet_codec.crypto.ciphers import ALGORITHMS
from parquet_codec.crypto.keytools.kms import (
    KmsClient,
    KmsConnectionConfig,
    unwrap_key_locally,
    wrap_key_locally,
)
from parquet_codec.crypto.keytools.material import (
    COLUMN_KEY_ID_IN_FILE_PREFIX,
    FOOTER_KEY_ID_IN_FILE,
    KeyMaterial,
    KeyMetadata,
)
from parquet_codec.crypto.keytools.store import KeyMaterialStore
from parquet_codec.crypto.properties import (
    V2_LAYOUT_PARQUET_JAVA,
    FileDecryptionProperties,
    FileEncryptionProperties,
)
from parquet_codec.errors import DecryptionError, EncryptionError
from parquet_codec.fork_safe import ForkSafeLock

DEFAULT_CACHE_LIFETIME = 600.0  # seconds, parquet-java's and Arrow's default
ROTATION_CYCLE = 3600.0  # seconds: rotations this close together share new KEKs
KEK_LENGTH = 16  # bytes; parquet.encryption.kek.length.bits defaults to 128
KEK_ID_LENGTH = 16
DATA_KEY_LENGTHS_BITS = (128, 192, 256)

KmsFactory = Callable[[KmsConnectionConfig], KmsClient]


class EncryptionConfiguration:
    """What to encrypt with which master keys (pyarrow's EncryptionConfiguration).

    ``column_keys``: {"kc1": ["a", "b.c"], ...} or parquet-java's string
    "kc1:a,b.c;kc2:d". ``uniform_encryption`` encrypts every column with the
    footer key."""

    def __init__(self, footer_key: str, column_keys: Mapping[str, Sequence[str]] | str | None = None, *,
                 uniform_encryption: bool = False, encryption_algorithm: str = "AES_GCM_V1",
                 plaintext_footer: bool = False, double_wrapping: bool = True,
                 cache_lifetime: timedelta | float | None = None, internal_key_material: bool = True,
                 data_key_length_bits: int = 128) -> None:
        self.footer_key = footer_key
        self.column_keys = column_keys
        self.uniform_encryption = uniform_encryption
        self.encryption_algorithm = encryption_algorithm
        self.plaintext_footer = plaintext_footer
        self.double_wrapping = double_wrapping
        self.cache_lifetime = _seconds(cache_lifetime)
        self.internal_key_material = internal_key_material
        self.data_key_length_bits = data_key_length_bits


class DecryptionConfiguration:
    """pyarrow's DecryptionConfiguration: how long unwrapped KEKs stay cached,
    and whether a KMS URL the connection config does not give may be taken
    from the file's key material (``read_kms_url``; off by default, as a
    file could otherwise send the KMS access token to a server of its choosing)."""

    def __init__(self, cache_lifetime: timedelta | float | None = None, *, read_kms_url: bool | None = None) -> None:
        self.cache_lifetime = _seconds(cache_lifetime)
        self.read_kms_url = bool(read_kms_url)


def _seconds(lifetime: timedelta | float | None) -> float:
    if lifetime is None:
        return DEFAULT_CACHE_LIFETIME
    return lifetime.total_seconds() if isinstance(lifetime, timedelta) else float(lifetime)


def parse_column_keys(column_keys: Mapping[str, Sequence[str]] | str) -> dict[str, str]:
    """{column path: master key id} from either form of ``column_keys``."""
    if isinstance(column_keys, str):
        groups: dict[str, list[str]] = {}
        for part in column_keys.split(";"):
            if not part.strip():
                continue
            master, sep, columns = part.partition(":")
            if not sep or not master.strip():
                raise EncryptionError(f"column keys entry {part.strip()!r} is not <master key id>:<col>,<col>")
            groups.setdefault(master.strip(), []).extend(c.strip() for c in columns.split(",") if c.strip())
        column_keys = groups
    mapping: dict[str, str] = {}
    for master, columns in column_keys.items():
        if isinstance(columns, str):
            columns = [columns]
        for column in columns:
            if column in mapping:
                raise EncryptionError(f"column {column!r} is given two master keys ({mapping[column]!r}, {master!r})")
            mapping[column] = master
    return mapping


class _KekCache:
    """Key-encryption keys by access token, each for a lifetime: those made
    to write (by master key id) and those unwrapped to read (by KEK id)."""

    def __init__(self) -> None:
        self._lock = ForkSafeLock()
        self._write: dict[tuple[str, str], dict[str, tuple[tuple[bytes, bytes, str], float]]] = {}
        self._read: dict[str, dict[str, tuple[bytes, float]]] = {}

    def written(self, token: str, instance: str, master_key_id: str, make: Callable[[], tuple[bytes, bytes, str]],
                lifetime: float) -> tuple[bytes, bytes, str]:
        """The (KEK, KEK id, wrapped KEK) for a master key, made when none is alive."""
        return self._get(self._write, (token, instance), master_key_id, make, lifetime)

    def unwrapped(self, token: str, kek_id: str, unwrap: Callable[[], bytes], lifetime: float) -> bytes:
        """The KEK of ``kek_id``, unwrapped when none is alive."""
        return self._get(self._read, token, kek_id, unwrap, lifetime)

    def _get(self, caches: dict, token: object, key: str, make: Callable[[], object], lifetime: float) -> object:
        now = time.monotonic()
        with self._lock:
            entry = caches.setdefault(token, {}).get(key)
            if entry is not None and entry[1] > now:
                return entry[0]
        value = make()  # (the KMS is called outside the lock)
        with self._lock:
            caches.setdefault(token, {})[key] = (value, now + lifetime)
        return value

    def clear_written(self) -> None:
        """Forget the KEKs made to write, of every token."""
        with self._lock:
            self._write.clear()

    def clear(self, token: str | None = None) -> None:
        """Forget the KEKs of ``token``, or of every token."""
        with self._lock:
            if token is None:
                self._write.clear()
                self._read.clear()
                return
            self._read.pop(token, None)
            for key in [key for key in self._write if key[0] == token]:
                del self._write[key]


class _KeyWrapper:
    """Wraps the data keys of one file and produces their key metadata."""

    def __init__(self, kms: KmsClient, config: KmsConnectionConfig, double_wrapping: bool,
                 cache: _KekCache, cache_lifetime: float, store: KeyMaterialStore | None) -> None:
        self.kms, self.config, self.double = kms, config, double_wrapping
        self.cache, self.lifetime, self.store = cache, cache_lifetime, store
        self._column_counter = 0

    def key_metadata(self, data_key: bytes, master_key_id: str, is_footer: bool) -> bytes:
        material = self.material(data_key, master_key_id, is_footer)
        if self.store is None:
            return material.serialize(internal_storage=True).encode("utf-8")
        if is_footer:
            key_id = FOOTER_KEY_ID_IN_FILE
        else:
            key_id = f"{COLUMN_KEY_ID_IN_FILE_PREFIX}{self._column_counter}"
            self._column_counter += 1
        self.store.add(key_id, material.serialize(internal_storage=None))
        return KeyMetadata.external(key_id)

    def material(self, data_key: bytes, master_key_id: str, is_footer: bool) -> KeyMaterial:
        instance = (self.config.instance_id, self.config.instance_url) if is_footer else (None, None)
        if not self.double:
            wrapped = self._kms_wrap(data_key, master_key_id)
            return KeyMaterial(is_footer, master_key_id, wrapped, False, None, None, *instance)
        kek, kek_id, wrapped_kek = self._kek(master_key_id)
        wrapped = wrap_key_locally(data_key, kek, kek_id)
        return KeyMaterial(is_footer, master_key_id, wrapped, True, base64.b64encode(kek_id).decode("ascii"),
                           wrapped_kek, *instance)

    def _kek(self, master_key_id: str) -> tuple[bytes, bytes, str]:
        def make() -> tuple[bytes, bytes, str]:
            kek, kek_id = os.urandom(KEK_LENGTH), os.urandom(KEK_ID_LENGTH)
            return kek, kek_id, self._kms_wrap(kek, master_key_id)

        return self.cache.written(self.config.token, self.config.instance_id, master_key_id, make, self.lifetime)

    def _kms_wrap(self, key: bytes, master_key_id: str) -> str:
        try:
            wrapped = self.kms.wrap_key(key, master_key_id)
        except EncryptionError:
            raise
        except Exception as exc:  # a user's KMS client can fail in any way
            raise EncryptionError(f"KMS cannot wrap a key with master key {master_key_id!r}: "
                                  f"{type(exc).__name__}: {exc}") from exc
        return wrapped.decode("ascii") if isinstance(wrapped, bytes) else str(wrapped)


class _KeyUnwrapper:
    """The key_retriever of FileDecryptionProperties made by a CryptoFactory."""

    def __init__(self, kms: Callable[[KmsConnectionConfig], KmsClient], config: KmsConnectionConfig,
                 cache: _KekCache, cache_lifetime: float, store: KeyMaterialStore | None,
                 read_kms_url: bool = False) -> None:
        self._kms, self.config, self.cache, self.lifetime = kms, config, cache, cache_lifetime
        self.store, self.read_kms_url = store, read_kms_url

    def __call__(self, key_metadata: bytes) -> bytes:
        metadata = KeyMetadata.parse(key_metadata)
        material = metadata.material
        if material is None:
            if self.store is None:
                raise DecryptionError(f"key material {metadata.key_reference!r} is stored outside the file: "
                                      "read from a path (or give file_path) so the sidecar can be found")
            material = self.store.material(metadata.key_reference or "")
        return self.unwrap(material)

    def unwrap(self, material: KeyMaterial) -> bytes:
        if material.is_footer_key:
            self._adopt_instance(material)
        if not material.double_wrapping:
            return self._kms_unwrap(material.wrapped_dek, material.master_key_id)
        kek_id_text = material.kek_id or ""
        try:
            kek_id = base64.b64decode(kek_id_text, validate=True)
        except ValueError:
            raise DecryptionError(f"KEK id {kek_id_text!r} is not base64") from None
        kek = self._kek(kek_id_text, material)
        return unwrap_key_locally(material.wrapped_dek, kek, kek_id,
                                  f"data key wrapped by KEK {kek_id_text} (master key {material.master_key_id!r})")

    def _adopt_instance(self, material: KeyMaterial) -> None:
        """As parquet-java's and Arrow's key tools: a KMS instance the reader
        does not name is the one the footer key's material records (and so
        for the keys unwrapped after it); its URL too, only if allowed."""
        config = self.config
        instance = config.kms_instance_id or material.kms_instance_id or ""
        url = config.kms_instance_url or (material.kms_instance_url if self.read_kms_url else None) or ""
        if (instance, url) != (config.kms_instance_id, config.kms_instance_url):
            self.config = KmsConnectionConfig(instance, url, config.key_access_token, config.custom_kms_conf)

    def _kek(self, kek_id: str, material: KeyMaterial) -> bytes:
        return self.cache.unwrapped(self.config.token, kek_id,
                                    lambda: self._kms_unwrap(material.wrapped_kek or "", material.master_key_id),
                                    self.lifetime)

    def _kms_unwrap(self, wrapped: str, master_key_id: str) -> bytes:
        try:
            key = self._kms(self.config).unwrap_key(wrapped, master_key_id)
        except DecryptionError:
            raise
        except Exception as exc:  # a user's KMS client can fail in any way
            raise DecryptionError(f"KMS cannot unwrap a key of master key {master_key_id!r}: "
                                  f"{type(exc).__name__}: {exc}") from exc
        return bytes(key)


class CryptoFactory:
    """Makes encryption / decryption properties from master key ids and a KMS.

    ``kms`` is a :class:`KmsClient`, or (as in pyarrow) a callable taking a
    :class:`KmsConnectionConfig` and returning one. Pass the factory itself
    as ``decryption=`` to a reader: the key material of each file, internal
    or in its sidecar, is then resolved."""

    def __init__(self, kms: KmsClient | KmsFactory, kms_connection_config: KmsConnectionConfig | None = None) -> None:
        self._kms = kms
        self.kms_connection_config = kms_connection_config or KmsConnectionConfig()
        self._clients: dict[tuple[str, str, str], KmsClient] = {}
        self._keks = _KekCache()
        self._last_rotation_clear: float | None = None

    def kms_client(self, config: KmsConnectionConfig | None = None) -> KmsClient:
        config = config or self.kms_connection_config
        if isinstance(self._kms, KmsClient) or not callable(self._kms):
            return self._kms  # type: ignore[return-value]
        key = (config.instance_id, config.instance_url, config.token)
        client = self._clients.get(key)
        if client is None:
            client = self._clients[key] = self._kms(config)
        return client

    def encryption_properties(
        self, footer_key: str | None = None, column_keys: Mapping[str, Sequence[str]] | str | None = None, *,
        plaintext_footer: bool = False, algorithm: str = "AES_GCM_V1", double_wrapping: bool = True,
        internal_key_material: bool = True, data_key_length_bits: int = 128, uniform_key: str | bool | None = None,
        file_path: str | os.PathLike | None = None, filesystem: Any = None, aad_prefix: bytes | str | None = None,
        store_aad_prefix: bool = True, data_page_v2_layout: str = V2_LAYOUT_PARQUET_JAVA,
        cache_lifetime: timedelta | float | None = None, kms_connection_config: KmsConnectionConfig | None = None,
        complete_columns: bool = False,
    ) -> FileEncryptionProperties:
        """Properties for one file, with fresh random data keys wrapped under the master keys.

        ``uniform_key``: a master key id (parquet-java's parquet.encryption.uniform.key)
        or True, to encrypt the footer and every column with one key.
        ``complete_columns`` (parquet.encryption.complete.columns) encrypts the
        columns ``column_keys`` does not name with the footer key. With
        ``internal_key_material=False`` the sidecar beside ``file_path`` is
        written when a writer commits the file (``properties.key_material_store``),
        beside the file it writes."""
        if isinstance(uniform_key, str):
            footer_key = uniform_key
        uniform = bool(uniform_key)
        if not footer_key:
            raise EncryptionError("a footer master key id is required (footer_key or uniform_key)")
        if uniform and column_keys:
            raise EncryptionError("uniform encryption takes no column keys")
        if not uniform and not column_keys:
            raise EncryptionError("no column keys: name the columns to encrypt, or use uniform_key")
        if algorithm not in ALGORITHMS:
            raise EncryptionError(f"unknown encryption algorithm {algorithm!r}; use one of {ALGORITHMS}")
        if data_key_length_bits not in DATA_KEY_LENGTHS_BITS:
            raise EncryptionError(f"data_key_length_bits must be one of {DATA_KEY_LENGTHS_BITS}")
        if not internal_key_material and file_path is None:
            raise EncryptionError("external key material needs the file_path of the file to write")
        config = kms_connection_config or self.kms_connection_config
        store = None if internal_key_material else KeyMaterialStore(file_path, filesystem)  # type: ignore[arg-type]
        wrapper = _KeyWrapper(self.kms_client(config), config, double_wrapping, self._keks, _seconds(cache_lifetime),
                              store)
        key_bytes = data_key_length_bits // 8
        footer_dek = os.urandom(key_bytes)
        footer_metadata = wrapper.key_metadata(footer_dek, footer_key, is_footer=True)
        columns = None
        if not uniform:
            columns = {}
            for column, master in parse_column_keys(column_keys).items():  # type: ignore[arg-type]
                dek = os.urandom(key_bytes)
                columns[column] = (dek, wrapper.key_metadata(dek, master, is_footer=False))
        properties = FileEncryptionProperties(
            footer_dek, footer_metadata, columns, algorithm=algorithm, plaintext_footer=plaintext_footer,
            aad_prefix=aad_prefix, store_aad_prefix=store_aad_prefix, data_page_v2_layout=data_page_v2_layout,
            complete_columns=complete_columns)
        properties.key_material_store = store  # saved by the writer on commit, not now
        return properties

    def decryption_properties(self, file_path: str | os.PathLike | None = None, *, filesystem: Any = None,
                              aad_prefix: bytes | str | None = None,
                              cache_lifetime: timedelta | float | None = None,
                              kms_connection_config: KmsConnectionConfig | None = None,
                              read_kms_url: bool = False) -> FileDecryptionProperties:
        """Properties whose key retriever unwraps PKMT1 key material (sidecar
        beside ``file_path``, on ``filesystem`` when given). ``read_kms_url``:
        see :class:`DecryptionConfiguration`."""
        retriever = self._unwrapper(kms_connection_config or self.kms_connection_config, _seconds(cache_lifetime),
                                    None if file_path is None else KeyMaterialStore(file_path, filesystem),
                                    read_kms_url)
        return FileDecryptionProperties(aad_prefix=aad_prefix, key_retriever=retriever)

    def rotate_master_keys(self, kms_connection_config: KmsConnectionConfig, parquet_file_path: str | os.PathLike,
                           filesystem: Any = None, double_wrapping: bool = True,
                           cache_lifetime_seconds: float = DEFAULT_CACHE_LIFETIME, read_kms_url: bool = False) -> None:
        """Rewrap the data keys of a file whose key material is external
        under the master keys' current versions (pyarrow's and parquet-java's
        key rotation): each key is unwrapped as a reader would, with the
        KMS's previous key versions, and wrapped again under its master key,
        with new KEKs when ``double_wrapping``. The data file is untouched:
        its keys and key ids stay; the sidecar is replaced whole. Files with
        internal key material cannot be rotated."""
        store, lifetime = KeyMaterialStore(parquet_file_path, filesystem), float(cache_lifetime_seconds)
        self._forget_keks_before_rotation()
        unwrapper = self._unwrapper(kms_connection_config, lifetime, store, read_kms_url)
        rotated = KeyMaterialStore(parquet_file_path, filesystem)
        wrapper = _KeyWrapper(self.kms_client(kms_connection_config), kms_connection_config, double_wrapping,
                              self._keks, lifetime, None)
        key_ids = store.key_ids()
        if FOOTER_KEY_ID_IN_FILE not in key_ids:
            raise DecryptionError(f"{store.path} holds no footer key material: not a key material sidecar")
        # The footer key first: its material names the KMS instance the others are unwrapped with.
        for key_id in sorted(key_ids, key=lambda k: k != FOOTER_KEY_ID_IN_FILE):
            material = store.material(key_id)
            if material.is_footer_key != (key_id == FOOTER_KEY_ID_IN_FILE):
                raise DecryptionError(f"key material {key_id!r} in {store.path} says isFooterKey "
                                      f"{material.is_footer_key}")
            data_key = unwrapper.unwrap(material)
            fresh = wrapper.material(data_key, material.master_key_id, material.is_footer_key)
            rotated.add(key_id, fresh.serialize(internal_storage=None))
        rotated.save()

    def _forget_keks_before_rotation(self) -> None:
        """KEKs made before a rotation are wrapped under the old master keys:
        the first rotation of a cycle forgets them (as Arrow C++, once per
        :data:`ROTATION_CYCLE`, so the files of one rotation share new KEKs)."""
        now = time.monotonic()
        if self._last_rotation_clear is None or now - self._last_rotation_clear > ROTATION_CYCLE:
            self._keks.clear_written()
            self._last_rotation_clear = now

    def _unwrapper(self, config: KmsConnectionConfig, lifetime: float, store: KeyMaterialStore | None,
                   read_kms_url: bool) -> _KeyUnwrapper:
        return _KeyUnwrapper(self.kms_client, config, self._keks, lifetime, store, read_kms_url)

    # pyarrow.parquet.encryption.CryptoFactory's spelling -------------------------
    def file_encryption_properties(self, kms_connection_config: KmsConnectionConfig,
                                   encryption_config: EncryptionConfiguration,
                                   parquet_file_path: str | os.PathLike | None = None,
                                   filesystem: Any = None) -> FileEncryptionProperties:
        c = encryption_config
        return self.encryption_properties(
            c.footer_key, None if c.uniform_encryption else c.column_keys, plaintext_footer=c.plaintext_footer,
            algorithm=c.encryption_algorithm, double_wrapping=c.double_wrapping,
            internal_key_material=c.internal_key_material, data_key_length_bits=c.data_key_length_bits,
            uniform_key=True if c.uniform_encryption else None, file_path=parquet_file_path, filesystem=filesystem,
            cache_lifetime=c.cache_lifetime, kms_connection_config=kms_connection_config)

    def file_decryption_properties(self, kms_connection_config: KmsConnectionConfig,
                                   decryption_config: DecryptionConfiguration | None = None,
                                   parquet_file_path: str | os.PathLike | None = None,
                                   filesystem: Any = None) -> FileDecryptionProperties:
        config = decryption_config or DecryptionConfiguration()
        return self.decryption_properties(parquet_file_path, filesystem=filesystem, cache_lifetime=config.cache_lifetime,
                                          kms_connection_config=kms_connection_config,
                                          read_kms_url=config.read_kms_url)

    def remove_cache_entries_for_token(self, access_token: str) -> None:
        """Forget the KEKs cached for ``access_token`` (pyarrow's spelling)."""
        self._keks.clear(access_token)

    def remove_cache_entries_for_all_tokens(self) -> None:
        """Forget every cached KEK (parquet-java's KeyToolkit.removeCacheEntriesForAllTokens)."""
        self._keks.clear()


__all__ = ["CryptoFactory", "DecryptionConfiguration", "EncryptionConfiguration", "parse_column_keys"]
