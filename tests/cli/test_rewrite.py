"""rewrite: values survive, and the codec, encodings, page layout and row groups asked for are
what pyarrow's metadata reports."""

from __future__ import annotations

import math

import pyarrow.parquet as pq

import parquet_codec as pc
from parquet_codec.crypto import FileDecryptionProperties
from tests.cli.support import SPARK_FILE, corpus, run, write_sample
from tests.conftest import requires_corpus


def _same(a, b) -> bool:
    if isinstance(a, float) and isinstance(b, float) and math.isnan(a) and math.isnan(b):
        return True
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b, strict=True))
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(_same(a[k], b[k]) for k in a)
    return a == b


def _chunks(md, column: str):
    for i in range(md.num_row_groups):
        group = md.row_group(i)
        yield next(group.column(j) for j in range(group.num_columns) if group.column(j).path_in_schema == column)


def test_rewrite_spark_fixture_with_every_option(tmp_path):
    out = tmp_path / "out.parquet"
    result = run("rewrite", SPARK_FILE, out, "--compression", "zstd", "--encoding", "id=DELTA_BINARY_PACKED",
                 "--encoding", "s=DELTA_BYTE_ARRAY", "--no-dictionary", "--data-page-version", "2.0",
                 "--row-group-size", "25", "--page-checksum", "--bloom", "s")
    assert result.code == 0, result.err
    assert result.out == result.err == ""
    before, after = pq.read_table(SPARK_FILE), pq.read_table(out)
    assert after.schema.equals(before.schema, check_metadata=True)  # Spark's schema metadata carried over
    assert _same(after.to_pylist(), before.to_pylist())
    md = pq.ParquetFile(out).metadata
    assert [md.row_group(i).num_rows for i in range(md.num_row_groups)] == [25, 25, 10]
    assert {md.row_group(i).column(j).compression for i in range(3) for j in range(md.num_columns)} == {"ZSTD"}
    assert all("DELTA_BINARY_PACKED" in c.encodings for c in _chunks(md, "id"))
    assert all("DELTA_BYTE_ARRAY" in c.encodings and c.bloom_filter_offset for c in _chunks(md, "s"))
    assert not any(c.has_dictionary_page for c in _chunks(md, "s"))
    pages = run("pages", out, "--column", "id", "--json").json_lines()
    assert {p["type"] for p in pages} == {"DATA_V2"} and {p["crc"] for p in pages} == {"ok"}
    assert run("verify", out).code == 0


def test_rewrite_per_column_codecs_and_projection(tmp_path):
    source, out = tmp_path / "in.parquet", tmp_path / "out.parquet"
    table = write_sample(source)
    result = run("rewrite", source, out, "--compression", "gzip", "--compression", "name=zstd",
                 "--columns", "id,name,tags", "--no-progress")
    assert result.code == 0, result.err
    md = pq.ParquetFile(out).metadata
    assert md.num_row_groups == 3 and md.schema.names == ["id", "name", "element"]
    codecs = {md.row_group(0).column(j).path_in_schema: md.row_group(0).column(j).compression
              for j in range(md.num_columns)}
    assert codecs == {"id": "GZIP", "name": "ZSTD", "tags.list.element": "GZIP"}
    expected = [{k: row[k] for k in ("id", "name", "tags")} for row in table.to_pylist()]
    assert pq.read_table(out).to_pylist() == expected


@requires_corpus()
def test_rewrite_decrypts(tmp_path):
    out = tmp_path / "plain.parquet"
    name = corpus("encrypt_columns_and_footer.parquet.encrypted")
    result = run("rewrite", name, out, "--footer-key", "text:0123456789012345",
                 "--column-key", "double_field:text:1234567890123450",
                 "--column-key", "float_field:text:1234567890123451")
    assert result.code == 0, result.err
    keys = FileDecryptionProperties(b"0123456789012345", {"double_field": b"1234567890123450",
                                                          "float_field": b"1234567890123451"})
    ours = pc.read_table(out)
    expected = pc.read_table(name, decryption=keys)
    for column in expected.column_names:
        assert ours.column(column).to_arrow().equals(expected.column(column).to_arrow()), column
    assert pq.read_table(out).num_rows == 50  # plaintext now: pyarrow reads it without keys


def test_rewrite_errors_leave_no_output(tmp_path):
    source, out = tmp_path / "in.parquet", tmp_path / "out.parquet"
    write_sample(source)
    same = run("rewrite", source, source)
    assert same.code == 1 and "OUT must differ from IN" in same.err and len(same.err.splitlines()) == 1
    bad = run("rewrite", source, out, "--encoding", "name=DELTA_BINARY_PACKED")
    assert bad.code == 1 and len(bad.err.splitlines()) == 1 and "DELTA_BINARY_PACKED" in bad.err
    unknown = run("rewrite", source, out, "--compression", "nope=zstd")
    assert unknown.code == 1 and "names columns not in the file" in unknown.err
    assert not out.exists() and sorted(p.name for p in tmp_path.iterdir()) == ["in.parquet"]


def test_rewrite_refuses_a_no_dictionary_column_not_in_the_file(tmp_path):
    source, out = tmp_path / "in.parquet", tmp_path / "out.parquet"
    write_sample(source)
    result = run("rewrite", source, out, "--no-dictionary", "nmae")
    assert result.code == 1 and "--no-dictionary" in result.err and "'nmae'" in result.err, result.err
    assert not out.exists()
    assert run("rewrite", source, out, "--no-dictionary", "name", "--no-dictionary", "tags.list.element").code == 0
