"""pyarrow's schema views (parquet_codec.schema_views) against pyarrow itself:
every ColumnSchema attribute, its text, names and the Arrow schema, for
files pyarrow and we write and for the whole corpus."""

from __future__ import annotations

import decimal
import io
import uuid

import numpy as np
import pytest

import parquet_codec as pc
from parquet_codec.schema_views import ColumnSchema, ParquetLogicalType
from tests.conftest import CORPUS_DATA
from tests.test_reader import plain_corpus

pa = pytest.importorskip("pyarrow")
pq = pytest.importorskip("pyarrow.parquet")

ATTRIBUTES = ("name", "path", "max_definition_level", "max_repetition_level", "physical_type", "converted_type",
              "length", "precision", "scale")


def _columns() -> dict:
    return {
        "s": ["a"], "n": pa.array([None], pa.null()), "u": pa.array([uuid.UUID(int=5).bytes], pa.uuid()),
        "f16": pa.array([np.float16(1)], pa.float16()), "j": pa.array(['{"a":1}'], pa.json_(pa.string())),
        "dt": pa.array([1], pa.date32()), "e": pa.array(["a"]).dictionary_encode(),
        "tn": pa.array([1], pa.time64("ns")), "tu": pa.array([1], pa.time64("us")), "tm": pa.array([1], pa.time32("ms")),
        "l": pa.array([[1]]), "m": pa.array([[(1, 2)]], pa.map_(pa.int8(), pa.int8())),
        "d9": pa.array([decimal.Decimal("1.5")], pa.decimal128(9, 1)),
        "d30": pa.array([decimal.Decimal("1.5")], pa.decimal128(30, 1)), "bin": pa.array([b"x"]),
        "u64": pa.array([1], pa.uint64()), "i8": pa.array([1], pa.int8()), "fx": pa.array([b"abcd"], pa.binary(4)),
        "st": [{"x": 1, "y": [{"z": "q"}]}], "ts": pa.array([1], pa.timestamp("us")),
        "tsn": pa.array([1], pa.timestamp("ns", tz="UTC")), "tsm": pa.array([1], pa.timestamp("ms", tz="UTC")),
    }


def _same_views(ours: object, theirs: object) -> None:
    """Every column's attributes, logical type and text, and the schema's text, as pyarrow's."""
    assert len(ours) == len(theirs) and ours.names == theirs.names
    for i in range(len(theirs)):
        got, expected = ours.column(i), theirs.column(i)
        for name in ATTRIBUTES:
            assert getattr(got, name) == getattr(expected, name), (expected.path, name)
        lt, their_lt = got.logical_type, expected.logical_type
        assert (str(lt), lt.type, lt.to_json()) == (str(their_lt), their_lt.type, their_lt.to_json()), expected.path
        assert repr(got) == repr(expected)
    assert repr(ours).split("\n", 1)[1] == repr(theirs).split("\n", 1)[1]  # after the line naming the object


def _same_columns(raw: bytes) -> None:
    theirs = pq.ParquetFile(io.BytesIO(raw)).metadata.schema
    ours = pc.ParquetFile(io.BytesIO(raw)).metadata.schema
    _same_views(ours, theirs)
    assert ours.to_arrow_schema().equals(theirs.to_arrow_schema())


@pytest.mark.parametrize("writer", ["pyarrow", "ours"])
def test_every_logical_type_reads_as_pyarrow_shows_it(writer):
    table, out = pa.table(_columns()), io.BytesIO()
    if writer == "pyarrow":
        pq.write_table(table, out)
    else:
        pc.write_table(pc.Table.from_arrow(table), out)
    _same_columns(out.getvalue())


def test_legacy_converted_types_only():
    """A file of ConvertedTypes without LogicalTypes (format version 1.0)."""
    table, out = pa.table({k: v for k, v in _columns().items() if k in ("s", "i8", "d9", "dt", "tsm", "l")}), io.BytesIO()
    pq.write_table(table, out, version="1.0")
    _same_columns(out.getvalue())


@pytest.mark.skipif(not CORPUS_DATA.is_dir(), reason="corpus not present")
@pytest.mark.parametrize("path", plain_corpus(), ids=lambda p: str(p.relative_to(CORPUS_DATA)))
def test_corpus_schemas_as_pyarrow_shows_them(path):
    try:
        theirs = pq.ParquetFile(path).metadata.schema
    except Exception as exc:  # noqa: BLE001 - pyarrow cannot open a few corpus files
        pytest.skip(f"pyarrow cannot open it: {exc}")
    _same_views(pc.ParquetFile(path).metadata.schema, theirs)


def test_every_type_the_writer_writes_shows_as_pyarrow_shows_it(tmp_path):
    """INTERVAL (Arrow's "Interval" logical type), INT96, legacy maps and the rest of the writer's matrix."""
    from tests.test_writer import _columns as every_type

    columns = every_type()
    schema = pc.Schema.from_fields([tree for tree, _ in columns.values()])
    pc.write_table(pc.Table.from_pydict({name: values for name, (_, values) in columns.items()}, schema),
                   tmp_path / "all.parquet")
    _same_views(pc.ParquetFile(tmp_path / "all.parquet").metadata.schema,
                pq.ParquetFile(tmp_path / "all.parquet").metadata.schema)


def test_type_lengths_on_other_types_show_as_stored(tmp_path):
    """fastparquet stores a type length (in bits) on integer, float and boolean columns."""
    fastparquet = pytest.importorskip("fastparquet")
    pd = pytest.importorskip("pandas")
    frame = pd.DataFrame({"i": np.arange(3), "f": np.linspace(0, 1, 3), "b": [True, False, True]})
    fastparquet.write(str(tmp_path / "fp.parquet"), frame)
    ours = pc.ParquetFile(tmp_path / "fp.parquet").metadata.schema
    _same_views(ours, pq.ParquetFile(tmp_path / "fp.parquet").metadata.schema)
    assert [c.length for c in ours] == [64, 64, 1]


def test_views_compare_and_pass_through():
    out = io.BytesIO()
    pc.write_table(pc.Table.from_pydict({"a": [1], "b": ["x"]}), out)
    schema = pc.ParquetFile(io.BytesIO(out.getvalue())).metadata.schema
    assert schema.column(0) == schema[0] != schema.column(1)
    assert isinstance(schema.column(0), ColumnSchema) and [c.name for c in schema] == ["a", "b"]
    assert schema.equals(pc.ParquetFile(io.BytesIO(out.getvalue())).schema)
    assert schema.column(0).dotted_path == "a" and [leaf.name for leaf in schema.leaves] == ["a", "b"]
    assert ParquetLogicalType(None).to_json() == '{"Type":"None"}'


def test_collected_metadata_knows_its_arrow_schema():
    collected: list = []
    table = pa.table({"t": pa.array([1], pa.timestamp("ms", tz="Europe/Paris")), "d": pa.array([1], pa.duration("s"))})
    out = io.BytesIO()
    pc.write_table(pc.Table.from_arrow(table), out, metadata_collector=collected)
    assert collected[0].schema.to_arrow_schema() == table.schema
    assert collected[0].schema.to_arrow_schema() == pq.ParquetFile(io.BytesIO(out.getvalue())).schema_arrow
