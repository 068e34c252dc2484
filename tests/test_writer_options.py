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
