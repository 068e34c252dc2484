"""pyarrow's SortingColumn (parquet_codec.sorting) against pyarrow's own."""

from __future__ import annotations

import io

import pytest

import parquet_codec as pc
from parquet_codec.errors import UnsupportedError
from parquet_codec.sorting import SortingColumn, leaf_paths

pa = pytest.importorskip("pyarrow")
pq = pytest.importorskip("pyarrow.parquet")

SCHEMA = pa.schema([("a", pa.int64()), ("s", pa.struct([("x", pa.int32()), ("y", pa.string())])),
                    ("l", pa.list_(pa.int8())), ("m", pa.map_(pa.string(), pa.int8())), ("u", pa.uuid()),
                    ("b", pa.string())])


def _theirs(columns: tuple) -> list[tuple]:
    return [(c.column_index, c.descending, c.nulls_first) for c in columns]


def test_leaf_paths_are_pyarrows_parquet_column_paths():
    out = io.BytesIO()
    pq.write_table(SCHEMA.empty_table(), out)
    theirs = pq.ParquetFile(io.BytesIO(out.getvalue())).metadata.schema
    expected = [theirs.column(i).path for i in range(len(theirs))]
    assert leaf_paths(SCHEMA) == expected
    assert leaf_paths(pc.ParquetFile(io.BytesIO(out.getvalue())).schema) == expected


@pytest.mark.parametrize("keys, placement", [([("b", "descending"), ("s.y", "ascending")], "at_start"),
                                             ([("m.key_value.value", "ascending")], "at_end"), ("a", "at_end")])
def test_orderings_convert_as_pyarrows(keys, placement):
    ours = SortingColumn.from_ordering(SCHEMA, keys, null_placement=placement)
    theirs = pq.SortingColumn.from_ordering(SCHEMA, keys, null_placement=placement)
    assert _theirs(ours) == _theirs(theirs)
    assert SortingColumn.to_ordering(SCHEMA, ours) == pq.SortingColumn.to_ordering(SCHEMA, theirs)
    assert [c.to_dict() for c in ours] == [c.to_dict() for c in theirs]


def test_bad_orderings():
    with pytest.raises(ValueError, match="not found"):
        SortingColumn.from_ordering(SCHEMA, [("zz", "ascending")])
    with pytest.raises(ValueError, match="sort order"):
        SortingColumn.from_ordering(SCHEMA, [("a", "up")])
    with pytest.raises(ValueError, match="inconsistent null placement"):
        SortingColumn.to_ordering(SCHEMA, [SortingColumn(0, nulls_first=True), SortingColumn(1)])


@pytest.mark.parametrize("make", [SortingColumn, pq.SortingColumn])
def test_written_sorting_columns_read_back_in_both(make):
    """The writer takes ours or pyarrow's; both readers see them, ours as SortingColumns."""
    out = io.BytesIO()
    pc.write_table(pc.Table.from_pydict({"a": [1, 2], "b": ["x", None]}), out,
                   sorting_columns=[make(1, descending=True, nulls_first=True), make(0)])
    raw = out.getvalue()
    group = pc.ParquetFile(io.BytesIO(raw)).metadata.row_group(0)
    assert group.sorting_columns == (SortingColumn(1, True, True), SortingColumn(0))
    theirs = pq.ParquetFile(io.BytesIO(raw)).metadata.row_group(0)
    assert _theirs(group.sorting_columns) == _theirs(theirs.sorting_columns)
    assert group.to_dict()["sorting_columns"] == theirs.to_dict()["sorting_columns"]
    with pytest.raises(UnsupportedError, match="sorting_columns"):
        pc.write_table(pc.Table.from_pydict({"a": [1]}), io.BytesIO(), sorting_columns=["a"])
