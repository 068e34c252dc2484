"""KMS clients and local key wrapping (parquet-java's key tools, "KeyToolkit" and
"KmsClient"; pyarrow.parquet.encryption's KmsClient and KmsConnectionConfig).

Wrapped keys are strings. Locally (and in the in-memory test KMS of
parquet-java and Arrow C++) a key is wrapped as

    base64( nonce (12) + AES-GCM ciphertext + tag (16) )

under the wrapping key, with an AAD naming what wraps it: the UTF-8 master
key id in the KMS, the raw 16-byte KEK id for a data key under a KEK.
"""

from __future__ import annotations

import base64
import binascii
import os
from collections.abc import Mapping

from cryptography.exceptions import InvalidTag
from cryptography.hazmat.primitives.ciphers.aead import AESGCM

from parquet_codec.crypto.ciphers import NONCE_LENGTH, TAG_LENGTH, check_key
from parquet_codec.errors import DecryptionError, EncryptionError

DEFAULT = "DEFAULT"  # parquet-java's default KMS instance id, URL and access token


def wrap_key_locally(key: bytes, wrapping_key: bytes, aad: bytes) -> str:
    """``key`` encrypted with AES-GCM under ``wrapping_key``, base64-encoded."""
    nonce = os.urandom(NONCE_LENGTH)
    sealed = AESGCM(check_key(wrapping_key, "wrapping key")).encrypt(nonce, bytes(key), aad)
    return base64.b64encode(nonce + sealed).decode("ascii")


def unwrap_key_locally(wrapped: str | bytes, wrapping_key: bytes, aad: bytes, what: str = "key") -> bytes:
    """The inverse of :func:`wrap_key_locally`; DecryptionError on a wrong key or AAD."""
    try:
        raw = base64.b64decode(wrapped, validate=True)
    except (binascii.Error, ValueError):
        raise DecryptionError(f"wrapped {what} is not valid base64") from None
    if len(raw) < NONCE_LENGTH + TAG_LENGTH:
        raise DecryptionError(f"wrapped {what} of {len(raw)} bytes is too short")
    try:
        return AESGCM(check_key(wrapping_key, "wrapping key", DecryptionError)).decrypt(
            raw[:NONCE_LENGTH], raw[NONCE_LENGTH:], aad)
    except InvalidTag:
        raise DecryptionError(f"cannot unwrap the {what}: wrong master key or tampered key material") from None


class KmsConnectionConfig:
    """How to reach a KMS (pyarrow's KmsConnectionConfig; parquet-java's
    parquet.encryption.kms.instance.id / .url and key access token)."""

    def __init__(self, kms_instance_id: str = "", kms_instance_url: str = "", key_access_token: str = "",
                 custom_kms_conf: Mapping[str, str] | None = None) -> None:
        self.kms_instance_id = kms_instance_id
        self.kms_instance_url = kms_instance_url
        self.key_access_token = key_access_token
        self.custom_kms_conf = dict(custom_kms_conf or {})

    @property
    def instance_id(self) -> str:
        return self.kms_instance_id or DEFAULT

    @property
    def instance_url(self) -> str:
        return self.kms_instance_url or DEFAULT

    @property
    def token(self) -> str:
        return self.key_access_token or DEFAULT

    def refresh_key_access_token(self, value: str) -> None:
        """Replace the access token (pyarrow's spelling), e.g. when it expires."""
        self.key_access_token = value

    def __repr__(self) -> str:
        return f"KmsConnectionConfig(kms_instance_id={self.kms_instance_id!r}, kms_instance_url={self.kms_instance_url!r})"


class KmsClient:
    """A key management service: wraps data keys (or KEKs) under master keys it holds.

    Subclass and implement both methods, as for pyarrow's ``KmsClient`` and
    parquet-java's ``KmsClient`` interface."""

    def wrap_key(self, key: bytes, master_key_id: str) -> str:
        raise NotImplementedError

    def unwrap_key(self, wrapped: str, master_key_id: str) -> bytes:
        raise NotImplementedError


class InMemoryKms(KmsClient):
    """Master keys held in memory, wrapping in the layout of parquet-java's and Arrow
    C++'s in-memory test KMS (for tests and demos, never for production).

    ``master_keys`` maps master key ids to 16/24/32-byte keys (bytes), or to
    base64 strings as in ``parquet.encryption.key.list``.

    Key rotation is that of the test KMSs too: between
    :meth:`start_key_rotation` and :meth:`finish_key_rotation` keys are
    wrapped under the new versions and unwrapped under the current ones."""

    def __init__(self, master_keys: Mapping[str, bytes | str]) -> None:
        self._keys = _master_keys(master_keys)
        self._wrapping = self._keys

    def start_key_rotation(self, new_master_keys: Mapping[str, bytes | str]) -> None:
        """Wrap under ``new_master_keys`` from now on; keep unwrapping under the current keys."""
        self._wrapping = _master_keys(new_master_keys)

    def finish_key_rotation(self) -> None:
        """The new master keys become the current ones."""
        self._keys = self._wrapping

    @classmethod
    def from_key_list(cls, key_list: str) -> InMemoryKms:
        """From parquet-java's ``parquet.encryption.key.list``: "kf:<base64>, kc1:<base64>"."""
        keys: dict[str, str] = {}
        for item in key_list.split(","):
            if not item.strip():
                continue
            key_id, sep, value = item.partition(":")
            if not sep:
                raise EncryptionError(f"key list entry {item.strip()!r} is not <id>:<base64 key>")
            keys[key_id.strip()] = value.strip()
        return cls(keys)

    @staticmethod
    def _master(keys: dict[str, bytes], master_key_id: str, error: type[Exception]) -> bytes:
        key = keys.get(master_key_id)
        if key is None:
            raise error(f"master key {master_key_id!r} is not in the KMS (it has {sorted(keys)})")
        return key

    def wrap_key(self, key: bytes, master_key_id: str) -> str:
        return wrap_key_locally(key, self._master(self._wrapping, master_key_id, EncryptionError),
                                master_key_id.encode("utf-8"))

    def unwrap_key(self, wrapped: str, master_key_id: str) -> bytes:
        return unwrap_key_locally(wrapped, self._master(self._keys, master_key_id, DecryptionError),
                                  master_key_id.encode("utf-8"), f"key wrapped by master key {master_key_id!r}")

    def __repr__(self) -> str:
        return f"InMemoryKms(master keys {sorted(self._keys)})"


def _master_keys(master_keys: Mapping[str, bytes | str]) -> dict[str, bytes]:
    return {str(key_id): check_key(_decode_key(key, key_id), f"master key {key_id!r}")
            for key_id, key in master_keys.items()}


def _decode_key(key: bytes | str, key_id: object) -> bytes:
    if isinstance(key, str):
        try:
            return base64.b64decode(key, validate=True)
        except (binascii.Error, ValueError):
            raise EncryptionError(f"master key {key_id!r} is a str but not base64; pass bytes") from None
    return bytes(key)


__all__ = ["DEFAULT", "InMemoryKms", "KmsClient", "KmsConnectionConfig", "unwrap_key_locally", "wrap_key_locally"]
