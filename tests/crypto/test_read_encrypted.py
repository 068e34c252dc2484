"""Reading encrypted files: the parquet-testing corpus, pyarrow's files, tampering.

pyarrow is the oracle: it decrypts the uniform-key corpus files with direct
keys, and files written by its CryptoFactory (with a test KMS client that
wraps keys like parquet-java's in-memory KMS). Files encrypted by our
writer-side API (through tests/crypto/reencrypt.py until the writer lands)
are read back by pyarrow.
"""

from __future__ import annotations

import io
import struct

import pyarrow as pa
import pyarrow.parquet as pq
import pyarrow.parquet.encryption as pe
import pytest
import xxhash

import parquet_codec as pc
from parquet_codec.crypto import (
    CryptoFactory,
    FileDecryptionProperties,
    FileEncryptionProperties,
    InMemoryKms,
)
from parquet_codec.errors import DecryptionError
from parquet_codec.format.ttypes import ColumnIndex, OffsetIndex
from parquet_codec.thrift_io import deserialize
from tests.conftest import CORPUS_DATA, requires_corpus
from tests.crypto.pyarrow_kms import gcm_kms
from tests.crypto.reencrypt import reencrypt

KF = b"0123456789012345"
KC = {"double_field": b"1234567890123450", "float_field": b"1234567890123451"}
MASTER = {"kf": KF, "kc1": KC["double_field"], "kc2": KC["float_field"]}
KF256 = b"01234567890123456789012345678901"
_COLS256 = ["double_field", "float_field", "boolean_field", "int32_field", "ba_field", "flba_field",
            "int64_field.list.element", "int96_field"]
KC256 = {c: f"1234567890123456789012345678901{n}".encode() for n, c in enumerate(_COLS256, start=2)}
AES256 = CORPUS_DATA / "aes256"
SAME_ROWS = ["encrypt_columns_and_footer", "encrypt_columns_and_footer_aad", "encrypt_columns_and_footer_ctr",
             "encrypt_columns_and_footer_disable_aad_storage", "encrypt_columns_plaintext_footer",
             "uniform_encryption"]

pytestmark = requires_corpus()


def _keys(name: str, bits: int = 128, aad: bool = True) -> FileDecryptionProperties:
    prefix = b"tester" if aad and "aad" in name else None
    if bits == 256:
        return FileDecryptionProperties(KF256, KC256, aad_prefix=prefix)
    return FileDecryptionProperties(KF, KC, aad_prefix=prefix)


def _path(name: str, bits: int = 128):
    return (AES256 if bits == 256 else CORPUS_DATA) / f"{name}.parquet.encrypted"


def assert_same(ours: pc.Table, expected: pa.Table) -> None:
    got = ours.to_arrow()
    assert got.column_names == expected.column_names
    for name in expected.column_names:
        assert got[name].equals(expected[name]), name


@pytest.fixture(scope="module", params=[128, 256])
def reference(request):
    """The uniform-key file as pyarrow decrypts it (its direct-key API takes one key)."""
    bits = request.param
    key = KF256 if bits == 256 else KF
    table = pq.read_table(_path("uniform_encryption", bits), decryption_properties=pe.create_decryption_properties(key),
                          coerce_int96_timestamp_unit="us")  # INT96 values here overflow nanoseconds
    return bits, table


@pytest.mark.parametrize("name", SAME_ROWS)
def test_corpus_files_hold_the_rows_pyarrow_reads(reference, name):
    bits, expected = reference
    path = _path(name, bits)
    if not path.exists():
        pytest.skip(f"no {bits}-bit {name}")
    assert_same(pc.read_table(path, decryption=_keys(name, bits)), expected)


def test_keys_found_through_key_metadata(reference):
    bits, expected = reference
    ids = {b"kf": KF, b"kc1": KC["double_field"], b"kc2": KC["float_field"]}
    if bits == 256:
        ids = {b"kf": KF256, **{f"kc{i}".encode(): KC256[c] for i, c in enumerate(_COLS256, start=1)}}
    props = FileDecryptionProperties(key_retriever=ids.__getitem__)
    assert_same(pc.read_table(_path("encrypt_columns_and_footer", bits), decryption=props), expected)


def test_external_key_material_from_parquet_java():
    path = CORPUS_DATA / "external_key_material_java.parquet.encrypted"
    table = pc.read_table(path, decryption=CryptoFactory(InMemoryKms(MASTER)))
    rows = table.to_pylist()
    assert [r["integers"] for r in rows] == list(range(100))
    assert rows[1]["strings"] == "b1"
    with pytest.raises(DecryptionError, match="stored outside the file"):
        pc.read_table(path.read_bytes(), decryption=CryptoFactory(InMemoryKms(MASTER)))


def _bloom_contains(bitset: bytes, value_hash: int) -> bool:
    """Split-block bloom filter check (File Format: "Bloom Filter")."""
    salt = (0x47B6137B, 0x44974D91, 0x8824AD5B, 0xA2B7289D, 0x705495C7, 0x2DF1424B, 0x9EFC4947, 0x5C6BFB31)
    blocks = len(bitset) // 32
    block = ((value_hash >> 32) * blocks) >> 32
    words = struct.unpack_from("<8I", bitset, block * 32)
    low = value_hash & 0xFFFFFFFF
    return all(words[i] >> (((low * salt[i]) & 0xFFFFFFFF) >> 27) & 1 for i in range(8))


def test_bloom_filter_file_filters_hold_the_decrypted_values():
    path = CORPUS_DATA / "encrypt_columns_and_footer_bloom_filter.parquet.encrypted"
    data = path.read_bytes()
    with pc.ParquetFile(path, decryption=_keys(path.name)) as pf:
        rows = pf.read().to_pylist()
        group = pf.metadata.row_group(0)
        checked = 0
        for leaf, fmt in ((0, "<d"), (1, "<f")):
            chunk, name = group.columns[leaf], pf.schema.leaves[leaf].dotted_path
            decryptor = pf.metadata.decryptor.column(0, group.ordinal, leaf, chunk, name)
            meta = decryptor.metadata
            _, bitset, end = decryptor.read_bloom_filter(data, meta.bloom_filter_offset)
            assert end - meta.bloom_filter_offset == meta.bloom_filter_length
            for row in rows:
                assert _bloom_contains(bitset, xxhash.xxh64_intdigest(struct.pack(fmt, row[name])))
                checked += 1
            # Column and offset indexes of encrypted columns are modules 6 and 7.
            index = decryptor.decrypt_column_index(data[chunk.column_index_offset:][:chunk.column_index_length])
            null_pages = deserialize(ColumnIndex, index)[0].null_pages
            offsets = decryptor.decrypt_offset_index(data[chunk.offset_index_offset:][:chunk.offset_index_length])
            locations = deserialize(OffsetIndex, offsets)[0].page_locations
            assert len(null_pages) == len(locations) > 1 and not any(null_pages)
            assert locations[0].first_row_index == 0
    assert checked == 4000
    assert rows[1999] == {"double_field": 1999.5, "float_field": 1999.25, "int32_field": 1999, "name": "name_1999"}


# Keys, AAD prefixes and legacy readers ------------------------------------------
def test_aad_prefix_must_be_supplied_when_not_stored():
    path = _path("encrypt_columns_and_footer_disable_aad_storage")
    with pytest.raises(DecryptionError, match="supply aad_prefix"):
        pc.read_table(path, decryption=FileDecryptionProperties(KF, KC))
    with pytest.raises(DecryptionError, match="footer failed authentication"):
        pc.read_table(path, decryption=FileDecryptionProperties(KF, KC, aad_prefix=b"wrong"))
    with pytest.raises(DecryptionError, match="differs from the one stored"):
        pc.read_table(_path("encrypt_columns_and_footer_aad"), decryption=FileDecryptionProperties(KF, KC, b"x"))


def test_wrong_or_missing_keys():
    path = _path("encrypt_columns_and_footer")
    with pytest.raises(DecryptionError, match="footer failed authentication"):
        pc.read_table(path, decryption=FileDecryptionProperties(KC["float_field"], KC))
    wrong = FileDecryptionProperties(KF, {"double_field": KF, "float_field": KC["float_field"]})
    with pytest.raises(DecryptionError, match="column metadata failed authentication") as info:
        pc.read_table(path, decryption=wrong)
    assert info.value.context["column"] == "double_field" and info.value.context["row_group"] == 0
    only_footer = FileDecryptionProperties(KF)
    assert pc.read_table(path, ["int32_field"], decryption=only_footer).num_rows == 50
    with pytest.raises(DecryptionError, match="no key for the column 'float_field'"):
        pc.read_table(path, ["float_field"], decryption=only_footer)
    with pytest.raises(DecryptionError, match="encrypted footer"):  # as a column without its key
        pc.read_table(path)


def test_plaintext_footer_file_for_legacy_readers(reference):
    bits, expected = reference
    path = _path("encrypt_columns_plaintext_footer", bits)
    if bits == 128:  # the 256-bit twin encrypts every column with its own key
        plain = ["boolean_field", "int32_field", "ba_field"]
        assert_same(pc.read_table(path, plain), expected.select(plain))
    with pytest.raises(DecryptionError, match="decryption properties are required") as info:
        pc.read_table(path, ["double_field"])
    assert info.value.context["column"] == "double_field"
    with pytest.raises(DecryptionError, match="signature does not verify"):
        pc.read_table(path, decryption=FileDecryptionProperties(bytes(len(KF256 if bits == 256 else KF))))


# Tampering -------------------------------------------------------------------------
def _flip(data: bytes, pos: int) -> bytes:
    out = bytearray(data)
    out[pos] ^= 0x40
    return bytes(out)


def _page_module_offsets(path) -> list[tuple[int, int]]:
    """(start, end) of every stored page header and page module of the file."""
    data = path.read_bytes()
    spans = []
    with pc.ParquetFile(path, decryption=_keys(path.name)) as pf:
        group = pf.metadata.row_group(0)
        for i, chunk in enumerate(group.columns):
            decryptor = pf.metadata.decryptor.column(0, group.ordinal, i, chunk, pf.schema.leaves[i].dotted_path)
            if decryptor is None:
                continue
            meta = decryptor.metadata
            pos = meta.dictionary_page_offset or meta.data_page_offset
            end, ordinal = pos + meta.total_compressed_size, 0
            while pos < end:
                header, used = decryptor.read_page_header(memoryview(data), pos, ordinal)
                spans += [(pos, pos + used), (pos + used, pos + used + header.compressed_page_size)]
                pos += used + header.compressed_page_size
                ordinal += 1
    return spans


@pytest.mark.parametrize("name", ["uniform_encryption", "encrypt_columns_and_footer"])
def test_flipping_a_byte_of_any_page_module_is_detected(name, tmp_path):
    path = _path(name)
    data = path.read_bytes()
    spans = _page_module_offsets(path)
    assert len(spans) >= 8
    for start, end in spans:
        for pos in (start, start + 4, (start + end) // 2, end - 1):  # length, nonce, body, tag
            tampered = tmp_path / "t.parquet"
            tampered.write_bytes(_flip(data, pos))
            with pytest.raises(DecryptionError, match=r"page|encrypted") as info:
                pc.read_table(tampered, decryption=_keys(name))
            assert "column" in info.value.context, str(info.value)


def test_tampered_encrypted_footer():
    path = _path("encrypt_columns_and_footer")
    data = path.read_bytes()
    (length,) = struct.unpack("<I", data[-8:-4])
    with pytest.raises(DecryptionError, match="footer"):
        pc.read_table(_flip(data, len(data) - 8 - 20), decryption=_keys(path.name))
    assert length > 20


def test_tampered_plaintext_footer():
    path = _path("encrypt_columns_plaintext_footer")
    data = path.read_bytes()
    pos = data.rindex(b"parquet-cpp-arrow")
    with pytest.raises(DecryptionError, match="signature does not verify"):
        pc.read_table(_flip(data, pos), decryption=_keys(path.name))


def test_ctr_pages_are_not_authenticated_by_design():
    # AES_GCM_CTR_V1 (section 4.2.2): page bytes carry no tag. A flipped page
    # byte decrypts to different bytes; only decoding (or a CRC) may notice.
    path = _path("encrypt_columns_and_footer_ctr")
    spans = _page_module_offsets(path)
    start, end = spans[-1]  # the last page module of the last column
    tampered = _flip(path.read_bytes(), end - 1)
    try:
        pc.read_table(tampered, decryption=_keys(path.name))
    except DecryptionError:  # pragma: no cover - would mean CTR pages were authenticated
        pytest.fail("CTR page tampering cannot raise DecryptionError")
    except pc.ParquetError:
        pass


# Files pyarrow writes, files we encrypt ------------------------------------------------
TABLE = pa.table({
    "a": pa.array(range(1000), pa.int64()),
    "b": [f"s{i % 7}" for i in range(1000)],
    "c": [None if i % 3 == 0 else i * 1.5 for i in range(1000)],
    "d": [[i, i + 1] if i % 5 else None for i in range(1000)],
})


def _pyarrow_file(version: str, properties) -> bytes:
    sink = io.BytesIO()
    pq.write_table(TABLE, sink, data_page_version=version, row_group_size=400, data_page_size=1024,
                   encryption_properties=properties)
    return sink.getvalue()


@pytest.mark.parametrize("version", ["1.0", "2.0"])
@pytest.mark.parametrize("algorithm", ["AES_GCM_V1", "AES_GCM_CTR_V1"])
@pytest.mark.parametrize("plaintext_footer", [False, True])
@pytest.mark.parametrize("double_wrapping", [True, False])
def test_we_read_pyarrow_crypto_factory_files(version, algorithm, plaintext_footer, double_wrapping):
    config = pe.EncryptionConfiguration(
        footer_key="kf", column_keys={"kc1": ["a", "d.list.element"], "kc2": ["c"]},
        encryption_algorithm=algorithm, plaintext_footer=plaintext_footer, double_wrapping=double_wrapping)
    factory = pe.CryptoFactory(gcm_kms(MASTER))
    data = _pyarrow_file(version, factory.file_encryption_properties(pe.KmsConnectionConfig(), config))
    assert pc.read_table(data, decryption=CryptoFactory(InMemoryKms(MASTER))).to_arrow().equals(TABLE)


@pytest.mark.parametrize("algorithm", ["AES_GCM_V1", "AES_GCM_CTR_V1"])
def test_we_read_pyarrow_direct_key_files(algorithm):
    props = pe.create_encryption_properties(KF, aad_prefix=b"part-0", store_aad_prefix=False,
                                            encryption_algorithm=algorithm)
    data = _pyarrow_file("2.0", props)
    assert pc.read_table(data, decryption=FileDecryptionProperties(KF, aad_prefix=b"part-0")).to_arrow().equals(TABLE)
    with pytest.raises(DecryptionError, match="footer failed authentication"):
        pc.read_table(data, decryption=FileDecryptionProperties(KF, aad_prefix=b"part-1"))


def _plain(version: str, **options) -> bytes:
    sink = io.BytesIO()
    pq.write_table(TABLE, sink, data_page_version=version, row_group_size=400, data_page_size=1024,
                   write_page_index=False, **options)
    return sink.getvalue()


@pytest.mark.parametrize("version", ["1.0", "2.0"])
@pytest.mark.parametrize("algorithm", ["AES_GCM_V1", "AES_GCM_CTR_V1"])
@pytest.mark.parametrize("plaintext_footer", [False, True])
def test_pyarrow_reads_what_we_encrypt(version, algorithm, plaintext_footer):
    ours = CryptoFactory(InMemoryKms(MASTER))
    props = ours.encryption_properties("kf", "kc1:a,d.list.element;kc2:c", plaintext_footer=plaintext_footer,
                                       algorithm=algorithm, data_page_v2_layout="arrow")
    data = reencrypt(_plain(version), props)
    decryption = pe.CryptoFactory(gcm_kms(MASTER)).file_decryption_properties(pe.KmsConnectionConfig())
    assert pq.read_table(pa.BufferReader(data), decryption_properties=decryption).equals(TABLE)
    assert pc.read_table(data, decryption=ours).to_arrow().equals(TABLE)
    if plaintext_footer:  # unencrypted columns stay readable without keys
        assert pq.read_table(pa.BufferReader(data), columns=["b"]).equals(TABLE.select(["b"]))
        assert pc.read_table(data, ["b"]).to_arrow().equals(TABLE.select(["b"]))


@pytest.mark.parametrize("layout", ["parquet-java", "arrow"])
def test_both_encrypted_v2_layouts(layout):
    props = FileEncryptionProperties(KF, column_keys={"a": KC["float_field"], "c": (KC["double_field"], "kc1")},
                                     data_page_v2_layout=layout)
    data = reencrypt(_plain("2.0"), props)
    decryption = FileDecryptionProperties(KF, {"a": KC["float_field"], "c": KC["double_field"]})
    assert pc.read_table(data, decryption=decryption).to_arrow().equals(TABLE)


def _two_identical_row_groups() -> tuple[bytes, FileEncryptionProperties]:
    table = pa.table({"x": pa.array([7] * 800, pa.int64())})
    sink = io.BytesIO()
    pq.write_table(table, sink, row_group_size=400, data_page_size=256, write_batch_size=64, use_dictionary=False,
                   compression="none", write_page_index=False, write_statistics=False)
    props = FileEncryptionProperties(KF, plaintext_footer=True)
    return reencrypt(sink.getvalue(), props), props


def test_swapped_pages_and_row_groups_are_detected():
    data, _ = _two_identical_row_groups()
    decryption = FileDecryptionProperties(KF)
    assert pc.read_table(data, decryption=decryption).num_rows == 800
    meta = pc.ParquetFile(data, decryption=decryption).metadata
    first, second = (meta.row_group(i).columns[0].meta_data for i in range(2))
    size = first.total_compressed_size
    assert size == second.total_compressed_size
    a, b = first.data_page_offset, second.data_page_offset
    swapped = data[:a] + data[b : b + size] + data[a + size : b] + data[a : a + size] + data[b + size :]
    with pytest.raises(DecryptionError, match="data page header failed authentication") as info:
        pc.read_table(swapped, decryption=decryption)
    assert info.value.context["row_group"] == 0 and info.value.context["page"] == 0
    # Two pages of one chunk, same size: swap the (header, page) pairs.
    view, pos, spans = memoryview(data), a, []
    decryptor = pc.ParquetFile(data, decryption=decryption).metadata.decryptor
    column = decryptor.column(0, 0, 0, meta.row_group(0).columns[0], "x")
    for ordinal in range(2):
        header, used = column.read_page_header(view, pos, ordinal)
        spans.append((pos, pos + used + header.compressed_page_size))
        pos = spans[-1][1]
    (s0, e0), (s1, e1) = spans
    assert e0 - s0 == e1 - s1
    swapped = data[:s0] + data[s1:e1] + data[s0:e0] + data[e1:]
    with pytest.raises(DecryptionError, match="data page header failed authentication") as info:
        pc.read_table(swapped, decryption=decryption)
    assert info.value.context["page"] == 0
