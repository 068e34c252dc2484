"""Cutting the tables of row groups into record batches of a given size, as
pyarrow's ``ParquetFile.iter_batches`` cuts them."""

from __future__ import annotations

from collections.abc import Iterable, Iterator

from parquet_codec.table import Table


def record_batches(tables: Iterable[Table], batch_size: int) -> Iterator[Table]:
    """Tables of ``batch_size`` rows (the last one fewer) from the row groups'
    ``tables`` in order. The rows carried over to the next batch are copied,
    so the row group they came from is released first."""
    # Batches cut the rows into runs of ``batch_size``, joining row groups.
    # As pyarrow's, a batch holding a column read as an Arrow dictionary is
    # also cut where a row group with a dictionary page of its own starts
    # (the rows before hold the previous dictionary's indices).
    carried: Table | None = None  # the open batch's rows since its last cut
    window = 0  # rows of the open batch so far
    for table in tables:
        start = min(batch_size - window, table.num_rows) if window else 0
        if start:
            if carried is not None and table.dictionaries:
                yield carried
                carried = None
            carried = _copied(table.slice(0, start), carried)
            window += start
            if window == batch_size:
                yield carried
                carried, window = None, 0
        for first in range(start, table.num_rows, batch_size):
            if table.num_rows - first >= batch_size:
                yield table.slice(first, batch_size)
                continue
            window = table.num_rows - first
            carried = _copied(table.slice(first))
    if carried is not None:
        yield carried


def _copied(rows: Table, before: Table | None = None) -> Table:
    """``rows`` after ``before`` (if any) in a table of their own: concat
    copies, where a slice would hold its whole row group."""
    return Table.concat([rows.slice(0, 0) if before is None else before, rows])


__all__ = ["record_batches"]
