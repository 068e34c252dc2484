"""Where a column chunk's data pages begin and end (File Format: "Data Pages";
"Nested Encoding" for records).

A page closes once its estimated value bytes reach ``data_page_size`` or it
holds ``max_rows_per_page`` rows, whichever comes first, as pyarrow's
writer closes them (both counted from the page's own start). Unlike pyarrow
and parquet-java, which cap pages at 20,000 rows, no row cap applies unless
one is given: every page costs a level encoding and a compression call, so
the cap costs 10-40% of the write time on small values here;
``max_rows_per_page=20000`` gives their layout. A page of a
repeated column begins at a record (repetition level 0), as the page index
requires (PageIndex.md: pages start at row boundaries), so a size cut moves
to the next record start. Work is per page: searches over cumulative sums
and the record starts, never a loop over values.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass

import numpy as np

from parquet_codec.levels import LeafData, row_starts

#: Rows per data page at most when none is given: no cap (see the module docstring).
DEFAULT_MAX_ROWS_PER_PAGE: int | None = None


@dataclass
class SlotLevels:
    """Slot-level facts of one leaf: value index of each slot, record starts."""

    leaf: LeafData
    max_def: int
    value_at: np.ndarray | None  # number of non-null values before each slot (None: slot == value)
    starts: np.ndarray | None  # record starts (slot positions); None: every slot starts a record

    def values_before(self, slot: int) -> int:
        if self.value_at is None:
            return slot
        return int(self.value_at[slot]) if slot < len(self.value_at) - 1 else int(self.value_at[-1])

    def slot_of_value(self, value: int) -> int:
        """The slot holding non-null value ``value``."""
        if self.value_at is None:
            return value
        return int(np.searchsorted(self.value_at, value, side="right")) - 1


def slot_levels(leaf: LeafData, max_def: int) -> SlotLevels:
    """The :class:`SlotLevels` of a shredded leaf."""
    value_at = None
    if leaf.def_levels is not None:
        present = leaf.def_levels == max_def
        if not present.all():  # with no null slot, slot i holds value i
            value_at = np.zeros(leaf.num_values + 1, dtype=np.int64)
            np.cumsum(present, out=value_at[1:])
    starts = None if leaf.rep_levels is None else row_starts(leaf.rep_levels, leaf.num_values)
    return SlotLevels(leaf, max_def, value_at, starts)


def page_cuts(lv: SlotLevels, start: int, stop: int, value_cost: np.ndarray | float, page_size: int,
              max_rows: int | None) -> list[int]:
    """Slot boundaries of the pages over slots ``start..stop`` (``start`` a record
    start): each page closes at the first record start after its estimated
    size reaches ``page_size``, or after ``max_rows`` records.

    ``value_cost`` is the PLAIN bytes of every value (an array) or of each
    value (a number); null slots cost nothing."""
    if stop <= start:
        return []
    max_rows = sys.maxsize if max_rows is None else max_rows
    first = lv.values_before(start)
    count = lv.values_before(stop) - first
    per_page = None if isinstance(value_cost, np.ndarray) else max(1, int(page_size // max(value_cost, 1e-9)))
    if per_page is not None and lv.value_at is None and lv.starts is None:
        # Flat, no nulls, fixed size: every page holds the same number of rows.
        step = min(per_page, max_rows)
        return [*range(start, stop, step), stop]
    cum = None
    if per_page is None:
        cum = np.zeros(count + 1, dtype=np.float64)  # cum[k]: bytes of the first k values
        np.cumsum(value_cost[first : first + count], out=cum[1:])
    starts = lv.starts
    cuts, pos = [start], start
    while pos < stop:
        done = lv.values_before(pos) - first  # values before the page, within the range
        if cum is None:
            fill = done + per_page - 1  # the value that fills the page
        else:
            # At least one value a page: a page size below one value's bytes (or below
            # zero) would otherwise close every page before it holds anything.
            fill = max(done, int(np.searchsorted(cum, cum[done] + page_size, side="left")) - 1)
        end = stop if fill >= count else lv.slot_of_value(first + fill) + 1
        if starts is None:
            end = min(end, pos + max_rows)
        else:
            row = int(np.searchsorted(starts, pos, side="left"))  # the record starting at pos
            at = int(np.searchsorted(starts, end, side="left"))  # snap to the next record start
            end = int(starts[min(at, row + max_rows)]) if min(at, row + max_rows) < len(starts) else stop
        cuts.append(min(end, stop))
        pos = cuts[-1]
    return cuts


__all__ = ["DEFAULT_MAX_ROWS_PER_PAGE", "SlotLevels", "page_cuts", "slot_levels"]
