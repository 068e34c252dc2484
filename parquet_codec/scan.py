"""Filtered reads: prune what cannot match, decode the rest, filter rows exactly.

Per row group (architecture.md, "Data flow"): chunk statistics, then bloom
filters (read only when statistics could not prune) decide whether it is read
at all; the page index turns the filter into a row selection
(:class:`~parquet_codec.offset_index.RowRanges`); every needed column - the
projected ones and the filtered ones - fetches through its OffsetIndex only
the pages holding selected rows, plus its dictionary page (PageIndex.md).
Pages of different columns cover different rows, so each column is cut to
exactly the selected rows; the filter is then evaluated on the decoded values
and every projected column cut to the matching rows before assembly.

Pruning only ever narrows what is read, so what it trusts must be sound:
bounds with the minimum above the maximum, a ColumnIndex that contradicts its
column, and a bloom filter or page index that cannot be read are not used
(the rows are read and filtered exactly instead).

:meth:`Scanner.plan` is also what ``ParquetFile.plan`` reports
(:class:`ReadPlan`), so the plan printed is the plan executed.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from parquet_codec.arrays import Array
from parquet_codec.column import chunk_range, read_column_chunk, read_column_pages
from parquet_codec.errors import CorruptFileError, MetadataError, ParquetError, UnsupportedError
from parquet_codec.format.ttypes import OffsetIndex
from parquet_codec.levels import LeafData, assemble, keep_dictionary, num_rows
from parquet_codec.offset_index import RowRanges, pages_for_rows, rows_of_pages
from parquet_codec.predicate import (
    Filter,
    Predicate,
    bind,
    bloom_might_match,
    page_index_rows,
    parse_filters,
    statistics_might_match,
    uses_bloom_filter,
    with_duration_units,
    with_timestamp_dates,
)
from parquet_codec.row_filter import rows_match, take_rows
from parquet_codec.schema import Schema, SchemaNode
from parquet_codec.table import Table

STATISTICS, BLOOM_FILTER, PAGE_INDEX = "statistics", "bloom filter", "page index"


# ---------------------------------------------------------------- plans


@dataclass
class ColumnPlan:
    """What one column chunk of a kept row group fetches."""

    column: str  # dotted leaf path
    returned: bool  # False: read only to evaluate the filter
    pages: int | None  # data pages of the chunk; None without an OffsetIndex
    pages_kept: int | None
    bytes_to_fetch: int  # page bytes (headers included), dictionary page included
    bytes_total: int  # the whole chunk
    selection: np.ndarray | None = field(default=None, repr=False)  # page indices; None = whole chunk
    offset_index: OffsetIndex | None = field(default=None, repr=False)


@dataclass
class RowGroupPlan:
    index: int
    num_rows: int
    skipped_by: str | None  # STATISTICS, BLOOM_FILTER or PAGE_INDEX; None when read
    rows: RowRanges  # candidate rows after page pruning (before the exact filter)
    columns: list[ColumnPlan]

    @property
    def rows_selected(self) -> int:
        return self.rows.num_rows


@dataclass
class ReadPlan:
    """What a filtered read fetches, and why (``str()`` prints it as a table)."""

    filter: Filter
    columns: list[str]  # leaf columns read: projected, then filter-only
    row_groups: list[RowGroupPlan]
    bytes_total: int  # every chunk of the needed columns in every row group

    @property
    def num_rows(self) -> int:
        return sum(g.num_rows for g in self.row_groups)

    @property
    def kept(self) -> list[RowGroupPlan]:
        return [g for g in self.row_groups if g.skipped_by is None]

    @property
    def bytes_to_fetch(self) -> int:
        return sum(c.bytes_to_fetch for g in self.kept for c in g.columns)

    @property
    def rows_selected(self) -> int:
        return sum(g.rows_selected for g in self.kept)

    def skipped_by(self, reason: str) -> int:
        return sum(g.skipped_by == reason for g in self.row_groups)

    def __str__(self) -> str:
        share = self.bytes_to_fetch / self.bytes_total if self.bytes_total else 0.0
        lines = [
            f"filter: {self.filter}",
            f"row groups: {len(self.kept)} of {len(self.row_groups)} kept; skipped by statistics "
            f"{self.skipped_by(STATISTICS)}, bloom filter {self.skipped_by(BLOOM_FILTER)}, "
            f"page index {self.skipped_by(PAGE_INDEX)}",
            f"bytes to fetch: {self.bytes_to_fetch:,} of {self.bytes_total:,} ({share:.2%})",
            f"rows selected: {self.rows_selected:,} of {self.num_rows:,} (before the exact row filter)",
            "",
            f"{'rg':>4}  {'rows':>10}  {'selected':>10}  {'status':<24}  {'column':<24}  {'pages':>11}  {'bytes':>23}",
        ]
        for g in self.row_groups:
            status = "read" if g.skipped_by is None else f"skipped ({g.skipped_by})"
            head = f"{g.index:>4}  {g.num_rows:>10,}  {g.rows_selected:>10,}  {status:<24}"
            if not g.columns:
                lines.append(head)
            for k, c in enumerate(g.columns):
                pages = "whole chunk" if c.pages_kept is None else f"{c.pages_kept}/{c.pages}"
                name = c.column if c.returned else c.column + " (filter)"
                prefix = head if k == 0 else " " * len(head)
                lines.append(f"{prefix}  {name:<24}  {pages:>11}  {c.bytes_to_fetch:>11,}/{c.bytes_total:<11,}")
        return "\n".join(line.rstrip() for line in lines)


# ---------------------------------------------------------------- the scanner


class Scanner:
    """A filtered read of ``projection`` from ``pf`` (a :class:`~parquet_codec.reader.ParquetFile`)."""

    def __init__(self, pf: Any, projection: Schema, filters: object) -> None:
        self.pf = pf
        self.projection = projection
        filt = parse_filters(filters)
        if filt is None:
            raise ValueError("a filtered read needs filters")
        self.filter = filt = with_column_values(filt, pf._arrow[1], pf.schema)
        self.refs = bind(filt, pf.schema)
        schema = pf.schema
        returned = [schema.leaf(n.path) for f in projection.fields for n in f.leaf_nodes()]
        wanted = {leaf.column_index: leaf for leaf in returned}
        for ref in self.refs.values():
            wanted.setdefault(ref.leaf.column_index, ref.leaf)
        self.leaves: list[SchemaNode] = [wanted[i] for i in sorted(wanted)]
        self.returned = {leaf.path for leaf in returned}
        self._offsets: dict[tuple[int, int], OffsetIndex | None] = {}

    # Planning ----------------------------------------------------------
    def plan(self, indices: Iterable[int] | None = None) -> ReadPlan:
        indices = range(self.pf.num_row_groups) if indices is None else indices
        groups = [self.plan_row_group(i) for i in indices]
        total = sum(self._chunk_size(i, leaf) for i in (g.index for g in groups) for leaf in self.leaves)
        order = [leaf for leaf in self.leaves if leaf.path in self.returned]
        order += [leaf for leaf in self.leaves if leaf.path not in self.returned]
        return ReadPlan(self.filter, [leaf.dotted_path for leaf in order], groups, total)

    def plan_row_group(self, index: int) -> RowGroupPlan:
        group = self.pf.metadata.row_group(index)
        n = group.num_rows
        orders = self.pf.metadata.column_orders

        def stats(p: Predicate) -> bool:
            meta = self.pf._column_meta(index, self.refs[p.column].leaf)  # decrypted for encrypted columns
            return meta is None or statistics_might_match(p, self.refs[p.column], meta, orders)

        if n == 0 or not self.filter.might_match(stats):
            return RowGroupPlan(index, n, STATISTICS, RowRanges.empty(), [])
        blooms: dict[str, Any] = {}

        def bloom(p: Predicate) -> bool:
            if not uses_bloom_filter(p):
                return True
            if p.column not in blooms:
                blooms[p.column] = self._bloom(index, p.column)
            return bloom_might_match(p, blooms[p.column])

        if not self.filter.might_match(lambda p: stats(p) and bloom(p)):
            return RowGroupPlan(index, n, BLOOM_FILTER, RowRanges.empty(), [])
        rows = self.filter.row_ranges(lambda p: self._page_rows(index, p, n), n)
        if not len(rows):
            return RowGroupPlan(index, n, PAGE_INDEX, rows, [])
        return RowGroupPlan(index, n, None, rows, [self._column_plan(index, leaf, rows, n) for leaf in self.leaves])

    # The bloom filter and page index only narrow what is read: one that is malformed
    # (or from a newer format) is not used and the rows are read instead, as DuckDB
    # and pyarrow do; bloom_filter, column_index and offset_index report it when asked.
    def _bloom(self, index: int, column: str) -> Any:
        return _optional_index(lambda: self.pf.bloom_filter(index, column))

    def _offset_index(self, index: int, leaf: SchemaNode) -> OffsetIndex | None:
        key = (index, leaf.column_index)
        if key not in self._offsets:
            self._offsets[key] = _optional_index(lambda: self.pf.offset_index(index, leaf.column_index))
        return self._offsets[key]

    def _page_rows(self, index: int, p: Predicate, n: int) -> RowRanges:
        ref = self.refs[p.column]
        offsets = self._offset_index(index, ref.leaf)
        if offsets is None:
            return RowRanges.all(n)
        column_index = _optional_index(lambda: self.pf.column_index(index, ref.leaf.column_index))
        return page_index_rows(p, ref, column_index, offsets, n)

    def _chunk_size(self, index: int, leaf: SchemaNode) -> int:
        meta = self.pf._column_meta(index, leaf)
        return 0 if meta is None else int(meta.total_compressed_size or 0)

    def _column_plan(self, index: int, leaf: SchemaNode, rows: RowRanges, n: int) -> ColumnPlan:
        total = self._chunk_size(index, leaf)
        returned = leaf.path in self.returned
        meta = self.pf._column_meta(index, leaf)
        offsets = self._offset_index(index, leaf) if meta is not None else None
        if offsets is None or not offsets.page_locations:
            return ColumnPlan(leaf.dotted_path, returned, None, None, total, total)
        num_pages = len(offsets.page_locations)
        if rows.num_rows == n:  # nothing pruned: one read of the whole chunk
            return ColumnPlan(leaf.dotted_path, returned, num_pages, num_pages, total, total, None, offsets)
        pages = pages_for_rows(offsets, rows, n)
        start, _ = chunk_range(meta, self.pf._source.size)
        dictionary = max(offsets.page_locations[0].offset - start, 0)
        sizes = sum(offsets.page_locations[int(i)].compressed_page_size for i in pages)
        return ColumnPlan(leaf.dotted_path, returned, num_pages, len(pages), dictionary + sizes, total, pages, offsets)

    # Reading -------------------------------------------------------------
    def tables(self, indices: Iterable[int] | None = None) -> Iterator[Table]:
        """One Table per row group with matching rows, in file order."""
        for index in range(self.pf.num_row_groups) if indices is None else indices:
            plan = self.plan_row_group(index)
            if plan.skipped_by is None:
                with self.pf.bounded(index):
                    table = self.read(plan)
                if table.num_rows:
                    yield table

    def read(self, plan: RowGroupPlan) -> Table:
        """The rows of one planned row group that match the filter exactly."""
        decoded = {c.column: self._decode(plan, c) for c in plan.columns}
        selected = _row_ids(plan.rows)
        trimmed = {}
        for name, ref in self.refs.items():
            data, covered = decoded[name]
            trimmed[name] = take_rows(data, _member_of(covered, selected), ref.leaf.max_definition_level)
        mask = self.filter.row_mask(lambda p: rows_match(p, self.refs[p.column], trimmed[p.column]), len(selected))
        final = selected[mask]
        arrays: dict[str, Array] = {}
        dictionaries: dict[str, list[Array]] = {}
        for fld in self.projection.fields:
            leaves = {}
            for node in fld.leaf_nodes():
                data, covered = decoded[node.dotted_path]
                leaves[node.path] = take_rows(data, _member_of(covered, final), node.max_definition_level)
            try:
                arrays[fld.name] = assemble(fld, leaves, num_rows=len(final))
            except ParquetError as exc:
                exc.add_context(file=self.pf._source.name, row_group=plan.index, column=fld.name)
                raise
            keep_dictionary(dictionaries, fld.name, (decoded[node.dotted_path][0] for node in fld.leaf_nodes()))
        return self.pf._table(self.projection, arrays, len(final), dictionaries)

    def _decode(self, plan: RowGroupPlan, column: ColumnPlan) -> tuple[LeafData, np.ndarray]:
        """The column's decoded pages and the (sorted) row numbers they hold."""
        pf, index = self.pf, plan.index
        leaf = pf.schema.leaf(column.column)
        group = pf.metadata.row_group(index)
        chunk = group.columns[leaf.column_index]
        try:
            decryptor = pf._decryptor(index, group, leaf, chunk)
            if column.selection is not None:
                picked = self._picked_pages(plan, column, chunk, leaf, decryptor)
                if picked is not None:
                    return picked
            data = read_column_chunk(pf._source, chunk, leaf, verify_checksums=pf.verify_checksums,
                                     padding=pf._chunk_padding, decryptor=decryptor,
                                     keep_dictionary=pf._keeps_dictionary(leaf))
            if num_rows(data) != plan.num_rows:  # the rows are matched by number against the row group's
                raise CorruptFileError(f"column holds {num_rows(data)} rows, the row group declares {plan.num_rows}")
        except ParquetError as exc:
            exc.add_context(file=pf._source.name, row_group=index, column=leaf.dotted_path)
            raise
        return data, np.arange(plan.num_rows, dtype=np.int64)


    def _picked_pages(self, plan: RowGroupPlan, column: ColumnPlan, chunk: Any, leaf: SchemaNode,
                      decryptor: object | None) -> tuple[LeafData, np.ndarray] | None:
        """The pages the offset index picked, decoded, and their row numbers;
        None when the index does not keep its promise (pages it places where
        none can be read, or that do not start at row boundaries): the chunk
        is then read whole, as without an index."""
        pf = self.pf
        try:
            data = read_column_pages(pf._source, chunk, leaf, column.offset_index.page_locations, column.selection,
                                     verify_checksums=pf.verify_checksums, decryptor=decryptor,
                                     keep_dictionary=pf._keeps_dictionary(leaf))
        except CorruptFileError:
            return None
        covered = rows_of_pages(column.offset_index, column.selection, plan.num_rows)
        if num_rows(data) != covered.num_rows:  # counted before the row numbers are laid out
            return None
        return data, _row_ids(covered)


def with_column_values(filt: Filter, origin: dict[str, Any], schema: Schema) -> Filter:
    """``filt`` with its Python values given as the columns hold them where
    the type alone does not say: time spans on durations (``origin``: the
    stored Arrow fields) as counts of the unit, dates on timestamps as midnights."""
    return with_timestamp_dates(with_duration_units(filt, duration_units(origin, filt.columns)), schema)


def duration_units(origin: dict[str, Any], columns: list[str]) -> dict[str, str]:
    """The unit of each filtered column whose stored Arrow type is a duration."""
    units = {}
    for column in columns:
        name, *rest = column.split(".")
        field = origin.get(name)
        for child in rest:
            field = next((c for c in field.children if c.name == child), None) if field is not None else None
        if field is not None and field.type.id == "duration" and field.type.unit:
            units[column] = field.type.unit
    return units


def _optional_index(read: Callable[[], Any]) -> Any:
    """What ``read`` returns, or None when the index it reads is malformed or unsupported."""
    try:
        return read()
    except (UnsupportedError, CorruptFileError, MetadataError):
        return None


def _row_ids(ranges: RowRanges) -> np.ndarray:
    """Every row number in ``ranges``, ascending."""
    lengths = ranges.stops - ranges.starts
    total = int(lengths.sum())
    shift = ranges.starts - (np.cumsum(lengths) - lengths)
    return np.arange(total, dtype=np.int64) + np.repeat(shift, lengths)


def _member_of(rows: np.ndarray, wanted: np.ndarray) -> np.ndarray:
    """For each of the sorted ``rows``, whether it is in the sorted ``wanted``."""
    if not len(wanted):
        return np.zeros(len(rows), dtype=bool)
    pos = np.minimum(np.searchsorted(wanted, rows), len(wanted) - 1)
    return wanted[pos] == rows


__all__ = ["BLOOM_FILTER", "PAGE_INDEX", "STATISTICS", "ColumnPlan", "ReadPlan", "RowGroupPlan", "Scanner", "duration_units",
           "with_column_values"]
