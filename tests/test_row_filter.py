"""Exact evaluation of filters on decoded rows (parquet_codec.row_filter)."""

from __future__ import annotations

import datetime as dt
import io
import operator

import pytest

import parquet_codec as pc
from parquet_codec.schema import Schema, primitive

# INT96 timestamps as Spark writes them by default: before 1677 and after 2262
# they lie beyond 64-bit nanoseconds, and the reader gives them in microseconds.
INT96_VALUES = [dt.datetime(1317, 5, 15, 2, 6, 33, 623015), dt.datetime(1901, 2, 3, 2, 9, 0, 51664), None,
                dt.datetime(7637, 6, 11, 19, 29, 9, 447847), dt.datetime(1582, 10, 6, 11, 58, 9, 975160),
                dt.datetime(2067, 12, 6, 9, 50, 19, 146660)]
OPERATORS = {"==": operator.eq, "!=": operator.ne, "<": operator.lt, "<=": operator.le, ">": operator.gt,
             ">=": operator.ge}


@pytest.fixture(scope="module")
def int96_file() -> bytes:
    schema = Schema.from_fields([primitive("id", "INT32", "required"), primitive("t", "INT96")])
    table = pc.Table.from_pylist([{"id": i, "t": v} for i, v in enumerate(INT96_VALUES)], schema)
    out = io.BytesIO()
    pc.write_table(table, out, row_group_size=3)
    return out.getvalue()


def _ids(data: bytes, filters) -> list[int]:
    return pc.read_table(io.BytesIO(data), filters=filters, columns=["id"]).column("id").to_pylist()


@pytest.mark.parametrize("op", list(OPERATORS))
@pytest.mark.parametrize("literal", [INT96_VALUES[0], INT96_VALUES[1], INT96_VALUES[3], dt.datetime(1600, 1, 1)])
def test_int96_beyond_nanoseconds_compares_by_instant(int96_file, op, literal):
    expected = [i for i, v in enumerate(INT96_VALUES) if v is not None and OPERATORS[op](v, literal)]
    assert _ids(int96_file, [("t", op, literal)]) == expected


def test_int96_beyond_nanoseconds_set_membership(int96_file):
    members = {INT96_VALUES[0], INT96_VALUES[5], dt.datetime(1000, 1, 1)}
    assert _ids(int96_file, [("t", "in", members)]) == [0, 5]
    assert _ids(int96_file, [("t", "not in", members)]) == [1, 2, 3, 4]
