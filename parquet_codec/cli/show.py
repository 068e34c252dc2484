"""Showing rows: ``head`` and ``cat`` as an aligned table, JSON lines or CSV."""

from __future__ import annotations

import argparse
import csv
import sys
from collections.abc import Iterator
from typing import Any, TextIO

from parquet_codec.cli.common import non_negative_int, open_file, split_names
from parquet_codec.cli.progress import Progress
from parquet_codec.cli.render import (
    MAX_CELL,
    clip,
    column_values,
    jsonable,
    pad,
    text_cell,
    text_width,
    to_json,
)
from parquet_codec.reader import ParquetFile
from parquet_codec.table import Table

_BATCH = 1024
_FORMATS = (
    "JSON values: null for nulls; bytes (binary, fixed-size binary) as base64; decimals and UUIDs as strings; "
    "dates, times and timestamps in ISO 8601 (timestamps adjusted to UTC end in +00:00; years outside 1..9999 "
    "are written out, as -44-03-15 or 12000-01-01); durations as Python prints them (1 day, 2:03:04.500000); "
    'NaN and infinities as the strings "NaN", "Infinity" and "-Infinity"; structs as objects; lists as arrays; maps as '
    'arrays of {"key": ..., "value": ...} (keys need not be strings). CSV cells: as in JSON, except an empty cell '
    "for null (and for an empty string), True/False, nan/inf/-inf, nested values as JSON text, and a space "
    "between date and time (within years 1..9999). The table: as CSV, bytes as Python literals (b'...'), "
    "newlines and tabs as \\n and \\t."
)


def add_show_options(parser: argparse.ArgumentParser) -> None:
    parser.epilog = _FORMATS
    fmt = parser.add_mutually_exclusive_group()
    fmt.add_argument("--json", action="store_true", help="one JSON object per row (values as described below)")
    fmt.add_argument("--csv", action="store_true", help="CSV with a header row (nested values as JSON)")
    parser.add_argument("--columns", action="append", metavar="A,B", help="only these columns (repeatable)")
    parser.add_argument("--max-width", type=non_negative_int, default=MAX_CELL, metavar="N",
                        help=f"widest table cell before it is cut (default {MAX_CELL}; 0: never cut)")


def run_head(args: argparse.Namespace) -> int:
    with open_file(args, args.file) as pf:
        _show(args, pf, limit=args.n, progress=False)
    return 0


def run_cat(args: argparse.Namespace) -> int:
    with open_file(args, args.file) as pf:
        _show(args, pf, limit=args.limit, progress=not args.no_progress)
    return 0


def _show(args: argparse.Namespace, pf: ParquetFile, *, limit: int | None, progress: bool) -> None:
    columns = split_names(args.columns)
    total = pf.num_rows if limit is None else min(limit, pf.num_rows)
    names = [name.split(".")[-1] for name in columns] if columns else [f.name for f in pf.schema.fields]
    writer = _writer(args, sys.stdout, names)
    with Progress(total, "rows", enabled=None if progress else False) as bar:
        for batch in _batches(pf, columns, limit):
            writer.write(batch)
            bar.advance(batch.num_rows)
    writer.finish()


def _batches(pf: ParquetFile, columns: list[str] | None, limit: int | None) -> Iterator[Table]:
    """Batches of at most ``_BATCH`` rows, ``limit`` rows in all; one row group decoded at a time."""
    left = limit
    for index in range(pf.num_row_groups):
        if left == 0:
            return
        if pf.metadata.row_group(index).num_rows == 0:
            continue
        table = pf.read_row_group(index, columns)
        if columns is not None:
            table = table.select(columns)
        for start in range(0, table.num_rows, _BATCH):
            size = _BATCH if left is None else min(_BATCH, left)
            if size == 0:
                return
            batch = table.slice(start, size)
            yield batch
            if left is not None:
                left -= batch.num_rows


class _Writer:
    def __init__(self, out: TextIO, names: list[str]) -> None:
        self.out = out
        self.names = names

    def write(self, batch: Table) -> None:
        raise NotImplementedError

    def finish(self) -> None:
        pass


class _JsonWriter(_Writer):
    def write(self, batch: Table) -> None:
        names = batch.column_names
        rows = zip(*[column_values(c) for c in batch.columns], strict=True) if names else [()] * batch.num_rows
        self.out.write("".join(to_json(dict(zip(names, row, strict=True))) + "\n" for row in rows))


class _CsvWriter(_Writer):
    def __init__(self, out: TextIO, names: list[str]) -> None:
        super().__init__(out, names)
        self.csv = csv.writer(out, lineterminator="\n")
        self.header_done = False

    def write(self, batch: Table) -> None:
        if not self.header_done:
            self.csv.writerow(batch.column_names)
            self.header_done = True
        columns = [column_values(c) for c in batch.columns]
        self.csv.writerows([_csv_cell(v) for v in row] for row in zip(*columns, strict=True))

    def finish(self) -> None:
        if not self.header_done:  # an empty file still gets its header
            self.csv.writerow(self.names)
            self.header_done = True


class _TableWriter(_Writer):
    """An aligned table; widths are fixed by the first batch (and grow when a
    later batch needs more), so rows stream instead of waiting for the end."""

    def __init__(self, out: TextIO, names: list[str], max_width: int) -> None:
        super().__init__(out, names)
        self.max_width = max_width if max_width > 0 else 10**9
        self.widths: list[int] | None = None
        self.rows = 0

    def write(self, batch: Table) -> None:
        names = batch.column_names
        columns = [[clip(text_cell(v), self.max_width) for v in column_values(c)] for c in batch.columns]
        rows = list(zip(*columns, strict=True)) if columns else [()] * batch.num_rows
        widths = [max([text_width(n)] + [text_width(cell) for cell in col]) for n, col in zip(names, columns, strict=True)]
        if self.widths is None:
            self.widths = widths
            self._line(names)
            self._line(["-" * w for w in widths])
        else:
            self.widths = [max(a, b) for a, b in zip(self.widths, widths, strict=True)]
        self.out.write("".join(self._format(row) + "\n" for row in rows))
        self.rows += batch.num_rows

    def _format(self, cells: Any) -> str:
        return "  ".join(pad(cell, w) for cell, w in zip(cells, self.widths, strict=True)).rstrip()

    def _line(self, cells: Any) -> None:
        self.out.write(self._format(cells) + "\n")

    def finish(self) -> None:
        if self.widths is None:
            self.widths = [text_width(n) for n in self.names]
            self._line(self.names)
            self._line(["-" * w for w in self.widths])


def _csv_cell(value: Any) -> str:
    if value is None:
        return ""
    if isinstance(value, (bytes, bytearray, memoryview)):
        return jsonable(value)
    if isinstance(value, (dict, list, tuple)):
        return to_json(value)
    return text_cell(value)


def _writer(args: argparse.Namespace, out: TextIO, names: list[str]) -> _Writer:
    if args.json:
        return _JsonWriter(out, names)
    if args.csv:
        return _CsvWriter(out, names)
    return _TableWriter(out, names, args.max_width)


__all__ = ["add_show_options", "run_cat", "run_head"]
