"""Every committed Spark fixture reads exactly as Spark read it back.

The fixtures and Spark's rows come from fixtures/spark/generate.py; this
test needs neither Spark nor Java.
"""

from __future__ import annotations

import base64
import datetime
import decimal
import json

import pytest

import parquet_codec.reader as reader
from tests.conftest import FIXTURES
from tests.support.compare import first_difference

SPARK = FIXTURES / "spark"
FILES = sorted(SPARK.glob("*.parquet"))


def decode(value):
    """Rebuild a Python value from generate.py's typed JSON, in our reader's conventions."""
    if value is None or isinstance(value, bool):
        return value
    (tag, raw), = value.items()
    if tag == "int":
        return int(raw)
    if tag == "float":
        return float(raw)
    if tag == "decimal":
        return decimal.Decimal(raw)
    if tag == "str":
        return raw
    if tag == "binary":
        return base64.b64decode(raw)
    if tag == "date":
        return datetime.date.fromisoformat(raw)
    if tag == "timestamp":
        return datetime.datetime.fromisoformat(raw)
    if tag == "list":
        return [decode(v) for v in raw]
    if tag == "map":
        return [(decode(k), decode(v)) for k, v in raw]
    if tag == "struct":
        return {k: decode(v) for k, v in raw.items()}
    raise ValueError(tag)


def naive_utc(value):
    """Spark collects timestamps as naive UTC wall-clock times (session time zone UTC)."""
    if isinstance(value, datetime.datetime) and value.tzinfo is not None:
        return value.astimezone(datetime.timezone.utc).replace(tzinfo=None)
    if isinstance(value, dict):
        return {k: naive_utc(v) for k, v in value.items()}
    if isinstance(value, list):
        return [naive_utc(v) for v in value]
    if isinstance(value, tuple):
        return tuple(naive_utc(v) for v in value)
    return value


def expected_rows(path):
    own = path.with_suffix(".json")
    rows = json.loads((own if own.exists() else SPARK / "rows.json").read_text())
    return [{k: decode(v) for k, v in row.items()} for row in rows]


def test_fixture_matrix_is_present():
    assert len(FILES) >= 30


@pytest.mark.parametrize("path", FILES, ids=lambda p: p.stem)
def test_spark_fixture_reads_like_spark(path):
    got = naive_utc(reader.read_table(path).to_pylist())
    got.sort(key=lambda row: row["id"])
    assert first_difference(got, expected_rows(path)) is None


@pytest.mark.parametrize("path", FILES[:4], ids=lambda p: p.stem)
def test_spark_fixtures_have_many_pages_and_row_groups(path):
    pf = reader.ParquetFile(path)
    assert pf.num_row_groups >= 3
    assert "parquet-mr" in pf.metadata.created_by
