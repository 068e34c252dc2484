"""Bloom filters and page indexes of encrypted columns through the public API:
``ParquetFile.bloom_filter`` / ``column_index`` / ``offset_index`` and the
filtered reads that prune with them (Encryption, section 4.4.2: ColumnIndex
is module 6, OffsetIndex 7, bloom filter header 8 and bitset 9, all GCM).

Oracles, none of them our own decryptor:
- parquet-java's corpus file with encrypted bloom filters, whose values
  follow a formula (row ``i``: double ``i + 0.5``, float ``i + 0.25``);
- pyarrow's encrypted page indexes, against the plaintext ones pyarrow writes
  for the same data and options;
- our writer's encrypted bloom filters and page indexes, against the same file
  written unencrypted.
"""

from __future__ import annotations

import io
import struct

import pyarrow as pa
import pyarrow.parquet as pq
import pyarrow.parquet.encryption as pe
import pytest

import parquet_codec as pc
from parquet_codec.crypto import (
    CryptoFactory,
    FileDecryptionProperties,
    FileEncryptionProperties,
    InMemoryKms,
)
from parquet_codec.errors import CorruptFileError, DecryptionError
from parquet_codec.format.ttypes import BoundaryOrder
from parquet_codec.reader import ParquetFile
from tests.conftest import CORPUS_DATA, requires_corpus
from tests.crypto.pyarrow_kms import gcm_kms

KF, KC1, KC2 = b"0123456789012345", b"1234567890123450", b"1234567890123451"
MASTER = {"kf": KF, "kc1": KC1, "kc2": KC2}
ALGORITHMS = ["AES_GCM_V1", "AES_GCM_CTR_V1"]
TABLE = pa.table({
    "a": pa.array(range(1200), pa.int64()),
    "b": [f"s{i % 7}" for i in range(1200)],
    "c": [None if i % 3 == 0 else i * 1.5 for i in range(1200)],
    "d": [[i, i + 1] if i % 5 else None for i in range(1200)],
})
LEAVES = ["a", "b", "c", "d.list.element"]
LAYOUT = {"row_group_size": 500, "data_page_size": 1024}
FILTERS = [[("a", ">=", 1130)], [("c", "<", 60.0)], [("a", "in", [3, 777])], [("b", "==", "s3"), ("a", "<", 300)]]


# ---------------------------------------------------------------- parquet-java's corpus file

BLOOM_FILE = CORPUS_DATA / "encrypt_columns_and_footer_bloom_filter.parquet.encrypted"
CORPUS_KEYS = FileDecryptionProperties(KF, {"double_field": KC1, "float_field": KC2})
FORMULA = {"double_field": (0.5, "<d"), "float_field": (0.25, "<f")}


@requires_corpus()
@pytest.mark.parametrize("column", sorted(FORMULA))
def test_corpus_bloom_filters_hold_every_value_and_few_others(column):
    shift, _ = FORMULA[column]
    with ParquetFile(BLOOM_FILE, decryption=CORPUS_KEYS) as pf:
        assert pf.num_rows == 2000
        bloom = pf.bloom_filter(0, column)
        assert all(bloom.might_contain(i + shift) for i in range(2000))
        absent = [i + shift + 0.125 for i in range(-5000, 15000)]
        rate = sum(map(bloom.might_contain, absent)) / len(absent)
        assert rate < 0.1, rate  # 2 KiB for 2,000 values: a few percent
        assert pf.bloom_filter(0, "int32_field") is None  # plaintext columns without filters


@requires_corpus()
@pytest.mark.parametrize("column", sorted(FORMULA))
def test_corpus_page_index_bounds_follow_the_values(column):
    shift, fmt = FORMULA[column]
    with ParquetFile(BLOOM_FILE, decryption=CORPUS_KEYS) as pf:
        offsets, index = pf.offset_index(0, column), pf.column_index(0, column)
    first = [loc.first_row_index for loc in offsets.page_locations]
    last = [row - 1 for row in first[1:]] + [1999]
    assert first[0] == 0 and len(first) > 1 and first == sorted(first)
    assert index.boundary_order == BoundaryOrder.ASCENDING and not any(index.null_pages)
    assert [struct.unpack(fmt, v)[0] for v in index.min_values] == [row + shift for row in first]
    assert [struct.unpack(fmt, v)[0] for v in index.max_values] == [row + shift for row in last]


@requires_corpus()
def test_corpus_filtered_reads_prune_by_page_index_and_bloom_filter():
    with ParquetFile(BLOOM_FILE, decryption=CORPUS_KEYS) as pf:
        plan = pf.plan([("double_field", "==", 1000.5)])
        double = next(c for c in plan.row_groups[0].columns if c.column == "double_field")
        assert plan.row_groups[0].skipped_by is None and double.pages_kept < double.pages
        assert pf.read(filters=[("double_field", "==", 1000.5)]).to_pylist() == [
            {"double_field": 1000.5, "float_field": 1000.25, "int32_field": 1000, "name": "name_1000"}]
        # Inside the statistics' range, absent: only the bloom filter can skip the row group.
        absent = [i + 0.75 for i in range(0, 2000, 97)]
        skipped = [pf.plan([("double_field", "==", v)]).row_groups[0].skipped_by for v in absent]
        assert skipped.count("bloom filter") > len(absent) * 0.8, skipped
        assert all(pf.read(filters=[("double_field", "==", v)]).num_rows == 0 for v in absent)
        rows = pf.read(["int32_field"], filters=[("float_field", ">", 1899.0)]).to_pylist()
    assert rows == [{"int32_field": i} for i in range(1899, 2000)]


# ---------------------------------------------------------------- pyarrow's encrypted page indexes


def _pyarrow_file(encryption, algorithm: str = "AES_GCM_V1", plaintext_footer: bool = False, uniform: bool = False
                  ) -> bytes:
    properties = None
    if encryption:
        keys = {} if uniform else {"column_keys": {"kc1": ["a", "d.list.element"], "kc2": ["c"]}}
        config = pe.EncryptionConfiguration(footer_key="kf", encryption_algorithm=algorithm,
                                            plaintext_footer=plaintext_footer, uniform_encryption=uniform, **keys)
        factory = pe.CryptoFactory(gcm_kms(MASTER))
        properties = factory.file_encryption_properties(pe.KmsConnectionConfig(), config)
    sink = io.BytesIO()
    pq.write_table(TABLE, sink, row_group_size=400, data_page_size=1024, write_batch_size=64, use_dictionary=["b"],
                   write_page_index=True, encryption_properties=properties)
    return sink.getvalue()


def _same_indexes(encrypted: ParquetFile, plain: ParquetFile) -> None:
    """Equal ColumnIndexes, OffsetIndexes describing the same pages (offsets and
    sizes differ by the encryption overhead), for every chunk."""
    assert encrypted.num_row_groups == plain.num_row_groups > 1
    for rg in range(plain.num_row_groups):
        for column in LEAVES:
            assert encrypted.column_index(rg, column) == plain.column_index(rg, column), (rg, column)
            mine, theirs = encrypted.offset_index(rg, column), plain.offset_index(rg, column)
            rows = [[loc.first_row_index for loc in index.page_locations] for index in (mine, theirs)]
            assert rows[0] == rows[1]
            assert mine.unencoded_byte_array_data_bytes == theirs.unencoded_byte_array_data_bytes
            # The encrypted pages tile the end of the chunk, as the decrypted metadata places it.
            meta = encrypted._column_meta(rg, encrypted.schema.leaf(column))
            ends = [loc.offset + loc.compressed_page_size for loc in mine.page_locations]
            assert [loc.offset for loc in mine.page_locations[1:]] == ends[:-1]
            start = meta.dictionary_page_offset or meta.data_page_offset
            assert ends[-1] == start + meta.total_compressed_size


def _same_filtered_reads(encrypted: ParquetFile, plain: ParquetFile) -> None:
    """Filtered reads agree with pyarrow's filter and prune the pages the plaintext file's indexes prune."""
    for filters in FILTERS:
        expected = pq.read_table(pa.BufferReader(_pyarrow_file(False)), filters=filters)
        assert encrypted.read(filters=filters).to_arrow().equals(expected), filters
        mine, theirs = encrypted.plan(filters), plain.plan(filters)
        assert [g.skipped_by for g in mine.row_groups] == [g.skipped_by for g in theirs.row_groups]
        kept = [[[(c.column, c.pages, c.pages_kept) for c in g.columns] for g in p.row_groups] for p in (mine, theirs)]
        assert kept[0] == kept[1], filters
    assert any(c.pages_kept < c.pages for g in encrypted.plan(FILTERS[0]).kept for c in g.columns)


@pytest.mark.parametrize("algorithm", ALGORITHMS)
@pytest.mark.parametrize("plaintext_footer", [False, True])
@pytest.mark.parametrize("uniform", [False, True])
def test_pyarrow_encrypted_page_indexes(algorithm, plaintext_footer, uniform):
    data = _pyarrow_file(True, algorithm, plaintext_footer, uniform)
    plain = ParquetFile(_pyarrow_file(False))
    with ParquetFile(data, decryption=CryptoFactory(InMemoryKms(MASTER))) as encrypted:
        assert encrypted.metadata.row_group(0).columns[0].crypto_metadata is not None
        _same_indexes(encrypted, plain)
        _same_filtered_reads(encrypted, plain)


# ---------------------------------------------------------------- our writer's encrypted modules

BLOOMS = {"a": {"ndv": 500}, "b": True, "c": {"fpp": 0.01}, "d.list.element": True}
COLUMN_KEYS = {"a": KC1, "c": (KC2, b"kc2"), "d.list.element": KC1}
# uniform: every column under the footer key; columns: "b" in plaintext; complete: "b" under the footer key.
MODES = ["uniform", "columns", "complete"]


def _ours(encryption: FileEncryptionProperties | None, version: str = "1.0") -> bytes:
    sink = io.BytesIO()
    pc.write_table(TABLE, sink, encryption=encryption, bloom_filter_options=BLOOMS, data_page_version=version,
                   **LAYOUT)
    return sink.getvalue()


def _our_keys(algorithm: str, plaintext_footer: bool, mode: str) -> tuple[FileEncryptionProperties,
                                                                             FileDecryptionProperties]:
    columns = None if mode == "uniform" else COLUMN_KEYS
    encryption = FileEncryptionProperties(KF, column_keys=columns, algorithm=algorithm,
                                          plaintext_footer=plaintext_footer, complete_columns=mode == "complete")
    keys = {k: v if isinstance(v, bytes) else v[0] for k, v in (columns or {}).items()}
    return encryption, FileDecryptionProperties(KF, keys)


@pytest.mark.parametrize("algorithm", ALGORITHMS)
@pytest.mark.parametrize("plaintext_footer", [False, True])
@pytest.mark.parametrize("mode", MODES)
def test_our_encrypted_bloom_filters_and_page_indexes(algorithm, plaintext_footer, mode):
    encryption, decryption = _our_keys(algorithm, plaintext_footer, mode)
    plain = ParquetFile(_ours(None, "2.0"))
    with ParquetFile(_ours(encryption, "2.0"), decryption=decryption) as encrypted:
        encrypted_b = encrypted.metadata.row_group(0).columns[1].crypto_metadata is not None
        assert encrypted_b == (mode != "columns")
        _same_indexes(encrypted, plain)
        for rg in range(plain.num_row_groups):
            for column in LEAVES:
                bloom = encrypted.bloom_filter(rg, column)
                assert bloom is not None and bloom == plain.bloom_filter(rg, column), (rg, column)
        _same_filtered_reads(encrypted, plain)
        plan = encrypted.plan([("a", "==", 1199)])  # statistics of encrypted column metadata prune too
        assert [g.skipped_by for g in plan.row_groups] == ["statistics", "statistics", None]
        assert encrypted.plan([("b", "==", "s35")]).skipped_by("bloom filter") == 3  # inside the bounds, absent
        assert [g.skipped_by for g in encrypted.plan([("c", "==", 1.75)]).row_groups] == [
            "bloom filter", "statistics", "statistics"]


def test_plaintext_footer_without_keys():
    encryption, _ = _our_keys("AES_GCM_V1", True, "columns")
    with ParquetFile(_ours(encryption)) as pf:
        assert pf.column_index(0, "b") is not None and pf.bloom_filter(0, "b") is not None
        for read in (pf.column_index, pf.offset_index, pf.bloom_filter):
            with pytest.raises(DecryptionError, match="decryption properties are required") as info:
                read(1, "c")
            assert info.value.context["row_group"] == 1 and info.value.context["column"] == "c"
        assert pf.read(["b"], filters=[("b", "==", "s3")]).num_rows == len(range(3, len(TABLE), 7))


def test_encrypted_bloom_filter_without_its_length():
    """Older writers leave bloom_filter_length out: both modules' length prefixes bound the read."""
    encryption, decryption = _our_keys("AES_GCM_V1", False, "columns")
    data = _ours(encryption)
    plain = ParquetFile(_ours(None))
    with ParquetFile(data, decryption=decryption) as pf:
        meta = pf._column_meta(1, pf.schema.leaf("c"))
        offset, meta.bloom_filter_length = meta.bloom_filter_offset, None
        assert pf.bloom_filter(1, "c") == plain.bloom_filter(1, "c")
    huge = data[:offset] + struct.pack("<I", len(data)) + data[offset + 4 :]
    with ParquetFile(huge, decryption=decryption) as pf:
        pf._column_meta(1, pf.schema.leaf("c")).bloom_filter_length = None
        with pytest.raises(CorruptFileError, match="encrypted bloom filter header of .* runs past the end") as info:
            pf.bloom_filter(1, "c")
    assert info.value.context["file_offset"] == offset and info.value.context["column"] == "c"


# ---------------------------------------------------------------- tampering


def _flip(data: bytes, pos: int) -> bytes:
    return data[:pos] + bytes([data[pos] ^ 0x10]) + data[pos + 1 :]


def _modules(pf: ParquetFile, rg: int, column: str) -> list[tuple[str, int, int]]:
    """(label, offset, stored length) of the index and bloom filter modules of one chunk."""
    leaf = pf.schema.leaf(column)
    chunk = pf.metadata.row_group(rg).columns[leaf.column_index]
    meta = pf._column_meta(rg, leaf)
    bloom = meta.bloom_filter_offset
    header = 4 + struct.unpack_from("<I", pf._source.read(bloom, 4))[0]
    return [
        ("column index", chunk.column_index_offset, chunk.column_index_length),
        ("offset index", chunk.offset_index_offset, chunk.offset_index_length),
        ("bloom filter header", bloom, header),
        ("bloom filter bitset", bloom + header, meta.bloom_filter_length - header),
    ]


def _reader(pf: ParquetFile, label: str):
    return {"column index": pf.column_index, "offset index": pf.offset_index}.get(label, pf.bloom_filter)


@pytest.mark.parametrize("algorithm", ALGORITHMS)
@pytest.mark.parametrize("column", ["a", "b"])  # under a column key; under the footer key
def test_a_flipped_byte_in_an_index_or_bloom_module_names_the_module(algorithm, column):
    encryption, decryption = _our_keys(algorithm, False, "complete")
    data = _ours(encryption)
    with ParquetFile(data, decryption=decryption) as pf:
        modules = _modules(pf, 1, column)
    for label, offset, length in modules:
        for pos in (offset, offset + 4, offset + length // 2, offset + length - 1):  # length, nonce, body, tag
            with ParquetFile(_flip(data, pos), decryption=decryption) as tampered:
                with pytest.raises(DecryptionError, match=label) as info:
                    _reader(tampered, label)(1, column)
                context = info.value.context
                assert (context["row_group"], context["column"]) == (1, column)
                assert context["file_offset"] == modules[2][1] if label.startswith("bloom") else offset
                assert tampered.read_row_group(1).num_rows == 500  # the pages are untouched


def test_tampered_modules_fail_filtered_reads_and_verify():
    encryption, decryption = _our_keys("AES_GCM_V1", True, "columns")
    data = _ours(encryption)
    with ParquetFile(data, decryption=decryption) as pf:
        modules = {label: (offset, length) for label, offset, length in _modules(pf, 0, "a")}
    filters = [("a", "==", 17)]
    for label, (offset, length) in modules.items():
        with pytest.raises(DecryptionError, match=label):
            pc.read_table(_flip(data, offset + length // 2), filters=filters, decryption=decryption)
    assert pc.read_table(data, filters=filters, decryption=decryption).to_pylist()[0]["a"] == 17
