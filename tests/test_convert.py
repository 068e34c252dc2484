"""Tables from Python data, numpy, pandas and pyarrow; schema inference."""

from __future__ import annotations

import datetime as dt
import decimal
import io
import uuid

import numpy as np
import pyarrow as pa
import pytest

from parquet_codec.convert import to_table
from parquet_codec.errors import SchemaError
from parquet_codec.schema import Schema, map_, primitive
from parquet_codec.table import Table
from parquet_codec.writer import write_table


def _types(table: Table) -> dict[str, str]:
    return {line.strip().split()[-1].rstrip(";"): line.strip() for line in str(table.schema).splitlines()[1:-1]}


def test_inference_from_python_values() -> None:
    data = {
        "i": [1, None], "f": [1, 2.5], "s": ["a", None], "b": [b"x", None], "t": [True, None],
        "d": [decimal.Decimal("1.50"), decimal.Decimal("-123.4")], "day": [dt.date(2020, 1, 1), None],
        "naive": [dt.datetime(2020, 1, 1), None], "aware": [dt.datetime(2020, 1, 1, tzinfo=dt.timezone.utc), None],
        "time": [dt.time(1, 2), None], "u": [uuid.uuid4(), None], "l": [[1, 2], None],
        "st": [{"a": 1}, {"b": "x"}], "n": [None, None],
    }
    table = Table.from_pydict(data)
    text = str(table.schema)
    for expected in ("optional int64 i;", "optional double f;", "optional binary s (STRING);", "optional binary b;",
                     "optional boolean t;", "optional int32 d (DECIMAL(5,2));", "optional int32 day (DATE);",
                     "optional int64 naive (TIMESTAMP(MICROS,false));", "optional int64 aware (TIMESTAMP(MICROS,true));",
                     "optional int64 time (TIME(MICROS,false));", "optional fixed_len_byte_array(16) u (UUID);",
                     "optional group l (LIST)", "optional int64 a;", "optional binary b (STRING);",
                     "optional int32 n (UNKNOWN);"):
        assert expected in text, expected
    rows = table.to_pylist()
    assert rows[0]["d"] == decimal.Decimal("1.50") and rows[1]["st"] == {"a": None, "b": "x"}
    assert Table.from_pylist([{"a": 1}, {"b": 2}]).to_pydict() == {"a": [1, None], "b": [None, 2]}


def test_numpy_dtypes_map_directly() -> None:
    data = {"u8": np.arange(3, dtype=np.uint8), "f2": np.ones(3, np.float16), "f4": np.ones(3, np.float32),
            "ts": np.array(["2020-01-01", "NaT", "1970-01-01"], dtype="datetime64[s]"),
            "m": np.ma.masked_array([1, 2, 3], mask=[False, True, False]), "s": np.array(["a", "b", "c"])}
    table = Table.from_pydict(data)
    text = str(table.schema)
    assert "INTEGER(8,false)" in text and "FLOAT16" in text and "optional float f4" in text
    assert "TIMESTAMP(MILLIS,false)" in text
    assert table.column("ts").to_pylist()[1] is None and table.column("m").to_pylist() == [1, None, 3]


def test_explicit_schema_and_maps() -> None:
    schema = Schema.from_fields([map_("m", primitive("key", "BYTE_ARRAY", "required", logical_type="STRING"),
                                      primitive("value", "INT32")), primitive("x", "INT32", "required")])
    table = Table.from_pydict({"m": [{"a": 1}, [("b", None)], None], "x": [1, 2, 3]}, schema)
    assert table.column("m").to_pylist() == [[("a", 1)], [("b", None)], None]
    with pytest.raises(SchemaError):  # a null in a required column
        write_table({"m": [None], "x": [None]}, io.BytesIO(), schema=schema)


def test_mixed_types_rejected() -> None:
    with pytest.raises(SchemaError):
        Table.from_pydict({"a": [1, "x"]})
    with pytest.raises(SchemaError):
        Table.from_pydict({"a": [dt.datetime(2020, 1, 1), dt.datetime(2020, 1, 1, tzinfo=dt.timezone.utc)]})


def test_arrow_and_pandas() -> None:
    pd = pytest.importorskip("pandas")
    arrow = pa.table({"a": pa.array([1, None], pa.uint32()), "l": pa.array([[1.5], None], pa.list_(pa.float64())),
                      "dec": pa.array([decimal.Decimal("1.2"), None], pa.decimal128(5, 1))})
    table = Table.from_arrow(arrow)
    assert table.to_pylist() == arrow.to_pylist()
    frame = Table.from_pandas(pd.DataFrame({"x": [1, 2], "s": ["a", None]}))
    assert frame.to_pydict() == {"x": [1, 2], "s": ["a", None]}
    assert to_table(table) is table
    with pytest.raises(SchemaError):
        to_table(42)


def test_arrow_schema_metadata_that_is_not_utf8_is_kept_byte_for_byte():
    import pyarrow.parquet as pq

    import parquet_codec as pc

    stored = {b"k\xff": b"v\xfe\x00x", b"ok": b"yes"}
    table = pc.Table.from_arrow(pa.table({"a": [1]}).replace_schema_metadata(stored))
    assert table.to_arrow().schema.metadata == stored
    sink = io.BytesIO()
    pc.write_table(table, sink)
    written = pq.read_metadata(io.BytesIO(sink.getvalue())).metadata
    assert {k: v for k, v in written.items() if k != b"ARROW:schema"} == stored


@pytest.mark.parametrize("index", ["range", "named", "multi", "datetime"])
def test_pandas_index_is_kept_as_pyarrow_keeps_it(index, tmp_path) -> None:
    """A RangeIndex in the pandas metadata only, any other index as columns:
    pandas reads back the same frame from our file as from pyarrow's."""
    pd = pytest.importorskip("pandas")
    import pyarrow.parquet as pq

    import parquet_codec as pc

    frame = pd.DataFrame({"x": [1, 2, 3], "s": ["a", None, "c"], "t": pd.date_range("2020-01-01", periods=3)},
                         index=pd.RangeIndex(10, 13))
    frame = {"range": frame, "named": frame.set_index("s"), "multi": frame.set_index(["x", "s"]),
             "datetime": frame.set_index("t")}[index]
    pc.write_table(frame, tmp_path / "ours.parquet")
    pq.write_table(pa.Table.from_pandas(frame), tmp_path / "theirs.parquet")
    expected = pd.read_parquet(tmp_path / "theirs.parquet")
    pd.testing.assert_frame_equal(pd.read_parquet(tmp_path / "ours.parquet"), expected)
    pd.testing.assert_frame_equal(pc.read_table(tmp_path / "ours.parquet").to_pandas(), expected)
    assert Table.from_pandas(frame, preserve_index=False).column_names == list(frame.columns)


def test_field_ids_in_arrow_metadata_are_written_at_every_depth():
    """PARQUET:field_id metadata becomes the Parquet field_id, on top-level and
    nested fields, as pyarrow writes it (Iceberg resolves columns by it); the
    table schema's field types count, not the arrays' own (field names)."""
    import io

    import pyarrow.parquet as pq

    import parquet_codec as pc

    def ided(name, typ, i, nullable=True):
        return pa.field(name, typ, nullable=nullable, metadata={"PARQUET:field_id": str(i)})

    schema = pa.schema([
        ided("a", pa.int32(), 7), ided("l", pa.list_(ided("element", pa.int64(), 9)), 8),
        ided("m", pa.map_(ided("key", pa.string(), 11, nullable=False), ided("value", pa.int32(), 12)), 10),
        ided("s", pa.struct([ided("x", pa.int8(), 14)]), 13),
    ])  # fmt: skip
    table = pa.table([pa.array([1]), pa.array([[2]]), pa.array([[("k", 1)]], schema.field("m").type),
                      pa.array([{"x": 1}], schema.field("s").type)], schema=schema)
    ours, theirs = io.BytesIO(), io.BytesIO()
    pc.write_table(table, ours, store_schema=False)
    pq.write_table(table, theirs, store_schema=False)
    assert pq.ParquetFile(ours).schema.equals(pq.ParquetFile(theirs).schema)
    assert [node.field_id for node in pc.ParquetFile(ours.getvalue()).schema.nodes[1:]] == [
        7, 8, None, 9, 10, None, 11, 12, 13, 14]


def test_dictionary_of_an_extension_type_is_stored_as_the_extension_type():
    """A dictionary of an extension type (a pandas categorical of intervals, as
    pd.cut makes) is stored as its extension type: stored as a dictionary, Arrow
    IPC reads it back as an extension over a dictionary, which pyarrow cannot
    build, and the file did not open."""
    pd = pytest.importorskip("pandas")
    import pyarrow.parquet as pq

    import parquet_codec as pc

    def dictionary(values):
        return pa.DictionaryArray.from_arrays(pa.array([0, 1, None, 0], pa.int8()), values)

    uuids = dictionary(pa.array([b"a" * 16, b"b" * 16], pa.uuid()))
    table = pa.table({"u": uuids, "l": pa.ListArray.from_arrays([0, 1, 4, 4, 4], uuids),
                      "j": dictionary(pa.array(["1", "[]"], pa.json_())), "s": dictionary(pa.array(["x", "y"]))})
    sink = io.BytesIO()
    pc.write_table(table, sink)
    back = pq.read_table(io.BytesIO(sink.getvalue()))
    assert back.schema.types == [pa.uuid(), pa.list_(pa.field("element", pa.uuid())), pa.json_(),
                                 pa.dictionary(pa.int8(), pa.string())]
    assert back.to_pylist() == table.to_pylist()
    assert pc.read_table(sink.getvalue()).to_arrow().schema.types == back.schema.types
    frame = pd.DataFrame({"bin": pd.cut([1, 5, 9, 2], [0, 4, 8, 12])})
    sink = io.BytesIO()
    pc.write_table(frame, sink)
    assert list(pq.read_table(io.BytesIO(sink.getvalue())).to_pandas()["bin"]) == list(frame["bin"])


def test_from_pandas_takes_a_pyarrow_schema():
    """A pyarrow Schema types the columns and picks the index columns as
    pyarrow.Table.from_pandas does; the file reads back as pyarrow's."""
    pd = pytest.importorskip("pandas")
    import pyarrow.parquet as pq

    import parquet_codec as pc

    frame = pd.DataFrame({"a": [1, 2], "b": ["x", None]}, index=pd.Index([5, 6], name="i"))
    schema = pa.schema([("a", pa.int32()), ("b", pa.large_string()), ("i", pa.int16())])
    for preserve_index in (None, True):
        table = Table.from_pandas(frame, schema=schema, preserve_index=preserve_index)
        expected = pa.Table.from_pandas(frame, schema=schema, preserve_index=preserve_index)
        assert table.to_arrow().schema.equals(expected.schema, check_metadata=True)
        ours, theirs = io.BytesIO(), io.BytesIO()
        pc.write_table(table, ours)
        pq.write_table(expected, theirs)
        pd.testing.assert_frame_equal(pq.read_table(ours).to_pandas(), pq.read_table(theirs).to_pandas())
    assert Table.from_pandas(frame, schema=pa.schema([("b", pa.string())])).column_names == ["b"]
