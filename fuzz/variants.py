"""Mutated variants of corpus files, checked against the contract cheaply.

Used by the test suite (tests/fuzz/test_corpus_contract.py): a variant whose
mutation touched one page is read only for that page's column chunk; any
other variant is opened and one column chunk is read. Each read runs under
the fuzz targets' memory limit.
"""

from __future__ import annotations

import random
from collections.abc import Iterator

from fuzz.contract import check_error
from fuzz.layout import parse
from fuzz.mutator import mutate_scoped
from fuzz.targets import MEMORY_LIMIT
from parquet_codec.errors import ParquetError
from parquet_codec.reader import ParquetFile

_SMALL = 64  # rows up to which a variant's table is also turned into Python objects


def variants(data: bytes, seed: int, count: int) -> Iterator[tuple[bytes, tuple[int, int] | None]]:
    """``count`` mutations of ``data``, each of the original, reproducible from ``seed``."""
    rng = random.Random(seed)
    parsed = parse(data)
    for _ in range(count):
        yield mutate_scoped(data, rng, parsed)


def read_scoped(data: bytes, scope: tuple[int, int] | None, pick: int) -> None:
    """Open ``data`` and read the column chunk ``scope`` (or one chosen by ``pick``)."""
    with ParquetFile(data, memory_limit=MEMORY_LIMIT) as pf:
        leaves = pf.schema.leaves
        if not pf.num_row_groups or not leaves:
            return
        group, leaf = scope if scope is not None else (pick, pick)
        table = pf.read_row_group(group % pf.num_row_groups, columns=[leaves[leaf % len(leaves)].dotted_path])
        if table.num_rows <= _SMALL:
            table.to_pylist()


def check_variant(data: bytes, scope: tuple[int, int] | None, pick: int) -> ParquetError | None:
    """The contract on one variant: rows or a ParquetError that says what and where."""
    try:
        read_scoped(data, scope, pick)
    except ParquetError as exc:
        check_error(exc, where=True)
        return exc
    return None


__all__ = ["check_variant", "read_scoped", "variants"]
