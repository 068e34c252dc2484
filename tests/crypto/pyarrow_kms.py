"""A pyarrow KMS client that wraps keys as parquet-java's in-memory test KMS does:
base64(nonce || AES-GCM(master key, data key, aad=master key id)).

Written with ``cryptography`` alone, independently of parquet_codec's own
InMemoryKms, so that it can serve as the oracle for pyarrow interop tests."""

from __future__ import annotations

import base64
import os
from collections.abc import Callable

import pyarrow.parquet.encryption as pe
from cryptography.hazmat.primitives.ciphers.aead import AESGCM


class GcmKms(pe.KmsClient):
    def __init__(self, master: dict[str, bytes]) -> None:
        super().__init__()
        self._master = master

    def wrap_key(self, key_bytes: bytes, master_key_identifier: str) -> str:
        nonce = os.urandom(12)
        sealed = AESGCM(self._master[master_key_identifier]).encrypt(nonce, key_bytes,
                                                                    master_key_identifier.encode())
        return base64.b64encode(nonce + sealed).decode()

    def unwrap_key(self, wrapped_key: str, master_key_identifier: str) -> bytes:
        raw = base64.b64decode(wrapped_key)
        return AESGCM(self._master[master_key_identifier]).decrypt(raw[:12], raw[12:],
                                                                   master_key_identifier.encode())


def gcm_kms(master: dict[str, bytes]) -> Callable[[pe.KmsConnectionConfig], GcmKms]:
    """The client factory pyarrow's CryptoFactory takes, over these master keys."""
    return lambda config: GcmKms(master)
