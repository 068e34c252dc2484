"""Names in the written file: Spark-safe top-level names (flavor="spark"), as pyarrow writes them."""

from __future__ import annotations

import datetime as dt
import io

import pytest

import parquet_codec as pc
from parquet_codec.written_names import spark_field_names

pa = pytest.importorskip("pyarrow")
pq = pytest.importorskip("pyarrow.parquet")

TABLE = pa.table({
    "plain": [1, 2], "with space": [3, 4], "a,b;c{d}(e)=f\tg\nh": ["x", "y"],
    "nested struct": [{"inner name": 1}, None],
    "when": pa.array([dt.datetime(2024, 1, 2, 3, 4, 5, 6), None], pa.timestamp("us")),
})


def _footer(raw: bytes) -> object:
    return pq.ParquetFile(io.BytesIO(raw)).metadata


def test_spark_flavor_writes_what_pyarrow_writes() -> None:
    ours, theirs = io.BytesIO(), io.BytesIO()
    pc.write_table(TABLE, ours, flavor="spark")
    pq.write_table(TABLE, theirs, flavor="spark")
    assert _footer(ours.getvalue()).schema.to_arrow_schema() == _footer(theirs.getvalue()).schema.to_arrow_schema()
    physical = [_footer(raw).schema.column(4).physical_type for raw in (ours.getvalue(), theirs.getvalue())]
    assert physical == ["INT96", "INT96"]  # Spark's timestamps, unless said otherwise
    assert pq.read_table(io.BytesIO(ours.getvalue())).equals(pq.read_table(io.BytesIO(theirs.getvalue())))
    # the file's names, the table's values
    assert pc.read_table(io.BytesIO(ours.getvalue())).column_names == [
        "plain", "with_space", "a_b_c_d__e__f_g_h", "nested_struct", "when"]


def test_spark_flavor_keeps_an_explicit_timestamp_choice() -> None:
    out = io.BytesIO()
    pc.write_table(TABLE, out, flavor="spark", use_deprecated_int96_timestamps=False)
    assert _footer(out.getvalue()).schema.column(4).physical_type == "INT64"


def test_only_top_level_names_change() -> None:
    schema = pc.Table.from_arrow(TABLE).schema
    renamed = spark_field_names(schema)
    assert [f.name for f in renamed.fields][:2] == ["plain", "with_space"]
    assert renamed.field("nested_struct").children[0].name == "inner name"
    assert [f.name for f in schema.fields][1] == "with space"  # the given schema is untouched
    plain = pc.Table.from_pydict({"ok": [1]}).schema
    assert spark_field_names(plain) is plain


@pytest.mark.parametrize("options, message", [
    ({"flavor": "hive"}, "flavor"),
    ({"use_content_defined_chunking": True}, "content_defined_chunking"),
])
def test_options_this_writer_does_not_have(options: dict, message: str) -> None:
    with pytest.raises(pc.UnsupportedError, match=message):
        pc.write_table({"x": [1]}, io.BytesIO(), **options)


def test_write_batch_size_is_accepted() -> None:
    out = io.BytesIO()
    pc.write_table({"x": list(range(10))}, out, write_batch_size=3)
    assert pc.read_table(out.getvalue()).num_rows == 10
