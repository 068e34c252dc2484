"""Key tools: in-memory KMS format, PKMT1 key material, wrapping, caching, sidecars."""

from __future__ import annotations

import base64
import json
import os

import pytest
from cryptography.hazmat.primitives.ciphers.aead import AESGCM

from parquet_codec.crypto import (
    CryptoFactory,
    EncryptionConfiguration,
    InMemoryKms,
    KmsClient,
    KmsConnectionConfig,
)
from parquet_codec.crypto.keytools import KeyMaterial, KeyMetadata, parse_column_keys, sidecar_path
from parquet_codec.errors import DecryptionError, EncryptionError
from tests.conftest import CORPUS_DATA, requires_corpus

MASTER = {"kf": b"0123456789012345", "kc1": b"1234567890123450", "kc2": b"1234567890123451"}


class CountingKms(InMemoryKms):
    def __init__(self, keys):
        super().__init__(keys)
        self.wraps = self.unwraps = 0

    def wrap_key(self, key, master_key_id):
        self.wraps += 1
        return super().wrap_key(key, master_key_id)

    def unwrap_key(self, wrapped, master_key_id):
        self.unwraps += 1
        return super().unwrap_key(wrapped, master_key_id)


def test_in_memory_kms_wrapping_layout():
    wrapped = InMemoryKms(MASTER).wrap_key(b"k" * 16, "kc1")
    raw = base64.b64decode(wrapped)
    assert len(raw) == 12 + 16 + 16
    # base64(nonce || GCM ciphertext || tag), the master key id as AAD
    assert AESGCM(MASTER["kc1"]).decrypt(raw[:12], raw[12:], b"kc1") == b"k" * 16
    assert InMemoryKms(MASTER).unwrap_key(wrapped, "kc1") == b"k" * 16
    with pytest.raises(DecryptionError, match="wrong master key"):
        InMemoryKms({"kc1": MASTER["kf"]}).unwrap_key(wrapped, "kc1")
    with pytest.raises(EncryptionError, match="not in the KMS"):
        InMemoryKms(MASTER).wrap_key(b"k" * 16, "nope")


def test_key_list_form():
    kms = InMemoryKms.from_key_list(f"kf: {base64.b64encode(MASTER['kf']).decode()}, kc1:"
                                    f"{base64.b64encode(MASTER['kc1']).decode()}")
    assert kms.unwrap_key(InMemoryKms(MASTER).wrap_key(b"x" * 16, "kc1"), "kc1") == b"x" * 16
    with pytest.raises(EncryptionError, match="not <id>:<base64 key>"):
        InMemoryKms.from_key_list("kf")


def test_parse_column_keys():
    assert parse_column_keys("kc1: a, b.c ;kc2:d") == {"a": "kc1", "b.c": "kc1", "d": "kc2"}
    assert parse_column_keys({"kc1": ["a"], "kc2": "b"}) == {"a": "kc1", "b": "kc2"}
    with pytest.raises(EncryptionError, match="two master keys"):
        parse_column_keys("kc1:a;kc2:a")
    with pytest.raises(EncryptionError, match="is not <master key id>"):
        parse_column_keys("a,b")


@pytest.mark.parametrize("double", [True, False])
def test_key_material_round_trip(double):
    factory = CryptoFactory(InMemoryKms(MASTER))
    props = factory.encryption_properties("kf", "kc1:a;kc2:b", double_wrapping=double, data_key_length_bits=256)
    footer = json.loads(props.footer_key_metadata)
    assert footer["keyMaterialType"] == "PKMT1" and footer["internalStorage"] is True
    assert footer["isFooterKey"] is True and footer["masterKeyID"] == "kf"
    assert footer["kmsInstanceID"] == "DEFAULT" and footer["doubleWrapping"] is double
    assert ("wrappedKEK" in footer) is double and ("keyEncryptionKeyID" in footer) is double
    column = json.loads(props.column_key("b").key_metadata)
    assert column["masterKeyID"] == "kc2" and column["isFooterKey"] is False and "kmsInstanceID" not in column
    assert len(props.footer_key) == 32
    reader = factory.decryption_properties()
    assert reader.footer_key_for(props.footer_key_metadata) == props.footer_key
    assert reader.column_key_for("b", props.column_key("b").key_metadata) == props.column_key("b").key
    # Field order does not matter: parsed as JSON.
    shuffled = json.dumps(dict(reversed(list(column.items())))).encode()
    assert reader.column_key_for("b", shuffled) == props.column_key("b").key


def test_double_wrapping_calls_the_kms_once_per_master_key():
    kms = CountingKms(MASTER)
    factory = CryptoFactory(kms)
    first = [factory.encryption_properties("kf", "kc1:a,b;kc2:c") for _ in range(3)]
    assert kms.wraps == 3  # one KEK per master key, cached across files
    keks = {json.loads(p.column_key("a").key_metadata)["keyEncryptionKeyID"] for p in first}
    assert len(keks) == 1
    assert len({p.column_key("a").key for p in first}) == 3  # fresh data keys per file
    reader = factory.decryption_properties()
    for props in first:
        reader.column_key_for("a", props.column_key("a").key_metadata)
        reader.column_key_for("b", props.column_key("b").key_metadata)
    assert kms.unwraps == 1
    CryptoFactory(kms).encryption_properties("kf", "kc1:a", double_wrapping=False)
    assert kms.wraps == 3 + 2  # single wrapping: the KMS wraps each data key


def test_each_factory_caches_its_own_keks():
    """A KEK one factory's KMS made or unwrapped never serves another factory
    (Arrow C++'s CryptoFactory owns its caches): a KMS holding the wrong master
    keys fails even after a right one read the same key material."""
    right, wrong_keys = CountingKms(MASTER), {k: bytes(reversed(v)) for k, v in MASTER.items()}
    props = CryptoFactory(right).encryption_properties("kf", "kc1:a")
    metadata = props.column_key("a").key_metadata
    reader = CryptoFactory(right).decryption_properties()
    assert reader.column_key_for("a", metadata) == props.column_key("a").key
    with pytest.raises(DecryptionError, match="wrong master key"):
        CryptoFactory(InMemoryKms(wrong_keys)).decryption_properties().column_key_for("a", metadata)
    other = CountingKms(wrong_keys)
    CryptoFactory(other).encryption_properties("kf", "kc1:a")
    assert other.wraps == 2  # its own KEKs, wrapped by its own KMS


def test_cache_entries_removed_by_token():
    kms = CountingKms(MASTER)
    factory = CryptoFactory(kms)
    factory.encryption_properties("kf", "kc1:a")
    factory.encryption_properties("kf", "kc1:a")
    assert kms.wraps == 2
    factory.remove_cache_entries_for_token("another")
    factory.encryption_properties("kf", "kc1:a")
    assert kms.wraps == 2
    factory.remove_cache_entries_for_token(KmsConnectionConfig().token)
    factory.encryption_properties("kf", "kc1:a")
    assert kms.wraps == 4
    factory.remove_cache_entries_for_all_tokens()
    factory.encryption_properties("kf", "kc1:a")
    assert kms.wraps == 6


def test_external_key_material(tmp_path):
    target = tmp_path / "data.parquet"
    factory = CryptoFactory(InMemoryKms(MASTER))
    props = factory.encryption_properties("kf", {"kc1": ["a"], "kc2": ["b"]}, internal_key_material=False,
                                          file_path=target)
    assert json.loads(props.footer_key_metadata) == {"keyMaterialType": "PKMT1", "internalStorage": False,
                                                    "keyReference": "footerKey"}
    sidecar_file = tmp_path / "_KEY_MATERIAL_FOR_data.parquet.json"
    assert not sidecar_file.exists()  # written when a writer commits the file, not before
    props.key_material_store.save()
    sidecar = json.loads(sidecar_file.read_text())
    assert set(sidecar) == {"footerKey", "columnKey0", "columnKey1"}
    assert json.loads(sidecar["footerKey"])["masterKeyID"] == "kf"
    reader = factory.decryption_properties(file_path=target)
    assert reader.footer_key_for(props.footer_key_metadata) == props.footer_key
    with pytest.raises(DecryptionError, match="stored outside the file"):
        factory.decryption_properties().footer_key_for(props.footer_key_metadata)
    with pytest.raises(EncryptionError, match="file_path"):
        factory.encryption_properties("kf", "kc1:a", internal_key_material=False)
    assert sidecar_path("/x/y.parquet") == os.path.join("/x", "_KEY_MATERIAL_FOR_y.parquet.json")


@requires_corpus()
def test_parquet_java_sidecar_unwraps_with_the_in_memory_kms():
    path = CORPUS_DATA / "external_key_material_java.parquet.encrypted"
    sidecar = json.loads((CORPUS_DATA / f"_KEY_MATERIAL_FOR_{path.name}.json").read_text())
    reader = CryptoFactory(InMemoryKms(MASTER)).decryption_properties(file_path=path)
    for reference, text in sidecar.items():
        material = KeyMaterial.parse(json.loads(text))
        assert material.double_wrapping and material.is_footer_key == (reference == "footerKey")
        key = reader.footer_key_for(KeyMetadata.external(reference))
        assert len(key) == 16


def test_pyarrow_shaped_api():
    made: list[KmsConnectionConfig] = []

    def kms_factory(config):
        made.append(config)
        return InMemoryKms(MASTER)

    factory = CryptoFactory(kms_factory)
    config = KmsConnectionConfig(kms_instance_id="inst")
    props = factory.file_encryption_properties(
        config, EncryptionConfiguration("kf", {"kc1": ["a"]}, plaintext_footer=True, double_wrapping=False))
    assert props.plaintext_footer and json.loads(props.footer_key_metadata)["kmsInstanceID"] == "inst"
    uniform = factory.file_encryption_properties(config, EncryptionConfiguration("kf", uniform_encryption=True))
    assert uniform.uniform
    reader = factory.file_decryption_properties(config)
    assert reader.footer_key_for(props.footer_key_metadata) == props.footer_key
    assert len(made) == 1  # one client per connection config


def test_factory_validation():
    factory = CryptoFactory(InMemoryKms(MASTER))
    with pytest.raises(EncryptionError, match="use uniform_key"):
        factory.encryption_properties("kf")
    assert factory.encryption_properties(uniform_key="kf").uniform
    with pytest.raises(EncryptionError, match="data_key_length_bits"):
        factory.encryption_properties("kf", "kc1:a", data_key_length_bits=100)
    with pytest.raises(EncryptionError, match="master key 'zz' is not in the KMS"):
        factory.encryption_properties("zz", "kc1:a")
    with pytest.raises(DecryptionError, match="not JSON key material"):
        factory.decryption_properties().footer_key_for(b"kf")


def test_a_failing_kms_is_reported():
    class Broken(KmsClient):
        def unwrap_key(self, wrapped, master_key_id):
            raise ConnectionError("KMS down")

    props = CryptoFactory(InMemoryKms(MASTER)).encryption_properties("kf", "kc1:a", double_wrapping=False)
    with pytest.raises(DecryptionError, match="KMS cannot unwrap a key of master key 'kf': ConnectionError"):
        CryptoFactory(Broken()).decryption_properties().footer_key_for(props.footer_key_metadata)


def test_the_footer_key_material_names_the_kms_instance_a_reader_does_not():
    """As parquet-java's and Arrow's key tools: a reader whose connection config
    names no KMS instance uses the one the footer key's material records."""
    other = {k: bytes(reversed(v)) for k, v in MASTER.items()}
    built = []

    def kms_for(config):
        built.append(config.kms_instance_id)
        return InMemoryKms(MASTER if config.kms_instance_id == "inst-A" else other)

    writer = CryptoFactory(kms_for, KmsConnectionConfig(kms_instance_id="inst-A"))
    props = writer.encryption_properties("kf", "kc1:a")
    assert json.loads(props.footer_key_metadata)["kmsInstanceID"] == "inst-A"
    built.clear()
    reader = CryptoFactory(kms_for).decryption_properties()
    assert reader.footer_key_for(props.footer_key_metadata) == props.footer_key
    assert reader.column_key_for("a", props.column_key("a").key_metadata) == props.column_key("a").key
    assert built == ["inst-A"]
    named = CryptoFactory(kms_for, KmsConnectionConfig(kms_instance_id="inst-B")).decryption_properties()
    with pytest.raises(DecryptionError):  # a reader's own instance stands
        named.footer_key_for(props.footer_key_metadata)
