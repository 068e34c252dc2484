"""Folders of files: Spark's layout, hive partitions, typed partition values."""

from __future__ import annotations

import datetime
import os

import pytest

import parquet_codec as pc
from parquet_codec.dataset import discover, infer_type
from parquet_codec.dataset_partitions import typed
from parquet_codec.errors import SchemaError, UnsupportedError

pa = pytest.importorskip("pyarrow")
pq = pytest.importorskip("pyarrow.parquet")


def spark_like_folder(tmp_path):
    """part files under key=value folders, with Spark's bookkeeping files beside them."""
    table = pa.table({"id": list(range(12)), "year": [2020, 2021, 2021] * 4,
                      "city": ["Paris", "São Paulo", None] * 4, "v": [i / 2 for i in range(12)]})
    root = tmp_path / "out"
    pq.write_to_dataset(table, root, partition_cols=["year", "city"],
                        basename_template="part-{i}-c000.snappy.parquet")
    (root / "_SUCCESS").write_bytes(b"")
    for part in root.rglob("part-*"):
        (part.parent / f".{part.name}.crc").write_bytes(b"crc")
    (root / "_common_metadata").write_bytes(b"not data")
    return table, root


def test_partitioned_folder_reads_like_pyarrow_dataset(tmp_path):
    table, root = spark_like_folder(tmp_path)
    ours = pc.read_table(root)
    assert ours.column_names == ["id", "v", "year", "city"]
    got = sorted(ours.to_pylist(), key=lambda r: r["id"])
    expected = sorted(table.to_pylist(), key=lambda r: r["id"])
    assert got == [{k: e[k] for k in ours.column_names} for e in expected]
    year = ours.schema.field("year")
    assert year.node.physical_type == 1  # INT32, as Spark infers small integers


def test_partition_columns_select_and_filter(tmp_path):
    table, root = spark_like_folder(tmp_path)
    got = pc.read_table(root, columns=["city", "id"], filters=[("year", "==", 2021), ("id", ">", 3)])
    expected = [{"city": r["city"], "id": r["id"]} for r in table.to_pylist() if r["year"] == 2021 and r["id"] > 3]
    assert sorted(got.to_pylist(), key=lambda r: r["id"]) == sorted(expected, key=lambda r: r["id"])
    nulls = pc.read_table(root, filters=[("city", "==", None)])
    assert {r["id"] for r in nulls.to_pylist()} == {2, 5, 8, 11}
    either = pc.read_table(root, filters=[[("city", "==", "Paris")], [("id", "==", 4)]])
    assert {r["id"] for r in either.to_pylist()} == {0, 3, 4, 6, 9}
    none = pc.read_table(root, filters=[("year", ">", 3000)])
    assert none.num_rows == 0 and none.column_names == ["id", "v", "year", "city"]


def test_partition_type_inference():
    assert infer_type(["1", "-2", None]) == "int"
    assert infer_type(["1", str(2**40)]) == "long"
    assert infer_type(["1", "2.5"]) == "double"
    assert infer_type(["2020-01-02", None]) == "date"
    assert infer_type(["2020-01-02 03:04:05.5"]) == "timestamp"
    assert infer_type(["2020-01-02", "x"]) == "string"
    # Doubles as Spark parses them (Java's Double.parseDouble), not Python's float:
    for spark_strings in (["1_000", "2"], ["nan", "1"], ["inf", "1"], ["0x10"]):
        assert infer_type(spark_strings) == "string"
    for spark_doubles in (["NaN", "1"], ["-Infinity"], [" 7", "8"], ["1d", "2.5f"]):
        assert infer_type(spark_doubles) == "double"
    assert typed("1d", "double") == 1.0 and typed(" 7", "double") == 7.0


def test_typed_dates_and_escaped_values(tmp_path):
    for day, name in ((datetime.date(2020, 1, 2), "a%2Fb"), (datetime.date(2021, 3, 4), "c d")):
        folder = tmp_path / f"day={day.isoformat()}" / f"name={name}"
        folder.mkdir(parents=True)
        pq.write_table(pa.table({"x": [1]}), folder / "part-0.parquet")
    rows = sorted(pc.read_table(tmp_path).to_pylist(), key=lambda r: r["day"])
    assert rows == [{"x": 1, "day": datetime.date(2020, 1, 2), "name": "a/b"},
                    {"x": 1, "day": datetime.date(2021, 3, 4), "name": "c d"}]


def test_a_dataset_of_no_files_is_a_table_of_no_columns_as_pyarrow_reads_it(tmp_path):
    (tmp_path / "_temporary").mkdir()  # bookkeeping folders hold no data files
    pq.write_table(pa.table({"x": [1]}), tmp_path / "_temporary" / "part-0.parquet")
    assert discover(str(tmp_path)) == []
    for source in (tmp_path, []):
        table = pc.read_table(source)
        assert (table.num_rows, table.column_names) == (0, [])
        assert table.to_arrow().equals(pq.read_table(source))
        assert pc.ParquetDataset(source).read().num_rows == 0
        with pytest.raises(SchemaError, match="no column 'x'"):
            pc.read_table(source, columns=["x"])
        with pytest.raises(SchemaError, match="no column 'x'"):
            pc.read_table(source, filters=[("x", "==", 1)])


def test_read_pandas_reads_the_stored_index_as_pyarrow(tmp_path):
    pd = pytest.importorskip("pandas")
    pq = pytest.importorskip("pyarrow.parquet")
    frame = pd.DataFrame({"a": [1, 2, 3]}, index=pd.Index(["x", "y", "z"], name="idx"))
    path = tmp_path / "f.parquet"
    frame.to_parquet(path)
    ours = pc.read_pandas(path, columns=["a"])
    assert ours.column_names == pq.read_pandas(path, columns=["a"]).column_names == ["a", "idx"]
    pd.testing.assert_frame_equal(ours.to_pandas(), frame)


def test_read_pandas_of_a_folder_reads_the_stored_index_as_pyarrow(tmp_path):
    """A folder's files (and a schema given) name the DataFrame index columns
    that read_pandas adds to the columns selected, as in a single file."""
    pd = pytest.importorskip("pandas")
    frame = pd.DataFrame({"a": [1, 2, 3, 4], "b": [5, 6, 7, 8]}, index=pd.Index(list("wxyz"), name="idx"))
    root = tmp_path / "d"
    root.mkdir()
    frame.iloc[:2].to_parquet(root / "p0.parquet")
    frame.iloc[2:].to_parquet(root / "p1.parquet")
    schema = pq.read_schema(root / "p0.parquet")
    for options in ({}, {"schema": schema}):
        expected = pq.read_pandas(root, columns=["a"], **options)
        ours = pc.read_pandas(root, columns=["a"], **options)
        assert ours.column_names == expected.column_names == ["a", "idx"]
        pd.testing.assert_frame_equal(ours.to_pandas(), frame[["a"]])
        assert pc.ParquetDataset(root, **options).read_pandas(columns=["a"]).column_names == ["a", "idx"]
        assert pc.read_table(root, columns=["a"], **options).column_names == ["a"]


def test_parquet_dataset_reads_as_pyarrows(tmp_path):
    pa = pytest.importorskip("pyarrow")
    pq = pytest.importorskip("pyarrow.parquet")
    root = tmp_path / "d"
    pq.write_to_dataset(pa.table({"k": [1, 1, 2], "v": [1.0, 2.0, 3.0], "s": ["a", "b", None]}), root,
                        partition_cols=["k"])
    ours, theirs = pc.ParquetDataset(root), pq.ParquetDataset(root)
    assert sorted(ours.files) == sorted(theirs.files)
    assert [f.name for f in ours.schema.fields] == theirs.schema.names

    def rows(table: object) -> list:
        return sorted(table.to_pylist(), key=str)

    assert rows(ours.read()) == rows(theirs.read())
    assert rows(ours.read(columns=["s", "k"])) == rows(theirs.read(columns=["s", "k"]))
    kept = [("k", "=", 2)]
    assert rows(pc.ParquetDataset(root, filters=kept).read()) == rows(pq.ParquetDataset(root, filters=kept).read())
    files = sorted(ours.files)  # a list of files: the key=value folders in their paths are partitions
    for partitioning in ("hive", None):
        assert pc.ParquetDataset(files, partitioning=partitioning).read().to_pylist() == \
            pq.ParquetDataset(files, partitioning=partitioning).read().to_pylist()
    assert pc.ParquetDataset(files[0]).read().to_pylist() == pq.ParquetDataset(files[0]).read().to_pylist()
    with pytest.raises(UnsupportedError):
        pc.ParquetDataset(root, partitioning="directory")


def _rows(table: object) -> list:
    return sorted(table.to_pylist(), key=str)


def test_folders_on_other_filesystems_read_as_pyarrow(tmp_path):
    """A partitioned folder through pyarrow's filesystems, an fsspec one and a
    URI, bookkeeping files skipped as on the local disk."""
    fs = pytest.importorskip("pyarrow.fs")
    table = pa.table({"x": list(range(6)), "k": ["a", "a", "b", "b", "c", "c"], "y": [1, 2] * 3})
    pq.write_to_dataset(table, tmp_path / "ds", partition_cols=["k", "y"])
    (tmp_path / "ds" / "_SUCCESS").write_bytes(b"")
    expected = _rows(pq.read_table(tmp_path / "ds"))
    sub = fs.SubTreeFileSystem(str(tmp_path), fs.LocalFileSystem())
    assert _rows(pc.read_table("ds", filesystem=sub)) == expected
    assert _rows(pc.read_table((tmp_path / "ds").as_uri())) == expected
    assert _rows(pc.ParquetDataset((tmp_path / "ds").as_uri()).read()) == expected
    kept = [("k", "=", "b")]
    assert _rows(pc.ParquetDataset("ds", filesystem=sub, filters=kept).read()) == \
        _rows(pq.ParquetDataset("ds", filesystem=sub, filters=kept).read())
    fsspec = pytest.importorskip("fsspec")
    memory = fsspec.filesystem("memory")
    pq.write_to_dataset(table, "/pc-test-ds", partition_cols=["k", "y"], filesystem=memory)
    memory.pipe("/pc-test-ds/.hidden/x.parquet", b"not data")
    try:
        for root in ("/pc-test-ds", "pc-test-ds/"):
            assert _rows(pc.read_table(root, filesystem=memory)) == expected
        assert sorted(pc.ParquetDataset("/pc-test-ds", filesystem=memory).files) == sorted(
            p for p in memory.find("/pc-test-ds") if ".hidden" not in p)
    finally:
        memory.rm("/pc-test-ds", recursive=True)


def _partitioned(root, key: str, values: list) -> None:
    """One file per value under ``root/key=value``, its row's x the value's index."""
    for i, value in enumerate(values):
        (root / f"{key}={value}").mkdir(parents=True)
        pq.write_table(pa.table({"x": [i]}), root / f"{key}={value}" / "f.parquet")


def test_partition_filters_compare_values_of_other_types_as_pyarrow(tmp_path):
    """pyarrow reads date partitions as strings: a string filter on one reads as
    pyarrow's; a comparison pyarrow refuses (a string partition with a number, a
    number partition with a string) is a SchemaError naming column, value and types."""
    dates, words, numbers = tmp_path / "dates", tmp_path / "words", tmp_path / "numbers"
    _partitioned(dates, "d", ["2020-01-01", "2021-06-30"])
    _partitioned(words, "k", ["abc", "x1"])
    _partitioned(numbers, "n", [1, 20])

    def xs(table: object) -> list:
        return sorted(r["x"] for r in table.to_pylist())

    agreed = [(dates, [("d", "==", "2020-01-01")]), (dates, [("d", "<", "2021-01-01")]),
              (dates, [("d", ">=", "2021")]), (dates, [("d", "==", "not a date")]),
              (dates, [("d", "in", ["2021-06-30", "x"])]), (dates, [("d", "!=", "2020-01-01")]),
              (words, [("k", "==", "abc")]), (words, [("k", ">", "b")]),
              (numbers, [("n", "in", ["1", "20"])]), (numbers, [("n", "not in", ["1"])]),
              (numbers, [("n", "==", 1.0)]), (numbers, [("n", "<", 1.5)])]
    for root, filters in agreed:
        assert xs(pc.read_table(root, filters=filters)) == xs(pq.read_table(root, filters=filters)), filters
    assert xs(pc.read_table(dates, filters=[("d", "==", datetime.date(2021, 6, 30))])) == [1]
    refused = [(dates, ("d", "==", 5), "'d' of type date .* 5 of type int"),
               (dates, ("d", "<", 2020.5), "'d' of type date .* 2020.5 of type float"),
               (words, ("k", "==", 1), "'k' of type string .* 1 of type int"),
               (words, ("k", "in", [1, "abc"]), "'k' of type string .* 1 of type int"),
               (numbers, ("n", "==", "1"), "'n' of type int32 .* '1' of type str"),
               (numbers, ("n", "<", "5"), "'n' of type int32 .* '5' of type str"),
               (numbers, ("n", "in", ["x"]), "'n' of type int32 .* 'x' of type str"),
               (numbers, ("n", "==", True), "'n' of type int32 .* True of type bool")]
    for root, predicate, message in refused:
        with pytest.raises((pa.ArrowNotImplementedError, pa.ArrowTypeError, pa.ArrowInvalid)):
            pq.read_table(root, filters=[predicate])
        with pytest.raises(SchemaError, match=message):
            pc.read_table(root, filters=[predicate])


def _files(root, tables: dict) -> object:
    root.mkdir()
    for name, table in tables.items():
        pq.write_table(table, root / name)
    return root


def test_files_of_different_schemas_read_in_the_first_files_schema_as_pyarrow(tmp_path):
    """The first file in path order gives the schema: a column missing from a
    file is null there, a column only later files have is dropped, a column of
    another type is cast to the first file's type."""
    int32 = pa.array([7, None], pa.int32())
    cases = {
        "two": {"p1.parquet": pa.table({"a": [2], "c": [1.5]}), "p0.parquet": pa.table({"a": [1], "b": ["x"]}),
                "p2.parquet": pa.table({"b": ["y", None], "a": int32})},
        "floats": {"p0.parquet": pa.table({"f": pa.array([1.5], pa.float64())}),
                   "p1.parquet": pa.table({"f": pa.array([2.5], pa.float32())}),
                   "p2.parquet": pa.table({"f": pa.array([2**40, None])})},
        "units": {"p0.parquet": pa.table({"t": pa.array([1], pa.timestamp("us"))}),
                  "p1.parquet": pa.table({"t": pa.array([2], pa.timestamp("ms"))})},
    }
    for name, tables in cases.items():
        root = _files(tmp_path / name, tables)
        theirs = pq.read_table(root)
        assert pc.read_table(root).to_arrow().equals(theirs), name
    required = pa.schema([pa.field("a", pa.int64(), nullable=False)])
    root = _files(tmp_path / "required", {"p0.parquet": pa.table({"a": [1]}, schema=required),
                                          "p1.parquet": pa.table({"b": [2]})})
    ours = pc.read_table(root)  # pyarrow keeps "not null" over the null; here the column becomes optional
    assert ours.to_pylist() == pq.read_table(root).to_pylist() == [{"a": 1}, {"a": None}]
    assert ours.schema.field("a").nullable
    root = tmp_path / "two"
    for columns, filters in ((["b", "a"], None), (None, [("b", "==", "y")]), (["a"], [("b", "not in", ["x"])]),
                             (None, [[("b", "==", "x")], [("a", "==", 7)]]), (["b"], [("a", ">", 1)])):
        theirs = pq.read_table(root, columns=columns, filters=filters)
        assert _rows(pc.read_table(root, columns=columns, filters=filters)) == _rows(theirs), (columns, filters)
    for columns, filters in ((["c"], None), (None, [("c", "==", 1.5)])):  # not in the first file
        with pytest.raises(pa.ArrowInvalid):
            pq.read_table(root, columns=columns, filters=filters)
        with pytest.raises(SchemaError, match="'c'.*first file"):
            pc.read_table(root, columns=columns, filters=filters)


def test_a_column_that_cannot_be_cast_to_the_first_files_type_is_a_schema_error(tmp_path):
    refused = {"range": (pa.array([1], pa.int32()), pa.array([2**40])),
               "fraction": (pa.array([1]), pa.array([2.5])),
               "text": (pa.array([1]), pa.array(["z"]))}
    for name, (first, later) in refused.items():
        root = _files(tmp_path / name, {"p0.parquet": pa.table({"a": first}), "p1.parquet": pa.table({"a": later})})
        with pytest.raises((pa.ArrowInvalid, pa.ArrowNotImplementedError)):
            pq.read_table(root)
        with pytest.raises(SchemaError, match=r"'a' of .*p1\.parquet"):
            pc.read_table(root)


def test_plain_subfolders_are_read_and_their_key_value_folders_are_partitions_as_pyarrow(tmp_path):
    """Files in folders that are not key=value are read; a partition key some
    files lack is null for them; every name under the folder starting with
    ``_`` or ``.`` is skipped, as pyarrow skips it."""
    layouts = {
        "plain": ["p0.parquet", "sub/p1.parquet", "sub/deeper/p2.parquet", "_SUCCESS", ".p0.parquet.crc",
                  "_metadata", "_temporary/x.parquet", ".hidden/y.parquet", "sub/_tmp/w.parquet",
                  "sub/.q.parquet", "sub/_common_metadata"],
        "mixed": ["k=1/p0.parquet", "sub/p1.parquet", "p2.parquet", "k=2/inner/p3.parquet"],
        "keys": ["a/k=1/p0.parquet", "b/j=2/k=3/p1.parquet", "c/k=4/k=5/p2.parquet"],
    }
    for name, paths in layouts.items():
        root = tmp_path / name
        for i, path in enumerate(paths):
            (root / path).parent.mkdir(parents=True, exist_ok=True)
            if path.endswith(".parquet"):
                pq.write_table(pa.table({"x": [i]}), root / path)
            else:
                (root / path).write_bytes(b"not data")
        theirs, ours = pq.read_table(root), pc.read_table(root)
        assert ours.column_names == theirs.column_names, name
        assert ours.to_pylist() == theirs.to_pylist(), name
        assert pc.ParquetDataset(root).files == pq.ParquetDataset(root).files, name
        kept = [("k", "==", 1)] if name != "plain" else [("x", "==", 1)]
        assert pc.read_table(root, filters=kept).to_pylist() == pq.read_table(root, filters=kept).to_pylist()


def test_read_table_takes_partitioning_and_a_list_of_files_as_pyarrow(tmp_path):
    """``partitioning``: "hive" (the default), None (no partition columns) or
    the field names of plain folder levels; a list of files reads as one
    dataset, in the order listed, the key=value folders in their paths
    partitions."""
    hive, plain = tmp_path / "hive", tmp_path / "plain"
    pq.write_to_dataset(pa.table({"x": [1, 2, 3], "k": [1, 2, 2]}), hive, partition_cols=["k"])
    for i, folder in enumerate(["2020/1", "2021/12", "2021/_tmp", "9999"]):
        (plain / folder).mkdir(parents=True)
        pq.write_table(pa.table({"x": [i]}), plain / folder / "p.parquet")
    for root, partitioning in ((hive, "hive"), (hive, None), (plain, None), (plain, ["year", "month"]),
                               (plain, ["year"]), (hive, ["k"])):
        theirs, ours = pq.read_table(root, partitioning=partitioning), pc.read_table(root, partitioning=partitioning)
        assert ours.column_names == theirs.column_names, partitioning
        assert _rows(ours) == _rows(theirs), partitioning
        assert _rows(pc.ParquetDataset(root, partitioning=partitioning).read()) == _rows(theirs), partitioning
    files = [str(p) for p in sorted(hive.rglob("*.parquet"), reverse=True)]
    for partitioning in ("hive", None):
        theirs = pq.read_table(files, partitioning=partitioning)
        assert pc.read_table(files, partitioning=partitioning).to_pylist() == theirs.to_pylist()
    kept = [("k", "==", 2)]
    assert pc.read_table(files, filters=kept).to_pylist() == pq.read_table(files, filters=kept).to_pylist()
    assert pc.read_table(files[:1], columns=["x"]).to_pylist() == pq.read_table(files[:1], columns=["x"]).to_pylist()
    one = files[0]  # a single file: its folders are not partitions, as in pyarrow
    assert pc.read_table(one, partitioning="hive").to_pylist() == pq.read_table(one, partitioning="hive").to_pylist()
    with pytest.raises(UnsupportedError):
        pc.read_table(hive, partitioning="directory")


def test_struct_fields_selected_by_dotted_name_from_a_folder_as_pyarrow(tmp_path):
    table = pa.table({"s": [{"a": 1, "b": "x"}, None], "k": [1, 2], "v": [0.5, 1.5]})
    pq.write_to_dataset(table, tmp_path / "ds", partition_cols=["k"])
    columns = ["k", "s.a", "v"]
    theirs, ours = pq.read_table(tmp_path / "ds", columns=columns), pc.read_table(tmp_path / "ds", columns=columns)
    assert ours.column_names == theirs.column_names == ["k", "a", "v"]
    assert _rows(ours) == _rows(theirs)


def test_a_value_shaped_like_a_date_that_is_not_one_is_a_string(tmp_path):
    for day, value in (("2020-02-30", 1), ("2020-01-01", 2)):
        (tmp_path / f"d={day}").mkdir()
        pq.write_table(pa.table({"v": [value]}), tmp_path / f"d={day}" / "f.parquet")
    assert infer_type(["2020-02-30", "2020-01-01"]) == "string"
    assert infer_type(["2020-01-01 25:00:00"]) == "string"
    assert pc.read_table(tmp_path).to_pylist() == pq.read_table(tmp_path).to_pylist()


def test_partitioned_tables_keep_the_reading_options(tmp_path):
    table = pa.table({"s": ["a", "b", "a"], "t": pa.array(["x", "y", "x"]).dictionary_encode()})
    for key in (1, 2):
        (tmp_path / f"k={key}").mkdir()
        pq.write_table(table, tmp_path / f"k={key}" / "f.parquet")
    ours = pc.read_table(tmp_path, read_dictionary=["s"]).to_arrow()
    theirs = pq.read_table(tmp_path, read_dictionary=["s"])
    for name in ("s", "t"):
        assert ours.schema.field(name).type == theirs.schema.field(name).type
        assert ours.column(name).to_pylist() == theirs.column(name).to_pylist()


def test_a_folder_takes_columns_as_any_iterable_of_names(tmp_path):
    pq.write_table(pa.table({"id": [1], "name": ["a"]}), tmp_path / "a.parquet")
    assert pc.read_table(tmp_path, columns=(c for c in ["name"])).column_names == ["name"]
    assert pc.ParquetDataset(tmp_path).read(columns=iter(["id"])).column_names == ["id"]


def test_partition_key_the_files_also_hold_is_read_from_the_files(tmp_path):
    """polars' partition_by and DuckDB's WRITE_PARTITION_COLUMNS write each key
    into the files as well as the folder names; pyarrow refuses to merge the
    two, polars and DuckDB read the files' column (in its place and type)."""
    for p, q in (("a", 1), ("b", 2)):
        (tmp_path / f"p={p}" / f"q={q}").mkdir(parents=True)
        pc.write_table({"i": [q, q + 10], "p": [p, p], "q": [q, q], "d": [datetime.date(2020, 1, q)] * 2},
                       tmp_path / f"p={p}" / f"q={q}" / "part-0.parquet")
    table = pc.read_table(tmp_path)
    assert table.column_names == ["i", "p", "q", "d"]
    assert table.to_arrow().schema.types[1:3] == [pa.string(), pa.int64()]
    assert table.to_pylist()[:2] == [{"i": 1, "p": "a", "q": 1, "d": datetime.date(2020, 1, 1)},
                                     {"i": 11, "p": "a", "q": 1, "d": datetime.date(2020, 1, 1)}]
    assert pc.read_table(tmp_path, columns=["q", "i"], filters=[("p", "==", "b")]).to_pylist() == [
        {"q": 2, "i": 2}, {"q": 2, "i": 12}]
    dataset = pc.ParquetDataset(tmp_path)
    assert [f.name for f in dataset.schema.fields] == dataset.read().column_names == ["i", "p", "q", "d"]


def test_datasets_polars_partitions_read_like_polars(tmp_path):
    pl = pytest.importorskip("polars")
    frame = pl.DataFrame({"i": range(60), "p": [f"v{i % 3}" for i in range(60)], "q": [i % 2 for i in range(60)],
                          "d": [datetime.date(2020, 1, 1 + i % 2) for i in range(60)]})
    frame.write_parquet(tmp_path / "out", partition_by=["p", "d"])
    expected = pl.read_parquet(tmp_path / "out")
    table = pc.read_table(tmp_path / "out")
    assert table.column_names == expected.columns
    assert sorted(table.to_pylist(), key=lambda r: r["i"]) == expected.sort("i").to_dicts()
    got = pc.read_table(tmp_path / "out", filters=[("d", "==", datetime.date(2020, 1, 2)), ("p", "!=", "v0")])
    assert sorted(r["i"] for r in got.to_pylist()) == [i for i in range(60) if i % 2 and i % 3]


def test_datasets_duckdb_writes_with_partition_columns_read_like_duckdb(tmp_path):
    duckdb = pytest.importorskip("duckdb")
    query = "select range i, 'v' || (range % 3) p, range % 2 q from range(30)"
    duckdb.connect().execute(f"COPY ({query}) TO '{tmp_path / 'out'}' "
                             "(FORMAT parquet, PARTITION_BY (p, q), WRITE_PARTITION_COLUMNS true)")
    expected = duckdb.sql(f"select * from read_parquet('{tmp_path / 'out'}/**/*.parquet', hive_partitioning=true)")
    rows = [dict(zip(expected.columns, r, strict=True)) for r in expected.fetchall()]
    table = pc.read_table(tmp_path / "out")
    assert table.column_names == expected.columns
    assert sorted(table.to_pylist(), key=lambda r: r["i"]) == sorted(rows, key=lambda r: r["i"])


def _schema_cases_folder(root):
    os.makedirs(root / "k=1")
    os.makedirs(root / "k=2")
    pq.write_table(pa.table({"a": pa.array([1, 2], pa.int32()), "b": ["x", "y"]}), root / "k=1" / "f.parquet")
    pq.write_table(pa.table({"a": pa.array([3], pa.int64()), "c": [1.5]}), root / "k=2" / "f.parquet")


@pytest.mark.parametrize("fields", [
    [("c", pa.float64()), ("k", pa.int8()), ("a", pa.int64()), ("z", pa.string())],
    [("c", pa.float64()), ("a", pa.int64())],
    [("a", pa.int16()), ("b", pa.large_string())],
], ids=["key-and-missing", "no-key", "narrower"])
def test_a_schema_given_orders_casts_and_fills_as_pyarrow(tmp_path, fields):
    """pyarrow.parquet.read_table(schema=...): the schema's fields in its order,
    each file's columns cast to its types, a field no file holds null, a
    partition key it does not name left out."""
    _schema_cases_folder(tmp_path)
    schema = pa.schema(fields)
    expected = pq.read_table(tmp_path, schema=schema)
    got = pc.read_table(tmp_path, schema=schema)
    assert got.to_arrow().schema.equals(expected.schema)
    assert got.to_pylist() == expected.to_pylist()
    assert pc.ParquetDataset(tmp_path, schema=schema).read().to_pylist() == expected.to_pylist()
    names = [f[0] for f in fields]
    picked = pc.read_table(tmp_path, schema=schema, columns=names[::-1], filters=[("a", ">", 1)])
    assert picked.to_pylist() == pq.read_table(tmp_path, schema=schema, columns=names[::-1],
                                               filters=[("a", ">", 1)]).to_pylist()


def test_a_schema_given_for_one_file(tmp_path):
    path = tmp_path / "t.parquet"
    pq.write_table(pa.table({"a": pa.array([1, None, 3], pa.int64()), "s": ["x", "y", None],
                             "ts": pa.array([1, 2, 3], pa.timestamp("ms"))}), path)
    schema = pa.schema([("ts", pa.timestamp("us")), ("a", pa.int32()), ("n", pa.float32())])
    expected = pq.read_table(path, schema=schema)
    for source in (path, str(path), path.read_bytes()):
        got = pc.read_table(source, schema=schema)
        assert got.to_arrow().schema.equals(expected.schema)
        assert got.to_pylist() == expected.to_pylist()
    with open(path, "rb") as handle:
        assert pc.read_table(handle, schema=schema).to_pylist() == expected.to_pylist()
    encoded = pa.schema([("s", pa.dictionary(pa.int32(), pa.string())), ("a", pa.int64())])
    got = pc.read_table(path, schema=encoded)
    assert got.to_arrow().schema.equals(pq.read_table(path, schema=encoded).schema)
    assert got.to_pylist() == pq.read_table(path, schema=encoded).to_pylist()


def test_a_schema_given_refuses_what_pyarrow_refuses(tmp_path):
    path = tmp_path / "t.parquet"
    pq.write_table(pa.table({"a": pa.array([300], pa.int64()), "b": [1.5]}), path)
    with pytest.raises(SchemaError, match="column 'a' of .*t.parquet is int64 where the schema given is int8"):
        pc.read_table(path, schema=pa.schema([("a", pa.int8())]))
    with pytest.raises(pa.ArrowInvalid):
        pq.read_table(path, schema=pa.schema([("a", pa.int8())]))
    for options in ({"columns": ["b"]}, {"filters": [("b", ">", 1)]}):
        with pytest.raises(SchemaError, match="'b' is not a field of the schema given"):
            pc.read_table(path, schema=pa.schema([("a", pa.int64())]), **options)
        with pytest.raises(pa.ArrowInvalid):
            pq.read_table(path, schema=pa.schema([("a", pa.int64())]), **options)
    with pytest.raises(TypeError, match="pyarrow Schema"):
        pc.read_table(path, schema={"a": "int64"})


def test_sixteen_bit_integers_are_cast_across_files(tmp_path):
    """A 16-bit integer column is cast like any other width (only half floats
    are not cast); it was refused as 'this cast is not supported'."""
    pq.write_table(pa.table({"a": pa.array([1, -2], pa.int16())}), tmp_path / "0.parquet")
    pq.write_table(pa.table({"a": pa.array([300], pa.int64())}), tmp_path / "1.parquet")
    expected = pq.read_table(tmp_path)
    got = pc.read_table(tmp_path)
    assert got.to_arrow().schema.equals(expected.schema)
    assert got.to_pylist() == expected.to_pylist() == [{"a": 1}, {"a": -2}, {"a": 300}]


def test_structs_are_cast_field_by_name_as_pyarrow(tmp_path):
    """A struct of other fields is cast as Arrow casts structs: matched by name,
    fields the target lacks left out, fields it adds null, each field cast
    (a schema given, and a later file in the first file's schema); it was
    refused as 'nested columns of different types are not cast'."""
    struct = pa.struct([("x", pa.int64()), ("y", pa.string())])
    pq.write_table(pa.table({"s": pa.array([{"x": 1, "y": "a"}, None, {"x": None, "y": "c"}], struct)}),
                   tmp_path / "0.parquet")
    pq.write_table(pa.table({"s": pa.array([{"y": "b", "z": 2.5, "x": 7}], pa.struct(
        [("y", pa.string()), ("z", pa.float64()), ("x", pa.int32())]))}), tmp_path / "1.parquet")
    pq.write_table(pa.table({"s": pa.array([{"y": "d"}], pa.struct([("y", pa.string())]))}), tmp_path / "2.parquet")
    for schema in (None, pa.schema([("s", pa.struct([("y", pa.string()), ("x", pa.int8())]))]),
                   pa.schema([("s", pa.struct([("x", pa.int64()), ("q", pa.struct([("r", pa.int32())]))]))])):
        expected = pq.read_table(tmp_path, schema=schema)
        got = pc.read_table(tmp_path, schema=schema)
        assert got.to_arrow().schema.equals(expected.schema)
        assert got.to_pylist() == expected.to_pylist()
    with pytest.raises(SchemaError, match=r"column 's.x' of .*1.parquet is int32 where the schema given is int8"):
        pq.write_table(pa.table({"s": pa.array([{"x": 300}], pa.struct([("x", pa.int32())]))}), tmp_path / "1.parquet")
        pc.read_table(tmp_path, schema=pa.schema([("s", pa.struct([("x", pa.int8())]))]))


def test_ignore_prefixes_as_pyarrow(tmp_path):
    """pyarrow's ignore_prefixes: names (of files and of folders on the way)
    starting with one of them are left out, in place of "_" and "."; a single
    file is read whatever its name."""
    for name, value in (("x", 1), ("_y", 2), ("tmp_z", 3), ("sub/tmp_w", 4), ("tmpdir/v", 5)):
        os.makedirs((tmp_path / name).parent, exist_ok=True)
        pq.write_table(pa.table({"a": [value]}), tmp_path / f"{name}.parquet")
    for prefixes in (None, ["tmp"], [], ["tmp", "_"]):
        options = {} if prefixes is None else {"ignore_prefixes": prefixes}
        expected = sorted(pq.read_table(tmp_path, **options).column("a").to_pylist())
        assert sorted(pc.read_table(tmp_path, **options).column("a").to_pylist()) == expected
        assert sorted(pc.ParquetDataset(tmp_path, **options).read().column("a").to_pylist()) == expected
        assert sorted(pc.read_dataset(str(tmp_path), **options).column("a").to_pylist()) == expected
    assert pc.read_table(tmp_path / "x.parquet", ignore_prefixes=["x"]).num_rows == 1
    with pytest.raises(TypeError, match="ignore_prefixes"):
        pc.read_table(tmp_path, ignore_prefixes="tmp")


@pytest.mark.parametrize("flavor", ["hive", "directory"])
@pytest.mark.parametrize("key_type", ["int16", "string", "large_string", "float64", "discovered"])
def test_pyarrow_partitioning_objects_read_as_pyarrow(tmp_path, flavor, key_type):
    """pyarrow's Partitioning objects (pyarrow.dataset.partitioning(schema,
    flavor=...), HivePartitioning.discover()): the keys typed as their schema
    types them (a text key keeps "2020" as text); they were refused."""
    ds = pytest.importorskip("pyarrow.dataset")
    table = pa.table({"year": [2020, 2021, 2020], "v": [1, 2, 3]})
    folders = {"partition_cols": ["year"]} if flavor == "hive" else {"partitioning": ["year"]}
    pq.write_to_dataset(table, tmp_path, **folders)
    if key_type == "discovered":
        if flavor == "directory":
            pytest.skip("a discovering DirectoryPartitioning does not show its field names")
        partitioning = ds.HivePartitioning.discover()
    else:
        partitioning = ds.partitioning(pa.schema([("year", getattr(pa, key_type)())]),
                                       flavor="hive" if flavor == "hive" else None)
    expected = pq.read_table(tmp_path, partitioning=partitioning)
    for got in (pc.read_table(tmp_path, partitioning=partitioning),
                pc.ParquetDataset(tmp_path, partitioning=partitioning).read()):
        assert got.to_arrow().schema.equals(expected.schema)
        assert sorted(got.to_pylist(), key=str) == sorted(expected.to_pylist(), key=str)
    filtered = pc.read_table(tmp_path, partitioning=partitioning, filters=[("v", ">", 1)])
    assert sorted(filtered.to_pylist(), key=str) == sorted(
        pq.read_table(tmp_path, partitioning=partitioning, filters=[("v", ">", 1)]).to_pylist(), key=str)


def test_later_files_take_the_first_files_arrow_types(tmp_path):
    """Files of one Parquet schema but other stored Arrow types (large_string
    and string) read in the first file's, as pyarrow reads them; a later
    file's own Arrow type was kept when its Parquet schema was the same."""
    pq.write_table(pa.table({"s": pa.array(["a"], pa.large_string())}), tmp_path / "0.parquet")
    pq.write_table(pa.table({"s": pa.array(["b"], pa.string())}), tmp_path / "1.parquet")
    expected = pq.read_table(tmp_path)
    got = pc.read_table(tmp_path)
    assert got.to_arrow().schema.equals(expected.schema)
    assert got.to_pylist() == expected.to_pylist()


def test_lists_and_maps_are_cast_element_by_element(tmp_path):
    """A list's elements and a map's keys and values are cast as any column
    (a schema given); they were refused as nested columns of other types."""
    path = tmp_path / "t.parquet"
    pq.write_table(pa.table({
        "l": pa.array([[1, 2], None, []], pa.list_(pa.int32())),
        "m": pa.array([[("a", 1)], None, [("b", 2), ("c", None)]], pa.map_(pa.string(), pa.int32())),
        "ls": pa.array([[{"x": 1, "y": "a"}], [], None], pa.list_(pa.struct([("x", pa.int32()), ("y", pa.string())]))),
    }), path)
    for schema in (pa.schema([("l", pa.list_(pa.int64())), ("m", pa.map_(pa.string(), pa.int64()))]),
                   pa.schema([("ls", pa.list_(pa.struct([("x", pa.int8())])))])):
        expected = pq.read_table(path, schema=schema)
        got = pc.read_table(path, schema=schema)
        assert got.to_pylist() == expected.to_pylist()
        for name in schema.names:  # (the list's element field keeps the file's name: "element")
            theirs, ours = expected.schema.field(name).type, got.to_arrow().schema.field(name).type
            assert str(ours).replace("element:", "item:") == str(theirs)
    with pytest.raises(SchemaError, match="column 'l.element' of .* is int32 where the schema given is uint8"):
        pq.write_table(pa.table({"l": pa.array([[-1]], pa.list_(pa.int32()))}), path)
        pc.read_table(path, schema=pa.schema([("l", pa.list_(pa.uint8()))]))


def test_a_filter_is_checked_whole_before_files_are_pruned_as_pyarrow(tmp_path):
    """pyarrow checks every predicate against the dataset's schema before it
    reads: a value that cannot be compared with its column is refused even
    where the partition values decide the clause without it (or rule out
    every file); such a predicate was never evaluated, and rows came back."""
    _partitioned(tmp_path, "k", [1, 2])
    refused = [[("k", "==", 3), ("x", "==", "a")],  # every file pruned
               [[("k", ">", 0)], [("x", "<", "a")]],  # the first clause holds for every file
               [[("k", ">", 0)], [("k", "<", "5")]],
               [[("x", ">=", 0)], [("k", "==", 3), ("k", "in", ["a"])]]]
    for filters in refused:
        with pytest.raises((pa.ArrowNotImplementedError, pa.ArrowInvalid, pa.ArrowTypeError)):
            pq.read_table(tmp_path, filters=filters)
        with pytest.raises(SchemaError, match="cannot be compared"):
            pc.read_table(tmp_path, filters=filters)
        with pytest.raises(SchemaError, match="cannot be compared"):
            pc.read_table(tmp_path, filters=filters, schema=pa.schema([("x", pa.int64()), ("k", pa.int32())]))
        with pytest.raises(SchemaError, match="cannot be compared"):
            pc.ParquetDataset(tmp_path, filters=filters).read(columns=["k"])


def test_a_partition_key_filtered_but_not_selected_keeps_its_rows_in_a_schema_given(tmp_path):
    """With a schema given (or a pyarrow partitioning object) a filter on a
    partition key left out of ``columns`` is decided by the folders' values,
    as pyarrow decides it; the key was looked for in the files, and every
    row was dropped as if it were null."""
    ds = pytest.importorskip("pyarrow.dataset")
    pq.write_to_dataset(pa.table({"x": [1, 2, 3], "k": [1, 2, 2]}), tmp_path, partition_cols=["k"])
    options = [{"schema": pa.schema([("x", pa.int64()), ("k", pa.int32())])},
               {"partitioning": ds.partitioning(pa.schema([("k", pa.int16())]), flavor="hive")}]
    for given in options:
        for filters in ([("k", "==", 2)], [("k", "!=", 2)], [[("k", "in", [2])], [("x", "==", 1)]]):
            expected = pq.read_table(tmp_path, columns=["x"], filters=filters, **given)
            got = pc.read_table(tmp_path, columns=["x"], filters=filters, **given)
            assert sorted(got.to_pylist(), key=str) == sorted(expected.to_pylist(), key=str), (given, filters)
            assert got.column_names == ["x"]
        with pytest.raises(SchemaError, match="cannot be compared"):
            pc.read_table(tmp_path, columns=["x"], filters=[("k", "==", "a")], **given)


@pytest.mark.parametrize(("values", "key_type"), [
    (["true", "false"], "bool_"), (["1", "1099511627776"], "float64"), (["1", "1099511627776"], "float32"),
    (["2020-01-01", "2021-02-03"], "timestamp"), (["2020-01-01", "2021-02-03 04:05:06"], "timestamp"),
    (["1.5", "2"], "float64"), (["3", "__HIVE_DEFAULT_PARTITION__"], "int8"), (["2020-01-01", "x"], "string"),
])
def test_a_key_the_schema_types_is_parsed_from_its_folders_text_as_pyarrow(tmp_path, values, key_type):
    """A partition key typed by a schema given (or a partitioning object) is
    the folder's text parsed as that type, as pyarrow parses it: "true" is a
    boolean, "2020-01-01" a timestamp, 1099511627776 a float; these were
    refused as casts from the type inferred for the folders."""
    ds = pytest.importorskip("pyarrow.dataset")
    _partitioned(tmp_path, "k", values)
    key = pa.timestamp("us") if key_type == "timestamp" else getattr(pa, key_type)()
    for given in ({"schema": pa.schema([("x", pa.int64()), ("k", key)])},
                  {"partitioning": ds.partitioning(pa.schema([("k", key)]), flavor="hive")}):
        expected = pq.read_table(tmp_path, **given)
        got = pc.read_table(tmp_path, **given).to_arrow()
        assert got.schema.equals(expected.schema)
        assert sorted(got.to_pylist(), key=str) == sorted(expected.to_pylist(), key=str)


@pytest.mark.parametrize(("values", "key_type"), [(["1.5"], "int32"), (["x"], "float64"), (["2"], "bool_"),
                                                  (["2020-13-01"], "date32"), (["1"], "timestamp"),
                                                  (["1_000"], "float64"), ([" 7"], "float64")])
def test_a_folder_value_that_does_not_parse_as_the_schemas_type_is_refused_as_pyarrow(tmp_path, values, key_type):
    _partitioned(tmp_path, "k", values)
    key = pa.timestamp("us") if key_type == "timestamp" else getattr(pa, key_type)()
    schema = pa.schema([("x", pa.int64()), ("k", key)])
    with pytest.raises(pa.ArrowInvalid):
        pq.read_table(tmp_path, schema=schema)
    with pytest.raises(SchemaError, match=f"partition key 'k': {values[0]!r} is not a"):
        pc.read_table(tmp_path, schema=schema, filters=[("x", "<", 0)])  # whichever rows are read
