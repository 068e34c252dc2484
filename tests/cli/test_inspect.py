"""meta, schema, pages, index and bloom against pyarrow's view of the same files."""

from __future__ import annotations

import base64
import io
import json

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

import parquet_codec as pc
from tests.cli.support import ENCRYPTED_KEYS, SPARK, SPARK_FILE, corpus, rewrite_footer, run, write_sample
from tests.conftest import requires_corpus
from tests.support.footer import with_empty_bloom_filters


def test_meta_text_on_a_spark_fixture():
    result = run("meta", SPARK_FILE)
    assert result.code == 0, result.err
    md = pq.ParquetFile(SPARK_FILE).metadata
    assert f"rows:            {md.num_rows}" in result.out
    assert f"row groups:      {md.num_row_groups}" in result.out
    assert "created by:      parquet-mr" in result.out
    assert "org.apache.spark.sql.parquet.row.metadata" in result.out
    for i in range(md.num_row_groups):
        assert f"row group {i}: {md.row_group(i).num_rows} rows" in result.out
    assert "SNAPPY" in result.out and "INT32 DECIMAL(5,2)" in result.out


def test_meta_json_agrees_with_pyarrow(tmp_path):
    path = tmp_path / "sample.parquet"
    write_sample(path, compression="zstd", bloom_filter_options={"name": True})
    info = json.loads(run("meta", path, "--json").out)
    md = pq.ParquetFile(path).metadata
    assert info["rows"] == md.num_rows and info["row_groups"] == md.num_row_groups
    assert info["encryption"] == "none"
    for i, group in enumerate(info["row_group_details"]):
        assert group["rows"] == md.row_group(i).num_rows
        for j, chunk in enumerate(group["columns"]):
            theirs = md.row_group(i).column(j)
            assert chunk["column"] == theirs.path_in_schema
            assert chunk["codec"] == theirs.compression
            assert set(chunk["encodings"]) == set(theirs.encodings)
            assert chunk["compressed"] == theirs.total_compressed_size
            assert chunk["nulls"] == theirs.statistics.null_count
            if theirs.statistics.has_min_max:
                assert chunk["min"] == theirs.statistics.min and chunk["max"] == theirs.statistics.max
            assert chunk["bloom_filter"] == (theirs.path_in_schema == "name")
            assert chunk["column_index"] and chunk["offset_index"]


def test_schema_prints_message_type_and_spark_schema():
    result = run("schema", SPARK_FILE)
    assert result.code == 0, result.err
    message, spark = result.out.split("\nSpark schema:\n")
    assert message.startswith("message spark_schema {")
    assert "optional fixed_len_byte_array(16) dec38 (DECIMAL(38,10));" in message
    assert spark.startswith("root\n |-- id: integer (nullable = false)")
    assert " |-- m: map (nullable = true)\n |    |-- key: string\n" in spark
    raw = run("schema", SPARK_FILE, "--spark-json").out.split("\nSpark schema (JSON):\n")[1]
    assert json.loads(raw)["type"] == "struct"


@pytest.mark.parametrize("stored", ['{"type":"struct","fields":[1]}', '{"fields":{"a":{"type":7}}}'])
def test_schema_shows_spark_metadata_it_cannot_parse_as_stored(tmp_path, stored):
    from parquet_codec.format.ttypes import KeyValue

    path = tmp_path / "t.parquet"
    pq.write_table(pa.table({"a": [1]}), path)
    rewrite_footer(path, lambda meta: setattr(
        meta, "key_value_metadata", [KeyValue("org.apache.spark.sql.parquet.row.metadata", stored)]))
    result = run("schema", path)
    assert result.code == 0, result.err
    assert result.out.endswith("\nSpark schema (JSON):\n" + stored + "\n")


@requires_corpus()
def test_schema_without_spark_metadata():
    result = run("schema", corpus("nested_structs.rust.parquet"))
    assert result.code == 0 and result.out.startswith("message ") and "Spark" not in result.out


@requires_corpus()
def test_pages_shows_crc_status_and_rows():
    records = run("pages", corpus("datapage_v1-corrupt-checksum.parquet"), "--json").json_lines()
    assert [(r["column"], r["page"], r["crc"]) for r in records] == [
        ("a", 0, "BAD"), ("a", 1, "ok"), ("b", 0, "ok"), ("b", 1, "BAD")]
    assert [r["first_row"] for r in records] == [0, 2560, 0, 2560]
    assert all(r["type"] == "DATA" and r["encoding"] == "PLAIN" and r["values"] == 2560 for r in records)
    table = run("pages", corpus("datapage_v1-corrupt-checksum.parquet"), "--column", "b")
    assert table.code == 0 and len(table.lines) == 4 and "BAD" in table.lines[-1]


def test_pages_of_a_nested_v2_column_count_rows():
    records = run("pages", SPARK / "snappy_v2_dict.parquet", "--column", "arr", "--json").json_lines()
    md = pq.ParquetFile(SPARK / "snappy_v2_dict.parquet").metadata
    data = [r for r in records if r["type"] == "DATA_V2"]
    assert {r["type"] for r in records} == {"DICTIONARY", "DATA_V2"}
    for i in range(md.num_row_groups):
        assert sum(r["rows"] for r in data if r["row_group"] == i) == md.row_group(i).num_rows
        assert sum(r["values"] for r in data if r["row_group"] == i) == md.row_group(i).column(
            [md.row_group(i).column(j).path_in_schema for j in range(md.num_columns)].index("arr.list.element")
        ).num_values


def test_index_lists_every_page(tmp_path):
    path = tmp_path / "paged.parquet"
    write_sample(path, data_page_size=128, compression="none")
    records = run("index", path, "--column", "id", "--json").json_lines()
    pages = [r for r in run("pages", path, "--column", "id", "--json").json_lines() if r["type"] == "DATA"]
    assert len(records) == len(pages) > 3
    for entry, page in zip(records, pages, strict=True):
        assert (entry["row_group"], entry["offset"], entry["first_row"]) == (page["row_group"], page["offset"],
                                                                              page["first_row"])
        assert entry["compressed"] == page["header"] + page["compressed"]
        assert entry["min"] == page["min"] and entry["max"] == page["max"]
    text = run("index", path, "--column", "id").out
    assert "row group 0, column 'id':" in text and "boundary order ASCENDING" in text


@requires_corpus()
def test_bloom_answers_per_row_group():
    result = run("bloom", corpus("data_index_bloom_encoding_stats.parquet"), "--column", "String", "--json",
                 "Hello", "brown fox", "not-in-this-file-at-all")
    assert result.code == 0, result.err
    answers = {r["value"]: r["result"] for r in result.json_lines()}
    assert answers["Hello"] == answers["brown fox"] == "maybe present"
    assert answers["not-in-this-file-at-all"] == "absent"


def test_bloom_without_filters(tmp_path):
    path = tmp_path / "plain.parquet"
    write_sample(path)
    result = run("bloom", path, "--column", "id", "5")
    assert result.code == 0
    assert result.out.count("no bloom filter") == 3


def test_bloom_of_a_boolean_column_never_answers_absent(tmp_path):
    # parquet-java writes bloom filters on BOOLEAN columns that it never fills.
    out = io.BytesIO()
    pc.write_table({"id": [1, 2], "flag": [True, False]}, out)
    path = tmp_path / "flag.parquet"
    path.write_bytes(with_empty_bloom_filters(out.getvalue(), column=1))
    result = run("bloom", path, "--column", "flag", "--json", "true", "false")
    assert result.code == 0, result.err
    assert [r["result"] for r in result.json_lines()] == ["maybe present", "maybe present"]


def test_bloom_looks_up_timestamps_to_the_nanosecond(tmp_path):
    path = tmp_path / "nanos.parquet"
    stamps = pa.array([1577836800123456789, 1609459200500000000], pa.timestamp("ns"))
    pq.write_table(pa.table({"ts": stamps}), path, bloom_filter_options={"ts": True})
    result = run("bloom", path, "--column", "ts", "--json", "2020-01-01T00:00:00.123456789",
                 "2020-01-01T00:00:00.123456789+00:00", "2020-01-01T00:00:00.12345678", "2021-01-01T00:00:00.5")
    assert result.code == 0, result.err
    assert [r["result"] for r in result.json_lines()] == ["maybe present", "maybe present", "absent", "maybe present"]


def test_bloom_looks_up_times_of_day_to_the_nanosecond(tmp_path):
    path = tmp_path / "nanos.parquet"
    pq.write_table(pa.table({"t": pa.array([1, 2], pa.time64("ns"))}), path, bloom_filter_options={"t": True})
    result = run("bloom", path, "--column", "t", "--json", "00:00:00.000000001", "00:00:00.000000003")
    assert result.code == 0, result.err
    assert [r["result"] for r in result.json_lines()] == ["maybe present", "absent"]


@requires_corpus()
def test_index_and_bloom_of_encrypted_columns():
    # parquet-java's file: row i holds double_field i + 0.5 and float_field i + 0.25, both under column keys.
    name = corpus("encrypt_columns_and_footer_bloom_filter.parquet.encrypted")
    records = run("index", name, "--column", "double_field", "--json", *ENCRYPTED_KEYS).json_lines()
    first = [r["first_row"] for r in records]
    assert len(records) > 1 and first[0] == 0
    assert [float(r["min"]) for r in records] == [row + 0.5 for row in first]
    assert [float(r["max"]) for r in records] == [row - 0.5 for row in first[1:]] + [1999.5]
    result = run("bloom", name, "--column", "float_field", "--json", "1000.25", "1000.75", *ENCRYPTED_KEYS)
    assert result.code == 0, result.err
    assert {r["value"]: r["result"] for r in result.json_lines()} == {"1000.25": "maybe present", "1000.75": "absent"}


@requires_corpus()
def test_index_of_encrypted_columns_without_keys_is_a_note():
    result = run("index", corpus("encrypt_columns_plaintext_footer.parquet.encrypted"))
    assert result.code == 0, result.err
    assert "row group 0, column 'double_field': encrypted column: give its key" in result.out
    assert "row group 0, column 'int32_field': 1 pages; column index" in result.out
    keyed = run("index", corpus("encrypt_columns_plaintext_footer.parquet.encrypted"), "--column", "double_field",
                *ENCRYPTED_KEYS)
    assert "row group 0, column 'double_field': 1 pages; column index" in keyed.out


@requires_corpus()
@pytest.mark.parametrize("form", ["text", "hex", "base64"])
def test_meta_of_encrypted_files_with_keys(form):
    keys = list(ENCRYPTED_KEYS)
    if form != "text":
        for i, item in enumerate(keys):
            if "text:" in item:
                head, _, text = item.rpartition("text:")
                raw = text.encode()
                keys[i] = head + (raw.hex() if form == "hex" else base64.b64encode(raw).decode())
    result = run("meta", corpus("encrypt_columns_and_footer.parquet.encrypted"), *keys)
    assert result.code == 0, result.err
    assert "encryption:      encrypted footer (AES_GCM_V1)" in result.out
    assert "encrypted (column key)" in result.out


@requires_corpus()
def test_encrypted_footer_without_keys_is_one_error_line():
    result = run("meta", corpus("encrypt_columns_and_footer.parquet.encrypted"))
    assert result.code == 1 and len(result.err.splitlines()) == 1 and "decryption" in result.err


@requires_corpus()
def test_kms_keys_open_external_key_material():
    keys = "kf:MDEyMzQ1Njc4OTAxMjM0NQ==,kc1:MTIzNDU2Nzg5MDEyMzQ1MA==,kc2:MTIzNDU2Nzg5MDEyMzQ1MQ=="
    result = run("head", corpus("external_key_material_java.parquet.encrypted"), "-n", "2", "--json",
                 "--kms-keys", keys)
    assert result.code == 0, result.err
    assert len(result.json_lines()) == 2


def test_schema_prints_the_stored_arrow_schema(tmp_path):
    pa = pytest.importorskip("pyarrow")
    path = tmp_path / "arrow.parquet"
    table = pa.table({"d": pa.array([1], pa.duration("s")), "t": pa.array([1], pa.timestamp("us", tz="Asia/Tokyo")),
                      "l": pa.array([["a"]], pa.large_list(pa.string()))})
    pq.write_table(table, path)
    result = run("schema", str(path))
    assert result.code == 0, result.err
    arrow = result.out.split("\nArrow schema (ARROW:schema):\n")[1].splitlines()
    assert arrow == ["  " + str(field).removeprefix("pyarrow.Field<").removesuffix(">") for field in table.schema]


def test_meta_leaves_out_row_group_sizes_the_footer_does_not_record(tmp_path):
    path = tmp_path / "old.parquet"
    write_sample(path)

    def forget(meta):
        for group in meta.row_groups:
            group.total_compressed_size = group.file_offset = None

    rewrite_footer(path, forget)
    result = run("meta", path)
    assert result.code == 0, result.err
    lines = [line for line in result.out.splitlines() if line.startswith("row group ")]
    assert len(lines) == 3
    for line in lines:
        assert line.startswith("row group ") and ": 100 rows, " in line and line.endswith(" uncompressed"), line
        assert "None" not in line and " , " not in line and "  compressed" not in line
