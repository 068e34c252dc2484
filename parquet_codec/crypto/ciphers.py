"""The AES ciphers of Parquet Modular Encryption (sections 4.1, 4.2 and 5.1).

An encrypted module is stored as a 4-byte little-endian length followed by
that many bytes:

    AES GCM:  nonce (12) + ciphertext + tag (16)
    AES CTR:  nonce (12) + ciphertext           (IV = nonce + counter 0x00000001)

AES_GCM_V1 encrypts every module with GCM. AES_GCM_CTR_V1 encrypts pages
(data and dictionary pages) with CTR and everything else with GCM; CTR has no
tag, so tampering with its pages cannot be detected (section 4.2.2).
"""

from __future__ import annotations

import hmac
import os
import struct

from cryptography.exceptions import InvalidTag
from cryptography.hazmat.primitives.ciphers import Cipher, algorithms, modes
from cryptography.hazmat.primitives.ciphers.aead import AESGCM

from parquet_codec.crypto.aad import PAGE_TYPES, ModuleType
from parquet_codec.errors import DecryptionError, EncryptionError
from parquet_codec.memory import BufferPool

AES_GCM_V1 = "AES_GCM_V1"
AES_GCM_CTR_V1 = "AES_GCM_CTR_V1"
ALGORITHMS = (AES_GCM_V1, AES_GCM_CTR_V1)

NONCE_LENGTH = 12
TAG_LENGTH = 16
LENGTH_PREFIX = 4
GCM_OVERHEAD = LENGTH_PREFIX + NONCE_LENGTH + TAG_LENGTH
CTR_OVERHEAD = LENGTH_PREFIX + NONCE_LENGTH
SIGNATURE_LENGTH = NONCE_LENGTH + TAG_LENGTH
KEY_LENGTHS = (16, 24, 32)
# Section 4.2.2: the 4-byte initial counter has its first 31 bits 0 and its last bit 1.
_CTR_INITIAL_COUNTER = b"\x00\x00\x00\x01"
# AESGCM.encrypt_into / decrypt_into (cryptography >= 45) work in a preallocated buffer;
# small modules (headers, metadata) stay plain bytes.
_ENCRYPT_INTO = hasattr(AESGCM, "encrypt_into")
_DECRYPT_INTO = hasattr(AESGCM, "decrypt_into")
_IN_PLACE_MIN = 4096
_AES_BLOCK = 16
_NO_PAGES: frozenset[ModuleType] = frozenset()


def check_key(key: object, what: str, error: type[Exception] = EncryptionError) -> bytes:
    """``key`` as bytes when it is a 128, 192 or 256-bit AES key."""
    if isinstance(key, str):
        raise error(f"{what} must be bytes, not str (encode it, e.g. key.encode())")
    try:
        raw = bytes(key)  # type: ignore[call-overload]
    except TypeError:
        raise error(f"{what} must be bytes, not {type(key).__name__}") from None
    if len(raw) not in KEY_LENGTHS:
        raise error(f"{what} has {len(raw)} bytes; AES keys have 16, 24 or 32")
    return raw


def module_length(buffer: memoryview | bytes, pos: int, *, what: str, **context: object) -> int:
    """Total size (prefix included) of the length-prefixed module at ``pos``,
    checked against the buffer before anything trusts it."""
    if pos < 0 or pos + LENGTH_PREFIX > len(buffer):
        raise DecryptionError(f"encrypted {what} is truncated: no room for its length", **context)
    (length,) = struct.unpack_from("<I", buffer, pos)
    if length > len(buffer) - pos - LENGTH_PREFIX:
        raise DecryptionError(
            f"encrypted {what} declares {length} bytes, only {len(buffer) - pos - LENGTH_PREFIX} remain", **context
        )
    return LENGTH_PREFIX + length


def _frame(length: int) -> bytes:
    if length > 0x7FFFFFFF:
        raise EncryptionError(f"an encrypted module of {length} bytes exceeds the 4-byte length field")
    return struct.pack("<I", length)


#: Where modules are en- and decrypted: a fresh page-sized buffer per module
#: costs more than AES whenever the allocator returns it to the kernel in
#: between (a read of encrypted pages took 35,000 page faults without it).
#: Large enough for the pages a chunk reader holds at once (batched levels).
_MODULES = BufferPool(capacity=16 << 20, min_bytes=_IN_PLACE_MIN, mapped=True)


def _uninitialized(lead: bytes | memoryview, size: int) -> tuple[memoryview, memoryview]:
    """A buffer of ``size`` bytes starting with ``lead``, and its part after ``lead``.

    Never zeroed: the cipher overwrites every byte after ``lead``, and a
    page-sized memset (bytearray) or the zero-filled bytes object the cipher
    would return costs a sizeable share of AES itself. Pooled (_MODULES)."""
    out = _MODULES.bytes(size)
    at = len(lead)
    if at:
        out[:at] = lead
    return out, out[at:]


def _module_buffer(lead: bytes | memoryview, size: int, module_length: int, nonce: bytes
                   ) -> tuple[memoryview, memoryview]:
    """A stored module of ``size`` bytes being written, and the view of it the cipher
    fills: ``lead``, the length prefix and the nonce are in place in front of that view."""
    prefix = len(lead)
    out, rest = _uninitialized(lead, size)
    rest[:LENGTH_PREFIX] = _frame(module_length)
    rest[LENGTH_PREFIX:CTR_OVERHEAD] = nonce
    return out, out[prefix + CTR_OVERHEAD :]


class ModuleCipher:
    """Encrypts and decrypts the modules of one key under one algorithm."""

    def __init__(self, key: bytes, algorithm: str = AES_GCM_V1) -> None:
        if algorithm not in ALGORITHMS:
            raise EncryptionError(f"unknown encryption algorithm {algorithm!r}; use one of {ALGORITHMS}")
        self.key = check_key(key, "encryption key")
        self.algorithm = algorithm
        # One AES key schedule per key, reused by every module (GCM) and every page (CTR).
        self._gcm = AESGCM(self.key)
        self._aes = algorithms.AES(self.key)
        self._ctr_types = PAGE_TYPES if algorithm == AES_GCM_CTR_V1 else _NO_PAGES

    def uses_ctr(self, module_type: ModuleType) -> bool:
        return module_type in self._ctr_types

    # Encryption ---------------------------------------------------------
    def encrypt(self, plaintext: bytes | memoryview, aad: bytes, module_type: ModuleType,
                nonce: bytes | None = None, *, lead: bytes | memoryview = b"") -> bytes | memoryview:
        """The stored form of one module: length prefix, nonce, ciphertext (and tag);
        ``lead`` (plaintext bytes stored in front, e.g. v2 levels) is put before it.
        Page-sized modules come back as a memoryview of a buffer the cipher wrote."""
        nonce = os.urandom(NONCE_LENGTH) if nonce is None else nonce
        if len(nonce) != NONCE_LENGTH:
            raise EncryptionError(f"nonce must have {NONCE_LENGTH} bytes, got {len(nonce)}")
        if self.uses_ctr(module_type):
            return self._ctr_into(nonce, plaintext, lead)
        if _ENCRYPT_INTO:
            return self._gcm_into(nonce, plaintext, aad, lead)
        body = self._gcm.encrypt(nonce, bytes(plaintext), aad)
        return bytes(lead) + _frame(NONCE_LENGTH + len(body)) + nonce + body

    def _ctr_into(self, nonce: bytes, plaintext: bytes | memoryview, lead: bytes | memoryview) -> memoryview:
        """CTR written straight into the stored module (update_into wants a block - 1 of slack)."""
        data, at = memoryview(plaintext).cast("B"), len(lead) + CTR_OVERHEAD
        out, into = _module_buffer(lead, at + data.nbytes + _AES_BLOCK - 1, NONCE_LENGTH + data.nbytes, nonce)
        encryptor = self._ctr(nonce).encryptor()
        written = encryptor.update_into(data, into)
        encryptor.finalize()
        return out[: at + written]

    def _gcm_into(self, nonce: bytes, plaintext: bytes | memoryview, aad: bytes,
                  lead: bytes | memoryview) -> bytes | memoryview:
        """GCM written straight into the stored module: concatenating the prefix, nonce
        and a page-sized ciphertext costs far more than the cipher (benchmarks/encryption.py)."""
        data = memoryview(plaintext).cast("B")
        if data.nbytes < _IN_PLACE_MIN:
            body = self._gcm.encrypt(nonce, bytes(data), aad)
            return bytes(lead) + _frame(NONCE_LENGTH + len(body)) + nonce + body
        at = len(lead) + CTR_OVERHEAD
        out, into = _module_buffer(lead, at + data.nbytes + TAG_LENGTH, NONCE_LENGTH + data.nbytes + TAG_LENGTH, nonce)
        self._gcm.encrypt_into(nonce, data, aad, into)
        return out

    def sign(self, data: bytes, aad: bytes, nonce: bytes | None = None) -> bytes:
        """Footer signature (section 5.3): nonce + the GCM tag of ``data``; the ciphertext is dropped."""
        nonce = os.urandom(NONCE_LENGTH) if nonce is None else nonce
        return nonce + self._gcm.encrypt(nonce, bytes(data), aad)[-TAG_LENGTH:]

    # Decryption ---------------------------------------------------------
    def decrypt(self, module: memoryview | bytes, aad: bytes, module_type: ModuleType, *,
                lead: bytes | memoryview = b"", **context: object) -> bytes | memoryview:
        """The plaintext of one stored module (length prefix included in ``module``),
        after ``lead`` (plaintext bytes stored in front of it, e.g. v2 levels).

        Raises DecryptionError naming the module when its length is
        inconsistent or (GCM) when authentication fails."""
        view = memoryview(module)
        size = len(view)
        if size < LENGTH_PREFIX or struct.unpack_from("<I", view)[0] != size - LENGTH_PREFIX:
            self._bad_length(view, module_type, context)
        ctr = module_type in self._ctr_types
        if size < (CTR_OVERHEAD if ctr else GCM_OVERHEAD):
            raise DecryptionError(f"encrypted {ModuleType(module_type).label} of {size} bytes is shorter than "
                                  f"{'a CTR nonce' if ctr else 'a GCM nonce and tag'}", **context)
        nonce = bytes(view[LENGTH_PREFIX:CTR_OVERHEAD])
        body = view[CTR_OVERHEAD:]
        if ctr:
            return self._ctr_decrypt(nonce, body, lead)
        try:
            if not _DECRYPT_INTO or size < _IN_PLACE_MIN:
                plain = self._gcm.decrypt(nonce, body, aad)
                return bytes(lead) + plain if len(lead) else plain
            out, into = _uninitialized(lead, len(lead) + size - GCM_OVERHEAD)
            self._gcm.decrypt_into(nonce, body, aad, into)
            return out
        except InvalidTag:
            raise DecryptionError(f"{ModuleType(module_type).label} failed authentication (wrong key, wrong AAD "
                                  "prefix, moved or tampered bytes)", **context) from None

    def _ctr_decrypt(self, nonce: bytes, body: memoryview, lead: bytes | memoryview) -> memoryview:
        # update_into wants a block - 1 of slack after the output.
        out, into = _uninitialized(lead, len(lead) + len(body) + _AES_BLOCK - 1)
        decryptor = self._ctr(nonce).decryptor()
        written = decryptor.update_into(body, into)
        decryptor.finalize()
        return out[: len(lead) + written]

    @staticmethod
    def _bad_length(view: memoryview, module_type: ModuleType, context: dict[str, object]) -> None:
        what = ModuleType(module_type).label
        size = module_length(view, 0, what=what, **context)  # raises when the length overruns the module
        raise DecryptionError(f"encrypted {what} declares {size - LENGTH_PREFIX} bytes, its stored size is "
                              f"{len(view) - LENGTH_PREFIX}", **context)

    def verify_signature(self, data: bytes | memoryview, signature: bytes | memoryview, aad: bytes) -> None:
        """Check a plaintext footer's 28-byte signature; DecryptionError when it does not match."""
        signature = bytes(signature)
        if len(signature) != SIGNATURE_LENGTH:
            raise DecryptionError(f"footer signature has {len(signature)} bytes, expected {SIGNATURE_LENGTH}")
        expected = self.sign(bytes(data), aad, nonce=signature[:NONCE_LENGTH])
        if not hmac.compare_digest(expected, signature):
            raise DecryptionError("plaintext footer signature does not verify (wrong footer key, wrong AAD "
                                  "prefix, or tampered footer)")

    def _ctr(self, nonce: bytes) -> Cipher:
        return Cipher(self._aes, modes.CTR(nonce + _CTR_INITIAL_COUNTER))


__all__ = [
    "AES_GCM_CTR_V1",
    "AES_GCM_V1",
    "ALGORITHMS",
    "CTR_OVERHEAD",
    "GCM_OVERHEAD",
    "KEY_LENGTHS",
    "ModuleCipher",
    "NONCE_LENGTH",
    "SIGNATURE_LENGTH",
    "TAG_LENGTH",
    "check_key",
    "module_length",
]
