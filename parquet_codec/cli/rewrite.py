"""``rewrite IN OUT``: re-encode a file with other writer options.

The input is streamed row group by row group into a :class:`ParquetWriter`;
at most one output row group (plus one input row group) is held in memory.
Key-value metadata (a Spark or Arrow schema, for instance) is carried over.
"""

from __future__ import annotations

import argparse
import dataclasses
import os
from collections.abc import Iterator
from typing import Any

from parquet_codec.cli.common import UsageError, open_file, split_names
from parquet_codec.cli.progress import Progress
from parquet_codec.reader import ParquetFile
from parquet_codec.table import Table
from parquet_codec.writer import ParquetWriter, WriterOptions


def add_rewrite_options(parser: argparse.ArgumentParser) -> None:
    w = parser.add_argument_group("output options")
    w.add_argument("--compression", action="append", metavar="[COL=]CODEC",
                   help="codec: uncompressed, snappy, gzip, brotli, zstd, lz4, lz4_raw; COL=CODEC for one column "
                        "(repeatable; default snappy)")
    w.add_argument("--compression-level", type=int, metavar="N", help="codec level (gzip, brotli, zstd)")
    w.add_argument("--encoding", action="append", metavar="COL=ENC",
                   help="value encoding of a column when not dictionary-encoded: PLAIN, DELTA_BINARY_PACKED, "
                        "DELTA_LENGTH_BYTE_ARRAY, DELTA_BYTE_ARRAY, BYTE_STREAM_SPLIT, RLE (repeatable)")
    w.add_argument("--no-dictionary", action="append", nargs="?", const="*", metavar="COL",
                   help="no dictionary encoding (for COL only when given; repeatable)")
    w.add_argument("--data-page-version", choices=("1.0", "2.0"), help="data page layout (default 1.0)")
    w.add_argument("--row-group-size", type=int, metavar="ROWS", help="rows per row group (default: as the input)")
    w.add_argument("--data-page-size", type=int, metavar="BYTES", help="target page size (default 1 MiB)")
    w.add_argument("--page-checksum", action="store_true", help="write a CRC-32 in every page header")
    w.add_argument("--no-statistics", action="store_true", help="write no min/max/null statistics")
    w.add_argument("--no-page-index", action="store_true", help="write no column index / offset index")
    w.add_argument("--bloom", action="append", metavar="COL", help="write a bloom filter for COL (repeatable)")
    w.add_argument("--bloom-fpp", type=float, metavar="P", help="bloom filter false positive probability")
    w.add_argument("--bloom-ndv", type=int, metavar="N", help="expected distinct values per bloom filter")
    w.add_argument("--columns", action="append", metavar="A,B", help="keep only these columns (repeatable)")
    w.add_argument("--drop-metadata", action="store_true", help="do not carry key-value metadata over")


def run_rewrite(args: argparse.Namespace) -> int:
    if os.path.exists(args.output) and os.path.samefile(args.input, args.output):
        raise UsageError("OUT must differ from IN (the input is read while the output is written)")
    with open_file(args, args.input) as pf:
        options = writer_options(args, pf)
        columns = split_names(args.columns)
        schema = pf.read_row_groups([], columns).schema  # the projection, without reading any data
        target = args.row_group_size
        with Progress(pf.num_row_groups, "row groups", enabled=False if args.no_progress else None) as bar, \
                ParquetWriter(args.output, schema, **options) as writer:
            for table in _regrouped(_row_groups(pf, columns, bar), target):
                writer.write_table(table, row_group_size=target)
    return 0


def _row_groups(pf: ParquetFile, columns: list[str] | None, bar: Progress) -> Iterator[Table]:
    for index in range(pf.num_row_groups):
        table = pf.read_row_group(index, columns)
        bar.advance()
        yield table


def _regrouped(tables: Iterator[Table], target: int | None) -> Iterator[Table]:
    """Input row groups as they are, or joined and cut to ``target`` rows."""
    if target is None:
        yield from tables
        return
    if target <= 0:
        raise UsageError(f"--row-group-size must be positive, got {target}")
    pending: list[Table] = []
    rows = 0
    for table in tables:
        pending.append(table)
        rows += table.num_rows
        if rows >= target:
            joined = Table.concat(pending)
            whole = rows - rows % target
            yield joined.slice(0, whole)
            pending = [joined.slice(whole)] if whole < rows else []
            rows -= whole
    if rows:
        yield Table.concat(pending)


def writer_options(args: argparse.Namespace, pf: ParquetFile) -> dict[str, Any]:
    """ParquetWriter options from the command line."""
    known = {f.name for f in dataclasses.fields(WriterOptions)}
    options: dict[str, Any] = {}
    if args.compression:
        options["compression"] = _per_column(args.compression, "--compression", "snappy", pf)
    if args.compression_level is not None:
        options["compression_level"] = args.compression_level
    if args.encoding:
        options["column_encoding"] = _per_column(args.encoding, "--encoding", None, pf)
        if isinstance(options["column_encoding"], str):
            raise UsageError("--encoding takes COL=ENCODING")
    if args.no_dictionary:
        if "*" in args.no_dictionary:
            options["use_dictionary"] = False
        else:
            _check_names(args.no_dictionary, "--no-dictionary", pf)
            options["use_dictionary"] = {c: False for c in args.no_dictionary}
    if args.data_page_version:
        options["data_page_version"] = args.data_page_version
    if args.data_page_size:
        options["data_page_size"] = args.data_page_size
    if args.page_checksum:
        options["write_page_checksum"] = True
    if args.no_statistics:
        options["write_statistics"] = False
    if args.no_page_index:
        options["write_page_index"] = False
    if args.bloom:
        spec = {k: v for k, v in (("ndv", args.bloom_ndv), ("fpp", args.bloom_fpp)) if v is not None}
        options["bloom_filter_options"] = {column: dict(spec) for column in split_names(args.bloom) or []}
    if not args.drop_metadata and pf.metadata.key_value_metadata:
        options["key_value_metadata"] = pf.metadata.key_value_metadata
    missing = sorted(set(options) - known)
    if missing:
        flags = {"write_page_index": "--no-page-index", "bloom_filter_options": "--bloom"}
        names = ", ".join(flags.get(m, m) for m in missing)
        raise UsageError(f"this version's writer does not support {names} yet")
    return options


def _per_column(values: list[str], flag: str, default: Any, pf: ParquetFile) -> Any:
    """["zstd"] -> "zstd"; ["a=gzip", "zstd"] -> {leaf: codec} for every leaf
    column, "a" (a top-level name or a dotted leaf path) with gzip, the rest zstd."""
    overall, by_column = default, {}
    for value in values:
        column, sep, setting = value.rpartition("=")
        if not sep:
            overall = value
        elif not column or not setting:
            raise UsageError(f"{flag} {value!r} is not COL=VALUE")
        else:
            by_column[column] = setting
    if not by_column:
        return overall
    leaves = pf.schema.leaves
    _check_names(by_column, flag, pf)
    out = {}
    for leaf in leaves:
        setting = by_column.get(leaf.dotted_path, by_column.get(leaf.path[0], overall))
        if setting is not None:
            out[leaf.dotted_path] = setting
    return out


def _check_names(names: Any, flag: str, pf: ParquetFile) -> None:
    """UsageError unless each name is a top-level column or a dotted leaf path."""
    leaves = pf.schema.leaves
    unknown = sorted(set(names) - {leaf.dotted_path for leaf in leaves} - {leaf.path[0] for leaf in leaves})
    if unknown:
        raise UsageError(f"{flag} names columns not in the file: {unknown}")


__all__ = ["add_rewrite_options", "run_rewrite", "writer_options"]
