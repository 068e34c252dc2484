"""Master key rotation of files with external key material (CryptoFactory.rotate_master_keys),
checked against pyarrow's rotation both ways, and where the key tools find a
sidecar and a KMS URL."""

from __future__ import annotations

import base64
import json

import pyarrow as pa
import pyarrow.fs as pafs
import pyarrow.parquet as pq
import pyarrow.parquet.encryption as pe
import pytest

import parquet_codec as pc
from parquet_codec.crypto import (
    CryptoFactory,
    DecryptionConfiguration,
    EncryptionConfiguration,
    InMemoryKms,
    KmsClient,
    KmsConnectionConfig,
)
from parquet_codec.errors import DecryptionError
from tests.crypto.pyarrow_kms import GcmKms

OLD = {"kf": b"0123456789012345", "kc1": b"1234567890123450", "kc2": b"1234567890123451"}
NEW = {"kf": b"5432109876543210", "kc1": b"0543210987654321", "kc2": b"1543210987654321"}
TABLE = pa.table({"a": [1, 2, None], "b": ["x", "y", "z"], "c": [1.5, None, 2.5]})


def _write_ours(path, factory, double_wrapping=True):
    props = factory.encryption_properties("kf", "kc1:a;kc2:b", internal_key_material=False, file_path=path,
                                          double_wrapping=double_wrapping)
    pc.write_table(TABLE, path, encryption=props)


def _read_ours(path, keys):
    return pc.read_table(path, decryption=CryptoFactory(InMemoryKms(keys))).to_pylist()


def _sidecar(path):
    return json.loads((path.parent / f"_KEY_MATERIAL_FOR_{path.name}.json").read_text())


@pytest.mark.parametrize(("before", "after"), [(True, True), (False, True), (True, False), (False, False)])
def test_rotation_rewraps_every_key_under_the_new_master_keys(tmp_path, before, after):
    path = tmp_path / "data.parquet"
    kms = InMemoryKms(OLD)
    factory = CryptoFactory(kms)
    _write_ours(path, factory, before)
    data, old_sidecar = path.read_bytes(), _sidecar(path)
    kms.start_key_rotation(NEW)
    factory.rotate_master_keys(KmsConnectionConfig(), path, double_wrapping=after)
    kms.finish_key_rotation()
    assert path.read_bytes() == data  # the data keys, and so the file, stay
    new_sidecar = _sidecar(path)
    assert set(new_sidecar) == set(old_sidecar) == {"footerKey", "columnKey0", "columnKey1"}
    for key_id, text in new_sidecar.items():
        material, old = json.loads(text), json.loads(old_sidecar[key_id])
        assert material["doubleWrapping"] is after
        assert material["masterKeyID"] == old["masterKeyID"] and material["isFooterKey"] == old["isFooterKey"]
        assert material["wrappedDEK"] != old["wrappedDEK"]
    assert _read_ours(path, NEW) == TABLE.to_pylist()
    with pytest.raises(DecryptionError, match="wrong master key"):
        _read_ours(path, OLD)
    assert not [p.name for p in tmp_path.iterdir() if p.name not in {path.name, f"_KEY_MATERIAL_FOR_{path.name}.json"}]


def test_rotations_of_one_cycle_share_new_keks_and_forget_the_old(tmp_path):
    kms = InMemoryKms(OLD)
    factory = CryptoFactory(kms)
    paths = [tmp_path / f"part-{i}.parquet" for i in range(2)]
    for path in paths:
        _write_ours(path, factory)
    kms.start_key_rotation(NEW)
    for path in paths:
        factory.rotate_master_keys(KmsConnectionConfig(), path)
    kms.finish_key_rotation()
    kek_ids = [{json.loads(m)["keyEncryptionKeyID"] for m in _sidecar(p).values()} for p in paths]
    assert kek_ids[0] == kek_ids[1]  # one new KEK per master key for the whole rotation
    assert len(kek_ids[0]) == 3
    written_after = tmp_path / "after.parquet"
    _write_ours(written_after, factory)  # the KEKs made under the old keys are gone
    assert _read_ours(written_after, NEW) == TABLE.to_pylist()


def test_rotation_needs_external_key_material(tmp_path):
    path = tmp_path / "inner.parquet"
    factory = CryptoFactory(InMemoryKms(OLD))
    pc.write_table(TABLE, path, encryption=factory.encryption_properties("kf", "kc1:a"))
    with pytest.raises(DecryptionError, match="_KEY_MATERIAL_FOR_inner.parquet.json"):
        factory.rotate_master_keys(KmsConnectionConfig(), path)


def test_a_failed_rotation_leaves_the_sidecar_as_it_was(tmp_path):
    path = tmp_path / "data.parquet"
    kms = InMemoryKms(OLD)
    _write_ours(path, CryptoFactory(kms))
    before = _sidecar(path)
    kms.start_key_rotation({"kf": NEW["kf"], "kc1": NEW["kc1"]})  # no new version of kc2: wrapping fails
    with pytest.raises(pc.ParquetError, match="kc2"):
        CryptoFactory(kms).rotate_master_keys(KmsConnectionConfig(), path)
    assert _sidecar(path) == before
    assert _read_ours(path, OLD) == TABLE.to_pylist()


class _RotatingGcmKms(GcmKms):
    """pyarrow's side of a rotation: unwraps under the old keys, wraps under the new."""

    def __init__(self, old, new):
        super().__init__(old)
        self._new = GcmKms(new)

    def wrap_key(self, key_bytes, master_key_identifier):
        return self._new.wrap_key(key_bytes, master_key_identifier)


def test_pyarrow_reads_what_we_rotated(tmp_path):
    path = str(tmp_path / "arrow.parquet")
    writer = pe.CryptoFactory(lambda config: GcmKms(OLD))
    config = pe.EncryptionConfiguration(footer_key="kf", column_keys={"kc1": ["a"], "kc2": ["b"]},
                                        internal_key_material=False)
    pq.write_table(TABLE, path, encryption_properties=writer.file_encryption_properties(
        pe.KmsConnectionConfig(), config, parquet_file_path=path))
    kms = InMemoryKms(OLD)
    kms.start_key_rotation(NEW)
    CryptoFactory(kms).rotate_master_keys(KmsConnectionConfig(), path)
    reader = pe.CryptoFactory(lambda config: GcmKms(NEW))
    properties = reader.file_decryption_properties(pe.KmsConnectionConfig(), parquet_file_path=path)
    assert pq.read_table(path, decryption_properties=properties).to_pylist() == TABLE.to_pylist()


@pytest.mark.parametrize("double_wrapping", [True, False])
def test_we_read_what_pyarrow_rotated(tmp_path, double_wrapping):
    path = tmp_path / "ours.parquet"
    _write_ours(path, CryptoFactory(InMemoryKms(OLD)))
    rotator = pe.CryptoFactory(lambda config: _RotatingGcmKms(OLD, NEW))
    rotator.rotate_master_keys(pe.KmsConnectionConfig(), str(path), double_wrapping=double_wrapping)
    assert json.loads(_sidecar(path)["columnKey0"])["doubleWrapping"] is double_wrapping
    assert _read_ours(path, NEW) == TABLE.to_pylist()


@pytest.mark.parametrize("kind", ["pyarrow", "fsspec"])
def test_external_key_material_on_a_filesystem(tmp_path, kind):
    if kind == "pyarrow":
        filesystem, folder = pafs.SubTreeFileSystem(str(tmp_path), pafs.LocalFileSystem()), "sub"
    else:
        fsspec = pytest.importorskip("fsspec")
        filesystem, folder = fsspec.filesystem("memory"), f"/rotation-{tmp_path.name}"
    (tmp_path / "sub").mkdir()
    path = f"{folder}/data.parquet"
    kms = InMemoryKms(OLD)
    factory = CryptoFactory(kms)
    props = factory.file_encryption_properties(
        KmsConnectionConfig(), EncryptionConfiguration("kf", {"kc1": ["a"]}, internal_key_material=False),
        parquet_file_path=path, filesystem=filesystem)
    pc.write_table(TABLE, path, encryption=props, filesystem=filesystem)
    sidecar = f"{folder}/_KEY_MATERIAL_FOR_data.parquet.json"
    assert json.loads(_read_from(filesystem, sidecar))["footerKey"]
    kms.start_key_rotation(NEW)
    factory.rotate_master_keys(KmsConnectionConfig(), path, filesystem)
    kms.finish_key_rotation()
    decryption = CryptoFactory(InMemoryKms(NEW)).file_decryption_properties(
        KmsConnectionConfig(), parquet_file_path=path, filesystem=filesystem)
    assert pc.read_table(path, filesystem=filesystem, decryption=decryption).to_pylist() == TABLE.to_pylist()
    # the factory itself as decryption= finds the sidecar on the file's filesystem
    read = pc.ParquetFile(path, filesystem=filesystem, decryption=CryptoFactory(InMemoryKms(NEW)))
    assert read.read().to_pylist() == TABLE.to_pylist()


def _read_from(filesystem, path):
    if isinstance(filesystem, pafs.FileSystem):
        with filesystem.open_input_stream(path) as handle:
            return handle.read()
    with filesystem.open(path, "rb") as handle:
        return handle.read()


class _Recording(KmsClient):
    def __init__(self, config, seen):
        seen.append((config.kms_instance_id, config.kms_instance_url))

    def wrap_key(self, key, master_key_id):
        return base64.b64encode(key).decode()

    def unwrap_key(self, wrapped, master_key_id):
        return base64.b64decode(wrapped)


@pytest.mark.parametrize("read_kms_url", [None, False, True])
def test_the_kms_url_of_the_key_material_is_used_only_when_allowed(read_kms_url):
    """As pyarrow: a reader's config without a KMS URL takes the instance id of
    the footer key material, and its URL only with read_kms_url (else a file
    could send the access token where it likes)."""
    seen: list[tuple[str, str]] = []
    factory = CryptoFactory(lambda config: _Recording(config, seen))
    props = factory.file_encryption_properties(
        KmsConnectionConfig("inst-A", "https://kms-a"), EncryptionConfiguration("kf", uniform_encryption=True))
    seen.clear()
    reader = CryptoFactory(lambda config: _Recording(config, seen)).file_decryption_properties(
        KmsConnectionConfig(), DecryptionConfiguration(read_kms_url=read_kms_url))
    assert reader.footer_key_for(props.footer_key_metadata) == props.footer_key
    assert seen == [("inst-A", "https://kms-a" if read_kms_url else "")]


def test_refresh_key_access_token():
    config = KmsConnectionConfig(key_access_token="t1")
    config.refresh_key_access_token("t2")
    assert config.key_access_token == "t2"
