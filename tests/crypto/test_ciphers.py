"""AES GCM / CTR modules (sections 4.2 and 5.1): layout, keys, tampering."""

from __future__ import annotations

import io
import struct

import numpy as np
import pyarrow as pa
import pytest
from cryptography.hazmat.primitives.ciphers import Cipher, algorithms, modes
from cryptography.hazmat.primitives.ciphers.aead import AESGCM
from hypothesis import given, settings
from hypothesis import strategies as st

import parquet_codec as pc
from parquet_codec.crypto import FileDecryptionProperties, FileEncryptionProperties
from parquet_codec.crypto.aad import ModuleType
from parquet_codec.crypto.ciphers import (
    AES_GCM_CTR_V1,
    AES_GCM_V1,
    GCM_OVERHEAD,
    ModuleCipher,
    check_key,
    module_length,
)
from parquet_codec.errors import DecryptionError, EncryptionError

KEYS = [bytes(range(n)) for n in (16, 24, 32)]
NONCE = bytes(range(100, 112))


@pytest.mark.parametrize("key", KEYS, ids=["128", "192", "256"])
def test_gcm_module_layout(key):
    stored = ModuleCipher(key).encrypt(b"hello", b"aad", ModuleType.FOOTER, nonce=NONCE)
    assert struct.unpack_from("<I", stored)[0] == len(stored) - 4 == 12 + 5 + 16
    assert stored[4:16] == NONCE
    assert stored[16:] == AESGCM(key).encrypt(NONCE, b"hello", b"aad")  # ciphertext then tag
    assert ModuleCipher(key).decrypt(stored, b"aad", ModuleType.FOOTER) == b"hello"


@pytest.mark.parametrize("key", KEYS, ids=["128", "192", "256"])
def test_ctr_pages_start_with_counter_one(key):
    cipher = ModuleCipher(key, AES_GCM_CTR_V1)
    stored = cipher.encrypt(b"page bytes" * 5, b"ignored", ModuleType.DATA_PAGE, nonce=NONCE)
    assert struct.unpack_from("<I", stored)[0] == len(stored) - 4 == 12 + 50
    # Keystream block 0 is AES(nonce || 00000001), as section 4.2.2 prescribes.
    block = Cipher(algorithms.AES(key), modes.ECB()).encryptor().update(NONCE + b"\x00\x00\x00\x01")
    assert bytes(a ^ b for a, b in zip(stored[16:32], block, strict=True)) == (b"page bytes" * 5)[:16]
    assert cipher.decrypt(stored, b"other aad", ModuleType.DATA_PAGE) == b"page bytes" * 5


def test_ctr_algorithm_keeps_gcm_for_everything_but_pages():
    cipher = ModuleCipher(KEYS[0], AES_GCM_CTR_V1)
    assert [m for m in ModuleType if cipher.uses_ctr(m)] == [ModuleType.DATA_PAGE, ModuleType.DICTIONARY_PAGE]
    stored = cipher.encrypt(b"header", b"aad", ModuleType.DATA_PAGE_HEADER)
    assert len(stored) == GCM_OVERHEAD + 6


@pytest.mark.parametrize("algorithm", [AES_GCM_V1, AES_GCM_CTR_V1])
@settings(max_examples=30, deadline=None)
@given(data=st.binary(max_size=300), aad=st.binary(max_size=40))
def test_roundtrip(algorithm, data, aad):
    cipher = ModuleCipher(KEYS[2], algorithm)
    for module_type in (ModuleType.DATA_PAGE, ModuleType.COLUMN_INDEX):
        assert cipher.decrypt(cipher.encrypt(data, aad, module_type), aad, module_type) == data


@pytest.mark.parametrize("algorithm", [AES_GCM_V1, AES_GCM_CTR_V1])
@pytest.mark.parametrize("size", [0, 1, 4095, 4096, 70_001])  # below and above the preallocated-buffer path
def test_page_sized_modules_and_plaintext_leads(algorithm, size):
    cipher, lead = ModuleCipher(KEYS[0], algorithm), b"levels"
    data = bytes(range(256)) * (size // 256) + b"x" * (size % 256)
    for module_type in (ModuleType.DATA_PAGE, ModuleType.DICTIONARY_PAGE, ModuleType.BLOOM_FILTER_BITSET):
        stored = cipher.encrypt(data, b"aad", module_type, lead=lead)
        assert bytes(stored[:6]) == lead and struct.unpack_from("<I", stored, 6)[0] == len(stored) - 10
        module = stored[6:]
        assert bytes(cipher.decrypt(module, b"aad", module_type)) == data
        assert bytes(cipher.decrypt(module, b"aad", module_type, lead=memoryview(lead))) == lead + data
        if not cipher.uses_ctr(module_type):
            tampered = bytearray(module)
            tampered[-1] ^= 1
            with pytest.raises(DecryptionError, match=f"{module_type.label} failed authentication"):
                cipher.decrypt(tampered, b"aad", module_type, lead=lead)


def test_every_flipped_byte_of_a_gcm_module_is_detected():
    cipher = ModuleCipher(KEYS[0])
    stored = cipher.encrypt(b"sensitive", b"aad", ModuleType.DATA_PAGE_HEADER)
    for i in range(len(stored)):
        tampered = bytearray(stored)
        tampered[i] ^= 0x01
        with pytest.raises(DecryptionError, match="data page header") as info:
            cipher.decrypt(bytes(tampered), b"aad", ModuleType.DATA_PAGE_HEADER, page=3)
        assert info.value.context["page"] == 3


def test_wrong_key_and_wrong_aad_fail_authentication():
    stored = ModuleCipher(KEYS[0]).encrypt(b"x", b"aad", ModuleType.COLUMN_INDEX)
    with pytest.raises(DecryptionError, match="column index failed authentication"):
        ModuleCipher(bytes(16)).decrypt(stored, b"aad", ModuleType.COLUMN_INDEX)
    with pytest.raises(DecryptionError, match="column index failed authentication"):
        ModuleCipher(KEYS[0]).decrypt(stored, b"aad2", ModuleType.COLUMN_INDEX)


def test_lengths_are_checked_before_use():
    cipher = ModuleCipher(KEYS[0])
    with pytest.raises(DecryptionError, match="truncated"):
        cipher.decrypt(b"\x01\x00", b"", ModuleType.FOOTER)
    with pytest.raises(DecryptionError, match="declares 4294967295 bytes"):
        cipher.decrypt(b"\xff\xff\xff\xff" + bytes(40), b"", ModuleType.FOOTER)
    with pytest.raises(DecryptionError, match="shorter than a GCM nonce and tag"):
        cipher.decrypt(struct.pack("<I", 10) + bytes(10), b"", ModuleType.FOOTER)
    with pytest.raises(DecryptionError, match="stored size"):
        cipher.decrypt(struct.pack("<I", 28) + bytes(40), b"", ModuleType.FOOTER)
    assert module_length(struct.pack("<I", 3) + b"abcxyz", 0, what="x") == 7


def test_footer_signature():
    cipher = ModuleCipher(KEYS[1])
    signature = cipher.sign(b"footer", b"aad")
    assert len(signature) == 28
    assert signature[12:] == AESGCM(KEYS[1]).encrypt(signature[:12], b"footer", b"aad")[-16:]
    cipher.verify_signature(b"footer", signature, b"aad")
    with pytest.raises(DecryptionError, match="signature does not verify"):
        cipher.verify_signature(b"footeR", signature, b"aad")
    with pytest.raises(DecryptionError, match="27 bytes"):
        cipher.verify_signature(b"footer", signature[:-1], b"aad")


def test_key_checks():
    with pytest.raises(EncryptionError, match="17 bytes"):
        check_key(bytes(17), "key")
    with pytest.raises(EncryptionError, match="not str"):
        check_key("0123456789012345", "key")
    with pytest.raises(EncryptionError, match="unknown encryption algorithm"):
        ModuleCipher(KEYS[0], "AES_CBC")


# --- modules in pooled buffers (memory.BufferPool) ---------------------------

_PAGE = 200_000


@pytest.mark.parametrize("algorithm", [AES_GCM_V1, AES_GCM_CTR_V1])
def test_modules_kept_by_the_caller_stay_intact(algorithm):
    """Every page decrypted (and encrypted) while the earlier ones are still held keeps its bytes."""
    cipher = ModuleCipher(KEYS[0], algorithm)
    rng = np.random.default_rng(3)
    pages = [rng.integers(0, 256, _PAGE + i, dtype=np.uint8).tobytes() for i in range(12)]
    stored = [cipher.encrypt(page, b"aad", ModuleType.DATA_PAGE) for page in pages]
    sealed = [bytes(module) for module in stored]
    plain = [cipher.decrypt(module, b"aad", ModuleType.DATA_PAGE) for module in sealed]
    assert [bytes(module) for module in stored] == sealed
    assert [bytes(page) for page in plain] == pages
    del plain
    # Released pages make room for the next ones, which still decrypt right.
    assert all(bytes(cipher.decrypt(m, b"aad", ModuleType.DATA_PAGE)) == p for m, p in zip(sealed, pages, strict=True))


ROWS = 60_000
TABLE = pa.table({
    "i": pa.array(np.arange(ROWS, dtype=np.int64) * 7919),
    "n": [None if i % 3 == 0 else i * 1.5 for i in range(ROWS)],
    "s": [f"value {i % 97}" for i in range(ROWS)],
    "b": [f"unique {i}" for i in range(ROWS)],
    "l": [[i, i + 1] if i % 5 else None for i in range(ROWS)],
})


@pytest.mark.parametrize("algorithm", [AES_GCM_V1, AES_GCM_CTR_V1])
@pytest.mark.parametrize("version", ["1.0", "2.0"])
@pytest.mark.parametrize("compression", ["none", "snappy"])
def test_files_of_page_sized_modules_read_back(algorithm, version, compression):
    """Pages of 4 KiB and more go through the module pool; the reader keeps some of
    them (uncompressed values, dictionaries, pages held for batched levels) while it
    decrypts the next ones, and every value must survive that."""
    sink = io.BytesIO()
    pc.write_table(TABLE, sink, encryption=FileEncryptionProperties(KEYS[0], algorithm=algorithm),
                   compression=compression, data_page_version=version, data_page_size=32 * 1024,
                   row_group_size=25_000, use_dictionary=["s"])
    read = pc.read_table(sink.getvalue(), decryption=FileDecryptionProperties(footer_key=KEYS[0]))
    assert read.to_arrow().equals(TABLE)
