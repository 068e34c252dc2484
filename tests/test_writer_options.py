"""Writer options (writer_options.py) as pyarrow.parquet takes them."""

from __future__ import annotations

import io

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

import parquet_codec as pc


def _file(data, **options) -> bytes:
    sink = io.BytesIO()
    pc.write_table(data, sink, **options)
    return sink.getvalue()


@pytest.mark.parametrize("version", [None, "V1", "V2", "anything"])
def test_writer_engine_version_is_accepted_and_changes_nothing(version) -> None:
    """pyarrow's ParquetWriter takes writer_engine_version and always writes with V2."""
    table = pa.table({"a": [1, 2, None]})
    raw = _file(table, writer_engine_version=version)
    assert pq.read_table(io.BytesIO(raw)).equals(table)
    assert raw == _file(table)
    theirs = io.BytesIO()
    with pq.ParquetWriter(theirs, table.schema, writer_engine_version=version) as writer:
        writer.write_table(table)


def _codecs(raw: bytes) -> list[str]:
    meta = pq.ParquetFile(io.BytesIO(raw)).metadata
    return [meta.row_group(0).column(i).compression for i in range(meta.num_columns)]


@pytest.mark.parametrize("options", [{}, {"compression": None}, {"compression": {"a": "zstd"}},
                                     {"compression": {"b": "gzip", "a": None}}, {"compression": "NONE"},
                                     {"compression": "gzip"}])
def test_compression_none_and_unnamed_columns_are_uncompressed(options) -> None:
    """As pyarrow: no option is snappy; None, and a column a dict leaves out, uncompressed."""
    table = pa.table({"a": [1, 2] * 50, "b": ["x", "y"] * 50})
    theirs = io.BytesIO()
    their_options = {"compression": {k: v for k, v in options["compression"].items() if v is not None}} \
        if isinstance(options.get("compression"), dict) else options  # pyarrow refuses None in a dict
    pq.write_table(table, theirs, **their_options)
    assert _codecs(_file(table, **options)) == _codecs(theirs.getvalue())
