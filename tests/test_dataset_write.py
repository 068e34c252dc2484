"""write_to_dataset against pyarrow.parquet.write_to_dataset as the oracle: the
same folders for the same table, and both readers see the same rows."""

from __future__ import annotations

import datetime
import decimal
import os
import re

import numpy as np
import pytest

import parquet_codec as pc
from parquet_codec.dataset_write import DatasetExistsError
from parquet_codec.errors import UnsupportedError

pa = pytest.importorskip("pyarrow")
pq = pytest.importorskip("pyarrow.parquet")
ds = pytest.importorskip("pyarrow.dataset")

TEMPLATE = "part-{i}.parquet"
SPECIAL = ["a b", "a/b", "a=b", "100%", "é", "日本", "", "x?y#z&", "a+b:c", "tab\there", "-_.~", None]


def tree(root) -> list[str]:
    """Every file under ``root``, relative, with '/' separators."""
    out = []
    for folder, _, files in os.walk(root):
        out += [os.path.relpath(os.path.join(folder, f), root).replace(os.sep, "/") for f in files]
    return sorted(out)


def folders(root) -> list[str]:
    return sorted({path.rpartition("/")[0] for path in tree(root)})


def both(table, tmp_path, partition_cols, **options):
    """Write ``table`` with pyarrow and with us; the two roots."""
    theirs, ours = tmp_path / "pyarrow", tmp_path / "ours"
    pq.write_to_dataset(table, theirs, partition_cols=partition_cols, basename_template=TEMPLATE, **options)
    written = pc.write_to_dataset(table, ours, partition_cols, basename_template=TEMPLATE, **options)
    assert sorted(os.path.relpath(p, ours).replace(os.sep, "/") for p in written) == tree(ours)
    return theirs, ours


def arrow_rows(root):
    """The dataset as pyarrow reads a hive folder, rows sorted by ``row``."""
    return ds.dataset(root, partitioning="hive").to_table().sort_by("row")


def our_rows(root):
    return pc.read_dataset(str(root)).to_arrow().sort_by("row")


def assert_same_rows(got, expected):
    """Equal schemas and values (NaN equal to NaN, -0.0 unequal to 0.0)."""
    assert got.schema.equals(expected.schema)
    assert repr(got.to_pylist()) == repr(expected.to_pylist())


def assert_same_dataset(table, tmp_path, partition_cols, **options):
    theirs, ours = both(table, tmp_path, partition_cols, **options)
    assert tree(ours) == tree(theirs)
    expected = arrow_rows(theirs)
    assert_same_rows(arrow_rows(ours), expected)
    try:
        mine, reference = pq.read_table(ours).sort_by("row"), pq.read_table(theirs).sort_by("row")
    except pa.ArrowInvalid as exc:  # read_table's dictionary keys with nulls, now and then, on either side
        assert "unify dictionaries with nulls" in str(exc)
    else:
        assert_same_rows(mine, reference)
    if expected.num_rows:
        assert_same_rows(our_rows(ours), our_rows(theirs))
    return theirs, ours


# ---------------------------------------------------------------- folder names and contents


KEYS = {
    "int64": pa.array([3, -2, None, 0, 3, 2**40, -(2**63)], pa.int64()),
    "int8": pa.array([1, -1, 1, None, 5, 5, 7], pa.int8()),
    "uint64": pa.array([2**64 - 1, 0, 1, 1, None, 0, 2], pa.uint64()),
    "string": pa.array(SPECIAL[:7]),
    "string_more": pa.array(SPECIAL[7:] + ["a longer value of many bytes", "a longer value of many bytez"]),
    "bool": pa.array([True, False, None, True, False, True, True]),
    "date": pa.array([datetime.date(2020, 1, 2), None, datetime.date(1, 1, 1), datetime.date(1969, 12, 31),
                      datetime.date(2020, 1, 2), datetime.date(9999, 12, 31), None]),
    "double": pa.array([1.5, -0.0, 0.0, float("nan"), float("inf"), 1e20, 1e-7, 0.1, None, 1e-6, 1e9, 1e10,
                        123456789.125, -float("inf"), 5e-324]),
    "float": pa.array([1.5, 0.1, 1e20, 16777216.0, 0.3, 1e-7, None], pa.float32()),
    "large_string": pa.array(["x y", "z", None], pa.large_string()),
    "dictionary": pa.array(["p q", "r", "p q", None]).dictionary_encode(),
    "binary": pa.array([b"ab", b"c/d", b"", None], pa.binary()),
    "fixed_binary": pa.array([b"ab", b"c ", None], pa.binary(2)),
    "decimal": pa.array([decimal.Decimal("1.50"), decimal.Decimal("-0.05"), decimal.Decimal("0"), None],
                        pa.decimal128(7, 2)),
    "time": pa.array([datetime.time(3, 4, 5), datetime.time(0, 0, 0, 1), None], pa.time64("us")),
    "time32": pa.array([datetime.time(1, 2, 3), None], pa.time32("s")),
    "duration": pa.array([1, -5, None], pa.duration("ms")),
    "null": pa.array([None, None, None], pa.null()),
}
for _unit in ("s", "ms", "us", "ns"):
    _moments = [datetime.datetime(2020, 1, 2, 3, 4, 5), datetime.datetime(1969, 12, 31, 23, 59, 59), None]
    KEYS[f"timestamp_{_unit}"] = pa.array(_moments, pa.timestamp(_unit))
    KEYS[f"timestamp_{_unit}_tz"] = pa.array(_moments, pa.timestamp(_unit, tz="Europe/Paris"))


@pytest.mark.parametrize("name", sorted(KEYS))
def test_folder_names_match_pyarrow(tmp_path, name):
    keys = KEYS[name]
    table = pa.table({"row": list(range(len(keys))), "k": keys, "v": [f"v{i}" for i in range(len(keys))]})
    theirs, ours = both(table, tmp_path, ["k"])
    assert tree(ours) == tree(theirs)
    if name != "null":  # pyarrow infers no type from null folders alone
        # pyarrow reads our files as its own (the key column as it infers it from the folders)
        assert_same_rows(arrow_rows(ours), arrow_rows(theirs))


def test_bytes_not_utf8_are_encoded_byte_by_byte(tmp_path):
    table = pa.table({"row": [0, 1, 2], "k": pa.array([b"\xff\x01", b"\x80", b"ok"], pa.binary())})
    theirs, ours = both(table, tmp_path, ["k"])  # folders pyarrow itself cannot read back
    assert tree(ours) == tree(theirs) == ["k=%80/part-0.parquet", "k=%FF%01/part-0.parquet", "k=ok/part-0.parquet"]


def test_percent_encoding_is_uri_segment_encoding(tmp_path):
    table = pa.table({"row": list(range(len(SPECIAL))), "k": SPECIAL})
    _, ours = both(table, tmp_path, ["k"])
    assert folders(ours) == sorted(["k=a%20b", "k=a%2Fb", "k=a%3Db", "k=100%25", "k=%C3%A9", "k=%E6%97%A5%E6%9C%AC",
                                    "k=", "k=x%3Fy%23z%26", "k=a%2Bb%3Ac", "k=tab%09here", "k=-_.~",
                                    "k=__HIVE_DEFAULT_PARTITION__"])


def test_two_levels_of_partitions(tmp_path):
    n = 60
    table = pa.table({
        "row": list(range(n)),
        "city": [SPECIAL[i % len(SPECIAL)] for i in range(n)],
        "year": [None if i % 7 == 0 else 2000 + i % 3 for i in range(n)],
        "day": [datetime.date(2024, 1, 1 + i % 2) for i in range(n)],
        "flag": [i % 4 == 0 for i in range(n)],
        "value": [i * 0.5 for i in range(n)],
    })
    _, ours = assert_same_dataset(table, tmp_path, ["year", "city"])
    assert "year=__HIVE_DEFAULT_PARTITION__/city=a%20b/part-0.parquet" in tree(ours)
    assert_same_dataset(table, tmp_path / "3", ["flag", "day", "year"])


def test_nested_value_columns_are_split_by_partition(tmp_path):
    n = 40
    table = pa.table({
        "row": list(range(n)),
        "k": [f"g{i % 3}" for i in range(n)],
        "items": [None if i % 5 == 0 else list(range(i % 4)) for i in range(n)],
        "point": [None if i % 6 == 0 else {"x": i, "tag": f"t{i}" if i % 2 else None} for i in range(n)],
        "attrs": pa.array([None if i % 7 == 0 else [(f"a{i}", i)] * (i % 3) for i in range(n)],
                          pa.map_(pa.string(), pa.int64())),
        "blob": [bytes(range(i % 9)) for i in range(n)],
    })
    assert_same_dataset(table, tmp_path, ["k"])


def test_nan_payloads_share_a_folder_and_signed_zeros_do_not(tmp_path):
    other_nan = np.frombuffer(np.uint64(0x7FF8000000000001).tobytes(), np.float64)[0]
    table = pa.table({"row": [0, 1, 2, 3, 4], "k": [float("nan"), other_nan, -float("nan"), 0.0, -0.0]})
    _, ours = assert_same_dataset(table, tmp_path, ["k"])
    assert folders(ours) == ["k=-0", "k=0", "k=nan"]


def test_values_cut_at_nul_share_a_folder_as_in_pyarrow(tmp_path):
    table = pa.table({"row": [0, 1, 2, 3], "k": ["a", "a\x00b", "a", "\x00"]})
    _, ours = assert_same_dataset(table, tmp_path, ["k"])
    assert tree(ours) == ["k=/part-0.parquet", "k=a/part-0.parquet"]
    assert sorted(pq.read_table(ours / "k=a" / "part-0.parquet")["row"].to_pylist()) == [0, 1, 2]


def test_metadata_and_arrow_types_carry_over(tmp_path):
    schema = pa.schema([("row", pa.int32()), ("k", pa.string()), ("when", pa.timestamp("s", tz="Asia/Tokyo")),
                        ("text", pa.large_string()), ("code", pa.dictionary(pa.int8(), pa.string())),
                        ("span", pa.duration("us"))], metadata={"origin": "test", "owner": "me"})
    table = pa.table({"row": [1, 2, 3], "k": ["x", "y", "x"], "when": [0, 10**9, None], "text": ["a", None, "c"],
                      "code": pa.array(["u", "v", "u"]).dictionary_encode().cast(pa.dictionary(pa.int8(), pa.string())),
                      "span": [5, None, 7]}, schema=schema)
    theirs, ours = assert_same_dataset(table, tmp_path, ["k"])
    for path in tree(ours):
        mine, reference = pq.read_schema(ours / path), pq.read_schema(theirs / path)
        assert mine.equals(reference, check_metadata=True)
        assert mine.names == ["row", "when", "text", "code", "span"]


def test_table_read_from_a_file_prints_as_pyarrow_reads_the_file(tmp_path):
    moment = datetime.datetime(2020, 1, 2, 3, 4, 5)
    table = pa.table({"row": [0, 1], "s": pa.array([moment, None], pa.timestamp("s", tz="UTC")),
                      "ns": pa.array([moment, moment], pa.timestamp("ns")),
                      "t": pa.array([datetime.time(1, 2, 3), None], pa.time32("s"))})
    for options in ({}, {"coerce_timestamps": "us"}):
        pq.write_table(table, tmp_path / "file.parquet", **options)
        for key in ("s", "ns", "t"):
            where = tmp_path / f"{key}{len(options)}"
            pq.write_to_dataset(pq.read_table(tmp_path / "file.parquet"), where / "pyarrow", partition_cols=[key],
                                basename_template=TEMPLATE)
            pc.write_to_dataset(pc.read_table(tmp_path / "file.parquet"), where / "ours", [key], basename_template=TEMPLATE)
            assert tree(where / "ours") == tree(where / "pyarrow")


# ---------------------------------------------------------------- inputs and options


def test_no_partition_cols_writes_one_file(tmp_path):
    table = pa.table({"row": [1, 2, 3], "k": ["a", None, "b"]})
    written = pc.write_to_dataset(table, tmp_path / "out")
    assert len(written) == 1
    assert re.fullmatch(r"[0-9a-f]{32}-0\.parquet", os.path.basename(written[0]))
    assert os.path.dirname(written[0]) == str(tmp_path / "out")
    assert pq.read_table(written[0]).equals(table)
    assert_same_dataset(table, tmp_path / "same", None)


def test_default_basename_is_one_uuid_per_call(tmp_path):
    table = pa.table({"row": list(range(6)), "k": [1, 2, 3] * 2})
    written = pc.write_to_dataset(table, tmp_path, ["k"])
    names = {os.path.basename(p) for p in written}
    assert len(written) == 3 and len(names) == 1
    assert re.fullmatch(r"[0-9a-f]{32}-0\.parquet", names.pop())


def test_pandas_input(tmp_path):
    pd = pytest.importorskip("pandas")
    frame = pd.DataFrame({"row": range(8), "k": ["a b", "c"] * 4, "n": [1, 2, 3, 4] * 2,
                          "x": np.linspace(0, 1, 8), "t": pd.date_range("2024-01-01", periods=8, freq="h")})
    theirs, ours = tmp_path / "pyarrow", tmp_path / "ours"
    pq.write_to_dataset(pa.Table.from_pandas(frame, preserve_index=False), theirs, partition_cols=["k", "n"],
                        basename_template=TEMPLATE)
    pc.write_to_dataset(frame, ours, ["k", "n"], basename_template=TEMPLATE)
    assert tree(ours) == tree(theirs)
    assert_same_rows(arrow_rows(ours), arrow_rows(theirs))
    back = arrow_rows(ours).to_pandas()
    assert back["t"].tolist() == frame["t"].tolist() and back["k"].tolist() == frame["k"].tolist()


def test_dict_and_table_inputs(tmp_path):
    data = {"row": [0, 1, 2, 3], "k": ["x", "y", "x", None], "v": [1.5, 2.5, None, 4.0]}
    pc.write_to_dataset(data, tmp_path / "dict", ["k"], basename_template=TEMPLATE)
    pc.write_to_dataset(pc.Table.from_pydict(data), tmp_path / "table", ["k"], basename_template=TEMPLATE)
    assert tree(tmp_path / "dict") == tree(tmp_path / "table") == [
        "k=__HIVE_DEFAULT_PARTITION__/part-0.parquet", "k=x/part-0.parquet", "k=y/part-0.parquet"]
    assert sorted(pc.read_dataset(str(tmp_path / "dict")).to_pylist(), key=lambda r: r["row"]) == [
        {"row": 0, "v": 1.5, "k": "x"}, {"row": 1, "v": 2.5, "k": "y"},
        {"row": 2, "v": None, "k": "x"}, {"row": 3, "v": 4.0, "k": None}]


def test_write_options_pass_through(tmp_path):
    table = pa.table({"row": list(range(100)), "k": [i % 3 for i in range(100)], "v": [str(i) for i in range(100)]})
    written = pc.write_to_dataset(table, tmp_path, ["k"], compression="zstd", row_group_size=10)
    assert len(written) == 3
    for path in written:
        meta = pq.ParquetFile(path).metadata
        assert meta.num_row_groups >= 3
        assert {meta.row_group(g).column(c).compression for g in range(meta.num_row_groups)
                for c in range(meta.num_columns)} == {"ZSTD"}


def test_non_compliant_list_names_pass_through(tmp_path):
    table = pa.table({"row": [0, 1], "k": ["a", "b"], "xs": pa.array([[1], [2, 3]], pa.list_(pa.field("it", pa.int64())))})
    theirs, ours = both(table, tmp_path, ["k"], use_compliant_nested_type=False)
    for path in tree(ours):
        assert pq.ParquetFile(ours / path).schema.to_arrow_schema() == pq.ParquetFile(theirs / path).schema.to_arrow_schema()
        assert pq.ParquetFile(ours / path).schema.column(1).path == "xs.list.it"


def test_empty_table(tmp_path):
    table = pa.table({"row": pa.array([], pa.int64()), "k": pa.array([], pa.string())})
    theirs, ours = both(table, tmp_path, ["k"])
    assert not theirs.exists() and not ours.exists()
    theirs, ours = both(table, tmp_path / "flat", None)
    assert tree(ours) == tree(theirs) == [] and ours.is_dir()


def test_every_row_in_one_partition(tmp_path):
    table = pa.table({"row": list(range(1000)), "k": ["same"] * 1000, "v": np.arange(1000) * 2})
    _, ours = assert_same_dataset(table, tmp_path, ["k"])
    assert tree(ours) == ["k=same/part-0.parquet"]


def test_only_partition_columns(tmp_path):
    table = pa.table({"k": [1, 2, 1]})
    theirs, ours = both(table, tmp_path, ["k"])
    assert tree(ours) == tree(theirs)
    assert [pq.read_metadata(ours / p).num_rows for p in tree(ours)] == [2, 1]


def test_large_table_groups_vectorized(tmp_path):
    rng = np.random.default_rng(7)
    n = 200_000
    group = rng.integers(0, 50, n)
    table = pa.table({"row": np.arange(n), "region": pa.array([f"region {g % 10}" for g in range(50)]).take(group),
                      "bucket": group // 10, "value": rng.normal(size=n)})
    theirs, ours = tmp_path / "pyarrow", tmp_path / "ours"
    pq.write_to_dataset(table, theirs, partition_cols=["region", "bucket"], basename_template=TEMPLATE)
    written = pc.write_to_dataset(table, ours, ["region", "bucket"], basename_template=TEMPLATE)
    assert len(written) == 50
    assert tree(ours) == tree(theirs)
    assert_same_rows(arrow_rows(ours), arrow_rows(theirs))


# ---------------------------------------------------------------- templates and existing data


def test_basename_template_is_checked_like_pyarrow(tmp_path):
    table = pa.table({"row": [1], "k": [1]})
    for template in ("no-counter.parquet", "{i}-{i}.parquet", "sub/{i}.parquet"):
        with pytest.raises(ValueError):
            pq.write_to_dataset(table, tmp_path / "pa", partition_cols=["k"], basename_template=template)
        with pytest.raises(ValueError):
            pc.write_to_dataset(table, tmp_path / "ours", ["k"], basename_template=template)
    written = pc.write_to_dataset(table, tmp_path / "ok", ["k"], basename_template="chunk-{i}-{x}.pq")
    assert tree(tmp_path / "ok") == ["k=1/chunk-0-{x}.pq"] and len(written) == 1


def test_overwrite_or_ignore(tmp_path):
    first = pa.table({"row": [1, 2], "k": ["a", "b"]})
    second = pa.table({"row": [3, 4], "k": ["a", "c"]})
    pc.write_to_dataset(first, tmp_path, ["k"])
    pc.write_to_dataset(second, tmp_path, ["k"])  # new names each call: the data adds up
    assert sorted(arrow_rows(tmp_path)["row"].to_pylist()) == [1, 2, 3, 4]
    fixed = tmp_path / "fixed"
    pc.write_to_dataset(first, fixed, ["k"], basename_template=TEMPLATE)
    pc.write_to_dataset(second, fixed, ["k"], basename_template=TEMPLATE)  # same names: replaced
    assert tree(fixed) == ["k=a/part-0.parquet", "k=b/part-0.parquet", "k=c/part-0.parquet"]
    assert arrow_rows(fixed)["row"].to_pylist() == [2, 3, 4]


def test_error_when_root_not_empty(tmp_path):
    table = pa.table({"row": [1, 2], "k": ["a", "b"]})
    root = tmp_path / "out"
    pc.write_to_dataset(table, root, ["k"], existing_data_behavior="error")  # missing root: fine
    with pytest.raises(DatasetExistsError) as caught:
        pc.write_to_dataset(table, root, ["k"], existing_data_behavior="error")
    assert isinstance(caught.value, FileExistsError) and isinstance(caught.value, ValueError)
    with pytest.raises(ValueError):  # pyarrow refuses the same folder
        pq.write_to_dataset(table, root, partition_cols=["k"], existing_data_behavior="error")
    empty = tmp_path / "empty"
    empty.mkdir()
    assert len(pc.write_to_dataset(table, empty, ["k"], existing_data_behavior="error")) == 2
    hidden = tmp_path / "hidden"
    hidden.mkdir()
    (hidden / "_SUCCESS").write_bytes(b"")
    with pytest.raises(FileExistsError):
        pc.write_to_dataset(table, hidden, existing_data_behavior="error")


def test_delete_matching_like_pyarrow(tmp_path):
    for side, write in (("pyarrow", lambda t, r, **kw: pq.write_to_dataset(t, r, partition_cols=["k"], **kw)),
                        ("ours", lambda t, r, **kw: pc.write_to_dataset(t, r, ["k"], **kw))):
        root = tmp_path / side
        write(pa.table({"row": [1, 2], "k": [1, 2]}), root, basename_template="old-{i}.parquet")
        (root / "k=1" / "nested").mkdir()
        (root / "k=1" / "nested" / "x.bin").write_bytes(b"x")
        (root / "k=1" / "notes.txt").write_bytes(b"x")
        (root / "k=2" / "notes.txt").write_bytes(b"x")
        (root / "top.txt").write_bytes(b"x")
        write(pa.table({"row": [5], "k": [1]}), root, basename_template="new-{i}.parquet",
              existing_data_behavior="delete_matching")
    assert tree(tmp_path / "ours") == tree(tmp_path / "pyarrow") == [
        "k=1/new-0.parquet", "k=2/notes.txt", "k=2/old-0.parquet", "top.txt"]


def test_delete_matching_without_partitions(tmp_path):
    table = pa.table({"row": [1, 2]})
    pc.write_to_dataset(table, tmp_path, basename_template="old-{i}.parquet")
    (tmp_path / "sub").mkdir()
    (tmp_path / "x.txt").write_bytes(b"x")
    pc.write_to_dataset(table, tmp_path, basename_template="new-{i}.parquet", existing_data_behavior="delete_matching")
    assert tree(tmp_path) == ["new-0.parquet"] and not (tmp_path / "sub").exists()


def test_bad_arguments(tmp_path):
    table = pa.table({"row": [1], "k": [1], "xs": [[1]]})
    with pytest.raises(ValueError):
        pc.write_to_dataset(table, tmp_path, ["k"], existing_data_behavior="replace")
    with pytest.raises(KeyError):
        pc.write_to_dataset(table, tmp_path, ["missing"])
    with pytest.raises(ValueError):
        pc.write_to_dataset(table, tmp_path, ["k", "k"])
    with pytest.raises(UnsupportedError):
        pc.write_to_dataset(table, tmp_path, ["xs"])
    with pytest.raises(ValueError):
        pc.write_to_dataset(pa.table({"a/b": [1], "v": [2]}), tmp_path, ["a/b"])
    assert tree(tmp_path) == []


# ---------------------------------------------------------------- filesystems


def test_pyarrow_filesystem(tmp_path):
    from pyarrow import fs

    table = pa.table({"row": [1, 2, 3], "k": ["a b", "c", "a b"]})
    local = fs.SubTreeFileSystem(str(tmp_path), fs.LocalFileSystem())
    written = pc.write_to_dataset(table, "data", ["k"], filesystem=local, basename_template=TEMPLATE)
    assert sorted(written) == ["data/k=a%20b/part-0.parquet", "data/k=c/part-0.parquet"]
    assert tree(tmp_path / "data") == ["k=a%20b/part-0.parquet", "k=c/part-0.parquet"]
    with pytest.raises(FileExistsError):
        pc.write_to_dataset(table, "data", ["k"], filesystem=local, existing_data_behavior="error")
    pc.write_to_dataset(table.slice(1, 1), "data", ["k"], filesystem=local, basename_template="n-{i}.parquet",
                        existing_data_behavior="delete_matching")
    assert tree(tmp_path / "data") == ["k=a%20b/part-0.parquet", "k=c/n-0.parquet"]


def test_fsspec_filesystem(tmp_path):
    fsspec = pytest.importorskip("fsspec")
    local = fsspec.filesystem("file")
    table = pa.table({"row": [1, 2, 3], "k": [1, 2, 1]})
    root = (tmp_path / "data").as_posix()
    written = pc.write_to_dataset(table, root, ["k"], filesystem=local, basename_template=TEMPLATE)
    assert sorted(written) == [f"{root}/k=1/part-0.parquet", f"{root}/k=2/part-0.parquet"]
    assert arrow_rows(tmp_path / "data")["row"].to_pylist() == [1, 2, 3]
    with pytest.raises(FileExistsError):
        pc.write_to_dataset(table, root, ["k"], filesystem=local, existing_data_behavior="error")
    pc.write_to_dataset(table.slice(1, 1), root, ["k"], filesystem=local, basename_template="n-{i}.parquet",
                        existing_data_behavior="delete_matching")
    assert tree(tmp_path / "data") == ["k=1/part-0.parquet", "k=2/n-0.parquet"]


# ---------------------------------------------------------------- _metadata summary files


def test_metadata_collector_and_summary_files_interoperate_with_pyarrow(tmp_path):
    table = pa.table({"k": [1, 1, 2, 3], "v": [1.0, 2.0, 3.0, None]})
    ours, theirs = tmp_path / "ours", tmp_path / "theirs"
    collected: list = []
    pc.write_to_dataset(table, ours, partition_cols=["k"], metadata_collector=collected)
    paths = sorted(m.row_group(0).column(0).file_path for m in collected)
    assert paths == sorted(os.path.relpath(p, ours).replace(os.sep, "/") for p in _files(ours))
    pc.write_metadata(table.select(["v"]).schema, ours / "_metadata", metadata_collector=collected)
    pc.write_metadata(table.schema, ours / "_common_metadata")
    # pyarrow reads the dataset through our _metadata, and our _common_metadata's schema.
    summary = pq.read_metadata(ours / "_metadata")
    assert (summary.num_row_groups, summary.num_rows) == (3, 4)
    via_summary = ds.parquet_dataset(str(ours / "_metadata"), partitioning="hive").to_table()
    assert sorted(via_summary.to_pylist(), key=str) == sorted(table.to_pylist(), key=str)
    assert pq.read_metadata(ours / "_common_metadata").schema.to_arrow_schema() == table.schema
    assert sorted(pc.read_table(ours).to_pylist(), key=str) == sorted(table.to_pylist(), key=str)  # summaries skipped
    # pyarrow's summary, read here: the same footer as pyarrow sees.
    gathered: list = []
    pq.write_to_dataset(table, theirs, partition_cols=["k"], metadata_collector=gathered)
    pq.write_metadata(table.select(["v"]).schema, theirs / "_metadata", metadata_collector=gathered)
    assert pc.read_metadata(theirs / "_metadata").to_dict() == pq.read_metadata(theirs / "_metadata").to_dict()


def _files(root) -> list[str]:
    return [os.path.join(d, f) for d, _, names in os.walk(root) for f in names]


def test_files_split_by_max_rows_per_file_with_visitor_as_pyarrow(tmp_path):
    table = pa.table({"k": [1, 1, 1, 1, 1, 2], "v": list(range(6))})
    ours_seen, theirs_seen = [], []
    pc.write_to_dataset(table, tmp_path / "ours", partition_cols=["k"], basename_template="part-{i}.parquet",
                        max_rows_per_file=2, max_rows_per_group=1, file_visitor=ours_seen.append)
    ds.write_dataset(table, tmp_path / "theirs", format="parquet", partitioning=["k"], partitioning_flavor="hive",
                     basename_template="part-{i}.parquet", max_rows_per_file=2, max_rows_per_group=1,
                     file_visitor=theirs_seen.append)

    def listing(root, seen):
        files = {os.path.relpath(f.path, root).replace(os.sep, "/"): (f.metadata.num_rows, f.metadata.num_row_groups,
                                                                        f.metadata.row_group(0).column(0).file_path)
                 for f in seen}
        assert all(f.size == os.path.getsize(f.path) for f in seen)
        return files

    assert listing(tmp_path / "ours", ours_seen) == listing(tmp_path / "theirs", theirs_seen)
    for name in ("k=1/part-0.parquet", "k=1/part-2.parquet"):
        assert pc.read_table(tmp_path / "ours" / name).to_pylist() == pq.read_table(tmp_path / "theirs" / name).to_pylist()


def test_max_partitions_refuses_more_folders(tmp_path):
    table = pa.table({"k": list(range(6)), "v": list(range(6))})
    with pytest.raises(ValueError, match="6 partitions. This exceeds the maximum of 3"):
        pc.write_to_dataset(table, tmp_path / "d", partition_cols=["k"], max_partitions=3)
    assert not (tmp_path / "d").exists() or not os.listdir(tmp_path / "d")
    assert len(pc.write_to_dataset(table, tmp_path / "d", partition_cols=["k"], max_partitions=6)) == 6


def _folders(root) -> list[list[str]]:
    return sorted(os.path.relpath(folder, root).split(os.sep) for folder, _, files in os.walk(root) if files)


@pytest.mark.parametrize("options", [
    {"partitioning": ["k"]},
    {"partitioning": ["k", "s"]},
    {"partitioning": ["k", "s"], "partitioning_flavor": "hive"},
    {"partitioning": "hive-object"},
    {"partitioning": "directory-object"},
    {"partitioning": ["n"]},
], ids=["names", "names-null-stops", "hive-flavor", "hive-object", "directory-object", "all-null"])
def test_partitioning_as_pyarrow_writes_it(tmp_path, options):
    """pyarrow's partitioning= (names, a flavor, or a Partitioning object):
    hive folders, or the bare values down to the first null; it reached the
    file writer, which refused it."""
    table = pa.table({"k": [1, 2, 1], "s": ["a", "b", None], "n": pa.nulls(3), "v": [1.0, 2.0, 3.0]})
    if isinstance(options["partitioning"], str):
        flavor = "hive" if options["partitioning"] == "hive-object" else None
        options = {"partitioning": ds.partitioning(pa.schema([("k", pa.int64())]), flavor=flavor)}
    pq.write_to_dataset(table, tmp_path / "theirs", **options)
    pc.write_to_dataset(table, tmp_path / "ours", **options)
    assert _folders(tmp_path / "ours") == _folders(tmp_path / "theirs")
    names = options["partitioning"] if isinstance(options["partitioning"], list) else ["k"]
    if names == ["n"]:
        return  # the files lie at the root: pyarrow cannot infer the partition's type to read them back
    reading = {"partitioning": "hive" if options.get("partitioning_flavor") == "hive" or
               type(options["partitioning"]).__name__ == "HivePartitioning" else names}
    expected = sorted(pq.read_table(tmp_path / "theirs", **reading).to_pylist(), key=str)
    assert sorted(pc.read_table(tmp_path / "ours", **reading).to_pylist(), key=str) == expected


def test_partitioning_refusals_as_pyarrow(tmp_path):
    table = pa.table({"k": [1, None], "s": ["a", "b"]})
    with pytest.raises(ValueError, match="No partition key for k but a key was provided subsequently for s"):
        pc.write_to_dataset(table, tmp_path / "a", partitioning=["k", "s"])
    with pytest.raises(pa.ArrowInvalid, match="No partition key for k but a key was provided subsequently for s"):
        pq.write_to_dataset(table, tmp_path / "b", partitioning=["k", "s"])
    with pytest.raises(ValueError, match="Use only 'partitioning'"):
        pc.write_to_dataset(table, tmp_path / "c", partition_cols=["k"], partitioning=["s"])
    with pytest.raises(ValueError, match="partitioning_flavor"):
        pc.write_to_dataset(table, tmp_path / "d", partitioning=["k"], partitioning_flavor="filename")


def test_every_partition_keeps_the_whole_dictionary(tmp_path):
    """A dictionary column (a pandas categorical) is written with all its entries,
    in order, into each folder's file, as pyarrow writes it: categories no row of
    that folder uses (or none at all) are still read back."""
    cats = pa.DictionaryArray.from_arrays(pa.array([2, 0, None, 2], pa.int8()), pa.array(["z", "b", "a", "q"]))
    table = pa.table({"c": cats, "k": [1, 1, 2, 3]})
    theirs, ours = both(table, tmp_path, ["k"])
    for root in (theirs, ours):
        for path in tree(root):
            column = pq.read_table(root / path).column("c")
            assert column.chunk(0).dictionary.to_pylist() == ["z", "b", "a", "q"]
    expected = pq.read_table(theirs).to_pandas()
    assert list(pq.read_table(ours).to_pandas()["c"].cat.categories) == list(expected["c"].cat.categories)


@pytest.mark.parametrize(("option", "value", "error", "message"), [
    ("max_partitions", 0, ValueError, "max_partitions must be positive"),
    ("max_partitions", -1, ValueError, "max_partitions must be positive"),
    ("max_partitions", "x", TypeError, "max_partitions must be an integer"),
    ("max_rows_per_file", "x", TypeError, "max_rows_per_file must be an integer"),
    ("max_rows_per_file", 1.5, TypeError, "max_rows_per_file must be an integer"),
    ("max_rows_per_group", "x", TypeError, "max_rows_per_group must be an integer"),
    ("basename_template", 5, TypeError, "basename_template must be a string"),
    ("partition_cols", [5], TypeError, "partition columns are named by strings"),
])
def test_arguments_of_the_wrong_kind_are_named(tmp_path, option, value, error, message):
    """Checked before any folder is made, naming the argument."""
    options = {"partition_cols": ["k"], option: value}
    with pytest.raises(error, match=message):
        pc.write_to_dataset({"k": [1, 2], "v": [3, 4]}, tmp_path / "out", **options)
    assert not (tmp_path / "out").exists()


@pytest.mark.parametrize("rows", [0, -1])
def test_max_rows_per_group_below_one_is_no_limit(tmp_path, rows):
    """As pyarrow's: only a positive max_rows_per_group splits row groups."""
    written = pc.write_to_dataset({"v": list(range(10))}, tmp_path / "out", max_rows_per_group=rows)
    assert [pc.ParquetFile(p).num_row_groups for p in written] == [1]
