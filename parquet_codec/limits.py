"""Memory limits for reading untrusted files.

A Parquet file declares sizes (uncompressed page sizes, value counts) that
it does not have to back with bytes: a 200-byte page may claim 2**31 values
of bit width 0. Every allocation whose size comes from such a declaration
is first *reserved* here. Within a :func:`memory_budget` the reservations of
one read are added up and a reservation that would pass the ceiling raises
:class:`ResourceLimitError` before anything is allocated.

The bound this gives (see README, "Hostile input"): reading a file holds at
most a small multiple of the bytes it reads from the file, plus the bytes
reserved under the budget, so peak memory <= ``4 * file bytes read +
memory_limit`` plus the interpreter's own. Without a budget (the default)
reservations only check that a single size is representable.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass

from parquet_codec.errors import ResourceLimitError

# No single buffer of the format can exceed this (numpy and Python sizes are
# signed 64-bit; declared sizes are i32/i64 Thrift fields).
MAX_ALLOCATION = 2**62


@dataclass
class MemoryBudget:
    """Bytes that one read may allocate for declared sizes, and what it has reserved."""

    limit: int
    used: int = 0

    def reserve(self, nbytes: int, what: str) -> None:
        if nbytes > self.limit - self.used:
            raise ResourceLimitError(
                f"{what} needs {nbytes} bytes; with {self.used} already reserved this read "
                f"would exceed its memory_limit of {self.limit} bytes"
            )
        self.used += nbytes


_budget: ContextVar[MemoryBudget | None] = ContextVar("parquet_codec_memory_budget", default=None)


@contextmanager
def memory_budget(limit: int | None) -> Iterator[MemoryBudget | None]:
    """Run a read under ``limit`` bytes of reservations (None: no ceiling).

    Nested budgets share the outermost one, so a whole ``read()`` is bounded
    as one and a row group read on its own gets a fresh budget."""
    current = _budget.get()
    if current is not None or limit is None:
        yield current
        return
    if limit < 0:
        raise ValueError(f"memory_limit must be >= 0, got {limit}")
    budget = MemoryBudget(int(limit))
    token = _budget.set(budget)
    try:
        yield budget
    finally:
        _budget.reset(token)


def reserve(nbytes: int, what: str) -> None:
    """Account for an allocation of ``nbytes`` about to be made for ``what``."""
    if nbytes < 0 or nbytes > MAX_ALLOCATION:
        raise ResourceLimitError(f"{what} declares an impossible size of {nbytes} bytes")
    budget = _budget.get()
    if budget is not None:
        budget.reserve(nbytes, what)


def reserve_items(count: int, itemsize: int, what: str) -> None:
    """:func:`reserve` for ``count`` elements of ``itemsize`` bytes."""
    reserve(int(count) * int(itemsize), what)


__all__ = ["MAX_ALLOCATION", "MemoryBudget", "memory_budget", "reserve", "reserve_items"]
