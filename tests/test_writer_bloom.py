"""Bloom filters the writer builds (``bloom_filter_options``, pyarrow's option).

pyarrow 26 writes bloom filters with the same option: for the same data and
options our filters (header and bitset) must be byte-identical to its own,
hold every written value, and read back in pyarrow and our reader.
"""

from __future__ import annotations

import decimal
import io

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from parquet_codec.errors import ParquetError
from parquet_codec.reader import ParquetFile
from parquet_codec.types import from_pylist
from parquet_codec.writer import write_table

N = 3000
_rng = np.random.default_rng(7)
TABLE = pa.table({
    "i32": pa.array(_rng.integers(-1000, 1000, N), pa.int32()),
    "i64": pa.array([None if i % 11 == 0 else int(x) for i, x in enumerate(_rng.integers(-2**40, 2**40, N))]),
    "f32": pa.array(_rng.normal(size=N).astype(np.float32)),
    "f64": pa.array([float(x) if i % 5 else -0.0 for i, x in enumerate(_rng.normal(size=N))]),
    "s": pa.array([f"str-{int(x)}" * (1 + int(x) % 9) for x in _rng.integers(0, 500, N)]),
    "b": pa.array([bytes([int(x) % 256]) * (int(x) % 40) for x in _rng.integers(0, 5000, N)], pa.binary()),
    "fx": pa.array([bytes([i % 256, 1, 2, 3]) for i in range(N)], pa.binary(4)),
    "lst": pa.array([[i, i + 1] if i % 4 else None for i in range(N)], pa.list_(pa.int64())),
    "d": pa.array([decimal.Decimal(i) / 100 for i in range(N)], pa.decimal128(20, 2)),
    "flag": pa.array([i % 2 == 0 for i in range(N)]),
})
OPTIONS = {"i32": {"ndv": 500, "fpp": 0.01}, "i64": True, "f32": {}, "f64": {"fpp": 0.2}, "s": {"ndv": 10},
           "b": {"ndv": 100000, "fpp": 0.001}, "fx": True, "lst.list.element": {"ndv": 1000}, "d": True}


def _ours(table: pa.Table = TABLE, **options) -> ParquetFile:
    sink = io.BytesIO()
    write_table(table, sink, row_group_size=1000, **options)
    return ParquetFile(sink.getvalue())


def _stored_filters(pf: ParquetFile) -> dict[tuple[int, str], bytes]:
    out = {}
    for rg in range(pf.num_row_groups):
        for leaf in pf.schema.leaves:
            meta = pf.metadata.row_group(rg).columns[leaf.column_index].meta_data
            if meta.bloom_filter_offset is not None:
                out[rg, leaf.dotted_path] = bytes(pf._source.read(meta.bloom_filter_offset, meta.bloom_filter_length))
    return out


@pytest.mark.parametrize("dictionary", [True, False])
def test_byte_identical_to_pyarrow(dictionary):
    sink = io.BytesIO()
    pq.write_table(TABLE, sink, row_group_size=1000, bloom_filter_options=OPTIONS, use_dictionary=dictionary)
    theirs = _stored_filters(ParquetFile(sink.getvalue()))
    ours = _stored_filters(_ours(bloom_filter_options=OPTIONS, use_dictionary=dictionary))
    assert len(theirs) == 3 * len(OPTIONS)
    assert ours.keys() == theirs.keys()
    for key, stored in theirs.items():
        assert ours[key] == stored, key


def test_every_value_found_and_files_read_back():
    pf = _ours(bloom_filter_options=OPTIONS, data_page_version="2.0")
    arrow_file = pq.ParquetFile(io.BytesIO(pf._source.read(0, pf._source.size)))
    assert arrow_file.read().equals(TABLE)
    assert pf.read().to_arrow().equals(TABLE)
    meta = arrow_file.metadata
    index = {leaf.dotted_path: leaf.column_index for leaf in pf.schema.leaves}
    for rg in range(pf.num_row_groups):
        rows = TABLE.slice(rg * 1000, 1000)
        for column in ("i32", "i64", "f32", "f64", "s", "b", "fx", "d"):
            bloom = pf.bloom_filter(rg, column)
            assert _all_found(bloom, [v for v in rows.column(column).to_pylist() if v is not None]), column
            assert meta.row_group(rg).column(index[column]).to_dict()["bloom_filter_offset"] is not None
        elements = [v for items in rows.column("lst").to_pylist() if items for v in items]
        assert _all_found(pf.bloom_filter(rg, "lst.list.element"), elements)
        assert pf.bloom_filter(rg, "flag") is None
    absent = [b"absent-%d" % i for i in range(2000)]
    assert sum(pf.bloom_filter(0, "b").might_contain(v) for v in absent) < 20  # fpp 0.001


def _all_found(bloom, values: list) -> bool:
    """Every value (Python values of the column's type) is in the filter, checked at once."""
    info = bloom.info
    physical = from_pylist(values, info)
    return bool(bloom.check_values(physical, info.physical_type, type_length=info.type_length).all())


def test_bloom_length_counts_header_and_bitset():
    pf = _ours(bloom_filter_options={"i32": True})
    meta = pf.metadata.row_group(0).columns[0].meta_data
    bloom = pf.bloom_filter(0, "i32")
    assert meta.bloom_filter_length == len(bloom.to_bytes()) > bloom.num_bytes


def test_parquet_java_sizing():
    """The sizes Spark (parquet-java 1.17) wrote: ndv 300 / fpp 0.01 -> 512 bytes,
    ndv 5000 / fpp 0.001 -> 16384; without an ndv, parquet.bloom.filter.max.bytes (1 MiB)."""
    table = pa.table({"a": pa.array(range(400), pa.int64()), "b": pa.array(range(400), pa.int64()),
                      "c": pa.array(range(400), pa.int64())})
    options = {"a": {"ndv": 300}, "b": {"ndv": 5000, "fpp": 0.001}, "c": True}
    pf = _ours(table, bloom_filter_options=options, bloom_filter_sizing="parquet-java")
    assert [pf.bloom_filter(0, c).num_bytes for c in "abc"] == [512, 16384, 2**20]
    capped = _ours(table, bloom_filter_options=options, bloom_filter_sizing="parquet-java",
                   bloom_filter_max_bytes=4096)
    assert [capped.bloom_filter(0, c).num_bytes for c in "abc"] == [512, 4096, 4096]
    arrow_sized = _ours(table, bloom_filter_options=options)  # min(ndv, 400 distinct), fpp 0.05 unless given
    sink = io.BytesIO()
    pq.write_table(table, sink, bloom_filter_options=options)
    pyarrow_sized = ParquetFile(sink.getvalue())
    assert [arrow_sized.bloom_filter(0, c).num_bytes for c in "abc"] == [
        pyarrow_sized.bloom_filter(0, c).num_bytes for c in "abc"]


@pytest.mark.parametrize("options, match", [
    ({"nope": True}, "not a leaf column"),
    ({"lst": True}, "not a leaf column"),
    ({"flag": True}, "BOOLEAN"),
    ({"i32": {"ndv": 0}}, "positive integer"),
    ({"i32": {"ndv": 1.5}}, "positive integer"),
    ({"i32": {"fpp": 1.0}}, "strictly between"),
    ({"i32": {"nvd": 10}}, "unknown keys"),
    ({"i32": "yes"}, "True or a dict"),
])
def test_bad_options_refused_before_writing(options, match, tmp_path):
    target = tmp_path / "x.parquet"
    with pytest.raises(ParquetError, match=match):
        write_table(TABLE, target, bloom_filter_options=options)
    assert not target.exists()
    with pytest.raises(ParquetError, match="bloom_filter_sizing"):
        write_table(TABLE, target, bloom_filter_options={"i32": True}, bloom_filter_sizing="spark")


def test_false_means_no_filter():
    assert _ours(bloom_filter_options={"i32": False}).bloom_filter(0, "i32") is None
