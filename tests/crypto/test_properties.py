"""Encryption / decryption properties and the file-level AAD prefix rules (section 4.4.1)."""

from __future__ import annotations

import pytest

from parquet_codec.crypto import FileDecryptionProperties, FileEncryptionProperties, FileEncryptor
from parquet_codec.crypto.decryptor import FileDecryptor
from parquet_codec.errors import DecryptionError, EncryptionError

KF, KC = b"0123456789012345", b"1234567890123450"


def test_column_keys_forms_and_plaintext_columns():
    props = FileEncryptionProperties(KF, "kf-id", {"a.b": KC, "c": (KC, "kc-id")})
    assert props.footer_key_metadata == b"kf-id"
    assert props.column_key("a.b").key == KC and props.column_key("a.b").key_metadata is None
    assert props.column_key("c").key_metadata == b"kc-id"
    assert props.column_key("d") is None  # absent columns stay plaintext
    assert not props.uniform


def test_no_column_keys_means_uniform_encryption():
    props = FileEncryptionProperties(KF)
    assert props.uniform and props.column_key("anything").key == KF


def test_invalid_encryption_properties():
    with pytest.raises(EncryptionError, match="footer key has 5 bytes"):
        FileEncryptionProperties(b"short")
    with pytest.raises(EncryptionError, match="key of column 'x'"):
        FileEncryptionProperties(KF, column_keys={"x": b"bad"})
    with pytest.raises(EncryptionError, match="unknown encryption algorithm"):
        FileEncryptionProperties(KF, algorithm="AES_GCM_V2")
    with pytest.raises(EncryptionError, match="data_page_v2_layout"):
        FileEncryptionProperties(KF, data_page_v2_layout="other")
    with pytest.raises(EncryptionError, match="not in the schema"):
        FileEncryptionProperties(KF, column_keys={"typo": KC}).check_columns(["a", "b"])


def test_repr_never_shows_keys():
    assert "0123" not in repr(FileEncryptionProperties(KF, column_keys={"a": KC}))
    assert "0123" not in repr(FileDecryptionProperties(KF, {"a": KC}))


def test_algorithm_struct_and_aad_prefix_storage():
    stored = FileEncryptor(FileEncryptionProperties(KF, aad_prefix="tester"), b"12345678")
    params = stored.algorithm_struct().AES_GCM_V1
    assert (params.aad_prefix, params.aad_file_unique, params.supply_aad_prefix) == (b"tester", b"12345678", None)
    assert stored.file_aad == b"tester12345678"
    hidden = FileEncryptor(FileEncryptionProperties(KF, algorithm="AES_GCM_CTR_V1", aad_prefix=b"tester",
                                                    store_aad_prefix=False))
    params = hidden.algorithm_struct().AES_GCM_CTR_V1
    assert params.aad_prefix is None and params.supply_aad_prefix is True and len(params.aad_file_unique) == 8
    assert stored.magic == b"PARE"
    assert FileEncryptor(FileEncryptionProperties(KF, plaintext_footer=True)).magic == b"PAR1"


def _decryptor(file_props, supplied):
    algorithm = FileEncryptor(file_props, b"uniqueid").algorithm_struct()
    return FileDecryptor(FileDecryptionProperties(KF, aad_prefix=supplied), algorithm, None)


def test_aad_prefix_resolution():
    assert _decryptor(FileEncryptionProperties(KF, aad_prefix=b"p"), None).file_aad == b"puniqueid"
    assert _decryptor(FileEncryptionProperties(KF, aad_prefix=b"p"), b"p").file_aad == b"puniqueid"
    hidden = FileEncryptionProperties(KF, aad_prefix=b"p", store_aad_prefix=False)
    assert _decryptor(hidden, b"p").file_aad == b"puniqueid"
    with pytest.raises(DecryptionError, match="supply aad_prefix"):
        _decryptor(hidden, None)
    with pytest.raises(DecryptionError, match="differs from the one stored"):
        _decryptor(FileEncryptionProperties(KF, aad_prefix=b"p"), b"q")


def test_key_retrieval():
    props = FileDecryptionProperties(column_keys={"a": KC}, key_retriever=lambda md: {b"f": KF, b"c": KC}[md])
    assert props.footer_key_for(b"f") == KF
    assert props.column_key_for("a", None) == KC  # explicit keys win
    assert props.column_key_for("b", b"c") == KC
    with pytest.raises(DecryptionError, match="cannot retrieve the key of the column 'b': KeyError"):
        props.column_key_for("b", b"zz")
    with pytest.raises(DecryptionError, match="no key for the footer"):
        FileDecryptionProperties().footer_key_for(b"kf")
    with pytest.raises(DecryptionError, match="retrieved key .* has 3 bytes"):
        FileDecryptionProperties(key_retriever=lambda md: b"abc").footer_key_for(b"")
