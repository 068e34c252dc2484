"""Live: Parquet modular encryption between Spark (parquet-java's
PropertiesDrivenCryptoFactory with the project's own Java KMS client,
tests/conformance/java) and our CryptoFactory(InMemoryKms(same master keys)).

- Spark writes each case of the matrix and we read it: rows equal Spark's;
- we write the same matrix (parquet-java's DATA_PAGE_V2 layout, the default)
  and Spark reads it: rows equal our input, and a filter on a bloom-filtered
  encrypted column (parquet-java reads our encrypted page indexes and bloom
  filters) returns the right rows;
- a plaintext-footer file shows its unencrypted columns to a reader without
  keys (Spark with a decryption factory that gives none; our reader without
  decryption), and an encrypted column read without keys fails.

The matrix (CASES) crosses five two-valued axes - algorithm, footer mode,
single/double wrapping, internal/external key material, v1/v2 pages - in
eight runs where every pair of axes meets in all four combinations, and
spreads the key layouts over them: column keys with the other columns
encrypted with the footer key (parquet.encryption.complete.columns), column
keys with the other columns in plaintext, and one uniform key. Every file is
checked to be what its case claims (magic, algorithm, per-column key kind,
key material, page types). pyarrow reading our files is tested in
tests/crypto/test_write_encrypted.py.
"""

from __future__ import annotations

import datetime
import decimal
import glob
import itertools
import os
from dataclasses import dataclass
from pathlib import Path

import pytest

import parquet_codec as pc
from parquet_codec.crypto import CryptoFactory, InMemoryKms
from parquet_codec.crypto.keytools import KeyMaterial, KeyMaterialStore, KeyMetadata
from parquet_codec.crypto.keytools.material import parse_json
from parquet_codec.errors import ParquetError
from parquet_codec.format.ttypes import PageType
from parquet_codec.schema import Schema, group, list_, map_, primitive
from tests.conformance.java_kms import MASTER_KEYS, NO_DECRYPTION, crypto_options
from tests.conformance.ours import _dec
from tests.conformance.support import assert_same_rows, collected, naive_utc, ours

pytestmark = pytest.mark.spark

ROWS = 600
COLUMN_KEYS = "kc1:l,s,st.b;kc2:arr.list.element,m.key_value.value"
KEYED = {"l", "s", "st.b", "arr.list.element", "m.key_value.value"}
BLOOM_COLUMN = "l"
DDL = ("id int not null, l long, d double, s string, dec decimal(20,3), day date, arr array<long>, "
       "st struct<a:int,b:string>, m map<string,int>")


@dataclass(frozen=True)
class Case:
    """One encrypted write: the axes of the matrix."""

    name: str
    algorithm: str
    plaintext_footer: bool
    double_wrapping: bool
    internal: bool
    version: str  # "v1" | "v2" (parquet.writer.version)
    keys: str  # "complete" | "partial" | "uniform"
    data_key_bits: int = 128

    def spark_options(self) -> dict[str, str]:
        opts = {
            **crypto_options(),
            "parquet.encryption.algorithm": self.algorithm,
            "parquet.encryption.plaintext.footer": str(self.plaintext_footer).lower(),
            "parquet.encryption.double.wrapping": str(self.double_wrapping).lower(),
            "parquet.encryption.key.material.store.internally": str(self.internal).lower(),
            "parquet.encryption.data.key.length.bits": str(self.data_key_bits),
            "parquet.writer.version": self.version,
            "parquet.page.row.count.limit": "100",
            "parquet.block.row.count.limit": "250",
            f"parquet.bloom.filter.enabled#{BLOOM_COLUMN}": "true",
            f"parquet.bloom.filter.expected.ndv#{BLOOM_COLUMN}": "300",
            f"parquet.enable.dictionary#{BLOOM_COLUMN}": "false",
        }
        if self.keys == "uniform":
            opts["parquet.encryption.uniform.key"] = "kf"
        else:
            opts["parquet.encryption.footer.key"] = "kf"
            opts["parquet.encryption.column.keys"] = COLUMN_KEYS
            opts["parquet.encryption.complete.columns"] = str(self.keys == "complete").lower()
        return opts

    def our_encryption(self, factory: CryptoFactory, path: Path):
        keys = {"uniform_key": "kf"} if self.keys == "uniform" else {
            "footer_key": "kf", "column_keys": COLUMN_KEYS, "complete_columns": self.keys == "complete"}
        return factory.encryption_properties(
            **keys, plaintext_footer=self.plaintext_footer, algorithm=self.algorithm,
            double_wrapping=self.double_wrapping, internal_key_material=self.internal,
            data_key_length_bits=self.data_key_bits, file_path=None if self.internal else path)

    def key_kind(self, column: str) -> str | None:
        """How a leaf column is encrypted: "column", "footer" or None (plaintext)."""
        if self.keys == "uniform":
            return "footer"
        if column in KEYED:
            return "column"
        return "footer" if self.keys == "complete" else None


GCM, CTR = "AES_GCM_V1", "AES_GCM_CTR_V1"
CASES = [
    Case("gcm_pare_double_int_v1_complete", GCM, False, True, True, "v1", "complete"),
    Case("gcm_pare_single_int_v2_partial", GCM, False, False, True, "v2", "partial", 256),
    Case("gcm_par1_double_ext_v1_uniform", GCM, True, True, False, "v1", "uniform"),
    Case("gcm_par1_single_ext_v2_complete", GCM, True, False, False, "v2", "complete"),
    Case("ctr_pare_double_ext_v2_uniform", CTR, False, True, False, "v2", "uniform"),
    Case("ctr_pare_single_ext_v1_complete", CTR, False, False, False, "v1", "complete", 192),
    Case("ctr_par1_double_int_v2_partial", CTR, True, True, True, "v2", "partial"),
    Case("ctr_par1_single_int_v1_complete", CTR, True, False, True, "v1", "complete", 256),
]
CASE = {case.name: case for case in CASES}
AXES = ["algorithm", "plaintext_footer", "double_wrapping", "internal", "version"]


def test_matrix_meets_every_pair_of_axes():
    for first, second in itertools.combinations(AXES, 2):
        pairs = {(getattr(c, first), getattr(c, second)) for c in CASES}
        assert len(pairs) == 4, (first, second)
    assert {c.keys for c in CASES} == {"complete", "partial", "uniform"}
    assert {(c.keys, c.plaintext_footer) for c in CASES} >= {("partial", True), ("partial", False)}


# ---------------------------------------------------------------- data


def _row(i: int) -> dict:
    return {
        "id": i,
        "l": None if i % 13 == 5 else i * 7919 - 2**40,
        "d": None if i % 7 == 3 else i / 8 - 20.5,
        "s": None if i % 11 == 2 else f"s{i % 37}-{'x' * (i % 5)}",
        "dec": None if i % 9 == 4 else decimal.Decimal(i * 1_000_003 - 3_000_000) / 1000,
        "day": datetime.date(1970, 1, 1) + datetime.timedelta(days=i * 17 - 4000),
        "arr": None if i % 10 == 6 else [None if j == 2 else i * j for j in range(i % 4)],
        "st": None if i % 8 == 1 else {"a": i if i % 3 else None, "b": None if i % 6 == 0 else f"b{i}"},
        "m": None if i % 12 == 7 else [(f"k{j}", None if j == 1 else i + j) for j in range(i % 3)],
    }


def _schema() -> Schema:
    string = {"logical_type": "STRING"}
    return Schema.from_fields([
        primitive("id", "INT32", "required"), primitive("l", "INT64"), primitive("d", "DOUBLE"),
        primitive("s", "BYTE_ARRAY", **string),
        primitive("dec", "FIXED_LEN_BYTE_ARRAY", type_length=9, logical_type=_dec(20, 3)),
        primitive("day", "INT32", logical_type="DATE"),
        list_("arr", primitive("element", "INT64")),
        group("st", [primitive("a", "INT32"), primitive("b", "BYTE_ARRAY", **string)]),
        map_("m", primitive("key", "BYTE_ARRAY", "required", **string), primitive("value", "INT32")),
    ])


INPUT = [_row(i) for i in range(ROWS)]


def _for_spark(row: dict) -> dict:
    return {**row, "m": None if row["m"] is None else dict(row["m"])}


@pytest.fixture(scope="module")
def factory() -> CryptoFactory:
    return CryptoFactory(InMemoryKms(MASTER_KEYS))


@pytest.fixture(scope="module")
def frame(spark_kms):
    return spark_kms.createDataFrame([_for_spark(r) for r in INPUT], DDL).coalesce(1)


@pytest.fixture(scope="module")
def spark_input_rows(frame) -> list[dict]:
    """Spark's own rows of the frame it writes, in our conventions."""
    rows = collected(frame.orderBy("id").collect())
    assert_same_rows(rows, INPUT, "the frame Spark writes")
    return rows


def _spark_write(frame, case: Case, folder: Path) -> Path:
    frame.write.mode("overwrite").options(**case.spark_options()).parquet(str(folder))
    (part,) = glob.glob(str(folder / "part-*.parquet"))
    return Path(part)


def _spark_read(spark, path: Path, options: dict[str, str] | None = None, columns: tuple[str, ...] = ("*",)):
    reader = spark.read.options(**(crypto_options() if options is None else options))
    return reader.parquet(str(path)).selectExpr(*columns)


# ---------------------------------------------------------------- what a file is


def _footer_material(pf: pc.ParquetFile, path: Path) -> tuple[KeyMetadata, KeyMaterial]:
    metadata = KeyMetadata.parse(pf.metadata.decryptor.footer_key_metadata)
    material = metadata.material
    if material is None:
        material = KeyMaterial.parse(parse_json(KeyMaterialStore(path).get(metadata.key_reference), "sidecar"))
    return metadata, material


def _key_kind(chunk) -> str | None:
    crypto = chunk.crypto_metadata
    if crypto is None:
        return None
    return "footer" if crypto.ENCRYPTION_WITH_FOOTER_KEY is not None else "column"


def _column_metadata(pf: pc.ParquetFile, column: str):
    """A column's full ColumnMetaData in row group 0 (decrypted when the footer holds a redacted copy)."""
    leaf = pf.schema.leaf(column)
    chunk = pf.metadata.row_group(0).columns[leaf.column_index]
    decryptor = pf.metadata.decryptor.column(0, None, leaf.column_index, chunk, leaf.dotted_path)
    return chunk.meta_data if decryptor is None else decryptor.metadata


def assert_file_is(case: Case, path: Path, factory: CryptoFactory) -> None:
    """The file is encrypted the way the case says."""
    with open(path, "rb") as handle:
        assert handle.read(4) == (b"PAR1" if case.plaintext_footer else b"PARE")
    pf = pc.ParquetFile(path, decryption=factory)
    assert pf.metadata.decryptor.algorithm == case.algorithm
    assert pf.num_row_groups > 1
    chunks = pf.metadata.row_group(0).columns
    kinds = {leaf.dotted_path: _key_kind(chunks[leaf.column_index]) for leaf in pf.schema.leaves}
    assert kinds == {column: case.key_kind(column) for column in kinds}, case.name
    metadata, material = _footer_material(pf, path)
    assert metadata.internal_storage == case.internal and material.double_wrapping == case.double_wrapping
    assert material.master_key_id == "kf" and material.is_footer_key
    assert os.path.exists(KeyMaterialStore(path).path) != case.internal
    stats = _column_metadata(pf, "id").encoding_stats
    page_type = PageType.DATA_PAGE_V2 if case.version == "v2" else PageType.DATA_PAGE
    assert {s.page_type for s in stats} - {PageType.DICTIONARY_PAGE} == {page_type}


# ---------------------------------------------------------------- Spark writes, we read


@pytest.fixture(scope="module")
def spark_files(frame, tmp_path_factory) -> dict[str, Path]:
    root = tmp_path_factory.mktemp("spark-encrypted")
    return {case.name: _spark_write(frame, case, root / case.name) for case in CASES}


@pytest.mark.parametrize("name", list(CASE))
def test_we_read_what_spark_encrypts(spark_files, spark_input_rows, factory, name):
    case, path = CASE[name], spark_files[name]
    assert_file_is(case, path, factory)
    assert_same_rows(ours(pc.read_table(path, decryption=factory)), spark_input_rows, name)


def test_spark_reads_its_own_encrypted_files(spark_kms, spark_files, spark_input_rows):
    """The oracle: our Java KMS client works in Spark both ways."""
    path = spark_files["ctr_par1_double_int_v2_partial"]
    assert_same_rows(collected(_spark_read(spark_kms, path).orderBy("id").collect()), spark_input_rows)


def test_we_read_plaintext_columns_of_a_spark_file_without_keys(spark_files):
    path = spark_files["ctr_par1_double_int_v2_partial"]
    plain = ["id", "d", "dec", "day"]
    table = pc.read_table(path, columns=plain)
    assert_same_rows(ours(table), [{k: r[k] for k in plain} for r in INPUT])
    with pytest.raises(ParquetError):
        pc.read_table(path, columns=["s"])


# ---------------------------------------------------------------- we write, Spark reads


@pytest.fixture(scope="module")
def our_files(tmp_path_factory, factory) -> dict[str, Path]:
    root = tmp_path_factory.mktemp("ours-encrypted")
    table = pc.Table.from_pylist(INPUT, _schema())
    files = {}
    for case in CASES:
        path = root / case.name / "data.parquet"
        path.parent.mkdir()
        pc.write_table(table, path, encryption=case.our_encryption(factory, path),
                       data_page_version="2.0" if case.version == "v2" else "1.0", row_group_size=250,
                       data_page_size=1024, write_page_checksum=True,
                       bloom_filter_options={BLOOM_COLUMN: {"ndv": 300}}, bloom_filter_sizing="parquet-java")
        files[case.name] = path
    return files


@pytest.mark.parametrize("name", list(CASE))
def test_spark_reads_what_we_encrypt(spark_kms, our_files, factory, name):
    case, path = CASE[name], our_files[name]
    assert_file_is(case, path, factory)
    got = collected(_spark_read(spark_kms, path).orderBy("id").collect())
    assert_same_rows(got, naive_utc(INPUT), name)
    # A pushed-down equality on the encrypted, bloom-filtered column: parquet-java
    # decrypts our statistics, column and offset indexes and bloom filters.
    wanted = INPUT[417][BLOOM_COLUMN]
    frame = _spark_read(spark_kms, path).filter(f"{BLOOM_COLUMN} = {wanted} or {BLOOM_COLUMN} = 3")
    assert [row.id for row in frame.select("id").collect()] == [417]


def test_plaintext_footer_shows_plaintext_columns_to_spark_without_keys(spark_kms, our_files):
    path = our_files["ctr_par1_double_int_v2_partial"]
    no_keys = {"parquet.crypto.factory.class": NO_DECRYPTION}
    plain = ("id", "d", "dec", "day", "st.a as a")
    frame = _spark_read(spark_kms, path, no_keys, plain).orderBy("id")
    expected = [{"id": r["id"], "d": r["d"], "dec": r["dec"], "day": r["day"],
                 "a": None if r["st"] is None else r["st"]["a"]} for r in INPUT]
    assert_same_rows(collected(frame.collect()), expected, "plaintext columns: " + ", ".join(plain))
    with pytest.raises(Exception, match="(?i)decrypt"):
        _spark_read(spark_kms, path, no_keys, ("s",)).collect()
