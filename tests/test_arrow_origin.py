"""The stored Arrow schema (ARROW:schema): read as pyarrow.parquet applies it, and written as it stores it."""

from __future__ import annotations

import datetime as dt
import io

import pytest

import parquet_codec as pc
from parquet_codec import temporal
from parquet_codec.arrow_schema import ARROW_SCHEMA_KEY, schema_from_metadata

pa = pytest.importorskip("pyarrow")
pq = pytest.importorskip("pyarrow.parquet")

NY = pa.timestamp("us", tz="America/New_York")
REQUIRED_STRUCT = pa.struct([pa.field("f", pa.int8(), nullable=False), pa.field("s", pa.string(), nullable=False)])


def _columns() -> dict[str, object]:
    return {
        "tz": pa.array([1, None, 1_700_000_000_000_000], NY),
        "tz_offset_s": pa.array([1, None, 3], pa.timestamp("s", tz="+01:00")),
        "tz_ns": pa.array([1000, None, 5000], pa.timestamp("ns", tz="Asia/Tokyo")),
        "naive": pa.array([1, None, 2], pa.timestamp("us")),
        "dur_s": pa.array([5, None, -7], pa.duration("s")),
        "dur_ms": pa.array([5, None, -7], pa.duration("ms")),
        "dur_us": pa.array([5, None, 2**40], pa.duration("us")),
        "dur_ns": pa.array([5000, None, -7000], pa.duration("ns")),
        "large_string": pa.array(["a", None, "ccc"], pa.large_string()),
        "large_binary": pa.array([b"a", None, b"ccc"], pa.large_binary()),
        "string_view": pa.array(["a", None, "ccc"], pa.string_view()),
        "binary_view": pa.array([b"a", None, b"ccc"], pa.binary_view()),
        "dictionary": pa.array(["a", None, "a"]).dictionary_encode(),
        "dictionary_int8": pa.array(["a", "b", None]).dictionary_encode().cast(pa.dictionary(pa.int8(), pa.string())),
        "dictionary_ints": pa.array([1, 2, 1]).dictionary_encode(),  # pyarrow reads plain int64 back
        "decimal32": pa.array([1, None, 3], pa.decimal32(5, 2)),
        "decimal64": pa.array([1, None, 3], pa.decimal64(12, 2)),
        "decimal256": pa.array([1, None, 3], pa.decimal256(40, 2)),
        "large_list": pa.array([[1], None, [2, 3]], pa.large_list(pa.duration("us"))),
        "fixed_size_list": pa.array([["a", "b"], None, ["c", "d"]], pa.list_(pa.string(), 2)),
        "list_view": pa.array([[1], None, [2, 3]], pa.list_view(pa.int32())),
        "list_tz": pa.array([[1], None, [2, None]], pa.list_(NY)),
        "list_dictionary": pa.array([["a"], None, ["b", "a"]], pa.list_(pa.dictionary(pa.int16(), pa.string()))),
        "struct": pa.array([{"t": 1, "d": 5}, None, {"t": None, "d": 7}],
                           pa.struct([("t", NY), ("d", pa.duration("s"))])),
        "uuid": pa.array([b"0123456789abcdef", None, b"fedcba9876543210"], pa.uuid()),
        "date64": pa.array([86_400_000, None, 0], pa.date64()),  # pyarrow reads date32 back
        "time32_s": pa.array([1, None, 2], pa.time32("s")),  # pyarrow reads time32[ms] back
        # Canonical extension types come back from the stored schema; bool8's Python values are booleans.
        "bool8": pa.ExtensionArray.from_storage(pa.bool8(), pa.array([1, None, 0], pa.int8())),
        "fixed_shape_tensor": pa.ExtensionArray.from_storage(
            pa.fixed_shape_tensor(pa.int32(), [2, 2]), pa.array([[1, 2, 3, 4], None, [5, 6, 7, 8]], pa.list_(pa.int32(), 4))),
        "opaque": pa.ExtensionArray.from_storage(pa.opaque(pa.binary(), "geo", "vendor"), pa.array([b"x", None, b"yz"])),
        "list_bool8": pa.array([[1], None, [0, 1]], pa.list_(pa.int8())).cast(pa.list_(pa.bool8())),
        # seconds past 2**63 microseconds: still timedeltas
        "dur_s_far": pa.array([10**13, None, -(10**13)], pa.duration("s")),
        # pyarrow's cast pads null fixed-size lists through take, which has no kernel for views
        "fixed_size_list_view": pa.array([None, ["a", "b"], ["c", None]], pa.list_(pa.string_view(), 2)),
        # a null list owning items (dropped on writing through take, as above)
        "list_view_items_under_null": pa.ListArray.from_arrays(
            pa.array([0, 2, 3], pa.int32()), pa.array([b"a", b"b", b"c"], pa.binary_view()), mask=pa.array([True, False])),
        # pyarrow's cast of list<list<null>> to large_list gives an invalid array
        "large_list_of_null_lists": pa.array([[[None, None]], None, [[None]]], pa.large_list(pa.list_(pa.null()))),
        # pyarrow's casts between fixed-size and other lists miscount null-typed items below them
        "fixed_size_list_of_null_lists": pa.array([[[None, None]], [[None]], [[]]], pa.list_(pa.list_(pa.null()), 1)),
        "fixed_size_list_of_lists_of_null_fields": pa.array(
            [[[{"x": 1, "n": None}] * 3], [[]]], pa.list_(pa.list_(pa.struct([("x", pa.int32()), ("n", pa.null())])), 1)),
        # a non-nullable field holds no nulls under a null parent: pyarrow reads zeros
        "struct_required_child": pa.array([{"f": 1, "s": "a"}, None, {"f": 2, "s": ""}], REQUIRED_STRUCT),
        "fixed_size_list_required_struct": pa.array([[{"f": 1, "s": "a"}, None], None, [None, None]],
                                                    pa.list_(REQUIRED_STRUCT, 2)),
    }


CASES = _columns()


def _pyarrow_file(table: object, **options: object) -> bytes:
    out = io.BytesIO()
    pq.write_table(table, out, **options)
    return out.getvalue()


def _our_file(table: object, **options: object) -> bytes:
    out = io.BytesIO()
    pc.write_table(table, out, **options)
    return out.getvalue()


def _table(name: str) -> object:
    field = pa.field(name, CASES[name].type, metadata={"note": "é"})
    return pa.table([CASES[name]], schema=pa.schema([field], metadata={"origin": "test"}))


@pytest.mark.parametrize("name", CASES)
def test_pyarrow_files_read_as_pyarrow_reads_them(name: str) -> None:
    raw = _pyarrow_file(_table(name))
    expected = pq.read_table(io.BytesIO(raw))
    ours = pc.read_table(io.BytesIO(raw))
    assert ours.to_arrow().schema.equals(expected.schema, check_metadata=True)
    assert ours.to_arrow().equals(expected)
    assert ours.to_pylist() == expected.to_pylist()
    assert ours.metadata == {"origin": "test"}


@pytest.mark.parametrize("name", CASES)
def test_our_files_read_by_pyarrow_as_its_own(name: str) -> None:
    table = _table(name)
    expected = pq.read_table(io.BytesIO(_pyarrow_file(table)))
    ours = _our_file(table)
    theirs = pq.read_table(io.BytesIO(ours))
    assert theirs.schema.equals(expected.schema, check_metadata=True)
    assert theirs.equals(expected)
    # and back through this package: the same types again
    assert pc.read_table(io.BytesIO(ours)).to_arrow().equals(expected)


def test_a_map_keeps_the_zone_of_its_values() -> None:
    # (pyarrow names a map's entries after the column; values and value types are compared)
    table = pa.table({"m": pa.array([[("a", 1)], None], pa.map_(pa.string(), NY))})
    raw = _pyarrow_file(table)
    expected = pq.read_table(io.BytesIO(raw))
    ours = pc.read_table(io.BytesIO(raw))
    assert ours.to_arrow().column("m").type.item_type == NY
    assert ours.to_pylist() == expected.to_pylist()
    assert pq.read_table(io.BytesIO(_our_file(table))).column("m").type.item_type == NY


def test_python_values_follow_the_stored_types() -> None:
    """Durations and zones come from the stored schema alone (no pyarrow needed to read them)."""
    table = pa.table({"d": pa.array([1500, None], pa.duration("ms")), "t": pa.array([0, None], NY),
                      "s": pa.array([{"d": 2}], pa.struct([("d", pa.duration("s"))]))[0:1].take([0, 0])})
    rows = pc.read_table(io.BytesIO(_pyarrow_file(table))).to_pydict()
    assert rows["d"] == [dt.timedelta(seconds=1, milliseconds=500), None]
    first = rows["t"][0]
    assert first.utcoffset() == dt.timedelta(hours=-5) and str(first.tzinfo) == "America/New_York"
    assert first == dt.datetime(1970, 1, 1, tzinfo=dt.timezone.utc)
    assert rows["s"] == [{"d": dt.timedelta(seconds=2)}] * 2


def test_nanosecond_durations_are_pandas_timedeltas_as_in_pyarrow(monkeypatch) -> None:
    pytest.importorskip("pandas")
    raw = _pyarrow_file(pa.table({"d": pa.array([1, None, 2000], pa.duration("ns"))}))
    expected = pq.read_table(io.BytesIO(raw)).to_pylist()
    ours = pc.read_table(io.BytesIO(raw)).to_pylist()
    assert ours == expected and [type(r["d"]) for r in ours] == [type(r["d"]) for r in expected]
    monkeypatch.setattr(temporal, "_pandas", lambda: None)  # timedelta cannot hold 1 ns
    with pytest.raises(pc.UnsupportedError, match="whole microsecond"):
        pc.read_table(io.BytesIO(raw)).to_pylist()
    assert pc.read_table(io.BytesIO(raw)).to_arrow().column("d").to_pylist() == pq.read_table(
        io.BytesIO(raw)).column("d").to_pylist()


def test_projection_batches_and_filters_keep_the_stored_types() -> None:
    table = pa.table({"k": pa.array(range(10)), "t": pa.array(range(10), NY),
                      "d": pa.array(range(10), pa.duration("s"))})
    raw = _pyarrow_file(table, row_group_size=4)
    expected = pq.read_table(io.BytesIO(raw), columns=["d", "t"])
    pf = pc.ParquetFile(io.BytesIO(raw))
    assert pf.read(columns=["d", "t"]).to_arrow().equals(expected)
    batches = list(pf.iter_batches(batch_size=3, columns=["t", "d"]))
    assert all(b.to_arrow().schema.field("t").type == NY for b in batches)
    assert pa.concat_tables([b.to_arrow() for b in batches]).equals(expected.select(["t", "d"]))
    filtered = pf.read(columns=["t", "d"], filters=[("k", ">=", 5)]).to_arrow()
    assert filtered.equals(pq.read_table(io.BytesIO(raw), columns=["t", "d"], filters=[("k", ">=", 5)]))
    assert pf.schema_arrow.equals(pq.ParquetFile(io.BytesIO(raw)).schema_arrow)


def test_pandas_index_and_dtypes_come_back() -> None:
    pd = pytest.importorskip("pandas")
    frame = pd.DataFrame({"x": [1.5, 2.5], "when": pd.to_datetime(["2024-01-01", "2024-06-01"]).tz_localize(
        "Europe/Paris")}, index=pd.Index(["a", "b"], name="key"))
    raw = _pyarrow_file(pa.Table.from_pandas(frame))
    pd.testing.assert_frame_equal(pc.read_table(io.BytesIO(raw)).to_pandas(), frame)
    pd.testing.assert_frame_equal(pq.read_table(io.BytesIO(_our_file(pa.Table.from_pandas(frame)))).to_pandas(),
                                  frame)


def test_a_table_read_from_a_file_writes_its_stored_types_again() -> None:
    raw = _pyarrow_file(pa.table({"k": [1, 2], "d": pa.array([1, 2], pa.duration("ms")), "t": pa.array([1, 2], NY)}))
    projected = pc.read_table(io.BytesIO(raw), columns=["t", "d"])
    theirs = pq.read_table(io.BytesIO(_our_file(projected)))
    assert theirs.schema.types == [NY, pa.duration("ms")]
    kv = pq.ParquetFile(io.BytesIO(_our_file(projected))).metadata.metadata
    assert [f.name for f in schema_from_metadata(kv[ARROW_SCHEMA_KEY.encode()]).fields] == ["t", "d"]


def test_store_schema_false_and_explicit_metadata() -> None:
    table = pa.table({"d": pa.array([1], pa.duration("s"))}).replace_schema_metadata({"a": "1", "b": "2"})
    plain = pq.ParquetFile(io.BytesIO(_our_file(table, store_schema=False))).metadata.metadata
    assert plain is None  # the table's metadata goes with the stored schema, as in pyarrow
    assert pq.read_table(io.BytesIO(_our_file(table, store_schema=False))).schema.types == [pa.int64()]
    kv = pq.ParquetFile(io.BytesIO(_our_file(table, key_value_metadata={"b": "given"}))).metadata.metadata
    assert kv[b"a"] == b"1" and kv[b"b"] == b"given" and ARROW_SCHEMA_KEY.encode() in kv


def test_tables_without_arrow_types_store_no_schema() -> None:
    kv = pq.ParquetFile(io.BytesIO(_our_file({"x": [1, 2]}))).metadata.metadata
    assert kv is None or ARROW_SCHEMA_KEY.encode() not in kv


@pytest.mark.parametrize("stored", ["not base64!", "AAAA", ""])
def test_an_undecodable_stored_schema_is_ignored(stored: str) -> None:
    raw = _our_file({"x": [1, 2]}, key_value_metadata={ARROW_SCHEMA_KEY: stored, "other": "kept"})
    table = pc.read_table(io.BytesIO(raw))
    assert table.to_pylist() == [{"x": 1}, {"x": 2}]
    assert table.metadata == {"other": "kept"}
    assert table.to_arrow().schema.field("x").type == pa.int64()


def test_a_stored_schema_of_another_shape_is_ignored() -> None:
    two = pa.schema([("x", pa.duration("s")), ("y", pa.int64())])
    stored = __import__("base64").b64encode(two.serialize().to_pybytes()).decode()
    raw = _our_file({"x": [1, 2]}, key_value_metadata={ARROW_SCHEMA_KEY: stored})
    assert pc.read_table(io.BytesIO(raw)).to_pylist() == [{"x": 1}, {"x": 2}]
    assert pq.read_table(io.BytesIO(raw)).schema.types == [pa.int64()]  # pyarrow ignores it too


def test_files_without_a_stored_schema_keep_their_metadata() -> None:
    raw = _our_file({"x": [1]}, key_value_metadata={"org.apache.spark.version": "3.5.0", "empty": None})
    table = pc.read_table(io.BytesIO(raw))
    assert table.metadata == {"org.apache.spark.version": "3.5.0", "empty": ""}
    assert table.to_arrow().schema.metadata == pq.read_table(io.BytesIO(raw)).schema.metadata


def test_a_stored_type_pyarrow_does_not_know_is_left_out() -> None:
    from parquet_codec.arrow_origin import pyarrow_fields
    from parquet_codec.arrow_schema import ArrowField, ArrowType

    duration = ArrowField("d", True, ArrowType("duration", unit="s"))
    future = ArrowField("x", True, ArrowType("unknown"))
    fields = pyarrow_fields([duration, future])
    assert fields[0].type == pa.duration("s") and fields[1] is None
    read = pc.read_table(io.BytesIO(_our_file({"d": [1], "x": [2]})))
    table = pc.Table(read.schema, {c.name: c.array for c in read}, origin={"d": duration, "x": future})
    assert table.to_arrow().schema.types == [pa.duration("s"), pa.int64()]
    assert table.to_pylist() == [{"d": dt.timedelta(seconds=1), "x": 2}]


def test_key_value_entries_without_a_key_are_dropped() -> None:
    from parquet_codec.arrow_origin import split_metadata

    assert split_metadata({None: "x", "a": None, "b": "1"}, []) == ({"a": "", "b": "1"}, {})


def test_a_writer_opened_with_a_pyarrow_schema_stores_it() -> None:
    table = pa.table({"d": pa.array([1, 2], pa.duration("s")), "x": ["a", "b"]}).replace_schema_metadata({"k": "v"})
    out = io.BytesIO()
    with pc.ParquetWriter(out, table.schema) as writer:
        writer.write_table(table)
        writer.write_table(table.to_batches()[0])
    theirs = pq.read_table(io.BytesIO(out.getvalue()))
    assert theirs.schema.equals(table.schema, check_metadata=True)
    assert theirs.equals(pa.concat_tables([table, table]))


def test_metadata_that_is_not_utf8_keeps_its_bytes() -> None:
    raw = _our_file({"x": [1]}, key_value_metadata={"a": "x\udcf4"})  # text decoded with surrogate escapes
    assert pq.ParquetFile(io.BytesIO(raw)).metadata.metadata[b"a"] == b"x\xf4"
    read = pc.read_table(io.BytesIO(raw))
    table = pc.Table(read.schema, {"x": read.column("x").array}, metadata={"a": "x\udcf4"})
    assert table.to_arrow().schema.metadata == {b"a": b"x\xf4"}
    assert read.to_arrow().num_rows == 1


def test_a_projection_decodes_only_the_stored_fields_it_reads() -> None:
    raw = _pyarrow_file(pa.table({f"c{i}": pa.array([i], pa.duration("s")) for i in range(50)}))
    pf = pc.ParquetFile(io.BytesIO(raw))
    read = pf.read(columns=["c7"])
    assert read.to_arrow().schema.types == [pa.duration("s")]
    assert sorted(pf._arrow[1]._message._fields) == [7]  # the other 49 fields were never decoded


@pytest.mark.parametrize("store_schema", [True, False])
def test_field_ids_are_field_metadata_at_every_level(store_schema: bool) -> None:
    """pyarrow shows a Parquet field id as PARQUET:field_id field metadata, on
    top-level fields too (Iceberg, parquet-java and Avro writers set them)."""
    def ided(name: str, typ: object, i: int) -> object:
        return pa.field(name, typ, metadata={"PARQUET:field_id": str(i)})

    schema = pa.schema([ided("a", pa.int32(), 1),
                        ided("s", pa.struct([ided("x", pa.string(), 3)]), 2),
                        ided("l", pa.list_(ided("element", pa.int64(), 5)), 4),
                        pa.field("plain", pa.int8())])
    table = pa.table([pa.array([1, None], pa.int32()), pa.array([{"x": "q"}, None], schema.field("s").type),
                      pa.array([[1], []], schema.field("l").type), pa.array([1, 2], pa.int8())], schema=schema)
    raw = _pyarrow_file(table, store_schema=store_schema)
    expected = pq.read_table(io.BytesIO(raw))
    got = pc.read_table(io.BytesIO(raw)).to_arrow()
    assert got.schema.equals(expected.schema, check_metadata=True)
    assert got.schema.field("a").metadata == {b"PARQUET:field_id": b"1"}
    assert pc.ParquetFile(io.BytesIO(raw)).schema_arrow.equals(pq.ParquetFile(io.BytesIO(raw)).schema_arrow,
                                                                check_metadata=True)


def test_a_required_child_holds_no_nulls_under_null_parents() -> None:
    raw = _pyarrow_file(_table("struct_required_child"))
    expected = pq.read_table(io.BytesIO(raw)).column(0).chunk(0)
    ours = pc.read_table(io.BytesIO(raw)).to_arrow().column(0).chunk(0)
    for name in ("f", "s"):
        assert ours.field(name).null_count == expected.field(name).null_count == 0
        assert ours.field(name).to_pylist() == expected.field(name).to_pylist()


def test_int96_required_under_null_structs_stays_nanoseconds() -> None:
    """The slots under null structs do not decide INT96's unit (they made it
    microseconds); a list there is empty, as pyarrow reads them."""
    struct = pa.struct([pa.field("t", pa.timestamp("ns"), nullable=False),
                        pa.field("l", pa.list_(pa.int32()), nullable=False)])
    column = pa.array([{"t": dt.datetime(1966, 4, 24, 8, 0, 38, 782717), "l": [1]}, None], struct)
    raw = _pyarrow_file(pa.table({"s": column}), use_deprecated_int96_timestamps=True, store_schema=False)
    expected = pq.read_table(io.BytesIO(raw))
    ours = pc.read_table(io.BytesIO(raw)).to_arrow()
    assert ours.schema.equals(expected.schema) and ours.equals(expected)


NESTED_STORED = pa.table({
    "s": pa.array([{"d": 5, "l": ["a"], "t": 1}, None, {"d": None, "l": None, "t": 2}],
                  pa.struct([pa.field("d", pa.duration("s"), metadata={"k": "v"}),
                             ("l", pa.large_list(pa.dictionary(pa.int8(), pa.string()))), ("t", NY)])),
    "ls": pa.array([[{"a": 1, "b": "x"}], None, []], pa.list_(pa.struct([("a", pa.duration("ms")),
                                                                        ("b", pa.large_string())]))),
})


@pytest.mark.parametrize("columns", [["s.d"], ["s.l", "s.t"], ["s.t"]])
def test_some_fields_of_a_struct_keep_their_stored_types(columns: list[str]) -> None:
    """ParquetFile.read of some of a struct's fields: those keep their stored
    types and metadata, matched by name (the stored struct has more fields)."""
    raw = _pyarrow_file(NESTED_STORED)
    expected = pq.ParquetFile(io.BytesIO(raw)).read(columns=columns)
    ours = pc.ParquetFile(io.BytesIO(raw)).read(columns=columns)
    assert ours.to_arrow().schema.equals(expected.schema, check_metadata=True)
    assert ours.to_pylist() == expected.to_pylist()


@pytest.mark.parametrize("column", ["ls.list.element.a", "ls.list.element.b"])
def test_some_fields_of_a_struct_in_a_list_keep_their_stored_types(column: str) -> None:
    # (pyarrow names the element of a list it prunes "item", of the list it reads whole "element": ours stays "element")
    raw = _pyarrow_file(NESTED_STORED)
    expected = pq.ParquetFile(io.BytesIO(raw)).read(columns=[column])
    ours = pc.ParquetFile(io.BytesIO(raw)).read(columns=[column])
    assert ours.to_arrow().column("ls").type.value_type == expected.column("ls").type.value_type
    assert ours.to_pylist() == expected.to_pylist()


@pytest.mark.parametrize("columns", [["s.d"], ["s.l", "s.t"]])
def test_a_struct_field_read_as_a_column_keeps_its_stored_type(columns: list[str]) -> None:
    raw = _pyarrow_file(NESTED_STORED)
    expected = pq.read_table(io.BytesIO(raw), columns=columns)
    ours = pc.read_table(io.BytesIO(raw), columns=columns)
    assert ours.to_arrow().schema.equals(expected.schema, check_metadata=True)
    assert ours.to_pylist() == expected.to_pylist()


@pytest.mark.parametrize(("typ", "row"), [(pa.list_(pa.string(), 1), ["a"]), (pa.list_(pa.binary(), 3), [None, b"", b"b"]),
                                          (pa.list_(pa.list_(pa.int32()), 2), [None, [1]]),
                                          (pa.list_(pa.field("x", pa.int8(), nullable=False), 2), [1, 2]),
                                          # (pyarrow's cast of a struct, list or map reaches the fixed-size list in it)
                                          (pa.struct([("f", pa.list_(pa.string(), 1))]), {"f": None}),
                                          (pa.list_(pa.list_(pa.string(), 1)), [None]),
                                          (pa.large_list(pa.list_(pa.string(), 1)), [None]),
                                          (pa.map_(pa.string(), pa.list_(pa.string(), 1)), [("k", None)])])
def test_null_fixed_size_lists_come_back_valid(typ: object, row: list) -> None:
    """Null rows of a fixed-size list stand for list_size null items: the
    items are built here, not by pyarrow's cast (which reads past the end of
    an empty child's offsets for them: garbage strings, or a crash)."""
    table = pa.table({"f": pa.array([None] * 50 + [row] + [None] * 9, typ)})
    for rows in (50, 60):
        raw = _pyarrow_file(table.slice(0, rows))
        ours = pc.read_table(io.BytesIO(raw)).to_arrow()
        ours.validate(full=True)
        expected = pq.read_table(io.BytesIO(raw))
        assert ours.schema == expected.schema
        assert ours.to_pylist() == expected.to_pylist()


REQUIRED_PAIR = pa.struct([pa.field("f", pa.list_(pa.int32(), 2), nullable=False)])


@pytest.mark.parametrize("typ", [REQUIRED_PAIR, pa.struct([("s", REQUIRED_PAIR)]), pa.list_(REQUIRED_PAIR),
                                 pa.large_list(REQUIRED_PAIR), pa.map_(pa.string(), REQUIRED_PAIR)])
def test_a_required_fixed_size_list_under_null_structs_keeps_its_type(typ: object) -> None:
    """A required fixed-size list has no items in the file where a struct
    around it is null: those rows take list_size null items, so the column
    reads with its stored type (pyarrow refuses such files: 'Expected all
    lists to be of size=2')."""
    row = {"f": [1, None]}
    value = {"s": row} if pa.types.is_struct(typ) and typ.field(0).name == "s" else row
    value = [value, None] if pa.types.is_list(typ) or pa.types.is_large_list(typ) else value
    value = [("k", row), ("n", None)] if pa.types.is_map(typ) else value
    table = pa.table({"c": pa.array([value, None], typ)})
    ours = pc.read_table(io.BytesIO(_pyarrow_file(table))).to_arrow()
    ours.validate(full=True)
    # the type pyarrow reads where no struct is null
    assert ours.schema == pq.read_table(io.BytesIO(_pyarrow_file(table.slice(0, 0)))).schema
    assert ours.to_pylist() == table.to_pylist()


def test_a_list_whose_items_keep_another_shape_is_not_restored() -> None:
    """Lists of lists of one item are no fixed-size lists of two: the array
    comes back as it is (the stored type does not fit it), not an error."""
    from parquet_codec.arrow_origin import restore_array

    array = pa.array([[[1]], None], pa.list_(pa.list_(pa.int32())))
    for target in (pa.large_list(pa.list_(pa.int32(), 2)), pa.list_(pa.list_(pa.int32(), 2))):
        assert restore_array(array, target).equals(array)
