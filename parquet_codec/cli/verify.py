"""``verify FILE...``: a full integrity check, one line per finding.

For every column chunk: walk the pages and check each CRC-32, decode every
page, count the rows, and hold the data against what the file claims about
it - chunk and page statistics (min/max by the column's sort order, null
counts), a geospatial column's bounding box and geometry types, the column index and offset index, the bloom filter. The footer is
checked on open (its signature too, for encrypted files read with keys),
and the row counts of row groups against the footer's.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from parquet_codec.arrays import Array, take_range
from parquet_codec.arrow_schema import ARROW_SCHEMA_KEY, schema_from_metadata
from parquet_codec.cli.common import (
    Chunk,
    chunk_of,
    chunk_padding,
    decryption_for,
    expand_paths,
    memory_limit,
    source_of,
)
from parquet_codec.cli.inspect import header_size, stat_bounds
from parquet_codec.cli.progress import Progress
from parquet_codec.cli.render import show_bound
from parquet_codec.column import read_column_chunk
from parquet_codec.errors import MetadataError, ParquetError, UnsupportedError
from parquet_codec.format.ttypes import PageType
from parquet_codec.geospatial import geospatial_statistics
from parquet_codec.io import ByteSource
from parquet_codec.levels import LeafData
from parquet_codec.limits import memory_budget
from parquet_codec.page import RawPage, iter_pages, verify_crc
from parquet_codec.reader import ParquetFile
from parquet_codec.schema import REPEATED
from parquet_codec.sort_keys import bound_keys
from parquet_codec.statistics import encode_bound, value_bounds
from parquet_codec.types import LogicalInfo, logical_info

_DATA_PAGES = (PageType.DATA_PAGE, PageType.DATA_PAGE_V2)


@dataclass
class Report:
    """Findings of one run, printed as they are found."""

    out: Any
    bar: Progress
    count: int = 0

    def finding(self, path: str, where: str, problem: str) -> None:
        self.count += 1
        self.bar.close()  # erase the bar before writing to the same screen
        self.out.write(f"{path}: {where + ': ' if where else ''}{problem}\n")
        self.out.flush()


def run_verify(args: argparse.Namespace) -> int:
    paths = expand_paths(args.files)
    sizes = {p: os.path.getsize(p) if os.path.isfile(p) else 0 for p in paths}
    with Progress(sum(sizes.values()), "bytes checked", enabled=False if args.no_progress else None) as bar:
        report = Report(sys.stdout, bar)
        for path in paths:
            bar.set_label(os.path.basename(path))
            before = report.count
            summary = FileCheck(path, args, report).run()
            bar.advance(sizes[path])
            if not args.quiet:
                found = report.count - before
                bar.close()
                sys.stdout.write(f"{path}: {'OK' if not found else f'{found} finding(s)'}{summary}\n")
    if len(paths) > 1 and not args.quiet:
        sys.stdout.write(f"{len(paths)} files checked, {report.count} finding(s)\n")
    return 1 if report.count else 0


def where_text(row_group: int | None = None, column: str | None = None, page: int | None = None,
               offset: int | None = None) -> str:
    parts = []
    if row_group is not None:
        parts.append(f"row group {row_group}")
    if column is not None:
        parts.append(f"column {column!r}")
    if page is not None:
        parts.append(f"page {page}")
    if offset is not None:
        parts.append(f"offset {offset}")
    return ", ".join(parts)


def _error_where(exc: ParquetError, **known: Any) -> str:
    context = {**known, **{k: v for k, v in exc.context.items() if k in ("row_group", "column", "page")}}
    return where_text(context.get("row_group"), context.get("column"), context.get("page"),
                      exc.context.get("file_offset"))


@dataclass
class _Counts:
    row_groups: int = 0
    rows: int = 0
    chunks: int = 0
    pages: int = 0


class FileCheck:
    """Every check of one file."""

    def __init__(self, path: str, args: argparse.Namespace, report: Report) -> None:
        self.path, self.args, self.report = path, args, report
        self.counts = _Counts()

    def find(self, where: str, problem: str) -> None:
        self.report.finding(self.path, where, problem)

    def run(self) -> str:
        try:
            pf = ParquetFile(self.path, verify_checksums=False, decryption=decryption_for(self.args, self.path),
                             memory_limit=memory_limit())
        except ParquetError as exc:
            self.find(_error_where(exc) or "footer", f"cannot open: {exc.message}")
            return ""
        except OSError as exc:
            self.find("", f"cannot open: {exc.strerror or exc}")
            return ""
        with pf, source_of(self.path) as source:
            self._check_file(pf, source)
        c = self.counts
        return f" ({c.row_groups} row groups, {c.rows} rows, {c.chunks} column chunks, {c.pages} pages)"

    def _check_file(self, pf: ParquetFile, source: ByteSource) -> None:
        meta = pf.metadata
        keys = getattr(meta, "decryptor", None) is not None
        if meta.encryption_algorithm is not None and not keys:
            self.find("footer", "file is encrypted: its footer signature and encrypted columns are not checked "
                                "without keys")
        self._check_schemas(pf)
        total = 0
        for index in range(meta.num_row_groups):
            try:
                total += self._check_row_group(pf, source, index)
            except ParquetError as exc:
                self.find(_error_where(exc, row_group=index), exc.message)
        if total != meta.num_rows:
            self.find("footer", f"row groups hold {total} rows, the footer declares {meta.num_rows}")

    def _check_schemas(self, pf: ParquetFile) -> None:
        """The Arrow and Spark schemas the footer's key-value metadata stores must
        decode: pyarrow refuses a file whose ARROW:schema does not."""
        stored = pf.metadata.key_value_metadata.get(ARROW_SCHEMA_KEY)
        if stored is not None:
            try:
                schema_from_metadata(stored)
            except MetadataError as exc:
                self.find("footer", exc.message)
        try:
            pf.spark_schema  # noqa: B018 - parsed for its errors
        except ParquetError as exc:
            self.find("footer", exc.message)

    def _check_row_group(self, pf: ParquetFile, source: ByteSource, index: int) -> int:
        group = pf.metadata.row_group(index)
        self.counts.row_groups += 1
        self.counts.rows += group.num_rows
        padding = chunk_padding(pf)
        for leaf in pf.schema.leaves:
            try:
                chunk = chunk_of(pf, index, leaf)
            except ParquetError as exc:
                self.find(_error_where(exc, row_group=index, column=leaf.dotted_path), exc.message)
                continue
            if chunk.encrypted and chunk.decryptor is None:
                continue  # no keys: reported once for the file
            if chunk.meta is None:
                self.find(where_text(index, leaf.dotted_path), "column chunk has no metadata")
                continue
            self.counts.pages += ChunkCheck(pf, source, chunk, group.num_rows, padding, self.find).run()
            self.counts.chunks += 1
        return group.num_rows


@dataclass
class _Page:
    raw: RawPage
    position: int  # index among all pages of the chunk, dictionary page included
    start: int  # first level slot
    stop: int
    values_start: int  # first non-null value
    values_stop: int
    first_row: int
    rows: int
    nulls: tuple[int, ...]  # see ChunkCheck._nulls


@dataclass
class ChunkCheck:
    """The checks of one column chunk."""

    pf: ParquetFile
    source: ByteSource
    chunk: Chunk
    num_rows: int
    padding: int
    find_at: Callable[[str, str], None]
    pages: list[RawPage] = field(default_factory=list)

    @property
    def column(self) -> str:
        return self.chunk.leaf.dotted_path

    def find(self, problem: str, page: int | None = None, offset: int | None = None) -> None:
        self.find_at(where_text(self.chunk.row_group, self.column, page, offset), problem)

    def run(self) -> int:
        """Check the chunk; the number of pages it has."""
        meta = self.chunk.meta
        if not meta.num_values:
            return 0
        try:
            data, start = self.chunk.read_bytes(self.source, self.padding)
            self.pages = list(iter_pages(data, start, meta.num_values, self.chunk.decryptor))
        except ParquetError as exc:
            self.find_at(_error_where(exc, row_group=self.chunk.row_group, column=self.column), exc.message)
            return 0
        for page in self.pages:
            try:
                verify_crc(page)
            except ParquetError as exc:
                self.find(exc.message, page.ordinal, page.offset)
        with memory_budget(memory_limit()):  # what the chunk declares is reserved before it is decoded
            leaf_data = self._decode()
            if leaf_data is not None:
                try:
                    self._check_data(leaf_data, data, start)
                except MemoryError:  # the checks' own arrays, beyond what decoding reserved
                    self.find("cannot check the values: the column chunk does not fit in memory")
        return len(self.pages)

    def _check_data(self, leaf_data: LeafData, data: memoryview, start: int) -> None:
        meta = self.chunk.meta
        pages = self._split(leaf_data)
        rows = sum(p.rows for p in pages) if pages else 0
        if rows != self.num_rows:
            self.find(f"pages hold {rows} rows, the row group declares {self.num_rows}")
        info = logical_info(self.chunk.leaf.element)
        self._check_statistics(meta.statistics, leaf_data.values, self._nulls(leaf_data.def_levels), info)
        if info.geo is not None and meta.geospatial_statistics is not None:
            self._check_geospatial(meta.geospatial_statistics, leaf_data.values, info.geo.geography)
        for page in pages:
            self._check_page(page, leaf_data.values, info)
        self._check_page_index(pages, leaf_data.values, info, data, start)
        self._check_bloom(leaf_data.values, info)

    def _decode(self) -> LeafData | None:
        try:
            return read_column_chunk(self.source, self.chunk.chunk, self.chunk.leaf, verify_checksums=False,
                                     padding=self.padding, decryptor=self.chunk.decryptor)
        except ParquetError as exc:
            self.find_at(_error_where(exc, row_group=self.chunk.row_group, column=self.column),
                         f"cannot decode: {exc.message}")
            return None
        except MemoryError:
            self.find("cannot decode: the column chunk does not fit in memory")
            return None

    def _nulls(self, def_levels: np.ndarray | None) -> tuple[int, ...]:
        """The null count as writers count it: every slot below the max definition
        level (parquet-java), or only null elements, not null or empty lists (Arrow)."""
        if def_levels is None or not len(def_levels):
            return (0,)
        max_def = self.chunk.leaf.max_definition_level
        everything = int(np.count_nonzero(def_levels < max_def))
        floor = _element_level(self.chunk.leaf)
        if floor == 0:
            return (everything,)
        return everything, int(np.count_nonzero((def_levels < max_def) & (def_levels >= floor)))

    def _split(self, leaf: LeafData) -> list[_Page]:
        """The data pages with their slices of the chunk's levels and values."""
        max_def = self.chunk.leaf.max_definition_level
        out, slot, value, row = [], 0, 0, 0
        for position, page in enumerate(self.pages):
            if page.type not in _DATA_PAGES:
                continue
            header = page.header.data_page_header or page.header.data_page_header_v2
            stop = slot + header.num_values
            defs = None if leaf.def_levels is None else leaf.def_levels[slot:stop]
            reps = None if leaf.rep_levels is None else leaf.rep_levels[slot:stop]
            present = stop - slot if defs is None else int(np.count_nonzero(defs == max_def))
            starts = stop - slot if reps is None else int(np.count_nonzero(reps == 0))
            first = row if reps is None or not len(reps) or reps[0] == 0 else row - 1
            out.append(_Page(page, position, slot, stop, value, value + present, first, starts, self._nulls(defs)))
            slot, value, row = stop, value + present, row + starts
        return out

    # ------------------------------------------------------------ statistics
    def _check_statistics(self, stats: Any, values: Array, nulls: tuple[int, ...], info: LogicalInfo,
                          page: int | None = None, what: str = "statistics") -> None:
        if stats is None:
            return
        if stats.null_count is not None and stats.null_count not in nulls:
            self.find(f"{what} null count {stats.null_count}, the data has {nulls[0]} nulls", page)
        lo, hi = stat_bounds(stats, info)
        exact = (stats.is_min_value_exact, stats.is_max_value_exact) if stats.min_value is not None else (None, None)
        self._check_bounds(lo, hi, values, info, page, what, exact)

    def _check_geospatial(self, stats: Any, values: Array, geography: bool) -> None:
        """The stored types must hold every geometry's type, and a GEOMETRY
        box every coordinate (X may wrap around the antimeridian: xmin >
        xmax). A GEOGRAPHY box comes from spherical arithmetic, which puts
        vertices on its edges only up to rounding: it is not checked."""
        actual = geospatial_statistics(values)
        if actual is None:
            self.find("geospatial statistics, but a value is not WKB")
            return
        missing = sorted(set(actual.geospatial_types) - set(stats.geospatial_types or actual.geospatial_types))
        if missing:
            self.find(f"geospatial statistics types {stats.geospatial_types} lack {missing}, present in the data")
        box, real = stats.bbox, actual.bbox
        if box is None or real is None or geography:
            return
        for axis in "xyzm":
            lo, hi = getattr(box, f"{axis}min"), getattr(box, f"{axis}max")
            real_lo, real_hi = getattr(real, f"{axis}min"), getattr(real, f"{axis}max")
            if None in (lo, hi, real_lo, real_hi) or (axis == "x" and lo > hi):
                continue
            if real_lo < lo or real_hi > hi:
                self.find(f"geospatial statistics {axis} range [{lo}, {hi}] but the data spans [{real_lo}, {real_hi}]")

    def _check_bounds(self, lo: bytes | None, hi: bytes | None, values: Array, info: LogicalInfo,
                      page: int | None, what: str, exact: tuple[bool | None, bool | None] = (None, None)) -> None:
        if lo is None and hi is None:
            return
        actual = value_bounds(values, info)
        if actual is None:
            if len(values) == 0:
                self.find(f"{what} give bounds but there is no non-null value", page)
            return
        keys, usable = bound_keys([bytes(lo or b""), bytes(hi or b"")], info)
        real_lo, real_hi = _comparable(actual.min), _comparable(actual.max)
        checks = (("min", lo, 0, real_lo, actual.min, exact[0], lambda k, r: k > r),
                  ("max", hi, 1, real_hi, actual.max, exact[1], lambda k, r: k < r))
        for name, raw, i, real, real_key, is_exact, lies in checks:
            if raw is None or not usable[i]:
                continue
            key = _comparable(keys[i])
            if lies(key, real) or (is_exact and key != real):
                side = "smallest" if name == "min" else "largest"
                shown = show_bound(encode_bound(real_key, info), info)
                self.find(f"{what} {name} {show_bound(raw, info)} but the {side} value is {shown}", page)

    def _check_page(self, page: _Page, values: Array, info: LogicalInfo) -> None:
        header = page.raw.header
        sub = header.data_page_header or header.data_page_header_v2
        if header.type == PageType.DATA_PAGE_V2:
            if sub.num_nulls is not None and sub.num_nulls not in page.nulls:
                self.find(f"page header says {sub.num_nulls} nulls, its levels give {page.nulls[0]}",
                          page.raw.ordinal)
            if sub.num_rows is not None and sub.num_rows != page.rows:
                self.find(f"page header says {sub.num_rows} rows, its levels give {page.rows}", page.raw.ordinal)
        if sub.statistics is not None:
            part = take_range(values, page.values_start, page.values_stop)
            self._check_statistics(sub.statistics, part, page.nulls, info, page.raw.ordinal, "page statistics")

    # ------------------------------------------------------------ page index
    def _check_page_index(self, pages: list[_Page], values: Array, info: LogicalInfo, data: memoryview,
                          start: int) -> None:
        try:
            offsets = self.pf.offset_index(self.chunk.row_group, self.column)
            columns = self.pf.column_index(self.chunk.row_group, self.column)
        except ParquetError as exc:  # of an encrypted column: authentication failures too
            self.find(f"page index: {exc.message}")
            return
        if offsets is not None:
            self._check_offset_index(offsets, pages, data, start)
        if columns is not None:
            self._check_column_index(columns, pages, values, info)

    def _check_offset_index(self, index: Any, pages: list[_Page], data: memoryview, start: int) -> None:
        locations = index.page_locations
        if len(locations) != len(pages):
            self.find(f"offset index lists {len(locations)} pages, the chunk has {len(pages)} data pages")
            return
        for loc, page in zip(locations, pages, strict=True):
            ordinal = page.raw.ordinal
            size = header_size(self.chunk, data, start, self.pages, page.position)
            if loc.offset != page.raw.offset:
                self.find(f"offset index puts the page at offset {loc.offset}, it is at {page.raw.offset}", ordinal)
            elif size is not None and loc.compressed_page_size != size + len(page.raw.body):
                self.find(f"offset index gives {loc.compressed_page_size} bytes, the page has "
                          f"{size + len(page.raw.body)}", ordinal)
            if loc.first_row_index != page.first_row:
                self.find(f"offset index gives first row {loc.first_row_index}, the page starts at row "
                          f"{page.first_row}", ordinal)

    def _check_column_index(self, index: Any, pages: list[_Page], values: Array, info: LogicalInfo) -> None:
        if len(index.null_pages) != len(pages):
            self.find(f"column index lists {len(index.null_pages)} pages, the chunk has {len(pages)} data pages")
            return
        for i, page in enumerate(pages):
            ordinal, present = page.raw.ordinal, page.values_stop - page.values_start
            if index.null_counts and index.null_counts[i] < 0:
                continue  # parquet-java's marker of a page written without statistics
            if bool(index.null_pages[i]) != (present == 0):
                state = "only nulls" if index.null_pages[i] else "values"
                self.find(f"column index says the page holds {state}, it has {present} non-null values", ordinal)
                continue
            if index.null_counts and index.null_counts[i] not in page.nulls:
                self.find(f"column index null count {index.null_counts[i]}, the page has {page.nulls[0]}", ordinal)
            if not index.null_pages[i]:
                part = take_range(values, page.values_start, page.values_stop)
                self._check_bounds(index.min_values[i], index.max_values[i], part, info, ordinal, "column index")

    # ------------------------------------------------------------ bloom filter
    def _check_bloom(self, values: Array, info: LogicalInfo) -> None:
        try:
            bloom = self.pf.bloom_filter(self.chunk.row_group, self.column)
        except UnsupportedError:
            return
        except ParquetError as exc:
            self.find(f"bloom filter: {exc.message}")
            return
        if bloom is None or len(values) == 0 or not bloom.proves_absence:
            return
        found = bloom.check_values(values, info.physical_type, type_length=info.type_length)
        missing = int(np.count_nonzero(~found))
        if missing:
            self.find(f"bloom filter lacks {missing} of {len(found)} values")


def _element_level(leaf: Any) -> int:
    """The definition level at which the leaf's innermost list has an element (0 outside lists)."""
    node = leaf.parent
    while node is not None and node.parent is not None:
        if node.repetition == REPEATED:
            return node.max_definition_level
        node = node.parent
    return 0


def _comparable(key: Any) -> Any:
    """Keys of value_bounds and bound_keys on common ground (plain Python numbers;
    decimals in bytes by their numeric value)."""
    if isinstance(key, tuple):
        key = key[0]
    if isinstance(key, np.generic):
        key = key.item()
    if isinstance(key, bool):
        key = int(key)
    return key


__all__ = ["ChunkCheck", "FileCheck", "run_verify"]
