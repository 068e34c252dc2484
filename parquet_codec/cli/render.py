"""Turning values and records into text: aligned tables, JSON lines, CSV
cells, and statistics bounds (PLAIN bytes) shown as the column's values."""

from __future__ import annotations

import base64
import datetime
import decimal
import json
import math
import unicodedata
import uuid
from collections.abc import Iterable, Sequence
from typing import Any, TextIO

import numpy as np

from parquet_codec.arrays import PrimitiveArray
from parquet_codec.arrow_origin import leaf_to_pylist
from parquet_codec.errors import UnsupportedError
from parquet_codec.format.ttypes import CompressionCodec, Encoding, PageType, Type
from parquet_codec.statistics import bound_value
from parquet_codec.table import Column, array_to_pylist
from parquet_codec.temporal import UNITS_PER_SECOND, apply_nulls, int96_micros
from parquet_codec.types import LogicalInfo

MAX_CELL = 40


# ---------------------------------------------------------------- enum names


def type_name(physical: int | None) -> str:
    return Type._VALUES_TO_NAMES.get(physical, str(physical))


def codec_name(codec: int | None) -> str:
    return CompressionCodec._VALUES_TO_NAMES.get(codec, str(codec))


def encoding_name(encoding: int | None) -> str:
    return Encoding._VALUES_TO_NAMES.get(encoding, str(encoding))


def page_type_name(page_type: int | None) -> str:
    return PageType._VALUES_TO_NAMES.get(page_type, str(page_type))


# ---------------------------------------------------------------- values


def jsonable(value: Any) -> Any:
    """A Python value (as ``to_pylist`` gives it) as JSON-compatible data:
    bytes as base64, Decimal and UUID as strings, dates and times in ISO form,
    maps as lists of {"key", "value"}, non-finite floats as strings."""
    if value is None or isinstance(value, (bool, int, str)):
        return value
    if isinstance(value, float):
        return value if math.isfinite(value) else str(value).replace("inf", "Infinity").replace("nan", "NaN")
    if isinstance(value, (bytes, bytearray, memoryview)):
        return base64.b64encode(bytes(value)).decode("ascii")
    if isinstance(value, (decimal.Decimal, uuid.UUID)):
        return str(value)
    if isinstance(value, (datetime.date, datetime.time)):  # datetime is a date
        return value.isoformat()
    if isinstance(value, dict):
        return {str(k): jsonable(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        if value and all(isinstance(item, tuple) and len(item) == 2 for item in value):
            return [{"key": jsonable(k), "value": jsonable(v)} for k, v in value]
        return [jsonable(item) for item in value]
    if isinstance(value, np.generic):
        return jsonable(value.item())
    return str(value)


def column_values(column: Column) -> list:
    """A column's values as ``to_pylist`` gives them, except that dates and
    timestamps Python's datetime cannot hold (years outside 1..9999,
    nanoseconds without pandas) are ISO 8601 text, so that one such value
    does not keep a whole file from being shown."""
    try:
        return column.to_pylist()
    except UnsupportedError:
        return array_to_pylist(column.field, column.array, column.origin, column.options.int96_unit,
                               leaf=_leaf_values)


def _leaf_values(array: Any, info: LogicalInfo, origin: Any, int96_unit: str | None) -> list:
    try:
        return leaf_to_pylist(array, info, origin, int96_unit)
    except UnsupportedError:
        if not isinstance(array, PrimitiveArray) or info.kind not in ("timestamp", "int96", "date"):
            raise
    return apply_nulls(temporal_text(array.values, info).tolist(), array.validity)


def temporal_text(values: np.ndarray, info: LogicalInfo) -> np.ndarray:
    """DATE, TIMESTAMP or INT96 values as ISO 8601 strings over numpy's whole
    range (negative and five-digit years), to the nanosecond, "+00:00" when
    adjusted to UTC; the digits of a fraction as ``isoformat`` gives them."""
    values = np.asarray(values)
    if info.kind == "date":
        return np.datetime_as_string(values.astype(np.int64).astype("datetime64[D]"))
    if info.kind == "int96":
        micros, sub = int96_micros(values)
        seconds, rest = np.divmod(micros, 10**6)
        extra, nanos = np.divmod(rest * 1000 + sub, 10**9)
        seconds = seconds + extra
    else:
        per = UNITS_PER_SECOND[info.unit]
        seconds, rest = np.divmod(values.astype(np.int64), per)
        nanos = rest * (10**9 // per)
    text = np.datetime_as_string(seconds.astype("datetime64[s]"))
    micro = np.char.add(".", np.char.zfill((nanos // 1000).astype(str), 6))
    nano = np.char.add(".", np.char.zfill(nanos.astype(str), 9))
    text = np.char.add(text, np.where(nanos == 0, "", np.where(nanos % 1000 == 0, micro, nano)))
    return np.char.add(text, "+00:00") if info.kind == "timestamp" and info.utc else text


def to_json(value: Any) -> str:
    return json.dumps(jsonable(value), ensure_ascii=False, allow_nan=False)


def text_cell(value: Any) -> str:
    """A value as the text of a table or CSV cell (nested values as JSON)."""
    if value is None:
        return "null"
    if isinstance(value, str):
        return value
    if isinstance(value, (bytes, bytearray, memoryview)):
        return repr(bytes(value))
    if isinstance(value, (dict, list, tuple)):
        return to_json(value)
    if isinstance(value, datetime.datetime):
        return value.isoformat(sep=" ")
    if isinstance(value, (datetime.date, datetime.time)):
        return value.isoformat()
    return str(value)


def clip(text: str, width: int = MAX_CELL) -> str:
    """One line of at most ``width`` terminal columns (line breaks and tabs escaped)."""
    text = text.replace("\n", "\\n").replace("\r", "\\r").replace("\t", "\\t")
    if text_width(text) <= width:
        return text
    kept, used = [], 0
    for char in text:
        used += _char_width(char)
        if used > width - 1:
            break
        kept.append(char)
    return "".join(kept) + "…"


def text_width(text: str) -> int:
    """The terminal columns ``text`` takes: two for East Asian wide and
    full-width characters, none for combining marks."""
    return len(text) if text.isascii() else sum(map(_char_width, text))


def _char_width(char: str) -> int:
    if unicodedata.combining(char):
        return 0
    return 2 if unicodedata.east_asian_width(char) in ("W", "F") else 1


def pad(text: str, width: int, right: bool = False) -> str:
    """``text`` filled with spaces to ``width`` terminal columns."""
    fill = " " * max(0, width - text_width(text))
    return fill + text if right else text + fill


# ---------------------------------------------------------------- statistics bounds


def show_bound(raw: bytes | None, info: LogicalInfo, width: int = MAX_CELL) -> str:
    """A bound for display; hex when it does not decode (a truncated string)."""
    if raw is None:
        return ""
    try:
        return clip(text_cell(bound_value(raw, info)), width)
    except Exception:  # noqa: BLE001 - any undecodable bound is shown raw
        return clip("0x" + bytes(raw).hex(), width)


def show_size(n: int | None) -> str:
    if n is None:
        return ""
    for unit in ("B", "KiB", "MiB", "GiB"):
        if abs(n) < 1024 or unit == "GiB":
            return f"{n} B" if unit == "B" else f"{n:.1f} {unit}"
        n /= 1024
    return str(n)


# ---------------------------------------------------------------- tables


def table_lines(headers: Sequence[str], rows: Iterable[Sequence[str]], *, right: Sequence[str] = ()) -> list[str]:
    """An aligned text table; columns named in ``right`` align right (numbers)."""
    rows = [list(map(str, r)) for r in rows]
    widths = [text_width(h) for h in headers]
    for row in rows:
        widths = [max(w, text_width(cell)) for w, cell in zip(widths, row, strict=True)]
    aligned = [h in right for h in headers]

    def line(cells: Sequence[str]) -> str:
        parts = [pad(c, w, r) for c, w, r in zip(cells, widths, aligned, strict=True)]
        return "  ".join(parts).rstrip()

    return [line(headers), line(["-" * w for w in widths])] + [line(r) for r in rows]


def print_table(out: TextIO, headers: Sequence[str], rows: Iterable[Sequence[str]], *,
                right: Sequence[str] = (), indent: str = "") -> None:
    for text in table_lines(headers, rows, right=right):
        out.write(indent + text + "\n")


def print_records(out: TextIO, records: list[dict[str, Any]], as_json: bool, *, right: Sequence[str] = (),
                  indent: str = "") -> None:
    """Records as JSON lines, or as an aligned table of their keys."""
    if as_json:
        for record in records:
            out.write(to_json(record) + "\n")
        return
    if not records:
        return
    headers = list(records[0])
    rows = [["" if r.get(h) is None else str(r[h]) for h in headers] for r in records]
    print_table(out, headers, rows, right=right, indent=indent)


__all__ = [
    "MAX_CELL", "clip", "codec_name", "column_values", "encoding_name", "jsonable", "pad", "page_type_name", "print_records",
    "print_table", "show_bound", "show_size", "table_lines", "temporal_text", "text_cell", "text_width", "to_json",
    "type_name",
]
