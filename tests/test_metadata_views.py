"""pyarrow.parquet's view of the footer (parquet_codec.metadata_views), with
pyarrow itself as the oracle: every corpus file's ``metadata.to_dict()``, and
typed statistics of files pyarrow and we write."""

from __future__ import annotations

import datetime
import decimal
import io
import math
import re
import warnings
from pathlib import Path

import pytest

import parquet_codec as pc

pa = pytest.importorskip("pyarrow")
pq = pytest.importorskip("pyarrow.parquet")

DATA = Path(__file__).resolve().parents[2] / "shared" / "parquet-testing" / "data"
CORPUS = sorted(DATA.rglob("*.parquet")) if DATA.is_dir() else []


def _same(ours: object, theirs: object) -> bool:
    if isinstance(ours, float) and isinstance(theirs, float) and math.isnan(ours) and math.isnan(theirs):
        return True
    if isinstance(ours, dict) and isinstance(theirs, dict):
        return ours.keys() == theirs.keys() and all(_same(ours[k], theirs[k]) for k in ours)
    if isinstance(ours, list | tuple) and isinstance(theirs, list | tuple):
        return len(ours) == len(theirs) and all(_same(a, b) for a, b in zip(ours, theirs, strict=True))
    return ours == theirs


def _theirs(path: Path) -> dict | None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            return pq.ParquetFile(path).metadata.to_dict()
        except Exception:  # encrypted, or a file pyarrow refuses
            return None


@pytest.mark.skipif(not CORPUS, reason="parquet-testing corpus not present")
@pytest.mark.parametrize("path", CORPUS, ids=lambda p: str(p.relative_to(DATA)))
def test_to_dict_equals_pyarrows(path):
    theirs = _theirs(path)
    if theirs is None:
        pytest.skip("pyarrow cannot read this footer")
    ours = pc.ParquetFile(path).metadata.to_dict()
    for group in theirs["row_groups"]:
        for column in group["columns"]:
            if column["compression"] == "UNKNOWN":
                # pyarrow has no name for the deprecated Hadoop LZ4 codec (5); Arrow's is LZ4_HADOOP.
                column["compression"] = "LZ4_HADOOP"
    assert _same(ours, theirs)
    assert _texts(pc.ParquetFile(path).metadata) == _texts(pq.ParquetFile(path).metadata)
    mine, pyarrows = pc.ParquetFile(path).metadata, pq.ParquetFile(path).metadata
    for g in range(mine.num_row_groups):
        for c in range(mine.num_columns):
            chunk, theirs_chunk = mine.row_group(g).column(c), pyarrows.row_group(g).column(c)
            assert chunk.metadata == theirs_chunk.metadata  # the chunk's own key-value metadata
            assert chunk.is_geo_stats_set == theirs_chunk.is_geo_stats_set


def _texts(metadata: object) -> list[str]:
    """The text of the file's, its row groups' and column chunks' views (the
    statistics' within), the objects' classes and addresses left out."""
    views = [metadata]
    for g in range(metadata.num_row_groups):
        views += [metadata.row_group(g), *(metadata.row_group(g).column(c) for c in range(metadata.num_columns))]
    # pyarrow has no name for the deprecated Hadoop LZ4 codec (5); Arrow's is LZ4_HADOOP.
    return [re.sub(r"<[\w.]+ object at 0x[0-9a-f]+>", "<object>", repr(view)).replace(": UNKNOWN\n", ": LZ4_HADOOP\n")
            for view in views]


def test_other_writers_statistics_read_as_pyarrow_reads_them(tmp_path):
    """fastparquet writes only the deprecated min and max, which hold for
    signed orders alone (its unsigned columns have none); UUID and JSON bounds are bytes."""
    fastparquet = pytest.importorskip("fastparquet")
    pd = pytest.importorskip("pandas")
    import numpy as np

    frame = pd.DataFrame({"i": np.arange(-3, 3), "u8": np.arange(6, dtype=np.uint8), "s": list("abcdef")})
    fastparquet.write(str(tmp_path / "fp.parquet"), frame, object_encoding={"s": "utf8"}, stats=True)
    table = pa.table({"u": pa.array([b"\x01" * 16, b"\x02" * 16], pa.uuid()), "j": pa.array(["[]", "{}"], pa.json_())})
    pq.write_table(table, tmp_path / "pa.parquet")
    for name in ("fp.parquet", "pa.parquet"):
        ours, theirs = pc.ParquetFile(tmp_path / name).metadata, pq.ParquetFile(tmp_path / name).metadata
        assert _texts(ours) == _texts(theirs), name
        assert _same(ours.to_dict(), theirs.to_dict()), name
    assert not pc.ParquetFile(tmp_path / "fp.parquet").metadata.row_group(0).column(1).statistics.has_min_max


def _typed_table() -> object:
    return pa.table({
        "i8": pa.array([1, -2], pa.int8()), "u32": pa.array([1, 4_000_000_000], pa.uint32()),
        "u64": pa.array([1, 2**63 + 5], pa.uint64()), "f": pa.array([1.5, -2.5], pa.float32()),
        "b": [True, False], "s": ["a", "é"], "bin": pa.array([b"x", b"\xff"]),
        "d": pa.array([datetime.date(2020, 1, 1), datetime.date(1969, 1, 1)]),
        "ts": pa.array([datetime.datetime(2020, 1, 1), datetime.datetime(2021, 1, 1, 5)], pa.timestamp("us")),
        "tsz": pa.array([datetime.datetime(2020, 1, 1), datetime.datetime(2021, 1, 1)], pa.timestamp("ms", "UTC")),
        "t": pa.array([datetime.time(1), datetime.time(2, 3)], pa.time64("us")),
        "dec": pa.array([decimal.Decimal("1.23"), decimal.Decimal("-4.56")], pa.decimal128(5, 2)),
        "big": pa.array([decimal.Decimal("1.23"), decimal.Decimal("-4.56")], pa.decimal128(30, 2)),
        "fsb": pa.array([b"ab", b"cd"], pa.binary(2)),
        "f16": pa.array([1.0, 2.0], pa.float16()),
        "n": pa.array([None, None], pa.int32()),
    })


def _compare_statistics(ours: object, theirs: object) -> None:
    assert ours.num_row_groups == theirs.num_row_groups and ours.num_columns == theirs.num_columns
    for g in range(theirs.num_row_groups):
        for c in range(theirs.num_columns):
            mine, other = ours.row_group(g).column(c), theirs.row_group(g).column(c)
            assert mine.path_in_schema == other.path_in_schema
            assert mine.is_stats_set == other.is_stats_set
            if not other.is_stats_set:
                continue
            a, b = mine.statistics, other.statistics
            assert (a.has_min_max, a.null_count, a.num_values, a.physical_type) == \
                (b.has_min_max, b.null_count, b.num_values, b.physical_type), other.path_in_schema
            if b.has_min_max:
                assert (a.min, a.max) == (b.min, b.max), other.path_in_schema
                assert type(a.min) is type(b.min), other.path_in_schema
                assert (a.min_raw, a.max_raw) == (b.min_raw, b.max_raw), other.path_in_schema
                assert type(a.min_raw) is type(b.min_raw), other.path_in_schema


def test_typed_statistics_of_a_pyarrow_file():
    sink = io.BytesIO()
    pq.write_table(_typed_table(), sink)
    _compare_statistics(pc.ParquetFile(io.BytesIO(sink.getvalue())).metadata,
                        pq.ParquetFile(io.BytesIO(sink.getvalue())).metadata)


def test_typed_statistics_of_our_file(tmp_path):
    path = tmp_path / "ours.parquet"
    pc.write_table(pc.Table.from_arrow(_typed_table()), path)
    _compare_statistics(pc.read_metadata(path), pq.read_metadata(path))
    ours = pc.read_metadata(path)
    assert ours.metadata == pq.read_metadata(path).metadata  # key-value metadata as bytes
    assert ours.format_version == "2.6" and ours.serialized_size == pq.read_metadata(path).serialized_size


def test_views_pass_the_structs_through(tmp_path):
    path = tmp_path / "t.parquet"
    pc.write_table(pc.Table.from_pydict({"x": [1, 2, 3]}), path, key_value_metadata={"k": "v"})
    md = pc.read_metadata(path)  # usable after the file is closed
    group = md.row_group(0)
    assert group.num_rows == 3 and group.columns[0].meta_data.num_values == 3  # the RowGroup struct's own fields
    chunk = group.column(0)
    assert chunk.meta_data is group.columns[0].meta_data
    assert chunk.physical_type == "INT64" and chunk.compression == "SNAPPY" and chunk.file_path == ""
    assert chunk.statistics.min == 1 and chunk.statistics.max == 3 and chunk.statistics.min_raw == 1
    assert md.metadata[b"k"] == b"v" and md.footer.key_value_metadata["k"] == "v"
    with pytest.raises(IndexError):
        group.column(1)


def test_legacy_writers_bounds_follow_pyarrow():
    # parquet-mr 1.8 compared byte arrays as signed bytes: Arrow drops those statistics.
    path = DATA / "datapage_v2.snappy.parquet"
    if not path.exists():
        pytest.skip("parquet-testing corpus not present")
    column = pc.read_metadata(path).row_group(0).column(0)
    assert column.physical_type == "BYTE_ARRAY" and column.meta_data.statistics is not None
    assert column.statistics is None and not column.is_stats_set


def test_encrypted_columns_show_their_decrypted_metadata(tmp_path):
    key = b"0123456789abcdef"
    path = tmp_path / "enc.parquet"
    props = pc.FileEncryptionProperties(footer_key=key, column_keys={"a": b"abcdefghijklmnop"})
    pc.write_table(pc.Table.from_pydict({"a": [5, 7], "b": [1, 2]}), path, encryption=props)
    keys = pc.FileDecryptionProperties(footer_key=key, column_keys={"a": b"abcdefghijklmnop"})
    md = pc.read_metadata(path, decryption=keys)
    assert md.row_group(0).column(0).statistics.max == 7
    assert md.row_group(0).column(1).statistics.max == 2


def test_set_file_path_append_row_groups_and_write_metadata_file(tmp_path):
    collected: list = []
    for name, values in (("a.parquet", [1, 2]), ("b.parquet", [3])):
        pc.write_table(pc.Table.from_pydict({"x": values}), tmp_path / name, metadata_collector=collected)
        collected[-1].set_file_path(name)
    summary = collected[0]
    summary.append_row_groups(collected[1])
    assert (summary.num_row_groups, summary.num_rows) == (2, 3)
    assert [summary.row_group(i).column(0).file_path for i in range(2)] == ["a.parquet", "b.parquet"]
    summary.write_metadata_file(tmp_path / "_metadata")
    theirs = pq.read_metadata(tmp_path / "_metadata")
    assert theirs.to_dict() == pc.read_metadata(tmp_path / "_metadata").to_dict()
    assert [theirs.row_group(i).column(0).file_path for i in range(2)] == ["a.parquet", "b.parquet"]
    other = []
    pc.write_table(pc.Table.from_pydict({"y": [1]}), tmp_path / "c.parquet", metadata_collector=other)
    with pytest.raises(ValueError, match="equal schemas"):
        summary.append_row_groups(other[0])


def test_equals_as_pyarrow(tmp_path):
    path = tmp_path / "t.parquet"
    pc.write_table(pc.Table.from_pydict({"x": [1, 2], "y": ["a", "b"]}), path)
    first, second = pc.read_metadata(path), pc.read_metadata(path)
    assert first.equals(second) and first == second
    assert first.row_group(0) == second.row_group(0)
    assert first.row_group(0).column(1) == second.row_group(0).column(1)
    assert first.row_group(0).column(1).statistics == second.row_group(0).column(1).statistics
    assert first.row_group(0).column(0) != first.row_group(0).column(1)
    second.set_file_path("elsewhere.parquet")
    assert not first.equals(second) and first != second

