"""verify: clean files pass; corrupt checksums, flipped bytes, lying statistics, emptied bloom
filters, wrong row counts and a tampered signed footer are each found and named."""

from __future__ import annotations

import io
import re

import pyarrow.parquet as pq
import pytest

import parquet_codec as pc
from parquet_codec.crypto import FileDecryptionProperties
from parquet_codec.format.ttypes import BloomFilterHeader
from parquet_codec.thrift_io import deserialize
from tests.cli.support import ENCRYPTED_KEYS, SPARK, corpus, flip_byte, rewrite_footer, run, write_sample
from tests.conftest import requires_corpus
from tests.support.footer import with_empty_bloom_filters

CLEAN_CORPUS = [
    "alltypes_plain.parquet", "alltypes_dictionary.parquet", "datapage_v2.snappy.parquet",
    "delta_byte_array.parquet", "delta_encoding_optional_column.parquet", "delta_length_byte_array.parquet",
    "nested_lists.snappy.parquet", "nested_maps.snappy.parquet", "nested_structs.rust.parquet",
    "nulls.snappy.parquet", "byte_stream_split.zstd.parquet", "int32_with_null_pages.parquet",
    "list_columns.parquet", "data_index_bloom_encoding_stats.parquet", "binary_truncated_min_max.parquet",
    "page_v2_empty_compressed.parquet", "nan_in_stats.parquet", "float16_nonzeros_and_nans.parquet",
    "fixed_length_decimal.parquet", "rle_boolean_encoding.parquet", "int96_from_spark.parquet",
    "dict-page-offset-zero.parquet", "hadoop_lz4_compressed.parquet", "lz4_raw_compressed.parquet",
]


def _findings(result, name: str) -> list[str]:
    """The finding lines of one file (not its summary line)."""
    return [line for line in result.lines if line.startswith(f"{name}: ")
            and not re.match(r".*: (OK \(|\d+ finding\(s\)( \(|$))", line)]


def test_empty_bloom_filter_of_a_boolean_column_is_no_finding(tmp_path):
    # parquet-java writes bloom filters on BOOLEAN columns that it never fills;
    # the spec defines no hashing for booleans, so such a filter proves nothing.
    out = io.BytesIO()
    pc.write_table({"id": list(range(10)), "flag": [i % 3 == 0 for i in range(10)]}, out)
    (tmp_path / "flag.parquet").write_bytes(with_empty_bloom_filters(out.getvalue(), column=1))
    result = run("verify", "flag.parquet", cwd=tmp_path)
    assert result.code == 0, result.out


def test_every_spark_fixture_is_clean():
    files = sorted(SPARK.glob("*.parquet"))
    result = run("verify", *files)
    assert result.code == 0, result.out
    assert sum(": OK (" in line for line in result.lines) == len(files)
    assert result.lines[-1] == f"{len(files)} files checked, 0 finding(s)"


@requires_corpus()
def test_clean_corpus_files_pass():
    result = run("verify", "-q", *CLEAN_CORPUS, cwd=corpus(""))
    assert result.code == 0, result.out
    assert result.out == ""


@requires_corpus()
def test_corrupt_checksums_and_row_counts_in_the_corpus():
    names = ["datapage_v1-corrupt-checksum.parquet", "rle-dict-uncompressed-corrupt-checksum.parquet",
             "repeated_no_annotation.parquet"]
    result = run("verify", *names, cwd=corpus(""))
    assert result.code == 1
    assert _findings(result, names[0]) == [
        f"{names[0]}: row group 0, column 'a', page 0, offset 4: page CRC-32 mismatch: header says 0xbbce3b9d, "
        "bytes give 0x0f4f6d0a",
        f"{names[0]}: row group 0, column 'b', page 1, offset 30808: page CRC-32 mismatch: header says 0x48850d12, "
        "bytes give 0x0358a2bc",
    ]
    second = _findings(result, names[1])
    assert len(second) == 2 and all("CRC-32 mismatch" in line for line in second)
    assert "column 'long_field', page 0" in second[0] and "column 'binary_field', page 0" in second[1]
    assert _findings(result, names[2]) == [f"{names[2]}: footer: row groups hold 6 rows, the footer declares 0"]
    assert result.lines[-1] == "3 files checked, 5 finding(s)"


def _chunk(path, row_group: int, column: str):
    md = pq.ParquetFile(path).metadata.row_group(row_group)
    return next(md.column(i) for i in range(md.num_columns) if md.column(i).path_in_schema == column)


def _lying_statistics(meta) -> None:
    def stats(row_group: int, column: str):
        chunk = next(c for c in meta.row_groups[row_group].columns if ".".join(c.meta_data.path_in_schema) == column)
        return chunk.meta_data.statistics

    stats(1, "id").max_value = (150).to_bytes(8, "little")  # the real maximum is 199
    stats(2, "name").min_value = b"zzz"
    stats(0, "x").null_count = 3  # there are 15


def test_defects_we_plant_are_found(tmp_path):
    flipped = tmp_path / "flipped.parquet"
    write_sample(flipped, write_page_checksum=True, compression="none")
    chunk = _chunk(flipped, 1, "name")
    start = chunk.dictionary_page_offset if chunk.has_dictionary_page else chunk.data_page_offset
    flip_byte(flipped, start + chunk.total_compressed_size - 3)  # in the last page's values

    lying = tmp_path / "lying.parquet"
    write_sample(lying)
    rewrite_footer(lying, _lying_statistics)

    bloom = tmp_path / "bloom.parquet"
    write_sample(bloom, bloom_filter_options={"name": True})
    offset = _chunk(bloom, 2, "name").bloom_filter_offset
    data = bytearray(bloom.read_bytes())
    header, used = deserialize(BloomFilterHeader, data, offset)
    data[offset + used : offset + used + header.numBytes] = bytes(header.numBytes)
    bloom.write_bytes(bytes(data))

    rows = tmp_path / "rows.parquet"
    write_sample(rows)
    rewrite_footer(rows, lambda meta: setattr(meta, "num_rows", meta.num_rows + 5))

    result = run("verify", "flipped.parquet", "lying.parquet", "bloom.parquet", "rows.parquet", cwd=tmp_path)
    assert result.code == 1

    found = _findings(result, "flipped.parquet")
    assert found and all(line.startswith("flipped.parquet: row group 1, column 'name'") for line in found)
    assert "page CRC-32 mismatch" in found[0]

    assert _findings(result, "lying.parquet") == [
        "lying.parquet: row group 0, column 'x': statistics null count 3, the data has 15 nulls",
        "lying.parquet: row group 1, column 'id': statistics max 150 but the largest value is 199",
        "lying.parquet: row group 2, column 'name': statistics min zzz but the smallest value is name000",
    ]
    assert _findings(result, "bloom.parquet") == [
        "bloom.parquet: row group 2, column 'name': bloom filter lacks 80 of 80 values"]
    assert _findings(result, "rows.parquet") == ["rows.parquet: footer: row groups hold 300 rows, the footer declares 305"]
    assert "4 files checked, " in result.lines[-1]


@requires_corpus()
def test_encrypted_files_with_and_without_keys():
    names = ["encrypt_columns_plaintext_footer.parquet.encrypted", "encrypt_columns_and_footer.parquet.encrypted",
             "encrypt_columns_and_footer_ctr.parquet.encrypted", "uniform_encryption.parquet.encrypted"]
    result = run("verify", *names, *ENCRYPTED_KEYS, cwd=corpus(""))
    assert result.code == 0, result.out
    assert all(line.startswith(name + ": OK (") for line, name in zip(result.lines, names, strict=False))
    without = run("verify", names[0], cwd=corpus(""))
    assert without.code == 1
    assert _findings(without, names[0]) == [f"{names[0]}: footer: file is encrypted: its footer signature and "
                                            "encrypted columns are not checked without keys"]


@requires_corpus()
def test_encrypted_page_index_and_bloom_filter_are_checked(tmp_path):
    name = "encrypt_columns_and_footer_bloom_filter.parquet.encrypted"
    assert run("verify", name, *ENCRYPTED_KEYS, cwd=corpus("")).code == 0
    path = tmp_path / name
    path.write_bytes(corpus(name).read_bytes())
    with pc.ParquetFile(path, decryption=FileDecryptionProperties(b"0123456789012345", {
            "double_field": b"1234567890123450", "float_field": b"1234567890123451"})) as pf:
        chunk = pf.metadata.row_group(0).columns[0]
        bloom = pf._column_meta(0, pf.schema.leaf("double_field")).bloom_filter_offset
    flip_byte(path, chunk.column_index_offset + chunk.column_index_length // 2)
    flip_byte(path, bloom + 10)
    found = _findings(run("verify", name, *ENCRYPTED_KEYS, cwd=tmp_path), name)
    assert len(found) == 2, found
    assert "column 'double_field'" in found[0] and "page index: column index failed authentication" in found[0]
    assert "bloom filter: bloom filter header failed authentication" in found[1]


@requires_corpus()
def test_tampered_signed_footer(tmp_path):
    name = "encrypt_columns_plaintext_footer.parquet.encrypted"
    data = bytearray(corpus(name).read_bytes())
    at = data.rindex(b"parquet-cpp-arrow")
    data[at] = ord("P")  # still a valid footer, no longer the signed one
    (tmp_path / name).write_bytes(bytes(data))
    result = run("verify", name, *ENCRYPTED_KEYS, cwd=tmp_path)
    assert result.code == 1
    found = _findings(result, name)
    assert len(found) == 1 and "footer: cannot open" in found[0] and "signature" in found[0].lower()


@pytest.mark.parametrize("quiet", [True])
def test_quiet_prints_nothing_for_clean_files(quiet, tmp_path):
    write_sample(tmp_path / "a.parquet")
    result = run("verify", "-q", tmp_path)
    assert result.code == 0 and result.out == "" and result.err == ""


def test_a_folder_without_parquet_files_is_an_error(tmp_path):
    (tmp_path / "notes.txt").write_text("nothing here")
    result = run("verify", tmp_path)
    assert result.code == 1 and "no Parquet files" in result.err and result.out == ""


def test_checks_that_do_not_fit_in_memory_are_a_finding(tmp_path, monkeypatch, capsys):
    # (A chunk of 2**31 null levels decodes within the budget; the checks' own
    # arrays of as many slots were then refused.)
    from parquet_codec.cli import main, verify

    path = tmp_path / "t.parquet"
    write_sample(path)

    def refuse(*args):
        raise MemoryError("Unable to allocate 2.00 GiB")

    monkeypatch.setattr(verify.ChunkCheck, "_split", refuse)
    assert main(["verify", "--no-progress", str(path)]) == 1
    out = capsys.readouterr().out
    assert "row group 0, column 'id': cannot check the values: the column chunk does not fit in memory" in out
    assert "internal error" not in out


@pytest.mark.parametrize(("key", "value", "message"), [
    ("ARROW:schema", "not base64!", "ARROW:schema metadata value is not valid base64"),
    ("ARROW:schema", "/////w==", "ARROW:schema"),
    ("org.apache.spark.sql.parquet.row.metadata", '{"type": "struct", "fields": [{"name": 1}]}',
     "org.apache.spark.sql.parquet.row.metadata"),
])
def test_verify_reports_schemas_in_the_footer_that_do_not_decode(tmp_path, key, value, message):
    from parquet_codec.format.ttypes import KeyValue

    path = tmp_path / "kv.parquet"
    write_sample(path)
    assert run("verify", path).code == 0
    rewrite_footer(path, lambda meta: setattr(meta, "key_value_metadata", [KeyValue(key, value)]))
    result = run("verify", "-q", path)
    assert result.code == 1, result.out
    assert result.out.startswith(f"{path}: footer: ") and message in result.out, result.out


def test_geospatial_statistics_are_held_against_the_geometries(tmp_path):
    import pyarrow as pa

    from tests.test_geospatial import _coords, _count, _Wkb, _wkb

    values = [_wkb(1, _coords([(1.0, 2.0)])), None, _wkb(2, _count(2) + _coords([(-3.0, 4.0), (5.0, -6.0)]))]
    table = pa.table({"g": pa.ExtensionArray.from_storage(_Wkb(), pa.array(values, pa.binary()))})
    good, lying = tmp_path / "good.parquet", tmp_path / "lying.parquet"
    pc.write_table(table, good)
    pc.write_table(table, lying)

    def lie(meta) -> None:
        stats = meta.row_groups[0].columns[0].meta_data.geospatial_statistics
        stats.bbox.xmax = 4.0  # the data reaches 5
        stats.geospatial_types = [2]  # a point too

    rewrite_footer(lying, lie)
    result = run("verify", "good.parquet", "lying.parquet", cwd=tmp_path)
    assert result.code == 1
    assert _findings(result, "good.parquet") == []
    assert _findings(result, "lying.parquet") == [
        "lying.parquet: row group 0, column 'g': geospatial statistics types [2] lack [1], present in the data",
        "lying.parquet: row group 0, column 'g': geospatial statistics x range [-3.0, 4.0] but the data spans "
        "[-3.0, 5.0]",
    ]


@requires_corpus()
def test_geospatial_corpus_files_are_clean():
    files = sorted(p.name for p in corpus("geospatial").glob("*.parquet"))
    result = run("verify", *files, cwd=corpus("geospatial"))
    assert result.code == 0, result.out
