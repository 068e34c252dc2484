"""Files the writer encrypts (``write_table(..., encryption=...)``).

pyarrow is the oracle: its CryptoFactory, with a KMS client written here
that wraps keys as parquet-java's in-memory KMS does, reads what our
CryptoFactory encrypts (both algorithms, both footer modes, single and
double wrapping, v1 pages and v2 pages in Arrow's layout); its direct-key
reader opens our uniformly encrypted files. Every module is checked to be
encrypted under its own AAD (page indexes and bloom filters decrypt to what
the plaintext writer stores), and tampering with any of them is detected.
"""

from __future__ import annotations

import io
import os
import struct
import zlib

import pyarrow as pa
import pyarrow.parquet as pq
import pyarrow.parquet.encryption as pe
import pytest

import parquet_codec as pc
from parquet_codec.bloom import Sbbf
from parquet_codec.crypto import (
    CryptoFactory,
    FileDecryptionProperties,
    FileEncryptionProperties,
    InMemoryKms,
)
from parquet_codec.errors import DecryptionError, EncryptionError
from parquet_codec.format.ttypes import ColumnIndex, OffsetIndex, PageType
from parquet_codec.page import iter_pages
from parquet_codec.reader import ParquetFile
from parquet_codec.thrift_io import deserialize, serialize
from tests.crypto.pyarrow_kms import gcm_kms

KF, KA, KC = b"0123456789012345", b"1234567890123450", b"123456789012345678901234"
MASTER = {"kf": KF, "kc1": KA, "kc2": b"1234567890123451"}
TABLE = pa.table({
    "a": pa.array(range(1200), pa.int64()),
    "b": [f"s{i % 7}" for i in range(1200)],
    "c": [None if i % 3 == 0 else i * 1.5 for i in range(1200)],
    "d": [[i, i + 1] if i % 5 else None for i in range(1200)],
})
OPTIONS = {"row_group_size": 500, "data_page_size": 1024, "write_page_checksum": True,
           "bloom_filter_options": {"a": {"ndv": 500}, "b": True, "c": {"fpp": 0.01}}}


def _write(encryption, table: pa.Table = TABLE, **options) -> bytes:
    sink = io.BytesIO()
    pc.write_table(table, sink, encryption=encryption, **{**OPTIONS, **options})
    return sink.getvalue()


def _pyarrow_decryption():
    return pe.CryptoFactory(gcm_kms(MASTER)).file_decryption_properties(pe.KmsConnectionConfig())


@pytest.mark.parametrize("version", ["1.0", "2.0"])
@pytest.mark.parametrize("algorithm", ["AES_GCM_V1", "AES_GCM_CTR_V1"])
@pytest.mark.parametrize("plaintext_footer", [False, True])
@pytest.mark.parametrize("double_wrapping", [True, False])
def test_pyarrow_reads_what_we_write(version, algorithm, plaintext_footer, double_wrapping):
    ours = CryptoFactory(InMemoryKms(MASTER))
    props = ours.encryption_properties("kf", "kc1:a,d.list.element;kc2:c", plaintext_footer=plaintext_footer,
                                       algorithm=algorithm, double_wrapping=double_wrapping,
                                       data_page_v2_layout="arrow")
    data = _write(props, data_page_version=version)
    assert data[:4] == data[-4:] == (b"PAR1" if plaintext_footer else b"PARE")
    assert pq.read_table(pa.BufferReader(data), decryption_properties=_pyarrow_decryption()).equals(TABLE)
    assert pc.read_table(data, decryption=ours).to_arrow().equals(TABLE)
    if plaintext_footer:  # unencrypted columns stay readable without keys
        assert pq.read_table(pa.BufferReader(data), columns=["b"]).equals(TABLE.select(["b"]))
        assert pc.read_table(data, ["b"]).to_arrow().equals(TABLE.select(["b"]))


@pytest.mark.parametrize("algorithm", ["AES_GCM_V1", "AES_GCM_CTR_V1"])
@pytest.mark.parametrize("store_aad_prefix", [True, False])
def test_pyarrow_direct_keys_read_uniform_encryption(algorithm, store_aad_prefix):
    props = FileEncryptionProperties(KF, algorithm=algorithm, aad_prefix=b"part-7", store_aad_prefix=store_aad_prefix)
    data = _write(props)
    decryption = pe.create_decryption_properties(KF, aad_prefix=None if store_aad_prefix else b"part-7")
    assert pq.read_table(pa.BufferReader(data), decryption_properties=decryption).equals(TABLE)
    assert pc.read_table(data, decryption=FileDecryptionProperties(KF, aad_prefix=b"part-7")).to_arrow().equals(TABLE)
    with pytest.raises(DecryptionError):
        pc.read_table(data, decryption=FileDecryptionProperties(KF, aad_prefix=b"part-8"))


def test_v2_layouts():
    """parquet-java's layout by default (levels in plaintext before the encrypted values),
    which Arrow C++ cannot read; Arrow's (the whole body encrypted) by option."""
    table = pa.table({"x": pa.array([None if i % 3 == 0 else i for i in range(1000)], pa.int64())})
    for layout in ("parquet-java", "arrow"):
        props = FileEncryptionProperties(KF, **({} if layout == "parquet-java" else {"data_page_v2_layout": layout}))
        data = _write(props, table, data_page_version="2.0", bloom_filter_options=None)
        assert pc.read_table(data, decryption=FileDecryptionProperties(KF)).to_arrow().equals(table)
        pages = list(_encrypted_pages(data, FileDecryptionProperties(KF)))
        assert any(header.type == PageType.DATA_PAGE_V2 for _, header, _ in pages)
        for _, header, body in pages:
            if header.type != PageType.DATA_PAGE_V2:
                continue
            sub = header.data_page_header_v2
            start = sub.definition_levels_byte_length if layout == "parquet-java" else 0
            assert start > 0 or layout == "arrow"
            assert struct.unpack_from("<I", body, start)[0] == len(body) - start - 4  # the encrypted module
        if layout == "parquet-java":
            with pytest.raises(OSError):
                pq.read_table(pa.BufferReader(data), decryption_properties=pe.create_decryption_properties(KF))


def _encrypted_pages(data: bytes, decryption: FileDecryptionProperties, rg: int = 0, column: int = 0):
    """(offset, header, stored body) of every page of one encrypted chunk, and checks its CRC."""
    pf = ParquetFile(data, decryption=decryption)
    chunk = pf.metadata.row_group(rg).columns[column]
    decryptor = pf.metadata.decryptor.column(rg, rg, column, chunk, pf.schema.leaves[column].dotted_path)
    meta = decryptor.metadata
    start = meta.dictionary_page_offset or meta.data_page_offset
    for page in iter_pages(memoryview(data)[start : start + meta.total_compressed_size], start, meta.num_values,
                           decryptor):
        yield page.offset, page.header, bytes(page.body)


# ---------------------------------------------------------------- modules and AADs


COLUMN_KEYS = {"a": KA, "d.list.element": (KC, b"kc")}


def _column_key_file(plaintext_footer: bool) -> tuple[bytes, FileDecryptionProperties]:
    props = FileEncryptionProperties(KF, b"kf", column_keys=COLUMN_KEYS, plaintext_footer=plaintext_footer)
    return _write(props), FileDecryptionProperties(KF, {"a": KA, "d.list.element": KC})


@pytest.mark.parametrize("plaintext_footer", [False, True])
def test_indexes_and_bloom_filters_encrypted_per_module(plaintext_footer):
    data, decryption = _column_key_file(plaintext_footer)
    plain = ParquetFile(_write(None))
    pf = ParquetFile(data, decryption=decryption)
    assert pf.read().to_arrow().equals(TABLE)
    groups = pf.metadata.to_thrift().row_groups if plaintext_footer else None
    for rg in range(pf.num_row_groups):
        group = pf.metadata.row_group(rg)
        assert group.ordinal == rg
        for leaf in pf.schema.leaves:
            chunk = group.columns[leaf.column_index]
            decryptor = pf.metadata.decryptor.column(rg, rg, leaf.column_index, chunk, leaf.dotted_path)
            if leaf.dotted_path not in COLUMN_KEYS:  # plaintext column: its indexes are plaintext
                assert decryptor is None
                assert pf.column_index(rg, leaf.dotted_path) == plain.column_index(rg, leaf.dotted_path)
                continue
            _check_encrypted_chunk(data, plain, rg, leaf, chunk, decryptor)
            if groups is not None:  # legacy readers see a redacted meta_data
                redacted = groups[rg].columns[leaf.column_index]
                assert redacted.meta_data.statistics is None and redacted.meta_data.size_statistics is None
                assert redacted.encrypted_column_metadata is not None


def _check_encrypted_chunk(data: bytes, plain: ParquetFile, rg: int, leaf, chunk, decryptor) -> None:
    read = lambda offset, length: data[offset : offset + length]  # noqa: E731
    column_index = deserialize(ColumnIndex, decryptor.decrypt_column_index(
        read(chunk.column_index_offset, chunk.column_index_length)))[0]
    assert column_index == plain.column_index(rg, leaf.dotted_path)
    offset_index = deserialize(OffsetIndex, decryptor.decrypt_offset_index(
        read(chunk.offset_index_offset, chunk.offset_index_length)))[0]
    plain_rows = [loc.first_row_index for loc in plain.offset_index(rg, leaf.dotted_path).page_locations]
    assert [loc.first_row_index for loc in offset_index.page_locations] == plain_rows
    meta = decryptor.metadata
    start = meta.dictionary_page_offset or meta.data_page_offset
    pages = list(iter_pages(memoryview(data)[start : start + meta.total_compressed_size], start, meta.num_values,
                            decryptor))
    data_pages = [p for p in pages if p.type != PageType.DICTIONARY_PAGE]
    ends = [p.offset for p in pages[1:]] + [start + meta.total_compressed_size]
    sizes = {p.offset: end - p.offset for p, end in zip(pages, ends, strict=True)}
    assert [(loc.offset, loc.compressed_page_size) for loc in offset_index.page_locations] == [
        (p.offset, sizes[p.offset]) for p in data_pages]
    for page in pages:  # CRC over the ciphertext
        assert page.header.crc & 0xFFFFFFFF == zlib.crc32(page.body)
    if meta.bloom_filter_offset is not None:
        stored = read(meta.bloom_filter_offset, meta.bloom_filter_length)
        _, bitset, end = decryptor.read_bloom_filter(stored)
        assert end == meta.bloom_filter_length
        assert Sbbf.from_bitset(bitset) == plain.bloom_filter(rg, leaf.dotted_path)


@pytest.mark.parametrize("column_keys", [{"s": KA}, None])
def test_large_encrypted_column_metadata(column_keys):
    """Column metadata bigger than the modules the cipher writes in place (long string
    bounds) is still stored as bytes; a plaintext footer encrypts it for footer-key columns too."""
    table = pa.table({"s": ["x" * 5000 + str(i) for i in range(3)]})
    data = _write(FileEncryptionProperties(KF, column_keys=column_keys, plaintext_footer=True), table,
                  bloom_filter_options=None)
    decryption = FileDecryptionProperties(KF, column_keys)
    footer = ParquetFile(data, decryption=decryption).metadata.row_group(0)
    assert len(footer.columns[0].encrypted_column_metadata) > 8192
    assert pc.read_table(data, decryption=decryption).to_arrow().equals(table)
    if column_keys is None:  # pyarrow's direct-key API takes the footer key only
        assert pq.read_table(pa.BufferReader(data),
                             decryption_properties=pe.create_decryption_properties(KF)).equals(table)


def test_encrypted_footer_hides_column_key_metadata():
    data, decryption = _column_key_file(False)
    footer = ParquetFile(data, decryption=decryption).metadata.to_thrift()
    for chunk, path in zip(footer.row_groups[0].columns, ["a", "b", "c", "d.list.element"], strict=True):
        assert (chunk.meta_data is None) == (path in COLUMN_KEYS)
        assert (chunk.encrypted_column_metadata is not None) == (path in COLUMN_KEYS)
        assert (chunk.crypto_metadata is not None) == (path in COLUMN_KEYS)


# ---------------------------------------------------------------- tampering


def _flip(data: bytes, pos: int) -> bytes:
    return data[:pos] + bytes([data[pos] ^ 0x01]) + data[pos + 1 :]


def test_tampered_index_and_bloom_modules_detected():
    data, decryption = _column_key_file(False)
    pf = ParquetFile(data, decryption=decryption)
    chunk = pf.metadata.row_group(1).columns[0]
    decryptor = pf.metadata.decryptor.column(1, 1, 0, chunk, "a")
    meta = decryptor.metadata
    modules = [(decryptor.decrypt_column_index, chunk.column_index_offset, chunk.column_index_length, "column index"),
               (decryptor.decrypt_offset_index, chunk.offset_index_offset, chunk.offset_index_length, "offset index"),
               (decryptor.read_bloom_filter, meta.bloom_filter_offset, meta.bloom_filter_length, "bloom filter")]
    for decrypt, offset, length, label in modules:
        stored = data[offset : offset + length]
        decrypt(stored)
        for pos in (4, length // 2, length - 1):  # nonce, ciphertext, tag (the bitset module for bloom filters)
            with pytest.raises(DecryptionError, match=label):
                decrypt(_flip(stored, pos))
    # A module moved to another column chunk fails its AAD.
    other = pf.metadata.decryptor.column(0, 0, 0, pf.metadata.row_group(0).columns[0], "a")
    with pytest.raises(DecryptionError, match="column index"):
        other.decrypt_column_index(data[chunk.column_index_offset : chunk.column_index_offset
                                        + chunk.column_index_length])


def test_tampered_pages_and_footer_detected():
    data, decryption = _column_key_file(True)
    page_spans = []
    for rg in (0, 2):
        for offset, header, body in _encrypted_pages(data, decryption, rg, 0):
            page_spans.append((offset, len(serialize(header)), len(body)))
    pf = ParquetFile(data, decryption=decryption)
    for offset, _, _ in page_spans[:: max(1, len(page_spans) // 6)]:
        for pos in (offset + 6, offset + 30):  # inside the header module, then inside the page module
            with pytest.raises(DecryptionError):
                pc.read_table(_flip(data, pos), decryption=decryption)
    footer_length = struct.unpack("<I", data[-8:-4])[0]
    with pytest.raises(DecryptionError, match="signature|footer"):
        pc.read_table(_flip(data, len(data) - 8 - footer_length // 2), decryption=decryption)
    assert pf.metadata.num_rows == TABLE.num_rows
    encrypted_footer, _ = _column_key_file(False)
    with pytest.raises(DecryptionError, match="footer"):
        pc.read_table(_flip(encrypted_footer, len(encrypted_footer) - 20), decryption=decryption)


def test_wrong_keys_raise_clear_errors():
    data, _ = _column_key_file(False)
    with pytest.raises(DecryptionError, match="footer"):
        pc.read_table(data, decryption=FileDecryptionProperties(KA))
    with pytest.raises(DecryptionError):
        pc.read_table(data, decryption=FileDecryptionProperties(KF, {"a": KF, "d.list.element": KC}))


# ---------------------------------------------------------------- options and key material


def test_bad_encryption_options_fail_before_writing(tmp_path):
    target = tmp_path / "x.parquet"
    with pytest.raises(EncryptionError, match="not in the schema"):
        pc.write_table(TABLE, target, encryption=FileEncryptionProperties(KF, column_keys={"zz": KA}))
    with pytest.raises(EncryptionError, match="FileEncryptionProperties"):
        pc.write_table(TABLE, target, encryption={"footer_key": KF})
    assert not target.exists()


def test_pyarrow_encryption_properties_are_refused_naming_ours(tmp_path):
    """pyarrow's own FileEncryptionProperties carry no keys Python can read: the
    error says so and names this package's properties instead."""
    target = tmp_path / "x.parquet"
    theirs = pe.CryptoFactory(gcm_kms(MASTER)).file_encryption_properties(
        pe.KmsConnectionConfig(), pe.EncryptionConfiguration(footer_key="kf", column_keys={"kc1": ["a"]}))
    with pytest.raises(EncryptionError) as info:
        pc.write_table(TABLE, target, encryption=theirs)
    message = str(info.value)
    assert "pyarrow" in message and "parquet_codec.crypto.FileEncryptionProperties" in message
    assert "CryptoFactory" in message and "not FileEncryptionProperties" not in message
    assert not target.exists()


def test_external_key_material_written_on_commit(tmp_path):
    target = tmp_path / "data.parquet"
    sidecar = tmp_path / "_KEY_MATERIAL_FOR_data.parquet.json"
    factory = CryptoFactory(InMemoryKms(MASTER))
    props = factory.encryption_properties("kf", "kc1:a;kc2:c", internal_key_material=False, file_path=target)
    assert not sidecar.exists()
    with pytest.raises(RuntimeError), pc.ParquetWriter(target, pc.Table.from_arrow(TABLE).schema,
                                                       encryption=props) as writer:
        writer.write_table(TABLE)
        raise RuntimeError("abandon the file")
    assert not target.exists() and not sidecar.exists()
    pc.write_table(TABLE, target, encryption=props)
    assert sidecar.exists()
    assert sorted(os.listdir(tmp_path)) == ["_KEY_MATERIAL_FOR_data.parquet.json", "data.parquet"]  # no temporaries
    assert pc.read_table(target, decryption=factory).to_arrow().equals(TABLE)
    moved = tmp_path / "elsewhere.parquet"  # the sidecar follows the file actually written
    pc.write_table(TABLE, moved, encryption=props)
    assert pc.read_table(moved, decryption=factory).to_arrow().equals(TABLE)


def test_pyarrow_parameter_names_for_the_properties():
    key = bytes(range(16))
    out = io.BytesIO()
    pc.write_table({"x": [1, 2]}, out, encryption_properties=FileEncryptionProperties(key))
    assert out.getvalue()[-4:] == b"PARE"
    read = pc.read_table(io.BytesIO(out.getvalue()), decryption_properties=FileDecryptionProperties(footer_key=key))
    assert read.to_pydict() == {"x": [1, 2]}
