"""Shared helpers of the Spark conformance tests: typed JSON rows, value
conventions, and access to the fixture generator (fixtures/spark/generate.py).

Rows are compared in our reader's Python conventions (pyarrow's): structs
are dicts, maps are lists of (key, value) tuples, timestamps naive UTC.
"""

from __future__ import annotations

import base64
import datetime
import decimal
import importlib.util
import json
import os
import shutil
import sys
from pathlib import Path
from types import ModuleType

from tests.conftest import FIXTURES
from tests.support.compare import first_difference

SPARK_FIXTURES = FIXTURES / "spark"
GENERATOR = SPARK_FIXTURES / "generate.py"


def decode(value):
    """Rebuild a Python value from generate.py's typed JSON, in our reader's conventions."""
    if value is None or isinstance(value, bool):
        return value
    ((tag, raw),) = value.items()
    simple = {"int": int, "float": float, "decimal": decimal.Decimal, "str": str,
              "binary": base64.b64decode, "date": datetime.date.fromisoformat,
              "timestamp": datetime.datetime.fromisoformat}
    if tag in simple:
        return simple[tag](raw)
    if tag == "list":
        return [decode(v) for v in raw]
    if tag == "map":
        return [(decode(k), decode(v)) for k, v in raw]
    if tag == "struct":
        return {k: decode(v) for k, v in raw.items()}
    raise ValueError(f"unknown value tag {tag!r}")


def decode_rows(rows: list[dict]) -> list[dict]:
    return [{k: decode(v) for k, v in row.items()} for row in rows]


def naive_utc(value):
    """Spark collects timestamps as naive UTC wall-clock times (session and process zone UTC)."""
    if isinstance(value, datetime.datetime) and value.tzinfo is not None:
        return value.astimezone(datetime.timezone.utc).replace(tzinfo=None)
    if isinstance(value, dict):
        return {k: naive_utc(v) for k, v in value.items()}
    if isinstance(value, list):
        return [naive_utc(v) for v in value]
    if isinstance(value, tuple):
        return tuple(naive_utc(v) for v in value)
    return value


def fixture_rows(path: Path) -> list[dict]:
    """Spark's rows for a committed fixture: its own ``<name>.json`` or the shared ``rows.json``."""
    own = path.with_suffix(".json")
    source = own if own.exists() else path.parent / "rows.json"
    return decode_rows(json.loads(source.read_text(encoding="utf-8")))


def ours(table, key: str = "id") -> list[dict]:
    """Our rows (a parquet_codec Table) in Spark's conventions, ordered by ``key``."""
    rows = naive_utc(table.to_pylist())
    rows.sort(key=lambda row: row[key])
    return rows


def assert_same_rows(got: list[dict], expected: list[dict], what: str = "") -> None:
    difference = first_difference(got, expected)
    assert difference is None, f"{what}: {difference}" if what else difference


def spark_available() -> str | None:
    """Why the live Spark tests cannot run here, or None when they can."""
    if importlib.util.find_spec("pyspark") is None:
        return "pyspark is not installed"
    java_home = os.environ.get("JAVA_HOME")
    if not shutil.which("java") and not (java_home and (Path(java_home) / "bin" / "java").exists()):
        return "no Java runtime (java on PATH or JAVA_HOME)"
    return None


def generator() -> ModuleType:
    """fixtures/spark/generate.py as a module (it is a script, not a package)."""
    name = "parquet_codec_spark_fixture_generator"
    if name not in sys.modules:
        spec = importlib.util.spec_from_file_location(name, GENERATOR)
        module = importlib.util.module_from_spec(spec)
        sys.modules[name] = module
        spec.loader.exec_module(module)
    return sys.modules[name]


def collected(rows) -> list[dict]:
    """Spark Rows in our conventions (through the fixtures' typed JSON, so both
    directions compare exactly as the committed fixtures do)."""
    encode = generator().encode
    return decode_rows([{k: encode(v) for k, v in row.asDict().items()} for row in rows])
