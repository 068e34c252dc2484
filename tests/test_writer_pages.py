"""pyarrow's page and layout options, written by us and by pyarrow alike:
``use_byte_stream_split``, ``max_rows_per_page`` and
``use_compliant_nested_type``.

Each case writes one pyarrow table through ``parquet_codec.write_table`` and
``pyarrow.parquet.write_table`` with the same options, then compares the two
files: both raise or neither does; the encodings of every column chunk; the
schema elements; the rows of every page (from the offset index); and the
values, read back by pyarrow and by us.
"""

from __future__ import annotations

import copy
import decimal
from pathlib import Path
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

import parquet_codec as pc
from parquet_codec.errors import UnsupportedError
from parquet_codec.page_cuts import DEFAULT_MAX_ROWS_PER_PAGE


def _write_both(table: pa.Table, tmp_path: Path, **options: Any) -> tuple[Path | Exception, Path | Exception]:
    """Our file and pyarrow's (or the exception each raised). pyarrow adds to a
    ``column_encoding`` dict it is given, so each writer gets its own copy."""
    results: list[Path | Exception] = []
    for name, write in (("ours", pc.write_table), ("theirs", pq.write_table)):
        path = tmp_path / f"{name}.parquet"
        try:
            write(table, path, write_page_index=True, **copy.deepcopy(options))
        except Exception as exc:  # noqa: BLE001 - the test compares which side raises
            results.append(exc)
        else:
            results.append(path)
    return results[0], results[1]


def _encodings(path: Path) -> dict[str, tuple[str, ...]]:
    meta = pq.ParquetFile(path).metadata
    return {meta.schema.column(i).path: tuple(sorted(meta.row_group(rg).column(i).encodings))
            for rg in range(meta.num_row_groups) for i in range(meta.num_columns)}


def _page_rows(path: Path) -> list[list[list[int]]]:
    """Rows of every page, per row group and column, from our reading of the offset index."""
    ours, meta = pc.ParquetFile(path), pq.ParquetFile(path).metadata
    out = []
    for rg in range(meta.num_row_groups):
        rows = meta.row_group(rg).num_rows
        group = []
        for column in range(meta.num_columns):
            firsts = [loc.first_row_index for loc in ours.offset_index(rg, column).page_locations]
            group.append(np.diff([*firsts, rows]).tolist())
        out.append(group)
    return out


def _same_files(table: pa.Table, ours: Path, theirs: Path, *, pages: bool = True, encodings: bool = True) -> None:
    if encodings:
        assert _encodings(ours) == _encodings(theirs)
    assert pc.ParquetFile(ours).schema.to_elements() == pc.ParquetFile(theirs).schema.to_elements()
    if pages:
        assert _page_rows(ours) == _page_rows(theirs)
    expected = table.to_pylist()
    assert pq.read_table(ours).to_pylist() == expected
    assert pq.read_table(theirs).to_pylist() == expected
    assert pc.read_table(ours).to_pydict() == pc.read_table(theirs).to_pydict()


def _check(table: pa.Table, tmp_path: Path, *, pages: bool = True, encodings: bool = True,
           **options: Any) -> Path | Exception:
    """Both writers agree on ``options`` (both raise, or both write the same file).
    ``encodings=False`` where dictionaries are on and the writers' dictionary
    policies differ (ours is parquet-java's: PLAIN_DICTIONARY pages in v1, no
    dictionary that would not shrink the first page)."""
    ours, theirs = _write_both(table, tmp_path, **options)
    assert isinstance(ours, Exception) == isinstance(theirs, Exception), (ours, theirs)
    if not isinstance(ours, Exception):
        _same_files(table, ours, theirs, pages=pages, encodings=encodings)
    return ours


# ---------------------------------------------------------------- use_byte_stream_split

N = 3000
_RNG = np.random.default_rng(7)


def _splittable() -> dict[str, pa.Array]:
    """A column of every physical type BYTE_STREAM_SPLIT is defined for (File Format: Encodings)."""
    return {
        "f": pa.array(_RNG.random(N).astype(np.float32)),
        "d": pa.array(np.where(_RNG.random(N) < 0.1, None, _RNG.random(N))),
        "i": pa.array(_RNG.integers(-50, 50, N).astype(np.int32)),
        "l": pa.array(_RNG.integers(-(2**40), 2**40, N)),
        "fb": pa.array([bytes([i % 251, 7, 9]) for i in range(N)], pa.binary(3)),
        "dec": pa.array([decimal.Decimal(i % 997) / 100 for i in range(N)], pa.decimal128(9, 2)),
        "lf": pa.array([[float(i), None, -float(i)] if i % 5 else [] for i in range(N)], pa.list_(pa.float64())),
    }


def _low_cardinality() -> dict[str, pa.Array]:
    """Columns a dictionary suits (so our parquet-java dictionary test keeps it, as pyarrow always does)."""
    return {
        "f": pa.array((np.arange(N) % 13).astype(np.float32)),
        "d": pa.array(np.where(np.arange(N) % 7 == 0, None, np.arange(N) % 11 / 4)),
        "i": pa.array((np.arange(N) % 17).astype(np.int32)),
        "l": pa.array(np.arange(N) % 19 * 10**12),
        "fb": pa.array([bytes([i % 5, 1]) for i in range(N)], pa.binary(2)),
        "s": pa.array([f"v{i % 23}" for i in range(N)]),
    }


@pytest.mark.parametrize("page_version", ["1.0", "2.0"])
def test_byte_stream_split_everywhere_without_dictionary(tmp_path: Path, page_version: str) -> None:
    table = pa.table(_splittable())
    ours = _check(table, tmp_path, use_byte_stream_split=True, use_dictionary=False, data_page_version=page_version)
    assert set(_encodings(ours).values()) == {("BYTE_STREAM_SPLIT", "RLE")}


def test_byte_stream_split_listed_columns(tmp_path: Path) -> None:
    table = pa.table({**_splittable(), "s": pa.array([str(i) for i in range(N)]), "b": pa.array(np.arange(N) % 3 == 0)})
    ours = _check(table, tmp_path, use_byte_stream_split=["f", "l", "fb", "lf.list.element", "no_such_column"],
                  use_dictionary=False)
    got = _encodings(ours)
    assert got["f"] == got["lf.list.element"] == ("BYTE_STREAM_SPLIT", "RLE")
    assert got["d"] == got["s"] == ("PLAIN", "RLE")


@pytest.mark.parametrize("extra", ["s", "b"])
@pytest.mark.parametrize("use_dictionary", [True, False])
def test_byte_stream_split_true_refuses_other_types(tmp_path: Path, extra: str, use_dictionary: bool) -> None:
    """True covers every column; pyarrow refuses BOOLEAN (never dictionary-encoded)
    always, and BYTE_ARRAY only where no dictionary is tried first."""
    extras = {"s": pa.array([f"v{i % 23}" for i in range(N)]), "b": pa.array(np.arange(N) % 3 == 0)}
    table = pa.table({**_low_cardinality(), extra: extras[extra]}) if extra == "b" else pa.table(_low_cardinality())
    result = _check(table, tmp_path, use_byte_stream_split=True, use_dictionary=use_dictionary, data_page_version="2.0")
    assert isinstance(result, Exception) == (extra == "b" or not use_dictionary)
    if isinstance(result, Exception):
        assert isinstance(result, UnsupportedError)


@pytest.mark.parametrize(("column", "use_dictionary", "raises"), [
    ("b", True, True), ("b", False, True), ("s", True, False), ("s", False, True), ("f", True, False),
])
def test_byte_stream_split_type_check(tmp_path: Path, column: str, use_dictionary: bool, raises: bool) -> None:
    table = pa.table({**_low_cardinality(), "b": pa.array(np.arange(N) % 3 == 0)})
    result = _check(table, tmp_path, use_byte_stream_split=[column], use_dictionary=use_dictionary,
                    data_page_version="2.0")
    assert isinstance(result, Exception) == raises


def test_dictionary_preferred_over_byte_stream_split(tmp_path: Path) -> None:
    """With a dictionary, pyarrow never writes BYTE_STREAM_SPLIT: the dictionary
    pages come first and the fallback is PLAIN once the dictionary is full."""
    values = np.concatenate([np.arange(12_000) % 97, 1000 + np.arange(28_000)]).astype(np.float64)
    table = pa.table({"x": pa.array(values), "y": pa.array(values.astype(np.float32))})
    ours = _check(table, tmp_path, pages=False, use_byte_stream_split=True, dictionary_pagesize_limit=4000,
                  data_page_version="2.0")
    assert set(_encodings(ours).values()) == {("PLAIN", "RLE", "RLE_DICTIONARY")}
    chunk = pc.ParquetFile(ours).metadata.row_group(0).columns[0].meta_data
    data_pages = {stat.encoding for stat in chunk.encoding_stats if stat.page_type != 2}  # 2: dictionary page
    assert data_pages == {0, 8}  # PLAIN after RLE_DICTIONARY, as pyarrow falls back


def test_byte_stream_split_with_use_dictionary_list(tmp_path: Path) -> None:
    table = pa.table({"f": _low_cardinality()["f"], "d": _low_cardinality()["d"]})
    ours = _check(table, tmp_path, use_byte_stream_split=["f", "d"], use_dictionary=["d"], data_page_version="2.0")
    assert _encodings(ours) == {"f": ("BYTE_STREAM_SPLIT", "RLE"), "d": ("PLAIN", "RLE", "RLE_DICTIONARY")}


@pytest.mark.parametrize(("split", "encoding", "raises"), [
    (True, {"d": "PLAIN"}, True),
    (True, "PLAIN", True),
    (["f"], {"f": "PLAIN"}, True),
    (["f"], "PLAIN", True),  # pyarrow fails on the string; we refuse the conflict
    (["f"], {"d": "DELTA_BINARY_PACKED"}, True),  # d is a double: both refuse the encoding
    (["f"], {"i": "DELTA_BINARY_PACKED"}, False),
    (False, {"f": "BYTE_STREAM_SPLIT"}, False),
])
def test_byte_stream_split_with_column_encoding(tmp_path: Path, split: Any, encoding: Any, raises: bool) -> None:
    table = pa.table(_splittable())
    result = _check(table, tmp_path, use_byte_stream_split=split, column_encoding=encoding, use_dictionary=False)
    assert isinstance(result, Exception) == raises


# ---------------------------------------------------------------- max_rows_per_page


def _flat(n: int) -> pa.Table:
    rng = np.random.default_rng(3)
    return pa.table({
        "i": pa.array(rng.integers(0, 1000, n)),
        "n": pa.array(np.where(rng.random(n) < 0.3, None, rng.random(n))),
        "s": pa.array([f"k{i % 50}" for i in range(n)]),
        "b": pa.array(rng.random(n) < 0.5),
    })


def _lists(n: int) -> pa.Table:
    rng = np.random.default_rng(4)
    lengths = rng.integers(0, 5, n)
    offsets = np.concatenate([[0], np.cumsum(lengths)]).astype(np.int32)
    items = pa.ListArray.from_arrays(offsets, pa.array(rng.integers(0, 100, int(offsets[-1]))))
    nested = pa.array([[[j] * (j % 3) for j in range(i % 4)] if i % 9 else None for i in range(n)],
                      pa.list_(pa.list_(pa.int32())))
    return pa.table({"l": items, "ll": nested, "id": pa.array(np.arange(n))})


def _no_dictionary(page_version: str, use_dictionary: bool) -> dict[str, Any]:
    """Options under which both writers choose the same encodings: PLAIN (stated in v2,
    where our default fallback is parquet-java's) unless dictionaries are on."""
    if use_dictionary:
        return {"data_page_version": page_version, "encodings": False}
    return {"data_page_version": page_version, "use_dictionary": False,
            "column_encoding": "PLAIN" if page_version == "2.0" else None}


@pytest.mark.parametrize("rows", [20_000, 1000, 7, 1])  # 20,000: pyarrow's default
@pytest.mark.parametrize("page_version", ["1.0", "2.0"])
@pytest.mark.parametrize("use_dictionary", [False, True])
def test_max_rows_per_page_flat(tmp_path: Path, rows: int, page_version: str, use_dictionary: bool) -> None:
    n = 45_000 if rows == 20_000 else 3_000
    ours = _check(_flat(n), tmp_path, max_rows_per_page=rows, **_no_dictionary(page_version, use_dictionary))
    for column in _page_rows(ours)[0]:
        assert max(column) == rows and sum(column) == n


@pytest.mark.parametrize("rows", [20_000, 1000, 7])
@pytest.mark.parametrize("use_dictionary", [False, True])
def test_max_rows_per_page_lists(tmp_path: Path, rows: int, use_dictionary: bool) -> None:
    """Pages of repeated columns hold ``rows`` records, each page starting at one."""
    n = 45_000 if rows == 20_000 else 3_000
    ours = _check(_lists(n), tmp_path, max_rows_per_page=rows, **_no_dictionary("1.0", use_dictionary))
    for column in _page_rows(ours)[0]:
        assert set(column[:-1]) == {rows} and 0 < column[-1] <= rows


def test_no_row_cap_by_default(tmp_path: Path) -> None:
    """Unlike pyarrow (20,000 rows), pages are cut by size alone unless a cap is given."""
    assert DEFAULT_MAX_ROWS_PER_PAGE is None
    path = tmp_path / "uncapped.parquet"
    pc.write_table(pa.table({"i": pa.array(np.arange(45_000, dtype=np.int32))}), path, use_dictionary=False)
    assert _page_rows(path) == [[[45_000]]]  # 180,000 bytes: one page of the default 1 MiB


def test_max_rows_per_page_row_groups(tmp_path: Path) -> None:
    ours = _check(_flat(5_000), tmp_path, max_rows_per_page=1000, row_group_size=2500, use_dictionary=False)
    assert _page_rows(ours) == [[[1000, 1000, 500]] * 4] * 2


def test_max_rows_per_page_with_page_size(tmp_path: Path) -> None:
    """A page closes at whichever limit comes first, counted from its own start."""
    table = pa.table({"i": pa.array(np.arange(20_000))})
    ours = _check(table, tmp_path, max_rows_per_page=1000, data_page_size=64 * 1024, use_dictionary=False)
    assert _page_rows(ours) == [[[1000] * 20]]
    path = tmp_path / "small.parquet"
    pc.write_table(table, path, max_rows_per_page=1000, data_page_size=8 * 700, use_dictionary=False)
    assert _page_rows(path) == [[[700] * 28 + [400]]]  # 700 values fill 5600 bytes before 1000 rows


def test_max_rows_per_page_row_ranges(tmp_path: Path) -> None:
    """The offset index's first rows are right: a filtered read through the page index returns the rows."""
    table = _lists(3_000)
    ours = _check(table, tmp_path, max_rows_per_page=100, use_dictionary=False)
    got = pq.read_table(ours, filters=[("id", ">=", 1234), ("id", "<", 1500)]).to_pylist()
    assert got == table.slice(1234, 266).to_pylist()


@pytest.mark.parametrize("rows", [0, -5, 2.5, True])
def test_max_rows_per_page_refused(tmp_path: Path, rows: Any) -> None:
    """pyarrow accepts 0 and never finishes its first page; we refuse it and other non-counts."""
    with pytest.raises(UnsupportedError, match="max_rows_per_page"):
        pc.write_table(_flat(10), tmp_path / "x.parquet", max_rows_per_page=rows)


# ---------------------------------------------------------------- use_compliant_nested_type


def _nested() -> pa.Table:
    return pa.table({
        "l": pa.array([[1, 2], [3], None, []], pa.list_(pa.int64())),
        "named": pa.array([[1, 2], [3], [], None], pa.list_(pa.field("foo", pa.int64()))),
        "ll": pa.array([[[1], [2, None]], [[3]], [None], None], pa.list_(pa.list_(pa.int64()))),
        "required": pa.array([[1, 2], [3], [], []], pa.list_(pa.field("x", pa.int64(), nullable=False))),
        "structs": pa.array([[{"a": 1}], [], [None], None], pa.list_(pa.struct([("a", pa.int32())]))),
        "fixed": pa.array([[1, 2], [3, 4], None, [5, 6]], pa.list_(pa.int32(), 2)),
        "large": pa.array([["a", "b"], ["c"], [], None], pa.large_list(pa.string())),
        "map": pa.array([[("k", [1])], [], None, [("a", None), ("b", [])]], pa.map_(pa.string(), pa.list_(pa.int64()))),
        "struct": pa.array([{"x": [1]}, {"x": []}, None, {"x": None}], pa.struct([("x", pa.list_(pa.int16()))])),
    })


@pytest.mark.parametrize("compliant", [True, False])
def test_compliant_nested_type(tmp_path: Path, compliant: bool) -> None:
    ours = _check(_nested(), tmp_path, use_compliant_nested_type=compliant, use_dictionary=False)
    names = {e.name for e in pc.ParquetFile(ours).schema.to_elements()}
    assert ("element" in names) == compliant
    assert ({"item", "foo", "x"} <= names) == (not compliant)
    assert {"key_value", "key", "value"} <= names  # maps keep their names either way


def test_non_compliant_column_paths(tmp_path: Path) -> None:
    """Per-column options name the columns as the file names them."""
    table = pa.table({"l": pa.array([[1.5, 2.5], [], None], pa.list_(pa.float64()))})
    ours = _check(table, tmp_path, use_compliant_nested_type=False, use_byte_stream_split=["l.list.item"],
                  use_dictionary=False)
    assert _encodings(ours) == {"l.list.item": ("BYTE_STREAM_SPLIT", "RLE")}


def test_non_compliant_parquet_writer_of_an_arrow_schema(tmp_path: Path) -> None:
    """A ParquetWriter made from a pyarrow schema names the elements as that
    schema's list fields, as pyarrow's ParquetWriter does (not ``item``)."""
    table = _nested()
    for name, writer in (("ours", pc.ParquetWriter), ("theirs", pq.ParquetWriter)):
        with writer(tmp_path / f"{name}.parquet", table.schema, use_compliant_nested_type=False) as w:
            w.write_table(table)
    ours, theirs = (pc.ParquetFile(tmp_path / f"{n}.parquet").schema.to_elements() for n in ("ours", "theirs"))
    assert [e.name for e in ours] == [e.name for e in theirs]
    assert pq.read_table(tmp_path / "ours.parquet").equals(table)


def test_non_compliant_writer_of_our_tables(tmp_path: Path) -> None:
    """Tables that never were Arrow get Arrow's default element name."""
    path = tmp_path / "x.parquet"
    pc.write_table({"l": [[1, 2], None, []]}, path, use_compliant_nested_type=False)
    assert [leaf.dotted_path for leaf in pc.ParquetFile(path).schema.leaves] == ["l.list.item"]
    assert pq.read_table(path).column("l").to_pylist() == [[1, 2], None, []]
    assert pc.read_table(path).to_pydict() == {"l": [[1, 2], None, []]}


def _v2_page_headers(path: Path, column: int) -> list:
    """The data page headers of a column's first chunk."""
    from parquet_codec.page import read_page_header

    meta = pq.ParquetFile(path).metadata.row_group(0).column(column)
    start = meta.dictionary_page_offset or meta.data_page_offset
    chunk = memoryview(path.read_bytes())[start:start + meta.total_compressed_size]
    headers, pos = [], 0
    while pos < len(chunk):
        header, pos = read_page_header(chunk, pos)
        pos += header.compressed_page_size
        headers.append(header)
    assert headers and all(h.data_page_header_v2 is not None for h in headers)
    return headers


@pytest.mark.parametrize("codec", ["snappy", "gzip", "brotli", "zstd", "lz4", "lz4_hadoop"])
def test_v2_pages_without_values_store_no_compressed_stream(tmp_path: Path, codec: str) -> None:
    """A v2 page without value bytes (only nulls, or only empty lists) stores
    none and says is_compressed=false, as pyarrow writes it; an empty stream of
    the codec was stored (is_compressed=true), and DuckDB fails on the Hadoop
    LZ4 one with 'LZ4 decompression failure'."""
    table = pa.table({"n": pa.array([None] * 17, pa.int32()), "l": pa.array([[]] * 16 + [None], pa.list_(pa.int64())),
                      "x": pa.array(range(17), pa.int64())})
    path = tmp_path / "ours.parquet"
    pc.write_table(table, path, data_page_version="2.0", compression=codec, use_dictionary=False)
    for column in (0, 1):
        for header in _v2_page_headers(path, column):
            v2 = header.data_page_header_v2
            levels = v2.definition_levels_byte_length + v2.repetition_levels_byte_length
            assert v2.is_compressed is False
            assert header.compressed_page_size == header.uncompressed_page_size == levels
    assert all(h.data_page_header_v2.is_compressed for h in _v2_page_headers(path, 2))
    assert pq.read_table(path).equals(table) and pc.read_table(str(path)).to_arrow().equals(table)
    duckdb = pytest.importorskip("duckdb")
    assert duckdb.sql(f"SELECT count(n), count(l), sum(x) FROM read_parquet('{path}')").fetchall() == [(0, 16, 136)]
