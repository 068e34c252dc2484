"""pyarrow.parquet's reading options, compared with pyarrow reading the same file."""

from __future__ import annotations

import datetime as dt
import io

import pytest

import parquet_codec as pc

pa = pytest.importorskip("pyarrow")
pq = pytest.importorskip("pyarrow.parquet")


def _file(table: object, **options: object) -> bytes:
    out = io.BytesIO()
    pq.write_table(table, out, **options)
    return out.getvalue()


TABLE = pa.table({
    "s": ["a", None, "b"], "b": [b"x", b"y", None], "i": [1, 2, 3],
    "l": [["a"], None, ["b", None]], "st": [{"q": "a"}, None, {"q": None}],
    "m": pa.array([[("k", "v")], None, []], pa.map_(pa.string(), pa.string())),
    "j": pa.array(["{}", None, "[1]"], pa.json_()),
    "u": pa.array([b"0123456789abcdef", None, b"fedcba9876543210"], pa.uuid()),
})

OPTIONS = [
    {"read_dictionary": ["s", "b"]},
    {"read_dictionary": ["l.list.element", "st.q", "m.key_value.value"]},
    {"read_dictionary": ["l", "st", "i"]},  # groups and non-binary columns: no dictionary
    {"binary_type": pa.large_binary()},
    {"binary_type": pa.binary_view()},
    {"list_type": pa.LargeListType},
    {"arrow_extensions_enabled": False},
    {"binary_type": pa.large_binary(), "list_type": pa.LargeListType, "read_dictionary": ["l.list.element"]},
    {"binary_type": pa.binary(), "list_type": pa.ListType, "read_dictionary": ["s", "l.list.element"]},
    {"read_dictionary": ["s"], "arrow_extensions_enabled": False},
    {"binary_type": pa.large_binary(), "arrow_extensions_enabled": False},
    {"list_type": pa.LargeListType, "read_dictionary": ["l.list.element"]},
]


@pytest.mark.parametrize("store_schema", [True, False], ids=["stored-schema", "no-stored-schema"])
@pytest.mark.parametrize("options", OPTIONS, ids=lambda o: ",".join(f"{k}={v}" for k, v in o.items()))
def test_types_as_pyarrow_chooses_them(options: dict, store_schema: bool) -> None:
    raw = _file(TABLE, store_schema=store_schema)
    expected = pq.read_table(io.BytesIO(raw), **options)
    ours = pc.read_table(io.BytesIO(raw), **options)
    assert ours.to_arrow().schema.types == expected.schema.types
    assert ours.to_arrow().to_pylist() == expected.to_pylist()
    assert ours.to_pylist() == pq.read_table(io.BytesIO(raw)).to_pylist()  # Python values do not change
    pf = pc.ParquetFile(io.BytesIO(raw), **options)
    leaves = {leaf.dotted_path for leaf in pf.schema.leaves}
    if set(options.get("read_dictionary", ())) <= leaves:  # (pyarrow's ParquetFile raises KeyError for others)
        assert pf.schema_arrow.types == pq.ParquetFile(io.BytesIO(raw), **options).schema_arrow.types


INT96 = pa.table({"t": pa.array([-1_500_000_001, None, 1_700_000_000_123_456_789, 999], pa.timestamp("ns"))})


@pytest.mark.parametrize("unit", ["s", "ms", "us", "ns"])
def test_int96_timestamps_in_the_unit_asked(unit: str) -> None:
    raw = _file(INT96, use_deprecated_int96_timestamps=True)
    expected = pq.read_table(io.BytesIO(raw), coerce_int96_timestamp_unit=unit)
    ours = pc.read_table(io.BytesIO(raw), coerce_int96_timestamp_unit=unit)
    assert ours.to_arrow().equals(expected)
    assert [repr(v) for v in ours.column("t").to_pylist()] == [repr(v) for v in expected.column("t").to_pylist()]


def test_int96_beyond_nanoseconds_in_microseconds() -> None:
    from parquet_codec.temporal import int64_to_int96

    far = int64_to_int96(pa.array([253402225200000000]).to_numpy(), "us")
    raw = io.BytesIO()
    schema = pc.Schema.from_fields([pc.schema.primitive("t", "INT96")])
    pc.write_table(pc.Table(schema, {"t": pc.arrays.PrimitiveArray.of(far)}), raw)
    table = pc.read_table(io.BytesIO(raw.getvalue()), coerce_int96_timestamp_unit="us")
    assert table.to_pylist() == [{"t": dt.datetime(9999, 12, 31, 3)}]
    assert table.to_arrow().column("t").type == pa.timestamp("us")


def test_unknown_int96_unit() -> None:
    with pytest.raises(pc.UnsupportedError, match="coerce_int96_timestamp_unit"):
        pc.read_table(io.BytesIO(_file(INT96)), coerce_int96_timestamp_unit="minutes")


def test_batches_and_row_groups_keep_the_options() -> None:
    raw = _file(TABLE, row_group_size=2, store_schema=False)
    options = {"read_dictionary": ["s"], "binary_type": pa.large_binary()}
    expected = pq.ParquetFile(io.BytesIO(raw), **options)
    ours = pc.ParquetFile(io.BytesIO(raw), **options)
    assert ours.read_row_group(1).to_arrow().schema.types == expected.read_row_group(1).schema.types
    batch = next(ours.iter_batches(batch_size=3, columns=["s", "b"]))
    assert batch.to_arrow().schema.types == next(expected.iter_batches(batch_size=3, columns=["s", "b"])).schema.types


def test_pandas_index_columns_come_with_the_columns_asked() -> None:
    pd = pytest.importorskip("pandas")
    frame = pd.DataFrame({"x": [1, 2], "y": [3, 4]}, index=pd.Index(["a", "b"], name="key"))
    raw = _file(pa.Table.from_pandas(frame))
    expected = pq.read_table(io.BytesIO(raw), columns=["y"], use_pandas_metadata=True)
    ours = pc.read_table(io.BytesIO(raw), columns=["y"], use_pandas_metadata=True, use_threads=False)
    assert ours.column_names == expected.column_names == ["y", "key"]
    pd.testing.assert_frame_equal(ours.to_pandas(), expected.to_pandas())
    assert pc.ParquetFile(io.BytesIO(raw)).read(columns=["y"], use_pandas_metadata=True).column_names == \
        pq.ParquetFile(io.BytesIO(raw)).read(columns=["y"], use_pandas_metadata=True).column_names
    assert pc.read_table(io.BytesIO(raw), columns=["y"]).column_names == ["y"]


def test_a_filesystem_opens_the_path(tmp_path) -> None:
    fs = pytest.importorskip("pyarrow.fs")
    path = tmp_path / "t.parquet"
    path.write_bytes(_file(TABLE))
    read = pc.read_table(str(path), filesystem=fs.LocalFileSystem())
    assert read.to_pylist() == pq.read_table(path).to_pylist()

    class FsspecLike:  # open(path, mode) only, as fsspec filesystems
        opened: list[str] = []

        def open(self, name: str, mode: str) -> object:
            self.opened.append(name)
            return open(name, mode)  # noqa: SIM115 - the reader closes it

    fsspec = FsspecLike()
    assert pc.read_table(str(path), filesystem=fsspec).to_pylist() == read.to_pylist()
    assert fsspec.opened == [str(path)]


def test_pyarrow_names_for_checksums_and_io_hints() -> None:
    raw = bytearray(_file(pa.table({"x": list(range(100))}), write_page_checksum=True, use_dictionary=False,
                          compression="none"))
    chunk = pc.ParquetFile(bytes(raw)).metadata.row_group(0).columns[0].meta_data
    raw[chunk.data_page_offset + chunk.total_compressed_size - 1] ^= 0xFF  # the page's last value
    with pytest.raises(pc.ChecksumError):
        pc.read_table(bytes(raw), page_checksum_verification=True)
    read = pc.read_table(bytes(raw), page_checksum_verification=False, memory_map=True, buffer_size=4096,
                         pre_buffer=False, use_threads=True)  # no check; the I/O hints are accepted
    assert read.num_rows == 100


def test_dictionaries_list_the_dictionary_page_first() -> None:
    """pyarrow's dictionary of a dictionary-typed column is the chunks'
    dictionary page, in its order (a pandas categorical's categories, unused
    ones too), then values of pages that fell back, in order of appearance:
    so pandas gets the same categories, and order, from both readers."""
    pd = pytest.importorskip("pandas")
    values = pd.Categorical(["m", "a", None, "z", "m"] * 40, categories=["z", "a", "m", "q"], ordered=True)
    sink = io.BytesIO()
    pq.write_table(pa.Table.from_pandas(pd.DataFrame({"c": values, "x": range(200)})), sink, row_group_size=64)
    raw = sink.getvalue()
    ours, theirs = pc.ParquetFile(io.BytesIO(raw)), pq.ParquetFile(io.BytesIO(raw))
    pd.testing.assert_frame_equal(ours.read().to_pandas(), theirs.read().to_pandas())
    assert ours.read().to_pandas()["c"].cat.categories.tolist() == ["z", "a", "m", "q"]
    assert len(ours.read().dictionaries["c"]) == 1  # every row group repeats the one dictionary: kept once
    # Batches do not span row groups then, as pyarrow's (sizes 50, 14, 36, 28, ...).
    for got, expected in zip(ours.iter_batches(50), theirs.iter_batches(50), strict=True):
        assert got.num_rows == expected.num_rows
        assert got.to_arrow().column("c").combine_chunks().dictionary.equals(expected.column("c").dictionary)
    assert [b.num_rows for b in ours.iter_batches(50, columns=["x"])] == [50] * 4
    filtered = ours.read(filters=[("x", ">", 150)]).to_pandas()["c"]
    assert filtered.cat.categories.tolist() == ["z", "a", "m", "q"] and filtered.cat.ordered
    # A chunk that outgrew its dictionary page: the page's values, then the rest as they come.
    sink = io.BytesIO()
    strings = [f"v{i % 7}" for i in range(50)] + [f"w{i}" for i in range(3000)]
    pq.write_table(pa.table({"s": strings}), sink, dictionary_pagesize_limit=64)
    raw = sink.getvalue()
    got = pc.read_table(io.BytesIO(raw), read_dictionary=["s"]).to_arrow().column("s").combine_chunks()
    expected = pq.read_table(io.BytesIO(raw), read_dictionary=["s"]).column("s").combine_chunks()
    assert got.dictionary.to_pylist() == expected.dictionary.to_pylist() and got.to_pylist() == strings


STORED_DICTIONARIES = pa.table({
    "d": pa.array(["a", "b", "a", None] * 3).dictionary_encode(),
    "db": pa.array([b"a", b"b", None, b"a"] * 3).dictionary_encode(),
    "ld": pa.array([["a"], None, ["b", "a"]] * 4, pa.list_(pa.dictionary(pa.int8(), pa.string()))),
    "s": ["x", "y", None, "z"] * 3,
})


@pytest.mark.parametrize("binary_type", [pa.large_binary(), pa.binary_view()])
def test_a_large_or_view_binary_type_reads_stored_dictionaries_plain(binary_type: object) -> None:
    """With a large or view binary_type, a stored dictionary of strings or
    binaries reads as that type (its string type for strings), as pyarrow,
    which makes dictionaries of plain strings and binaries only; its batches
    then join row groups, as other columns' do."""
    raw = _file(STORED_DICTIONARIES, row_group_size=5)
    expected = pq.ParquetFile(io.BytesIO(raw), binary_type=binary_type)
    ours = pc.ParquetFile(io.BytesIO(raw), binary_type=binary_type)
    assert ours.read().to_arrow().schema.equals(expected.read().schema)
    assert ours.read().to_pylist() == expected.read().to_pylist()
    assert [b.num_rows for b in ours.iter_batches(4)] == [b.num_rows for b in expected.iter_batches(4)]


def test_read_dictionary_of_other_than_strings_keeps_batches_across_row_groups() -> None:
    """A column named in read_dictionary that holds no strings or binaries (or
    is read as a large binary) reads as itself, and its batches join row
    groups, as pyarrow's."""
    raw = _file(pa.table({"i": list(range(12)), "f": pa.array([b"ab"] * 12, pa.binary(2)), "s": ["x"] * 12}),
                row_group_size=5, store_schema=False)
    for names, binary_type in ((["i"], None), (["i", "f"], None), (["s"], None), (["s"], pa.large_binary())):
        expected = pq.ParquetFile(io.BytesIO(raw), read_dictionary=names, binary_type=binary_type)
        ours = pc.ParquetFile(io.BytesIO(raw), read_dictionary=names, binary_type=binary_type)
        assert [b.num_rows for b in ours.iter_batches(4)] == [b.num_rows for b in expected.iter_batches(4)]
        assert ours.read().to_arrow().schema.equals(expected.read().schema)


def test_stored_dictionary_of_other_than_strings_keeps_batches_across_row_groups() -> None:
    """A column stored as a dictionary of numbers or fixed-size binaries (a
    pandas categorical of ints) reads decoded, so its batches join row groups,
    as pyarrow's; only stored dictionaries of strings and binaries cut them."""
    def encoded(values: object) -> object:
        return pa.DictionaryArray.from_arrays(pa.array([i % 3 for i in range(12)], pa.int8()), values)

    raw = _file(pa.table({"i": encoded(pa.array([7, 1, 5])), "f": encoded(pa.array([b"ab", b"cd", b"ef"], pa.binary(2))),
                          "d": encoded(pa.array([1, 2, 3], pa.date32()))}), row_group_size=5)
    for names in (["i"], ["f"], ["d"], ["i", "f", "d"]):
        expected = pq.ParquetFile(io.BytesIO(raw)).iter_batches(4, columns=names)
        ours = pc.ParquetFile(io.BytesIO(raw)).iter_batches(4, columns=names)
        assert [b.num_rows for b in ours] == [b.num_rows for b in expected] == [4, 4, 4]


@pytest.mark.parametrize("use_dictionary", [False, True])
def test_read_dictionary_batches_are_cut_where_a_dictionary_page_starts(use_dictionary: bool) -> None:
    """A column read as an Arrow dictionary cuts a batch where a row group
    with a dictionary page of its own starts, as pyarrow's; chunks written
    without one (plain, or dictionary fallback) have their values joined in
    one batch."""
    table = pa.table({"s": ["x", None, "y", "x", "z", "w", "x"], "i": list(range(7))})
    raw = _file(table, row_group_size=2, use_dictionary=use_dictionary)
    expected = list(pq.ParquetFile(io.BytesIO(raw), read_dictionary=["s"]).iter_batches(3))
    got = list(pc.ParquetFile(io.BytesIO(raw), read_dictionary=["s"]).iter_batches(3))
    assert [b.num_rows for b in got] == [b.num_rows for b in expected]
    for ours, theirs in zip(got, expected, strict=True):
        # (pyarrow's dictionaries of plain chunks also keep values of earlier batches: not compared)
        assert ours.to_arrow().schema == theirs.schema and ours.to_pylist() == theirs.to_pylist()


def test_read_dictionary_categories_follow_pyarrows_chunks(tmp_path) -> None:
    """Row groups (or files) written plain, with too many distinct values for
    a dictionary, ahead of ones with a dictionary page: a DataFrame's
    categories list the plain ones' values where they come, as pyarrow's
    chunks join, in a read, a read of some row groups and a folder's read."""
    pd = pytest.importorskip("pandas")
    values = [f"unique-{i}" for i in range(9)] + ["a", "b", "a", "b"] * 3 + [f"late-{i}" for i in range(6)]
    table = pa.table({"s": values, "i": list(range(len(values)))})
    pc.write_table(table, tmp_path / "f.parquet", row_group_size=3)
    pages = [pq.ParquetFile(tmp_path / "f.parquet").metadata.row_group(g).column(0).has_dictionary_page
             for g in range(9)]
    assert pages == [False] * 3 + [True] * 4 + [False] * 2
    (tmp_path / "d").mkdir()
    pc.write_table(table.slice(0, 9), tmp_path / "d" / "0.parquet")
    pc.write_table(table.slice(9), tmp_path / "d" / "1.parquet")

    def categories(frame: object) -> list:
        return list(frame["s"].cat.categories)

    for source in (tmp_path / "f.parquet", tmp_path / "d"):
        expected = pq.read_table(source, read_dictionary=["s"]).to_pandas()
        ours = pc.read_table(source, read_dictionary=["s"]).to_pandas()
        assert categories(ours) == categories(expected)
        pd.testing.assert_frame_equal(ours, expected)
    groups = [0, 2, 4, 5]
    expected = pq.ParquetFile(tmp_path / "f.parquet", read_dictionary=["s"]).read_row_groups(groups).to_pandas()
    ours = pc.ParquetFile(tmp_path / "f.parquet", read_dictionary=["s"]).read_row_groups(groups).to_pandas()
    assert categories(ours) == categories(expected)


@pytest.mark.parametrize("binary_type", [5, "large_binary", pa.int32(), pa.string(), pa.large_string()])
def test_binary_type_other_than_a_binary_type(tmp_path, binary_type) -> None:
    """A TypeError, as pyarrow's ArrowTypeError (which crashes on a non-type); a file
    that stores its Arrow schema is refused the same way though the option would not apply."""
    import parquet_codec as pc

    path = tmp_path / "s.parquet"
    pq.write_table(pa.table({"s": ["x"]}), path)
    with pytest.raises(TypeError, match="binary_type must be"):
        pc.read_table(path, binary_type=binary_type)
