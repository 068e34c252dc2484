"""Tables: what converting them keeps alive."""

from __future__ import annotations

import gc
import io

import pytest

import parquet_codec as pc
from parquet_codec.schema import SchemaNode

pa = pytest.importorskip("pyarrow")
pq = pytest.importorskip("pyarrow.parquet")


def _schema_nodes_alive() -> int:
    gc.collect()
    return sum(isinstance(o, SchemaNode) for o in gc.get_objects())


def test_converting_tables_keeps_no_schema_alive():
    """A long-lived process reading many files keeps none of their schemas
    once their tables are gone (a cache of column types once held thousands)."""
    before = _schema_nodes_alive()
    for i in range(20):
        buf = io.BytesIO()
        pq.write_table(pa.table({f"c{j}_{i}": [j] for j in range(10)}), buf)
        table = pc.read_table(buf.getvalue())
        assert table.to_pylist() == [{f"c{j}_{i}": j for j in range(10)}]
        assert table.to_arrow().num_columns == 10
        del table
    assert _schema_nodes_alive() <= before
