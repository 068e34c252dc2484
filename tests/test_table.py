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


def test_required_fields_of_unknown_type_are_nullable_in_arrow() -> None:
    """Arrow's null type is nullable by definition; a REQUIRED UNKNOWN leaf (found by
    fuzzing) must still convert."""
    pytest.importorskip("pyarrow")
    import numpy as np

    from parquet_codec.arrays import ListArray, PrimitiveArray
    from parquet_codec.format.ttypes import LogicalType, NullType
    from parquet_codec.schema import list_, primitive

    unknown = LogicalType(UNKNOWN=NullType())
    schema = pc.Schema.from_fields([primitive("n", "INT32", "required", logical_type=unknown),
                                    list_("l", primitive("element", "INT32", "required", logical_type=unknown))])
    table = pc.Table(schema, {"n": PrimitiveArray.of(np.zeros(2, np.int32)),
                              "l": ListArray.of(np.array([0, 1, 1]), PrimitiveArray.of(np.zeros(1, np.int32)))})
    arrow = table.to_arrow()
    assert [str(t) for t in arrow.schema.types] == ["null", "list<element: null>"]
    assert arrow.to_pylist() == table.to_pylist() == [{"n": None, "l": [None]}, {"n": None, "l": []}]


@pytest.mark.parametrize("name", ["list_columns.parquet", "old_list_structure.parquet",
                                  "repeated_no_annotation.parquet", "repeated_primitive_no_list.parquet"])
def test_list_values_are_named_after_their_parquet_element(name: str) -> None:
    """pyarrow names a list's value field after the element node (``item``, ``array``,
    the repeated field itself in legacy shapes); so does to_arrow."""
    from tests.conftest import CORPUS_DATA

    if not CORPUS_DATA.is_dir():
        pytest.skip("parquet-testing corpus not present")
    pq = pytest.importorskip("pyarrow.parquet")
    ours = pc.read_table(str(CORPUS_DATA / name)).to_arrow().schema
    assert [str(t) for t in ours.types] == [str(t) for t in pq.read_table(CORPUS_DATA / name).schema.types]


def test_duplicate_column_names_are_refused_clearly():
    """A file may name two top-level columns alike (DuckDB's bug13053 files
    do); a Table keys its columns by name, so it says so instead of reading a
    column in place of the other. (pyarrow's read_table refuses them too.)"""
    import numpy as np

    from parquet_codec.arrays import PrimitiveArray
    from parquet_codec.errors import UnsupportedError
    from parquet_codec.schema import Schema, primitive

    schema = Schema.from_fields([primitive("a", "int32"), primitive("b", "int32"), primitive("a", "int64")])
    with pytest.raises(UnsupportedError, match="2 top-level columns are named 'a'"):
        pc.Table(schema, {"a": PrimitiveArray.of(np.zeros(1, np.int32)), "b": PrimitiveArray.of(np.zeros(1, np.int32))})


def test_table_of_no_columns_keeps_its_rows_in_arrow(tmp_path) -> None:
    """No column selected, or none in the file (fastparquet writes a frame of
    rows and no columns so): pyarrow's table still has the file's rows."""
    path = tmp_path / "t.parquet"
    pq.write_table(pa.table({"a": [1, 2, 3]}).replace_schema_metadata({"k": "v"}), path, row_group_size=2)
    got, expected = pc.read_table(path, columns=[]).to_arrow(), pq.read_table(path, columns=[])
    assert got.num_rows == expected.num_rows == 3 and got.equals(expected)
    assert got.schema.metadata == expected.schema.metadata
    with pc.ParquetFile(path) as pf:
        assert [b.to_arrow().num_rows for b in pf.iter_batches(batch_size=2, columns=[])] == [2, 1]


def test_file_of_rows_and_no_columns_reads_as_pyarrow(tmp_path) -> None:
    fastparquet = pytest.importorskip("fastparquet")
    pd = pytest.importorskip("pandas")
    path = tmp_path / "t.parquet"
    fastparquet.write(str(path), pd.DataFrame(index=range(5)))
    got, expected = pc.read_table(path).to_arrow(), pq.read_table(path)
    assert got.num_rows == expected.num_rows == 5 and got.to_pandas().shape == (5, 0)
