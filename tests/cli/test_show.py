"""head and cat: aligned table, JSON lines and CSV, parsed back and held against pyarrow."""

from __future__ import annotations

import base64
import csv
import datetime
import decimal
import io
import math

import pyarrow.parquet as pq

from tests.cli.support import SPARK_FILE, run, write_sample

COLUMNS = ["id", "s", "bin", "dec18", "day", "flag", "arr", "m", "st"]


def _expected(value):
    """pyarrow's Python value in the documented JSON form of ``--json``."""
    if isinstance(value, bytes):
        return base64.b64encode(value).decode()
    if isinstance(value, decimal.Decimal):
        return str(value)
    if isinstance(value, (datetime.date, datetime.time)):
        return value.isoformat()
    if isinstance(value, float) and not math.isfinite(value):
        return {"nan": "NaN", "inf": "Infinity", "-inf": "-Infinity"}[str(value)]
    if isinstance(value, dict):
        return {k: _expected(v) for k, v in value.items()}
    if isinstance(value, list):
        if value and all(isinstance(v, tuple) for v in value):
            return [{"key": _expected(k), "value": _expected(v)} for k, v in value]
        return [_expected(v) for v in value]
    return value


def test_cat_json_lines_equal_pyarrow():
    result = run("cat", SPARK_FILE, "--json", "--columns", ",".join(COLUMNS))
    assert result.code == 0, result.err
    rows = result.json_lines()
    expected = pq.read_table(SPARK_FILE, columns=COLUMNS).to_pylist()
    assert len(rows) == len(expected) == 60
    assert rows == [{k: _expected(v) for k, v in row.items()} for row in expected]


def test_head_csv_parses_back():
    result = run("head", SPARK_FILE, "-n", "7", "--csv", "--columns", "id,s", "--columns", "dec18,f")
    assert result.code == 0, result.err
    rows = list(csv.DictReader(io.StringIO(result.out)))
    expected = pq.read_table(SPARK_FILE, columns=["id", "s", "dec18", "f"]).slice(0, 7).to_pylist()
    assert len(rows) == 7
    for got, want in zip(rows, expected, strict=True):
        assert list(got) == ["id", "s", "dec18", "f"]
        assert int(got["id"]) == want["id"]
        assert got["s"] == ("" if want["s"] is None else want["s"])
        assert got["dec18"] == ("" if want["dec18"] is None else str(want["dec18"]))
        if want["f"] is None:
            assert got["f"] == ""
        elif math.isnan(want["f"]):
            assert got["f"] == "nan"
        else:
            assert float(got["f"]) == want["f"]


def test_head_aligned_table(tmp_path):
    path = tmp_path / "sample.parquet"
    table = write_sample(path)
    result = run("head", path, "-n", "4")
    assert result.code == 0, result.err
    header, rule, *rows = result.lines
    assert header.split() == ["id", "x", "name", "tags"]
    assert set(rule.replace(" ", "")) == {"-"}
    assert len(rows) == 4
    starts = [header.index(name) for name in ("id", "x", "name", "tags")]
    for row, values in zip(rows, table.to_pylist()[:4], strict=True):
        cells = [row[a:b].strip() for a, b in zip(starts, starts[1:] + [None], strict=True)]
        assert cells[0] == str(values["id"])
        assert cells[2] == ("null" if values["name"] is None else values["name"])


def test_cat_of_many_row_groups_limit_and_empty_output(tmp_path):
    path = tmp_path / "sample.parquet"
    table = write_sample(path)
    rows = run("cat", path, "--json", "--limit", "150").json_lines()
    assert [r["id"] for r in rows] == list(range(150))
    assert rows[7]["tags"] == table.to_pylist()[7]["tags"]
    empty = run("head", path, "-n", "0", "--csv", "--columns", "id,name")
    assert empty.code == 0 and empty.out == "id,name\n"


def test_dates_and_timestamps_beyond_datetime_show_as_iso_text(tmp_path):
    import pyarrow as pa

    path = tmp_path / "far.parquet"
    far = 1608822900000000000  # microseconds: the year 52951
    pq.write_table(pa.table({
        "ts": pa.array([0, far, None], pa.timestamp("us", "UTC")),
        "st": pa.array([{"t": pa.scalar(-far, pa.timestamp("us"))}] * 3, pa.struct([("t", pa.timestamp("us"))])),
        "day": pa.array([0, 3_000_000, -1_000_000], pa.date32()),
    }), path)
    result = run("head", path, "--json")
    assert result.code == 0, result.err
    rows = result.json_lines()
    assert [r["ts"] for r in rows] == ["1970-01-01T00:00:00+00:00", "52951-07-27T10:00:00+00:00", None]
    assert rows[0]["st"] == {"t": "-49012-06-06T14:00:00"}
    assert [r["day"] for r in rows] == ["1970-01-01", "10183-09-21", "-768-02-04"]
    for fmt in ((), ("--csv",)):
        shown = run("head", path, *fmt)
        assert shown.code == 0 and "52951-07-27T10:00:00" in shown.out, shown.err


def test_int96_nanoseconds_beyond_64_bits_show_exactly(tmp_path):
    import numpy as np

    from parquet_codec.cli.render import temporal_text
    from parquet_codec.types import LogicalInfo

    # 2262-04-12 and later overflow 64-bit nanoseconds; 7 ns past a second stays exact
    nanos = np.array([(23 * 3600 + 1) * 10**9 + 7], "<i8").view(np.uint8)
    day = np.array([2_550_000], "<i4").view(np.uint8)
    values = np.concatenate([nanos, day]).reshape(1, 12)
    assert temporal_text(values, LogicalInfo("int96", 3)).tolist() == ["2269-07-24T23:00:01.000000007"]


def test_help_documents_the_json_and_csv_conventions():
    for command in ("head", "cat"):
        text = " ".join(run(command, "--help").out.split())
        for convention in ("base64", "decimals and UUIDs as strings", "ISO 8601", '"NaN", "Infinity" and "-Infinity"',
                           '{"key": ..., "value": ...}', "empty cell for null", "durations"):
            assert convention in text, (command, convention)


def test_table_columns_line_up_on_screen_with_wide_and_combining_characters(tmp_path):
    import unicodedata

    import pyarrow as pa

    def columns_before(line: str, index: int) -> int:
        return sum(0 if unicodedata.combining(c) else 2 if unicodedata.east_asian_width(c) in "WF" else 1
                   for c in line[:index])

    path = tmp_path / "wide.parquet"
    pq.write_table(pa.table({"名前": ["漢字漢字", "a", "ｆｕｌｌ", "e\u0301e\u0301"], "n": [1, 22, 333, 4444],
                             "x": ["line\nbreak", "a\tb", "c\rd", "z"]}), path)
    for extra in ((), ("--max-width", "3")):
        result = run("head", path, *extra)
        assert result.code == 0, result.err
        lines = result.out.splitlines()
        assert len(lines) == 6
        starts = {columns_before(line, line.index("x" if i == 0 else line.split()[-1])) for i, line in
                  enumerate(lines) if i != 1}
        assert len(starts) == 1, result.out
